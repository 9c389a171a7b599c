// ipfs swarm connect (kubo core/commands/swarm.go swarmConnectCmd): stops at the first failure.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { ERR_OFFLINE, parseAddresses, stringListText, type StringList } from './common.js'

export const swarmConnect = defineCommand({
  path: ['swarm', 'connect'],
  description: 'Open connection to a given peer.',
  help: "'ipfs swarm connect' attempts to ensure a connection to a given peer.\n\nMultiaddresses given are advisory, for example the node may already be aware of other addresses for a given peer or may already have an established connection to the peer.\n\nThe address format is a libp2p multiaddr:\n\nipfs swarm connect /ip4/104.131.131.82/tcp/4001/p2p/QmaCpDMGvV2BGHeYERUEnRQAwe3N8SzbUtfsmvsqQLuvuJ",
  args: [{ name: 'address', kind: 'string', required: true, variadic: true, stdin: true, description: 'Address of peer to connect to.' }],
  output: 'single',
  run: async ({ args, options, deps: { libp2p, network }, signal }): Promise<StringList> => {
    const infos = parseAddresses(args)
    const output: string[] = []
    for (const info of infos) {
      const label = `connect ${info.id.toString()}`
      if (libp2p == null || network == null || options.offline === true) throw new RpcError(`${label} failure: ${ERR_OFFLINE}`)
      try {
        if (info.addrs.length > 0) {
          for (const a of info.addrs) network.filters.vouch(a)
          await libp2p.peerStore.merge(info.id, { multiaddrs: info.addrs })
          // the addresses given are tried (an open connection to the peer is reused)
          await libp2p.dial(info.addrs.map(a => a.encapsulate(`/p2p/${info.id.toString()}`)), { signal })
        } else {
          await libp2p.dial(info.id, { signal })
        }
      } catch (err) {
        throw new RpcError(`${label} failure: ${(err as Error).message}`)
      }
      output.push(`${label} success`)
    }
    return { Strings: output }
  },
  text: stringListText
})
