// The Koa RPC app. The checks run in Kubo's order (wire.md §4.7): CONNECT, version-mismatch UA,
// /api/v0 redirect, auth, CORS preflight, OPTIONS, method, Origin/Referer/UA, routing, parsing,
// timeout, encoding, then the command.
import Koa from 'koa'
import { ServerResponse, type IncomingMessage } from 'node:http'
import { directRpc, serveDirect, type RpcContext } from './rpc-context.js'
import type { AwilixContainer } from 'awilix'
import type { Cradle } from '../core/cradle.js'
import { errorMessage, RequestParseError } from '../core/errors.js'
import { KUBO_VERSION, SERVER_HEADER } from '../core/version.js'
import { parseDurationMs } from '../core/util/duration.js'
import type { KuboConfig } from '../core/config/index.js'
import { execute, textCall } from '../registry/execute.js'
import type { InvokeInput } from '../registry/registry.js'
import { ENCODINGS, preamble, sendError, sendOutcome } from './respond.js'
import { Readable } from 'node:stream'
import { bodyLines, multipartBoundary, requestFiles, streamChunks } from './multipart.js'
import { setOwn } from '../core/util/own.js'
import { approximateRequestSize, serveDebug } from './debug.js'
import { metricsFor } from './metrics.js'

const ACCESS_DENIED = 'Kubo RPC Access Denied: Please provide a valid authorization token as defined in the API.Authorizations configuration.'
const COMPANION_ORIGINS = ['chrome-extension://nibjojkomfdiaoajekhjakgkdhaomnch', 'chrome-extension://hjoieblefckbooibpepigmacodalfndh']
const PREFLIGHT_HEADERS = new Set(['origin', 'accept', 'content-type', 'x-requested-with'])

interface Security {
  headers: Record<string, string[]>
  /** API.HTTPHeaders to send with every command response: canonical name and values */
  sent: Array<[string, string[]]>
  origins: string[]
  methods: string[]
  /** methods, upper-cased */
  methodSet: Set<string>
  credentials: boolean
  /** exact Authorization header value → allowed path prefixes; undefined = auth off */
  auth?: Map<string, string[]>
}

export { authHeaderFor } from './addr.js'
import { authHeaderFor } from './addr.js'

function readSecurity (cfg: KuboConfig): Omit<Security, 'origins'> & { configured: string[] } {
  const api = (cfg.API ?? {}) as { HTTPHeaders?: Record<string, unknown> | null, Authorizations?: Record<string, { AuthSecret?: string, AllowedPaths?: string[] }> | null }
  const headers: Record<string, string[]> = {}
  for (const [k, v] of Object.entries(api.HTTPHeaders ?? {})) setOwn(headers, k, Array.isArray(v) ? v.map(String) : [String(v)])
  const lower = (name: string): string[] | undefined => Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1]
  const credentials = lower('access-control-allow-credentials')
  let auth: Map<string, string[]> | undefined
  const authz = api.Authorizations ?? {}
  if (Object.keys(authz).length > 0) {
    auth = new Map()
    for (const user of Object.values(authz)) {
      const header = authHeaderFor(user?.AuthSecret ?? '')
      if (header !== '') auth.set(header, user.AllowedPaths ?? [])
    }
  }
  const methods = lower('access-control-allow-methods') ?? ['POST']
  const sent: Array<[string, string[]]> = []
  for (const [name, values] of Object.entries(headers)) {
    const l = name.toLowerCase()
    if (l === 'access-control-allow-origin' || l === 'access-control-allow-methods' || l === 'access-control-allow-credentials') continue
    sent.push([canonicalHeader(name), values])
  }
  return {
    headers,
    sent,
    configured: lower('access-control-allow-origin') ?? [],
    methods,
    methodSet: new Set(methods.map(m => m.toUpperCase())),
    credentials: credentials != null && credentials[credentials.length - 1]?.toLowerCase() === 'true',
    auth
  }
}

