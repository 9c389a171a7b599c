// The read-only HTTP gateway (Kubo's Addresses.Gateway listener): path gateway (/ipfs, /ipns),
// trustless responses (raw, CAR, IPNS records), TAR, dag-json/dag-cbor, subdomain and DNSLink hosts,
// _redirects; the Delegated Routing V1 HTTP API (routing.ts) when Gateway.ExposeRoutingAPI is set; the
// /p2p/ HTTP proxy (p2p-proxy.ts) with Experimental.P2pHttpProxy. Its
// own Koa app, not driven by the command registry; it shares the node's blockstore and datastore, writes
// to the repo only the IPNS records PUT to /routing/v1/ipns/, and exposes no RPC.
import type http from 'node:http'
import { Readable } from 'node:stream'
import Koa, { type Context } from 'koa'
import type { AwilixContainer } from 'awilix'
import type { Blockstore } from 'interface-blockstore'
import type { Cradle } from '../../core/cradle.js'
import { AGENT_VERSION } from '../../core/version.js'
import { GatewayBlocks } from './blocks.js'
import { CACHE_MAX_BODY, cacheKey, ResponseCache, scanHeaders, sendCached, type PlainHeaders } from './cache.js'
import { gatewaySettings, type GatewaySettings } from './config.js'
import type { GatewayDeps, GatewayRequest } from './context.js'
import { createDnslinkLookup, type DnslinkInit } from './dnslink.js'
import { GatewayError, messageOf, RetrievalTimeoutError, statusOf } from './errors.js'
import { protocolHandlerRedirect, serveGatewayPath } from './handler.js'
import { HostRouter } from './host.js'
import { FastPath, type FastAnswer } from './fast.js'
import { escapePath } from './resolve.js'
import { sendError, sendNotFound, sendRedirect } from './respond.js'
import { isRoutingPath, serveRouting } from './routing.js'
import { serveP2pProxy } from './p2p-proxy.js'
import { createNodeRouter } from './routing-node.js'
import { setOwn } from '../../core/util/own.js'
import { debugStr } from './http.js'

export { type DnslinkInit, type DnslinkLookup } from './dnslink.js'

export interface GatewayInit {
  container: AwilixContainer<Cradle>
  /** fixed DNSLink answers or a lookup function (default: IPFS_NS_MAP, then DNS.Resolvers) */
  dnslink?: DnslinkInit
  /**
   * a blockstore that fetches missing blocks from the network; used unless Gateway.NoFetch is set
   * (default: the node's local blockstore only)
   */
  fetchingBlockstore?: Blockstore
  /** answer plain /ipfs/ file requests without Koa when it can (fast.ts; default true) */
  fastPath?: boolean
}

/** The decoded path, or undefined when the percent-encoding is invalid. */
function decodePath (raw: string): string | undefined {
  try {
    return decodeURIComponent(raw)
  } catch {
    return undefined
  }
}

/** Go's ServeMux path cleaning: //, /./ and /../ are redirected to the clean path. */
function cleanPath (p: string): string {
  if (p === '') return '/'
  const out: string[] = []
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue
    if (seg === '..') out.pop()
    else out.push(seg)
  }
  let np = '/' + out.join('/')
  if (p.endsWith('/') && np !== '/') np += '/'
  return np
}

/** The request target: path and query of origin-form or absolute-form (proxy) requests. */
function target (ctx: Context): { host: string, rawPath: string, rawQuery: string } {
  const url = ctx.req.url ?? '/'
  if (/^https?:\/\//i.test(url)) {
    const u = new URL(url)
    return { host: u.host, rawPath: u.pathname, rawQuery: u.search.replace(/^\?/, '') }
  }
  const q = url.indexOf('?')
  return {
    host: ctx.get('Host'),
    rawPath: q >= 0 ? url.slice(0, q) : url,
    rawQuery: q >= 0 ? url.slice(q + 1) : ''
  }
}

/** boxo's concurrent request limiter: the answer past Gateway.MaxConcurrentRequests. */
const RETRY_AFTER_SECONDS = 60

/** A timer that aborts `controller` with a TimeoutError unless touched in time. */
function retrievalTimer (ms: number, controller: AbortController): { touch: () => void, stop: () => void } {
  let timer: NodeJS.Timeout | undefined
  const arm = (): void => {
    if (ms <= 0 || controller.signal.aborted) return
    if (timer != null) clearTimeout(timer)
    timer = setTimeout(() => controller.abort(new DOMException('retrieval timeout', 'TimeoutError')), ms)
    timer.unref()
  }
  arm()
  const stop = (): void => { if (timer != null) clearTimeout(timer) }
  return { touch: arm, stop }
}

