// ipfs p2p forward (Kubo core/commands/p2p.go p2pForwardCmd): a local listener whose connections are
// tunnelled to a peer's protocol.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { checkProtocol, foreground, nothing, p2pNode, parseAddr, parseTarget, type P2PForegroundOutput } from './common.js'

const FORWARD_HELP = `
Forward connections made to <listen-address> to <target-address> via libp2p.

Creates a local TCP listener that tunnels connections through libp2p to a
remote peer's p2p listener. Similar to SSH port forwarding (-L flag).

ARGUMENTS:

  <protocol>        Protocol name (must start with '/x/')
  <listen-address>  Local multiaddr (e.g., /ip4/127.0.0.1/tcp/3000)
  <target-address>  Remote peer multiaddr (e.g., /p2p/PeerID)

FOREGROUND MODE (--foreground, -f):

  By default, the forwarder runs in the daemon and the command returns
  immediately. Use --foreground to block until interrupted:

  - Ctrl+C or SIGTERM: Removes the forwarder and exits
  - 'ipfs p2p close': Removes the forwarder and exits
  - Daemon shutdown: Forwarder is automatically removed

  Useful for systemd services or scripts that need cleanup on exit.

EXAMPLES:

  # Persistent forwarder (command returns immediately)
  ipfs p2p forward /x/myapp /ip4/127.0.0.1/tcp/3000 /p2p/PeerID

  # Temporary forwarder (removed when command exits)
  ipfs p2p forward -f /x/myapp /ip4/127.0.0.1/tcp/3000 /p2p/PeerID

Learn more: https://github.com/ipfs/kubo/blob/master/docs/p2p-tunnels.md
`.trim()

export const p2pForward = defineCommand({
  path: ['p2p', 'forward'],
  description: 'Forward connections to libp2p service.',
  help: FORWARD_HELP,
  status: 'experimental',
  args: [
    { name: 'protocol', kind: 'string', required: true, description: 'Protocol name.' },
    { name: 'listen-address', kind: 'string', required: true, description: 'Listening endpoint.' },
    { name: 'target-address', kind: 'string', required: true, description: 'Target endpoint.' }
  ],
  options: {
    'allow-custom-protocol': { type: 'bool', description: "Don't require /x/ prefix" },
    foreground: { type: 'bool', aliases: ['f'], description: 'Run in foreground; forwarder is removed when command exits' }
  },
  output: 'ndjson',
  flushHeaders: true,
  async run ({ args, options, deps, signal }): Promise<AsyncIterable<P2PForegroundOutput>> {
    const { p2p, libp2p, network } = p2pNode(deps)
    const [proto, listenText, targetText] = args
    const listen = parseAddr(listenText)
    const target = await parseTarget(targetText, deps, signal)
    checkProtocol(proto, options.allowCustomProtocol)
    // Kubo adds the given addresses to the peer store (temporary TTL) before the first dial
    if (target.addrs.length > 0) {
      for (const a of target.addrs) network?.filters.vouch(a)
      await libp2p.peerStore.merge(target.id, { multiaddrs: target.addrs }).catch(() => {})
    }
    let listener
    try {
      listener = await p2p.forwardLocal(proto, listen, target.id)
    } catch (err) {
      throw new RpcError((err as Error).message)
    }
    if (options.foreground !== true) return nothing()
    return foreground(p2p, listener, proto, listenText, signal)
  },
  text: (value) => { const out = value as unknown as P2PForegroundOutput; return out.Status === 'active'
    ? `Forwarding ${out.Protocol} to ${out.Address}, waiting for interrupt...\n`
    : out.Status === 'closing' ? `Received interrupt, removing forwarder for ${out.Protocol}\n` : '' }
})
