// ipfs p2p listen (Kubo core/commands/p2p.go p2pListenCmd): a protocol handler forwarding incoming
// streams to a local TCP service; --report-peer-id writes "<peer id>\n" to the service first.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import type { Multiaddr } from '@multiformats/multiaddr'
import { checkProtocol, foreground, nothing, p2pNode, parseAddr, type P2PForegroundOutput } from './common.js'

const LISTEN_HELP = `
Create a libp2p protocol handler that forwards incoming connections to
<target-address>.

When a remote peer connects using 'ipfs p2p forward', the connection is
forwarded to your local service. Similar to SSH port forwarding (server side).

ARGUMENTS:

  <protocol>        Protocol name (must start with '/x/')
  <target-address>  Local multiaddr (e.g., /ip4/127.0.0.1/tcp/3000)

FOREGROUND MODE (--foreground, -f):

  By default, the listener runs in the daemon and the command returns
  immediately. Use --foreground to block until interrupted:

  - Ctrl+C or SIGTERM: Removes the listener and exits
  - 'ipfs p2p close': Removes the listener and exits
  - Daemon shutdown: Listener is automatically removed

  Useful for systemd services or scripts that need cleanup on exit.

EXAMPLES:

  # Persistent listener (command returns immediately)
  ipfs p2p listen /x/myapp /ip4/127.0.0.1/tcp/3000

  # Temporary listener (removed when command exits)
  ipfs p2p listen -f /x/myapp /ip4/127.0.0.1/tcp/3000

  # Report connecting peer ID to the target application
  ipfs p2p listen -r /x/myapp /ip4/127.0.0.1/tcp/3000

Learn more: https://github.com/ipfs/kubo/blob/master/docs/p2p-tunnels.md
`.trim()

/** Kubo checkPort: the first tcp (else udp) port of the target, which must not be 0. */
function checkPort (target: Multiaddr): void {
  const parts = target.getComponents()
  const port = parts.find(c => c.name === 'tcp')?.value ?? parts.find(c => c.name === 'udp')?.value
  if (port == null || port === '') throw new RpcError('address does not contain tcp or udp protocol')
  if (Number(port) === 0) throw new RpcError('port can not be 0')
}

export const p2pListen = defineCommand({
  path: ['p2p', 'listen'],
  description: 'Create libp2p service.',
  help: LISTEN_HELP,
  status: 'experimental',
  args: [
    { name: 'protocol', kind: 'string', required: true, description: 'Protocol name.' },
    { name: 'target-address', kind: 'string', required: true, description: 'Target endpoint.' }
  ],
  options: {
    'allow-custom-protocol': { type: 'bool', description: "Don't require /x/ prefix" },
    'report-peer-id': { type: 'bool', aliases: ['r'], description: 'Send remote base58 peerid to target when a new connection is established' },
    foreground: { type: 'bool', aliases: ['f'], description: 'Run in foreground; listener is removed when command exits' }
  },
  output: 'ndjson',
  flushHeaders: true,
  async run ({ args, options, deps, signal }): Promise<AsyncIterable<P2PForegroundOutput>> {
    const { p2p } = p2pNode(deps)
    const [proto, targetText] = args
    const target = parseAddr(targetText)
    checkPort(target)
    checkProtocol(proto, options.allowCustomProtocol)
    let listener
    try {
      listener = await p2p.forwardRemote(proto, target, options.reportPeerId === true)
    } catch (err) {
      throw new RpcError((err as Error).message)
    }
    if (options.foreground !== true) return nothing()
    return foreground(p2p, listener, proto, targetText, signal)
  },
  text: (value) => { const out = value as unknown as P2PForegroundOutput; return out.Status === 'active'
    ? `Listening on ${out.Protocol}, forwarding to ${out.Address}, waiting for interrupt...\n`
    : out.Status === 'closing' ? `Received interrupt, removing listener for ${out.Protocol}\n` : '' }
})