/**
 * The API server's response (http.createServer's ServerResponse option): counts the body bytes written, for
 * the ipfs_http_response_size metric, without wrapping write and end in closures per request.
 */
export class CountedResponse<Req extends IncomingMessage = IncomingMessage> extends ServerResponse<Req> {
  bodyBytes = 0
}
const baseWrite = ServerResponse.prototype.write as (this: ServerResponse, chunk: unknown, a?: unknown, b?: unknown) => boolean
const baseEnd = ServerResponse.prototype.end as (this: ServerResponse, chunk?: unknown, a?: unknown, b?: unknown) => ServerResponse
const bytesOf = (chunk: unknown): number => typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0
CountedResponse.prototype.write = function (this: CountedResponse, chunk: unknown, a?: unknown, b?: unknown): boolean {
  this.bodyBytes += bytesOf(chunk)
  return baseWrite.call(this, chunk, a, b)
} as typeof CountedResponse.prototype.write
CountedResponse.prototype.end = function (this: CountedResponse, chunk?: unknown, a?: unknown, b?: unknown): CountedResponse {
  if (typeof chunk !== 'function') this.bodyBytes += bytesOf(chunk)
  baseEnd.call(this, chunk, a, b)
  return this
} as typeof CountedResponse.prototype.end

export interface RpcAppInit {
  container: AwilixContainer<Cradle>
  /** the listener's actual port, for the always-allowed localhost origins */
  port: () => number | string
  /** POSTs under /api/v0/ skip Koa (default true; false serves every request through Koa, for comparison) */
  direct?: boolean
}