export function createGatewayApp (init: GatewayInit): Koa {
  const { container } = init
  const cradle = container.cradle
  let settings: GatewaySettings = gatewaySettings(cradle.config.get())
  // complete small /ipfs/ responses, served again without Koa (see cache.ts)
  // the node's blockstore, resolved once (as deps.localBlockstore is)
  const nodeBlockstore = cradle.blockstore as typeof cradle.blockstore & { generation?: number }
  const generation = (): number | undefined => nodeBlockstore.generation
  const cache = new ResponseCache(generation)
  // plain /ipfs/ file requests answered without Koa (see fast.ts)
  const fast = init.fastPath === false ? undefined : new FastPath(nodeBlockstore, generation)
  cradle.config.onChange(cfg => {
    settings = gatewaySettings(cfg)
    cache.clear()
    fast?.clear()
  })
  const dnslink = createDnslinkLookup(init.dnslink, init.container.cradle.dns)
  const logger = cradle.logging.forComponent('gateway')
  const deps: GatewayDeps = {
    get blockstore () { return settings.noFetch || init.fetchingBlockstore == null ? cradle.blockstore : init.fetchingBlockstore },
    localBlockstore: cradle.blockstore,
    datastore: cradle.datastore,
    get libp2p () { return cradle.libp2p },
    nameSystem: cradle.nameSystem,
    dnslink,
    logger,
    settings: () => settings
  }

  const delegatedRouter = createNodeRouter({ datastore: cradle.datastore, libp2p: () => cradle.libp2p })
  // /ipfs/ and /ipns/ requests being answered (Gateway.MaxConcurrentRequests)
  let inflight = 0

  const app = new Koa()
  app.silent = true
  app.on('error', (err: Error) => { logger.debug(`gateway: ${err.message}`) })

  app.use(async (ctx) => {
    const s = settings
    // a request whose response may be cached, and the blockstore generation it is read at
    const key = cache.enabled ? keyOf(ctx.req) : undefined
    const generation = cache.currentGeneration()
    for (const [name, values] of Object.entries(s.headers)) ctx.set(name, values.length === 1 ? values[0] : values)
    const htmlErrors = !s.disableHTMLErrors
    const t = target(ctx)
    const path = decodePath(t.rawPath)
    if (path == null) {
      sendError(ctx, 400, `invalid URL escape in path ${JSON.stringify(t.rawPath)}`, false)
      return
    }
    const clean = cleanPath(path)
    if (clean !== path && ctx.method !== 'CONNECT') {
      sendRedirect(ctx, 301, escapePath(clean) + (t.rawQuery !== '' ? '?' + t.rawQuery : ''))
      return
    }
    const query = new URLSearchParams(t.rawQuery)
    // the request's signal: aborted by the retrieval timer, the deadline or the client leaving, the
    // first one's reason (one controller: AbortSignal.any costs ~14 µs and weak references per request)
    const request = new AbortController()
    const signal = request.signal
    const timer = retrievalTimer(s.retrievalTimeoutMs, request)
    // Gateway.MaxRequestDuration: an absolute deadline, whatever the progress (boxo's text when it cuts
    // path resolution short)
    let servedPath = path
    const deadlineTimer = setTimeout(() => { request.abort(new GatewayError(504, `failed to resolve ${debugStr(servedPath)}: context deadline exceeded`)) }, s.maxRequestDurationMs)
    deadlineTimer.unref()
    const gone = new AbortController()
    ctx.res.once('close', () => {
      timer.stop()
      clearTimeout(deadlineTimer)
      if (!ctx.res.writableFinished) {
        const reason = new Error('client disconnected')
        gone.abort(reason)
        request.abort(reason)
      }
    })
    ctx.res.once('finish', () => { timer.stop(); clearTimeout(deadlineTimer) })

    try {
      if (protocolHandlerRedirect({ ctx, query }, htmlErrors)) return
      const router = new HostRouter(s, dnslink)
      const route = await router.route({
        host: t.host,
        forwardedHost: ctx.get('X-Forwarded-Host') !== '' ? ctx.get('X-Forwarded-Host') : undefined,
        https: ctx.get('X-Forwarded-Proto') === 'https',
        path,
        rawQuery: t.rawQuery,
        signal
      })
      if (route.kind === 'redirect') {
        sendRedirect(ctx, route.status, route.location)
        return
      }
      if (route.kind === 'not-found') {
        sendNotFound(ctx)
        return
      }
      const p = route.path
      servedPath = p
      if (s.exposeRoutingAPI && (p === '/routing/v1' || isRoutingPath(p))) {
        // not a retrieval: boxo's timeouts and limits do not apply
        timer.stop()
        clearTimeout(deadlineTimer)
        if (p === '/routing/v1') sendRedirect(ctx, 301, '/routing/v1/' + (t.rawQuery !== '' ? '?' + t.rawQuery : ''))
        else await serveRouting(ctx, delegatedRouter, p, query, gone.signal)
        return
      }
      if (s.p2pHttpProxy && p.startsWith('/p2p/')) {
        // Kubo's /p2p/ handler beside the gateway: a proxy, not a retrieval
        timer.stop()
        clearTimeout(deadlineTimer)
        await serveP2pProxy(ctx, cradle.libp2p, p, t.rawQuery)
        return
      }
      if (!(p.startsWith('/ipfs/') || p.startsWith('/ipns/') || p === '/ipfs' || p === '/ipns')) {
        if (p === '/version') {
          ctx.set('Content-Type', 'text/plain; charset=utf-8')
          ctx.body = `Commit: \nClient Version: ${AGENT_VERSION}/\n`
        } else if (s.rootRedirect !== '') {
          sendRedirect(ctx, 302, s.rootRedirect)
        } else {
          sendNotFound(ctx)
        }
        return
      }
      if (p === '/ipfs' || p === '/ipns') {
        sendRedirect(ctx, 301, p + '/' + (t.rawQuery !== '' ? '?' + t.rawQuery : ''))
        return
      }
      // boxo withConcurrentRequestLimiter: a slot for the whole response, or 429 at once
      const limit = s.maxConcurrentRequests
      if (limit > 0) {
        if (inflight >= limit) {
          sendError(ctx, 429, `Too many requests. Please retry after ${RETRY_AFTER_SECONDS} seconds.`, htmlErrors)
          ctx.set('Cache-Control', 'no-store')
          ctx.set('Retry-After', String(RETRY_AFTER_SECONDS))
          return
        }
        inflight++
        ctx.res.once('close', () => { inflight-- })
      }
      if (ctx.method === 'OPTIONS') {
        ctx.set('Allow', ['GET', 'HEAD', 'OPTIONS'])
        ctx.status = 200
        ctx.body = Buffer.alloc(0)
        ctx.remove('Content-Type')
        return
      }
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        ctx.set('Allow', ['GET', 'HEAD', 'OPTIONS'])
        sendError(ctx, 405, `Method ${ctx.method} not allowed: read only access`, false)
        return
      }
      const r: GatewayRequest = {
        ctx,
        deps,
        settings: s,
        blocks: new GatewayBlocks(deps.blockstore, signal, deps.localBlockstore),
        signal,
        touch: timer.touch,
        rest: timer.stop,
        method: ctx.method,
        urlPath: path,
        path: p,
        query,
        rawQuery: t.rawQuery,
        subdomainHost: route.subdomainHost,
        dnslinkHost: route.dnslinkHost,
        host: route.subdomainHost ?? route.host
      }
      // answer 504 at the deadline even if something below does not watch the signal
      let onAbort: (() => void) | undefined
      const aborted = new Promise<never>((_resolve, reject) => {
        onAbort = () => { reject(signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError' ? new RetrievalTimeoutError() : signal.reason) }
        signal.addEventListener('abort', onAbort, { once: true })
      })
      aborted.catch(() => {})
      try {
        await Promise.race([serveGatewayPath(r), aborted])
        if (key != null && generation !== undefined && route.subdomainHost == null && route.dnslinkHost == null && p.startsWith('/ipfs/')) {
          await remember(ctx, cache, key, generation)
        }
      } finally {
        if (onAbort != null) signal.removeEventListener('abort', onAbort)
      }
    } catch (err) {
      if (ctx.headerSent) throw err
      const status = statusOf(err)
      if (status >= 500) logger.debug(`gateway: ${ctx.method} ${ctx.url}: ${messageOf(err)}`)
      sendError(ctx, status, messageOf(err), htmlErrors)
    }
  })
  // cache hits, then what the fast path can answer, are answered before Koa sees the request
  const koaCallback = app.callback.bind(app)
  app.callback = () => {
    const handle = koaCallback()
    const serve = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
      const s = settings
      // at the concurrency limit, Koa answers 429
      const limit = s.maxConcurrentRequests
      const full = limit > 0 && inflight >= limit
      // the headers read once, for the cache key and the fast path's plan
      let scan: PlainHeaders | undefined
      if (cache.size > 0 && !full) {
        scan = scanHeaders(req)
        const k = keyOf(req, scan)
        const hit = k != null ? cache.get(k) : undefined
        if (hit != null) {
          sendCached(res, req.method as string, hit)
          return
        }
      }
      const plan = fast != null && !full ? fast.plan(req, s, scan) : undefined
      if (plan != null && fast != null) {
        const key = cache.enabled ? keyOf(req, plan.scan) : undefined
        const gen = cache.currentGeneration()
        // the fast path holds a slot as the full path would (given back if it falls back)
        if (limit > 0) inflight++
        let answer = await fast.answer(plan, s)
        if (answer != null) {
          try {
            sendCached(res, plan.method, answer)
          } catch (err) {
            // a header Node refuses: nothing went out, the full path answers (as it does such headers)
            if (res.headersSent) throw err
            for (const name of res.getHeaderNames()) res.removeHeader(name)
            answer = undefined
          }
        }
        if (answer != null) {
          if (limit > 0) res.once('close', () => { inflight-- })
          if (key != null && gen !== undefined) rememberFast(cache, key, gen, answer)
          return
        }
        if (limit > 0) inflight--
      }
      await handle(req, res)
    }
    return serve as unknown as typeof handle
  }
  return app
}

