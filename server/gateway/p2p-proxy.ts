// The gateway's HTTP proxy over libp2p (Kubo core/corehttp/p2p_proxy.go, Experimental.P2pHttpProxy):
// /p2p/<peer>/http/<path> goes to <peer>'s "/http" protocol, /p2p/<peer>/x/<name>/http/<path> to
// "/x/<name>/http", one HTTP/1.1 request per libp2p stream (go-libp2p-http), as Go's ReverseProxy
// sends it: hop-by-hop headers dropped, Host the peer ID, X-Forwarded-For/-Host/-Proto set. A path
// it cannot parse is a 400 in Kubo's words; a peer or protocol that cannot be reached, or an answer
// that is not HTTP, a 502 with no body.
import http from 'node:http'
import type { Context } from 'koa'
import type { Libp2p, PeerId } from '@libp2p/interface'
import { StreamDuplex } from '../../core/p2p/duplex.js'
import { parsePeerId } from '../../plugins/swarm/common.js'
import { setOwn } from '../../core/util/own.js'

export interface P2pProxyRequest {
  /** the peer as written in the path */
  target: string
  peer: PeerId
  protocol: string
  /** the path to ask for, without its leading slash */
  httpPath: string
}

/** Kubo parseRequest: the peer, protocol and path of a /p2p/ request path, or the 400 message. */
export function parseP2pPath (path: string): P2pProxyRequest | string {
  const invalid = `invalid request path '${path}'`
  const split = splitN(path, '/', 5)
  if (split.length < 5) return invalid
  let peer: PeerId
  try { peer = parsePeerId(split[2]) } catch { return invalid }
  if (split[3] === 'http') return { target: split[2], peer, protocol: '/http', httpPath: split[4] }
  const more = splitN(path, '/', 7)
  if (more.length < 7 || more[3] !== 'x' || more[5] !== 'http') return invalid
  return { target: split[2], peer, protocol: `/x/${more[4]}/http`, httpPath: more[6] }
}

/** Go strings.SplitN */
function splitN (s: string, sep: string, n: number): string[] {
  const out: string[] = []
  let rest = s
  while (out.length < n - 1) {
    const i = rest.indexOf(sep)
    if (i < 0) break
    out.push(rest.slice(0, i))
    rest = rest.slice(i + sep.length)
  }
  out.push(rest)
  return out
}

/** a peer that cannot be reached answers 502 at the latest after this */
const DIAL_TIMEOUT_MS = 30_000

// Go's httputil hop-by-hop headers
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

function stripHopByHop (headers: http.IncomingHttpHeaders): Record<string, string | string[]> {
  const listed = new Set(String(headers.connection ?? '').split(',').map(h => h.trim().toLowerCase()).filter(Boolean))
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value == null || HOP_BY_HOP.has(name) || listed.has(name)) continue
    setOwn(out, name, value)
  }
  return out
}

/** Go's textproto.CanonicalMIMEHeaderKey: content-type → Content-Type */
const canonical = (name: string): string => /^[A-Za-z0-9-]+$/.test(name) ? name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase()) : name

/** go http.Error: text/plain, nosniff, the message and a newline. */
function httpError (ctx: Context, status: number, message: string): void {
  ctx.status = status
  ctx.set('Content-Type', 'text/plain; charset=utf-8')
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.body = message + '\n'
}

/** ReverseProxy's default error handler: 502, no body. */
function badGateway (ctx: Context): void {
  if (ctx.res.headersSent) { ctx.req.socket.destroy(); return }
  ctx.res.statusCode = 502
  ctx.res.setHeader('Content-Length', '0')
  ctx.res.end()
}

export async function serveP2pProxy (ctx: Context, libp2p: Libp2p | null, path: string, rawQuery: string): Promise<void> {
  // Kubo's /p2p/ handler is not the gateway's: none of Gateway.HTTPHeaders
  for (const name of ctx.res.getHeaderNames()) ctx.res.removeHeader(name)
  const parsed = parseP2pPath(path)
  if (typeof parsed === 'string') {
    httpError(ctx, 400, `failed to parse request: ${parsed}`)
    return
  }
  ctx.respond = false
  const gone = new AbortController()
  ctx.res.once('close', () => { if (!ctx.res.writableFinished) gone.abort(new Error('client disconnected')) })
  if (libp2p == null) { badGateway(ctx); return }
  let duplex: StreamDuplex
  try {
    const stream = await libp2p.dialProtocol(parsed.peer, parsed.protocol, { signal: AbortSignal.any([gone.signal, AbortSignal.timeout(DIAL_TIMEOUT_MS)]) })
    duplex = new StreamDuplex(stream)
  } catch {
    badGateway(ctx)
    return
  }
  const inbound = ctx.req
  const headers = stripHopByHop(inbound.headers)
  delete headers.host
  delete headers['x-forwarded-host']
  delete headers['x-forwarded-proto']
  const client = inbound.socket.remoteAddress ?? ''
  const prior = inbound.headers['x-forwarded-for']
  headers['X-Forwarded-For'] = prior != null && prior !== '' ? `${String(prior)}, ${client}` : client
  delete headers['x-forwarded-for']
  // Kubo clears the request's Host before proxying: X-Forwarded-Host goes out empty
  headers['X-Forwarded-Host'] = ''
  headers['X-Forwarded-Proto'] = 'http'
  headers.Host = parsed.target
  // one request per stream: the connection is the stream
  const agent = new http.Agent({ keepAlive: false, maxSockets: 1 })
  ;(agent as unknown as { createConnection: () => StreamDuplex }).createConnection = () => duplex
  await new Promise<void>((resolve) => {
    const req = http.request({
      agent,
      method: inbound.method,
      path: '/' + parsed.httpPath + (rawQuery !== '' ? '?' + rawQuery : ''),
      headers,
      setHost: false
    })
    const fail = (): void => {
      duplex.destroy(new Error('proxy request failed'))
      badGateway(ctx)
      resolve()
    }
    req.on('error', fail)
    gone.signal.addEventListener('abort', () => { req.destroy(); duplex.destroy(new Error('client disconnected')); resolve() }, { once: true })
    req.on('response', (res) => {
      req.off('error', fail)
      req.on('error', () => {})
      const out: Record<string, string | string[]> = {}
      for (const [name, value] of Object.entries(stripHopByHop(res.headers))) setOwn(out, canonical(name), value)
      ctx.res.writeHead(res.statusCode ?? 502, out)
      res.pipe(ctx.res)
      res.on('error', () => { ctx.req.socket.destroy() })
      res.on('end', () => { duplex.destroy(); resolve() })
      res.on('close', () => { resolve() })
    })
    inbound.pipe(req)
  })
}
