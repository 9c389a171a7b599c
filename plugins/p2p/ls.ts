// ipfs p2p ls (Kubo core/commands/p2p.go p2pLsCmd): forwarders, then listeners.
import { defineCommand } from '../../registry/define.js'
import { p2pNode, table, type P2PLsOutput } from './common.js'

export const p2pLs = defineCommand({
  path: ['p2p', 'ls'],
  description: 'List active p2p listeners.',
  status: 'experimental',
  options: {
    headers: { type: 'bool', aliases: ['v'], description: 'Print table headers (Protocol, Listen, Target).' }
  },
  output: 'single',
  run ({ deps }): P2PLsOutput {
    const { p2p } = p2pNode(deps)
    const listeners = p2p.listeners().map(l => ({ Protocol: l.protocol, ListenAddress: l.listenAddress.toString(), TargetAddress: l.targetAddress.toString() }))
    return { Listeners: listeners.length > 0 ? listeners : null }
  },
  text: (out, { options }) => table('Protocol\tListen Address\tTarget Address',
    (out.Listeners ?? []).map(l => [l.Protocol, l.ListenAddress, l.TargetAddress]), options.headers)
})
