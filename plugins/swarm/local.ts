// ipfs swarm addrs local (kubo swarmAddrsLocalCmd): the addresses announced to the network.
import { defineCommand } from '../../registry/define.js'
import { coreOnline, stringListText, type StringList } from './common.js'

const cmp = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0

export const swarmAddrsLocal = defineCommand({
  path: ['swarm', 'addrs', 'local'],
  description: 'List local addresses.',
  help: "'ipfs swarm addrs local' lists all local listening addresses announced to the network.",
  options: {
    id: { type: 'bool', description: 'Show peer ID in addresses.' }
  },
  output: 'single',
  run: async ({ options, deps: { libp2p, network } }): Promise<StringList> => {
    const { libp2p: host } = coreOnline(libp2p, network, options.offline)
    const self = host.peerId.toString()
    const addrs = [...new Set(host.getMultiaddrs().map(a => a.toString().replace(new RegExp(`/p2p/${self}$`), '')))]
      .map(a => options.id === true ? `${a}/p2p/${self}` : a)
      .sort(cmp)
    return { Strings: addrs.length > 0 ? addrs : null }
  },
  text: stringListText
})
