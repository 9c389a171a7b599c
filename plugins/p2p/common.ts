// What the p2p commands share (Kubo core/commands/p2p.go): the Experimental.Libp2pStreamMounting gate,
// the /x/ protocol rule, forward's target parsing (/p2p/<id>, /dnsaddr resolution), the foreground mode,
// output types and their tabwriter tables.
import type { PeerId } from '@libp2p/interface'
import type { Multiaddr } from '@multiformats/multiaddr'
import { multiaddr } from '@multiformats/multiaddr'
import { NotOnlineError, RpcError } from '../../core/errors.js'
import type { Listener, P2pService } from '../../core/p2p/index.js'
import type { RequestCradle } from '../../core/cradle.js'
import type { Libp2p } from '@libp2p/interface'
import type { Network } from '../../core/libp2p/network.js'
import { tabwrite } from '../../core/util/tabwriter.js'
import { parseMultiaddr, parsePeerId, splitP2p } from '../swarm/common.js'

export const P2P_PROTO_PREFIX = '/x/'

export interface P2PListenerInfoOutput { Protocol: string, ListenAddress: string, TargetAddress: string }
export interface P2PLsOutput { Listeners: P2PListenerInfoOutput[] | null }
export interface P2PStreamInfoOutput { HandlerID: string, Protocol: string, OriginAddress: string, TargetAddress: string }
export interface P2PStreamsOutput { Streams: P2PStreamInfoOutput[] | null }
export interface P2PForegroundOutput { Status: 'active' | 'closing', Protocol: string, Address: string }

/** Kubo p2pGetNode: the config gate first, then the online check. */
export function p2pNode (deps: RequestCradle): { p2p: P2pService, libp2p: Libp2p, network: Network | null } {
  const experimental = (deps.config.get().Experimental ?? {}) as { Libp2pStreamMounting?: unknown }
  if (experimental.Libp2pStreamMounting !== true) throw new RpcError('libp2p stream mounting not enabled')
  const p2p = (deps as unknown as { p2p: P2pService }).p2p
  if (deps.libp2p == null) throw new NotOnlineError()
  return { p2p, libp2p: deps.libp2p, network: deps.network }
}

export function checkProtocol (proto: string, allowCustom: boolean | undefined): void {
  if (allowCustom !== true && !proto.startsWith(P2P_PROTO_PREFIX)) throw new RpcError(`protocol name must be within '${P2P_PROTO_PREFIX}' namespace`)
}

/** ma.NewMultiaddr with go-multiaddr's message. */
export const parseAddr = (text: string): Multiaddr => parseMultiaddr(text)

const DNSADDR_DEPTH = 4

/** /dnsaddr/<host>[/...]: the TXT records of _dnsaddr.<host> ("dnsaddr=<addr>") ending like the input, recursively. */
async function resolveDnsaddr (ma: Multiaddr, deps: RequestCradle, depth: number, signal: AbortSignal): Promise<Multiaddr[]> {
  const parts = ma.getComponents()
  const first = parts[0]
  if (first?.name !== 'dnsaddr' || first.value == null) return [ma]
  if (depth > DNSADDR_DEPTH) return []
  const rest = parts.slice(1)
  const suffix = rest.length > 0 ? multiaddr(rest).toString() : ''
  const { texts } = await deps.dns.txt(`_dnsaddr.${first.value}`, { signal })
  const out: Multiaddr[] = []
  for (const t of texts) {
    if (!t.startsWith('dnsaddr=')) continue
    let found: Multiaddr
    try { found = multiaddr(t.slice('dnsaddr='.length)) } catch { continue }
    if (suffix !== '' && !found.toString().endsWith(suffix)) continue
    out.push(...await resolveDnsaddr(found, deps, depth + 1, signal))
  }
  return out
}

/** Kubo parseIpfsAddr: a /p2p/ address, or one that resolves (dnsaddr) to addresses of a single peer. */
export async function parseTarget (text: string, deps: RequestCradle, signal: AbortSignal): Promise<{ id: PeerId, addrs: Multiaddr[] }> {
  const ma = parseAddr(text)
  const direct = splitP2p(ma)
  if (direct.id != null && !ma.getComponents().some(c => c.name === 'dnsaddr')) {
    return { id: parsePeerId(direct.id), addrs: direct.transport != null ? [direct.transport] : [] }
  }
  let resolved: Multiaddr[]
  try {
    resolved = await resolveDnsaddr(ma, deps, 0, AbortSignal.any([signal, AbortSignal.timeout(10_000)]))
  } catch (err) {
    throw new RpcError((err as Error).message)
  }
  if (resolved.length === 0) throw new RpcError('fail to resolve the multiaddr:' + ma.toString())
  let id: string | undefined
  const addrs: Multiaddr[] = []
  for (const a of resolved) {
    const s = splitP2p(a)
    if (s.id == null) continue
    if (id == null) id = s.id
    else if (id !== s.id) throw new RpcError(`ambiguous multiaddr ${ma.toString()} could refer to ${id} or ${s.id}`)
    if (s.transport != null) addrs.push(s.transport)
  }
  // beyond Kubo (which registers a forwarder to an empty peer ID, then panics listing it): a clear error
  if (id == null) throw new RpcError(`target address ${ma.toString()} names no peer: it must end in /p2p/<peer-id>`)
  return { id: parsePeerId(id), addrs }
}

/**
 * --foreground: "active" at once, then wait; the request going away (Ctrl+C) removes the listener
 * silently, `p2p close` ends the request with "closing".
 */
export async function * foreground (p2p: P2pService, listener: Listener, protocol: string, address: string, signal: AbortSignal): AsyncGenerator<P2PForegroundOutput> {
  yield { Status: 'active', Protocol: protocol, Address: address }
  let onAbort: (() => void) | undefined
  const aborted = new Promise<'aborted'>(resolve => {
    onAbort = () => { resolve('aborted') }
    if (signal.aborted) resolve('aborted')
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    const why = await Promise.race([aborted, listener.done.then(() => 'closed' as const)])
    if (why === 'aborted') {
      p2p.close(l => l === listener)
      return
    }
    yield { Status: 'closing', Protocol: protocol, Address: address }
  } finally {
    if (onAbort != null) signal.removeEventListener('abort', onAbort)
    // the consumer stopped early (client gone while writing)
    p2p.close(l => l === listener)
  }
}

/** Kubo's tabwriter (minwidth 1, tabwidth 2, padding 1, spaces); the header is printed before every row, as Kubo does. */
export function table (header: string, rows: string[][], headers: boolean | undefined): string {
  let text = ''
  for (const r of rows) {
    if (headers === true) text += header + '\n'
    text += r.join('\t') + '\n'
  }
  return tabwrite(text, { minwidth: 1, tabwidth: 2, padding: 1, padchar: ' ' })
}

export async function * nothing (): AsyncGenerator<never> {}
