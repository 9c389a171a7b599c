// ipfs ping (kubo core/commands/ping.go): "PING <id>.", one result per ping a second apart, then the
// average; a peer with no known address is looked up first ("Looking up peer <id>").
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError, RpcError } from '../../core/errors.js'
import { parseMultiaddr, parsePeerId, splitP2p } from '../swarm/common.js'
import type { PeerId } from '@libp2p/interface'
import type { Multiaddr } from '@multiformats/multiaddr'

export interface PingResult { Success: boolean, Time: number, Text: string }

const PING_TIMEOUT_MS = 10_000

/** Kubo ParsePeerParam: a /p2p/ multiaddr or a peer ID. */
function parsePeerParam (text: string): { addr?: Multiaddr, id: PeerId } {
  if (text.startsWith('/')) {
    const ma = parseMultiaddr(text)
    const { transport, id } = splitP2p(ma)
    if (id == null) throw new Error('invalid p2p multiaddr')
    return { addr: transport, id: parsePeerId(id) }
  }
  return { id: parsePeerId(text) }
}

const sleep = async (ms: number, signal: AbortSignal): Promise<void> => {
  await new Promise<void>((resolve) => {
    const t = setTimeout(done, ms)
    function done (): void { clearTimeout(t); signal.removeEventListener('abort', done); resolve() }
    signal.addEventListener('abort', done, { once: true })
  })
}

export const pingPing = defineCommand({
  path: ['ping'],
  description: 'Send echo request packets to IPFS hosts.',
  help: "'ipfs ping' is a tool to test sending data to other nodes. It finds nodes\nvia the routing system, sends pings, waits for pongs, and prints out round-\ntrip latency information.",
  args: [{ name: 'peer ID', kind: 'string', required: true, variadic: true, stdin: true, description: 'ID of peer to be pinged.' }],
  options: {
    count: { type: 'int', aliases: ['n'], default: 10, description: 'Number of ping messages to send.' }
  },
  output: 'ndjson',
  async * run ({ args, options, deps: { libp2p, network }, signal }): AsyncGenerator<PingResult> {
    if (libp2p == null || network == null) throw new NotOnlineError()
    const arg = args[0] ?? ''
    let parsed: { addr?: Multiaddr, id: PeerId }
    try { parsed = parsePeerParam(arg) } catch (err) { throw new RpcError(`failed to parse peer address '${arg}': ${(err as Error).message.replace(/^failed to parse multiaddr "[^"]*": /, '')}`) }
    const { addr, id } = parsed
    if (id.equals(libp2p.peerId)) throw new RpcError("error: can't ping self")
    if (addr != null) {
      network.filters.vouch(addr)
      await libp2p.peerStore.merge(id, { multiaddrs: [addr] })
    }
    const count = options.count
    if (count <= 0) throw new RpcError(`ping count must be greater than 0, was ${count}`)
    const known = await libp2p.peerStore.get(id).catch(() => undefined)
    if ((known?.addresses.length ?? 0) === 0 && libp2p.getConnections(id).length === 0) {
      yield { Success: true, Time: 0, Text: `Looking up peer ${id.toString()}` }
      try {
        const info = await libp2p.peerRouting.findPeer(id, { signal: AbortSignal.any([signal, AbortSignal.timeout(PING_TIMEOUT_MS)]) })
        await libp2p.peerStore.merge(id, { multiaddrs: info.multiaddrs })
      } catch (err) {
        throw new RpcError(`peer lookup failed: ${(err as Error).message}`)
      }
    }
    yield { Success: true, Time: 0, Text: `PING ${id.toString()}.` }
    const overall = AbortSignal.any([signal, AbortSignal.timeout(PING_TIMEOUT_MS * count)])
    let n = 0
    let total = 0n
    for (let i = 0; i < count; i++) {
      const started = Date.now()
      try {
        const rtt = await network.ping(id, AbortSignal.any([overall, AbortSignal.timeout(PING_TIMEOUT_MS)]))
        n++
        total += rtt
        yield { Success: true, Time: Number(rtt), Text: '' }
      } catch (err) {
        if (signal.aborted) throw err
        yield { Success: false, Time: 0, Text: `Ping error: ${(err as Error).message}` }
      }
      if (i < count - 1) {
        await sleep(Math.max(0, 1000 - (Date.now() - started)), overall)
        if (overall.aborted) throw new RpcError(signal.aborted ? 'context canceled' : 'context deadline exceeded')
      }
    }
    if (n === 0) throw new RpcError('ping failed')
    const avg = Number(total) / 1e6 / n
    yield { Success: true, Time: 0, Text: `Average latency: ${avg.toFixed(2)}ms` }
  },
  text: (r) => {
    if (r.Text.length > 0) return r.Text + '\n'
    if (r.Success) return `Pong received: time=${(r.Time / 1e6).toFixed(2)} ms\n`
    return 'Pong failed\n'
  }
})
