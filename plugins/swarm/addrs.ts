// ipfs swarm addrs (kubo swarmAddrsCmd): every address in the peer store, by peer.
import { defineCommand } from '../../registry/define.js'
import { coreOnline } from './common.js'
import type { AddrMap } from './output.js'

export const swarmAddrs = defineCommand({
  path: ['swarm', 'addrs'],
  description: 'List known addresses. Useful for debugging.',
  help: "'ipfs swarm addrs' lists all addresses this node is aware of.",
  output: 'single',
  run: async ({ options, deps: { libp2p, network } }): Promise<AddrMap> => {
    const { libp2p: host } = coreOnline(libp2p, network, options.offline)
    const out: Record<string, string[]> = {}
    for (const peer of await host.peerStore.all()) {
      if (peer.addresses.length === 0) continue
      out[peer.id.toString()] = peer.addresses.map(a => a.multiaddr.toString())
    }
    // our own addresses are in go-libp2p's peerstore too
    const self = host.peerId.toString()
    if (out[self] == null) {
      const mine = host.getMultiaddrs().map(a => a.toString().replace(new RegExp(`/p2p/${self}$`), ''))
      if (mine.length > 0) out[self] = [...new Set(mine)]
    }
    return { Addrs: out }
  },
  text: (out) => Object.keys(out.Addrs).sort().map(p => {
    const addrs = out.Addrs[p] ?? []
    return `${p} (${addrs.length})\n` + addrs.map(a => `\t${a}\n`).join('')
  }).join('')
})