const CACHE_KEY = Symbol('gateway cache key')

/** The request's cache key (computed once per request). */
function keyOf (req: http.IncomingMessage, scan?: PlainHeaders): string | undefined {
  const r = req as http.IncomingMessage & { [CACHE_KEY]?: string | null }
  let k = r[CACHE_KEY]
  if (k === undefined) r[CACHE_KEY] = k = cacheKey(req, scan) ?? null
  return k ?? undefined
}

/** Keep a 304, or a complete 200 response of known, small length (its streamed body read into memory). */
async function remember (ctx: Context, cache: ResponseCache, key: string, generation: number): Promise<void> {
  const res = ctx.res
  const status = ctx.status
  if ((status !== 200 && status !== 304) || res.headersSent || res.hasHeader('Trailer')) return
  const length = Number(res.getHeader('Content-Length'))
  if (status === 200 && (!Number.isInteger(length) || length > CACHE_MAX_BODY)) return
  let body: Buffer | undefined
  if (status === 200 && ctx.method === 'GET') {
    const b: unknown = ctx.body
    if (Buffer.isBuffer(b)) {
      body = b
    } else if (typeof b === 'string') {
      body = Buffer.from(b)
    } else if (b instanceof Readable) {
      const parts: Buffer[] = []
      try {
        for await (const chunk of b) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array))
      } catch {
        // as when a stream fails after the headers: the connection is cut
        ctx.respond = false
        ctx.req.socket.destroy()
        return
      }
      body = Buffer.concat(parts)
      ctx.body = body
    } else {
      return
    }
    if (body.byteLength !== length) return
    // own copy: the body may be a view of a larger block
    body = Buffer.from(body)
  }
  const headers: Record<string, string | string[]> = {}
  // the names as they were set (Node's getHeaderNames lowercases them)
  for (const name of (res as unknown as { getRawHeaderNames: () => string[] }).getRawHeaderNames()) {
    const v = res.getHeader(name)
    if (v == null) continue
    setOwn(headers, name, Array.isArray(v) ? v.map(String) : String(v))
  }
  cache.set(key, { status, headers, body, generation })
}

/** What `remember` keeps of a full-path answer, for a fast-path one. */
function rememberFast (cache: ResponseCache, key: string, generation: number, a: FastAnswer): void {
  if (a.status !== 200 && a.status !== 304) return
  if (a.status === 200 && !(Number(a.headers['Content-Length']) <= CACHE_MAX_BODY)) return
  cache.set(key, { status: a.status, headers: a.headers, body: a.body != null ? Buffer.from(a.body) : undefined, generation })
}

// the listener settings live in server/http-server.ts (the daemon listens without loading this app)
export { attachProxySupport, GO_MAX_HEADER_BYTES } from '../http-server.js'