export function createRpcApp ({ container, port, direct = true }: RpcAppInit): Koa {
  const { registry, config, requestLog, logging } = container.cradle
  const log = logging.forComponent('rpc')
  let sec = readSecurity(config.get())
  // the allowed origins, rebuilt when the config or the port changes
  let originsOf: { sec: typeof sec, port: string, env: string | undefined, list: string[] } | undefined
  config.onChange(cfg => { sec = readSecurity(cfg) })
  const origins = (): string[] => {
    const p = String(port())
    const env = process.env.API_ORIGIN
    if (originsOf?.sec === sec && originsOf.port === p && originsOf.env === env) return originsOf.list
    const local = ['http://127.0.0.1', 'https://127.0.0.1', 'http://[::1]', 'https://[::1]', 'http://localhost', 'https://localhost'].map(o => `${o}:${p}`)
    const list = [...sec.configured, ...local, ...COMPANION_ORIGINS, ...(env != null ? [env] : [])]
    originsOf = { sec, port: p, env, list }
    return list
  }

  const app = new Koa()
  app.proxy = false
  app.on('error', (err: unknown) => { log.debug(`http: ${errorMessage(err)}`) })

  const plain = (ctx: RpcContext, status: number, text: string): void => {
    ctx.status = status
    ctx.set('Content-Type', 'text/plain; charset=utf-8')
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.body = text + '\n'
  }

  // ipfs_http_* metrics: every request to the API port, as Kubo's MetricsCollectionOption("api")
  const metrics = metricsFor(container)
  const measure = (req: IncomingMessage, res: ServerResponse): void => {
    // a streamed answer holds ~11 'close' listeners (ours, then stream.pipeline's 7), one response each: no leak,
    // but over Node's default 10 it printed a MaxListenersExceededWarning per answer
    res.setMaxListeners(32)
    const start = process.hrtime.bigint()
    const requestBytes = approximateRequestSize(req)
    if (res instanceof CountedResponse) {
      const from = res.bodyBytes
      res.once('close', () => {
        metrics.observeHttp({ method: req.method ?? '', code: res.statusCode, seconds: Number(process.hrtime.bigint() - start) / 1e9, requestBytes, responseBytes: res.bodyBytes - from })
      })
      return
    }
    let responseBytes = 0
    const write = res.write.bind(res) as (...a: any[]) => boolean
    const end = res.end.bind(res) as (...a: any[]) => typeof res
    const count = (chunk: unknown): void => { if (typeof chunk === 'string') responseBytes += Buffer.byteLength(chunk); else if (chunk instanceof Uint8Array) responseBytes += chunk.byteLength }
    res.write = ((chunk: unknown, ...rest: unknown[]) => { count(chunk); return write(chunk, ...rest) }) as typeof res.write
    res.end = ((chunk?: unknown, ...rest: unknown[]) => { if (typeof chunk !== 'function') count(chunk); return end(chunk, ...rest) }) as typeof res.end
    res.once('close', () => {
      metrics.observeHttp({ method: req.method ?? '', code: res.statusCode, seconds: Number(process.hrtime.bigint() - start) / 1e9, requestBytes, responseBytes })
    })
  }
  app.use(async (ctx, next) => {
    measure(ctx.req, ctx.res)
    await next()
  })

  app.use(async (ctx) => {
    if (ctx.method !== 'CONNECT' && await serveDebug(ctx, container)) return
    await handle(ctx)
  })

  if (!direct) return app
  // POSTs under /api/v0/ skip Koa (rpc-context.ts): the same handler over a context with Koa's semantics
  const koaCallback = app.callback.bind(app)
  const emitError = (err: Error): void => { app.emit('error', err) }
  app.callback = () => {
    const viaKoa = koaCallback()
    const direct: typeof viaKoa = async (r, s) => {
      // the API listens over HTTP/1.1 only
      const req = r as IncomingMessage
      const res = s as ServerResponse
      if (!directRpc(req)) { await viaKoa(req, res); return }
      measure(req, res)
      await serveDirect(req, res, handle, emitError)
    }
    return direct
  }
  return app

  async function handle (ctx: RpcContext): Promise<void> {
    const reqPath = ctx.path
    if (ctx.method === 'CONNECT') { ctx.status = 200; ctx.body = ''; return }
    if (reqPath === '/version' && !reqPath.startsWith('/api/')) {
      ctx.set('Content-Type', 'text/plain; charset=utf-8')
      ctx.body = `Commit: \nClient Version: ${SERVER_HEADER}\n`
      return
    }
    if (!reqPath.startsWith('/api/v0')) { plain(ctx, 404, '404 page not found'); return }
    // 1. version check for Kubo-style user agents
    const segments = reqPath.slice('/api/v0/'.length).split('/')
    const ua = ctx.get('User-Agent')
    if (reqPath.startsWith('/api/v0/') && segments[0] !== 'version' && (ua.includes('/kubo/') || ua.includes('/go-ipfs/')) && ua !== `/kubo/${KUBO_VERSION}/`) {
      plain(ctx, 400, `api version mismatch (/kubo/${KUBO_VERSION}/ != ${ua})`); return
    }
    if (reqPath === '/api/v0') { ctx.status = 301; ctx.set('Location', '/api/v0/'); ctx.body = ''; return }
    if (!reqPath.startsWith('/api/v0/')) { plain(ctx, 404, '404 page not found'); return }
    // 2. auth (wraps CORS, so preflights need it too)
    if (sec.auth != null) {
      const allowed = sec.auth.get(ctx.get('Authorization'))
      const ok = allowed != null && (reqPath === '/api/v0/version' || allowed.some(p => reqPath.startsWith(p)))
      if (!ok) { plain(ctx, 403, ACCESS_DENIED); return }
    }
    // 3. CORS (rs/cors)
    const allowedOrigins = origins()
    const origin = ctx.get('Origin')
    const originAllowed = (o: string): boolean => allowedOrigins.some(a => a === '*' || matchOrigin(a.toLowerCase(), o.toLowerCase()))
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
      ctx.set('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
      const method = ctx.get('Access-Control-Request-Method').toUpperCase()
      const reqHeaders = ctx.get('Access-Control-Request-Headers')
      const headersOk = reqHeaders.split(',').map(h => h.trim().toLowerCase()).filter(h => h !== '').every(h => PREFLIGHT_HEADERS.has(h))
      if (origin !== '' && originAllowed(origin) && sec.methodSet.has(method) && headersOk) {
        ctx.set('Access-Control-Allow-Origin', allowedOrigins.includes('*') ? '*' : origin)
        ctx.set('Access-Control-Allow-Methods', method)
        if (reqHeaders !== '') ctx.set('Access-Control-Allow-Headers', reqHeaders)
        if (sec.credentials) ctx.set('Access-Control-Allow-Credentials', 'true')
      }
      ctx.status = 204
      return
    }
    ctx.set('Vary', 'Origin')
    if (origin !== '' && originAllowed(origin) && sec.methodSet.has(ctx.method)) {
      ctx.set('Access-Control-Allow-Origin', allowedOrigins.includes('*') ? '*' : origin)
      if (sec.credentials) ctx.set('Access-Control-Allow-Credentials', 'true')
    }
    // 4. methods
    if (ctx.method === 'OPTIONS') { ctx.status = 204; ctx.set('Allow', 'OPTIONS, POST'); return }
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'OPTIONS, POST')
      plain(ctx, 405, '405 - Method Not Allowed')
      return
    }
    // 5. Origin / Referer / User-Agent (exact origins only, no wildcards)
    if (!originCheck(ctx, allowedOrigins)) { plain(ctx, 403, '403 - Forbidden'); return }
    // 6. routing
    let decoded: string[]
    if (!reqPath.includes('%')) decoded = segments
    else try { decoded = segments.map(s => decodeURIComponent(s)) } catch { decoded = segments }
    const found = registry.resolveHttp(decoded)
    if (found?.node.command == null) {
      if (found != null && found.node.command == null && found.pathArg == null) {
        // a group with no Run: 200 with an empty channel body
        ctx.status = 200
        ctx.set('Content-Type', 'application/json')
        ctx.set('X-Chunked-Output', '1')
        preamble(ctx)
        ctx.body = Readable.from([])
        drain(ctx)
        return
      }
      plain(ctx, 404, '404 page not found')
      return
    }
    // a command declared from the manifest (the daemon's plugins) loads on its first request
    const command = (await registry.load(found.node.path)) ?? found.node.command
    // 7. parse
    const query = queryValues(ctx.querystring)
    const args = [...(found.pathArg != null ? [found.pathArg] : []), ...(query.get('arg') ?? [])]
    const enc = String(query.get('encoding')?.[0] ?? query.get('enc')?.[0] ?? 'json')
    const input: InvokeInput = { args, query, options: { encoding: enc } }
    let boundary: string | undefined
    try {
      boundary = multipartBoundary(ctx.get('Content-Type'))
    } catch (err) {
      plain(ctx, 400, errorMessage(err)); return
    }
    const defs = command.args ?? []
    const last = defs[defs.length - 1]
    let bodyUsed = false
    if (boundary != null) {
      if (defs.some(d => d.kind === 'file')) {
        input.files = requestFiles(ctx.req, boundary)
        bodyUsed = true
      } else if (last?.kind === 'string' && last.stdin === true) {
        try {
          input.stdin = await bodyLines(streamChunks(ctx.req), boundary)
        } catch (err) { plain(ctx, 400, errorMessage(err)); return }
      }
    }
    let prepared
    try {
      prepared = registry.prepare(found.node.path, input)
    } catch (err) {
      if (err instanceof RequestParseError) { plain(ctx, 400, errorMessage(err)); drain(ctx); return }
      throw err
    }
    // 8. headers from config, Server
    for (const [name, values] of sec.sent) ctx.set(name, values)
    ctx.set('Server', SERVER_HEADER)
    // 9. timeout: an unparsable one answers an empty 200 (go-ipfs-cmds)
    const timeoutText = prepared.values.timeout as string | undefined
    let timeoutMs: number | undefined
    if (timeoutText != null) {
      timeoutMs = parseDurationMs(timeoutText)
      if (timeoutMs == null) { ctx.status = 200; ctx.body = ''; ctx.remove('Content-Type'); drain(ctx); return }
    }
    // 10. encoding
    if (!ENCODINGS.has(enc)) { plain(ctx, 400, `invalid encoding: ${enc}`); drain(ctx); return }
    // 11. run
    const controller = new AbortController()
    const given: Record<string, unknown> = {}
    for (const k in prepared.values) if (prepared.given.has(k)) given[k] = prepared.values[k]
    const entry = requestLog.add(command.path.join('/'), prepared.args, given)
    const cancel = (): void => { if (!ctx.res.writableFinished) controller.abort(new Error('context canceled')) }
    ctx.res.once('close', () => {
      entry.finish()
      cancel()
      socket.off('end', cancel)
    })
    // the client's FIN cancels the request as in Go's net/http (the answer is still written: answerHalfClosed)
    const socket = ctx.req.socket
    if (socket.readableEnded) cancel()
    else socket.once('end', cancel)
    const signal = timeoutMs != null && timeoutMs > 0 ? AbortSignal.any([controller.signal, timeoutSignal(timeoutMs)]) : controller.signal
    const call = textCall(prepared)
    try {
      const outcome = await execute(prepared, container, { signal })
      await sendOutcome(ctx, outcome, enc, command, call)
    } catch (err) {
      sendError(ctx, signal.aborted && signal.reason instanceof Error && isDeadline(signal.reason) ? signal.reason : err, enc)
    }
    if (!bodyUsed) drain(ctx)
  }
}

