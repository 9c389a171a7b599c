// ipfs p2p stream ls (Kubo core/commands/p2p.go p2pStreamLsCmd): the open tunnels.
import { defineCommand } from '../../../registry/define.js'
import { p2pNode, table, type P2PStreamsOutput } from '../common.js'

export const p2pStreamLs = defineCommand({
  path: ['p2p', 'stream', 'ls'],
  description: 'List active p2p streams.',
  status: 'experimental',
  options: {
    headers: { type: 'bool', aliases: ['v'], description: 'Print table headers (ID, Protocol, Local, Remote).' }
  },
  output: 'single',
  run ({ deps }): P2PStreamsOutput {
    const { p2p } = p2pNode(deps)
    const streams = p2p.streams().map(s => ({ HandlerID: String(s.id), Protocol: s.protocol, OriginAddress: s.origin.toString(), TargetAddress: s.target.toString() }))
    return { Streams: streams.length > 0 ? streams : null }
  },
  text: (out, { options }) => table('ID\tProtocol\tOrigin\tTarget',
    (out.Streams ?? []).map(s => [s.HandlerID, s.Protocol, s.OriginAddress, s.TargetAddress]), options.headers)
})
