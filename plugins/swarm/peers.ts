// ipfs swarm peers (kubo core/commands/swarm.go swarmPeersCmd): one entry per connection, sorted by address.
import { defineCommand } from '../../registry/define.js'
import { formatGoDuration } from '../../core/util/duration.js'
import { cleanAndTrim, printPeer } from '../id/id.js'
import type { IdOutput } from '../id/output.js'
import { coreOnline } from './common.js'
import type { ConnInfo, ConnInfos } from './output.js'

const EMPTY_ID: IdOutput = { ID: '', PublicKey: '', Addresses: null, AgentVersion: '', Protocols: null }
/** network.Direction: DirInbound 1, DirOutbound 2 */
const DIRECTION = { inbound: 1, outbound: 2 } as const
const cmp = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0

export const swarmPeers = defineCommand({
  path: ['swarm', 'peers'],
  description: 'List peers with open connections.',
  help: "'ipfs swarm peers' lists the set of peers this node is connected to.",
  options: {
    verbose: { type: 'bool', aliases: ['v'], description: 'display all extra information' },
    streams: { type: 'bool', description: 'Also list information about open streams for each peer' },
    latency: { type: 'bool', description: 'Also list information about latency to each peer' },
    direction: { type: 'bool', description: 'Also list information about the direction of connection' },
    identify: { type: 'bool', description: 'Also list information about peers identify' }
  },
  output: 'single',
  run: async ({ options, deps: { libp2p, network } }): Promise<ConnInfos> => {
    const { libp2p: host, network: net } = coreOnline(libp2p, network, options.offline)
    const v = options.verbose === true
    const peers: ConnInfo[] = []
    for (const c of host.getConnections()) {
      const id = c.remotePeer
      const addr = c.remoteAddr.toString().replace(new RegExp(`/p2p/${id.toString()}$`), '')
      // Go's field order: Addr, Peer, Latency, Muxer, Direction, Streams, Identify
      const ci = { Addr: addr, Peer: id.toString() } as ConnInfo
      if (v || options.latency === true) {
        const ns = net.latency(id.toString())
        ci.Latency = ns == null || ns === 0n ? 'n/a' : formatGoDuration(ns)
      }
      if (v || options.direction === true) ci.Direction = DIRECTION[c.direction]
      if (v || options.streams === true) {
        const streams = c.streams.map(s => ({ Protocol: cleanAndTrim(s.protocol ?? '') })).sort((a, b) => cmp(a.Protocol, b.Protocol))
        if (streams.length > 0) ci.Streams = streams
      }
      ci.Identify = v || options.identify === true ? await printPeer(p => p.toString(), id, host) : EMPTY_ID
      peers.push(ci)
    }
    peers.sort((a, b) => cmp(a.Addr, b.Addr))
    return { Peers: peers.length > 0 ? peers : null }
  },
  text: (out) => (out.Peers ?? []).map(p => {
    let line = `${p.Addr}/p2p/${p.Peer}`
    if (p.Latency != null && p.Latency !== '') line += ` ${p.Latency}`
    if (p.Direction === 1) line += ' inbound'
    else if (p.Direction === 2) line += ' outbound'
    line += '\n'
    for (const s of p.Streams ?? []) line += `  ${s.Protocol === '' ? '<no protocol name>' : s.Protocol}\n`
    return line
  }).join('')
})