/** A timeout whose reason reads like Go's. */
function timeoutSignal (ms: number): AbortSignal {
  const c = new AbortController()
  const t = setTimeout(() => c.abort(Object.assign(new Error('context deadline exceeded'), { name: 'TimeoutError' })), ms)
  t.unref()
  return c.signal
}
const isDeadline = (e: Error): boolean => e.message === 'context deadline exceeded'

/** Read and drop an unread request body so the connection can be reused. */
function drain (ctx: RpcContext): void {
  if (!ctx.req.readableEnded) ctx.req.resume()
}

/** Go url.Values: every value per key, '+' as space; a pair with bad escapes is dropped. */
export function queryValues (qs: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  if (qs === '') return out
  for (const pair of qs.split('&')) {
    if (pair === '' || pair.includes(';')) continue
    const eq = pair.indexOf('=')
    const rawKey = eq < 0 ? pair : pair.slice(0, eq)
    const rawVal = eq < 0 ? '' : pair.slice(eq + 1)
    let key: string, val: string
    try {
      key = decodeURIComponent(rawKey.replace(/\+/g, ' '))
      val = decodeURIComponent(rawVal.replace(/\+/g, ' '))
    } catch { continue }
    const list = out.get(key)
    if (list == null) out.set(key, [val])
    else list.push(val)
  }
  return out
}

function canonicalHeader (name: string): string {
  return name.split('-').map(p => p.length > 0 ? p[0].toUpperCase() + p.slice(1).toLowerCase() : p).join('-')
}

/** rs/cors origin match: exact, or one '*' wildcard. */
function matchOrigin (pattern: string, origin: string): boolean {
  const star = pattern.indexOf('*')
  if (star < 0) return pattern === origin
  return origin.length >= pattern.length - 1 && origin.startsWith(pattern.slice(0, star)) && origin.endsWith(pattern.slice(star + 1))
}

/** go-ipfs-cmds allowOrigin/allowReferer/allowUserAgent. */
function originCheck (ctx: RpcContext, allowed: string[]): boolean {
  const any = allowed.includes('*')
  const origin = ctx.get('Origin')
  if (origin !== '' && !any && !allowed.includes(origin)) return false
  const referer = ctx.get('Referer')
  if (referer !== '') {
    let u: URL
    try { u = new URL(referer) } catch { return false }
    if (!any && !allowed.includes(`${u.protocol}//${u.host}`)) return false
  }
  if (origin === '' && referer === '') {
    const ua = ctx.get('User-Agent')
    if (ua.startsWith('Mozilla') && !ua.includes('Electron')) return false
  }
  return true
}
