// ipfs p2p close (Kubo core/commands/p2p.go p2pCloseCmd): remove the listeners matching every option
// given (or all); open streams stay. Answers how many were closed.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import type { Multiaddr } from '@multiformats/multiaddr'
import { p2pNode, parseAddr } from './common.js'

export const p2pClose = defineCommand({
  path: ['p2p', 'close'],
  description: 'Stop listening for new connections to forward.',
  status: 'experimental',
  options: {
    all: { type: 'bool', aliases: ['a'], description: 'Close all listeners.' },
    protocol: { type: 'string', aliases: ['p'], description: 'Match protocol name' },
    'listen-address': { type: 'string', aliases: ['l'], description: 'Match listen address' },
    'target-address': { type: 'string', aliases: ['t'], description: 'Match target address' }
  },
  output: 'single',
  run ({ options, deps }): number {
    const { p2p } = p2pNode(deps)
    const all = options.all === true
    const proto = options.protocol
    let listen: Multiaddr | undefined
    let target: Multiaddr | undefined
    if (options.listenAddress !== undefined) listen = parseAddr(options.listenAddress)
    if (options.targetAddress !== undefined) target = parseAddr(options.targetAddress)
    const some = proto !== undefined || listen != null || target != null
    if (!(all || some)) throw new RpcError('no matching options given')
    if (all && some) throw new RpcError("can't combine --all with other matching options")
    return p2p.close(l => {
      if (all) return true
      if (proto !== undefined && proto !== l.protocol) return false
      if (listen != null && !listen.equals(l.listenAddress)) return false
      if (target != null && !target.equals(l.targetAddress)) return false
      return true
    })
  },
  text: (n) => `Closed ${n} stream(s)\n`
})
