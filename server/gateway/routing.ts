// The Delegated Routing V1 HTTP API (specs.ipfs.tech/routing/http-routing-v1) Kubo serves on the gateway
// listener when Gateway.ExposeRoutingAPI is true: boxo routing/http/server over the node's routing
// (Kubo core/corehttp/routing.go). Same routes, status codes, bodies and caching headers as boxo v0.37:
// empty results are 200 (IPIP-0513), errors are plain text.
import { Readable } from 'node:stream'
import type { Context } from 'koa'
import { base36 } from 'multiformats/bases/base36'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import type { Multiaddr } from '@multiformats/multiaddr'
import { decodeCid, LIBP2P_KEY, type GoCid } from '../../core/go/cid.js'
import { httpDate } from './http.js'
import { MAX_RECORD_SIZE, recordTtlNs, recordValidity, unmarshalRecordGo, validateRecordWithName } from './ipns.js'
import { sendNotFound } from './respond.js'
import { xxhash64 } from './xxhash.js'
import { JSON_TYPE, NDJSON_TYPE, applyFilters, detectResponseType, ipnsName, parseFilter, parseKey, parsePeerId, type PeerRecord } from './routing-parse.js'

export { applyFilters, parseMediaType, type PeerRecord } from './routing-parse.js'

const IPNS_RECORD_TYPE = 'application/vnd.ipfs.ipns-record'

/** boxo server.DefaultRecordsLimit / DefaultStreamingRecordsLimit (0 = no limit) / DefaultRoutingTimeout */
const RECORDS_LIMIT = 20
const STREAMING_RECORDS_LIMIT = 0
export const ROUTING_TIMEOUT_MS = 30_000

// Cache-Control: results for 5 minutes, no results for 15 seconds, stale for 48 hours
const MAX_AGE_WITH_RESULTS = 300
const MAX_AGE_WITHOUT_RESULTS = 15
const MAX_STALE = 172_800
const DEFAULT_RECORD_TTL_S = 300 // ipns.DefaultRecordTTL
const DEFAULT_RECORD_LIFETIME_S = 172_800 // ipns.DefaultRecordLifetime

/** What the routing API asks of the node (Kubo's contentRouter over n.Routing). */
export interface DelegatedRouter {
  /** providers of a CID; `limit` 0 = all the lookup finds */
  findProviders: (cid: GoCid, limit: number, signal: AbortSignal) => AsyncIterable<PeerRecord>
  /** the peer's record, undefined when routing does not find it */
  findPeer: (peerMultihash: Uint8Array, signal: AbortSignal) => Promise<PeerRecord | undefined>
  /** the best valid record for a name, undefined when there is none */
  getIpns: (nameMultihash: Uint8Array, signal: AbortSignal) => Promise<Uint8Array | undefined>
  /** store a validated record (routing errors are not the caller's concern, as in Kubo) */
  putIpns: (nameMultihash: Uint8Array, record: Uint8Array, signal: AbortSignal) => Promise<void>
  /** the DHT's closest peers to a key; throws with the delegate's error text */
  getClosestPeers: (keyMultihash: Uint8Array, signal: AbortSignal) => Promise<PeerRecord[]>
}

/** A deadline of the routing operation (boxo's WithRoutingTimeout): Go's context error text. */
export class RoutingDeadlineError extends Error {
  constructor () { super('context deadline exceeded') }
}

/** drjson of a PeerRecord: Go marshals it through a map, so the keys come sorted. */
function peerJson (r: PeerRecord): string {
  const o: Record<string, unknown> = {}
  if (r.Addrs != null) o.Addrs = r.Addrs
  o.ID = r.ID
  if (r.Protocols != null) o.Protocols = r.Protocols
  o.Schema = 'peer'
  return JSON.stringify(o)
}

const setCacheControl = (ctx: Context, maxAge: number, stale: number): void => {
  ctx.set('Cache-Control', `public, max-age=${maxAge}, stale-while-revalidate=${stale}, stale-if-error=${stale}`)
}

/** boxo writeErr: the status and the cause (at most 1 KiB), Content-Type sniffed by Go as text. */
function writeErr (ctx: Context, status: number, cause: string): void {
  ctx.status = status
  ctx.set('Content-Type', 'text/plain; charset=utf-8')
  ctx.body = Buffer.from(cause).subarray(0, 1024)
}

/** Go's http.Error. */
function httpError (ctx: Context, status: number, message: string): void {
  ctx.status = status
  ctx.set('Content-Type', 'text/plain; charset=utf-8')
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.body = message + '\n'
}

function emptyBody (ctx: Context, status: number): void {
  ctx.status = status
  ctx.body = Buffer.alloc(0)
  ctx.remove('Content-Type')
}

// --- handlers ---

interface RoutingRequest {
  ctx: Context
  router: DelegatedRouter
  query: URLSearchParams
  signal: AbortSignal
}

/** A signal for one routing operation: the request's, plus boxo's 30 s routing timeout. */
function routingSignal (signal: AbortSignal): { signal: AbortSignal, expired: () => boolean, done: () => void } {
  const controller = new AbortController()
  let expired = false
  const timer = setTimeout(() => { expired = true; controller.abort(new RoutingDeadlineError()) }, ROUTING_TIMEOUT_MS)
  timer.unref()
  return { signal: AbortSignal.any([signal, controller.signal]), expired: () => expired, done: () => { clearTimeout(timer) } }
}

function writeJsonResult (ctx: Context, key: 'Providers' | 'Peers', records: PeerRecord[] | null): void {
  ctx.set('Content-Type', JSON_TYPE)
  ctx.set('Vary', 'Accept')
  setCacheControl(ctx, (records?.length ?? 0) > 0 ? MAX_AGE_WITH_RESULTS : MAX_AGE_WITHOUT_RESULTS, MAX_STALE)
  ctx.set('Last-Modified', httpDate(new Date()))
  ctx.status = 200
  ctx.body = `{"${key}":${records == null ? 'null' : '[' + records.map(peerJson).join(',') + ']'}}`
}

/** Stream records as NDJSON; headers go out with the first record (its Cache-Control says "results"). */
async function writeNdjson (ctx: Context, records: AsyncIterable<PeerRecord>, done: () => void): Promise<void> {
  ctx.set('Content-Type', NDJSON_TYPE)
  ctx.set('Vary', 'Accept')
  ctx.set('Last-Modified', httpDate(new Date()))
  ctx.status = 200
  const it = records[Symbol.asyncIterator]()
  let first: IteratorResult<PeerRecord>
  try {
    first = await it.next()
  } catch {
    first = { done: true, value: undefined }
  }
  if (first.done === true) {
    done()
    setCacheControl(ctx, MAX_AGE_WITHOUT_RESULTS, MAX_STALE)
    ctx.body = Buffer.alloc(0)
    return
  }
  setCacheControl(ctx, MAX_AGE_WITH_RESULTS, MAX_STALE)
  ctx.body = Readable.from((async function * () {
    try {
      yield peerJson(first.value) + '\n'
      for (;;) {
        const next = await it.next()
        if (next.done === true) return
        yield peerJson(next.value) + '\n'
      }
    } catch {
      // as boxo: an iterator error ends the stream
    } finally {
      done()
      await it.return?.()
    }
  })(), { objectMode: false })
}

/** The records that pass the filters, at most `limit` (0 = all); a failing lookup just ends them. */
async function * filtered (source: AsyncIterable<PeerRecord>, query: URLSearchParams, limit: number): AsyncGenerator<PeerRecord> {
  const filterAddrs = parseFilter(query.get('filter-addrs'))
  const filterProtocols = parseFilter(query.get('filter-protocols'))
  let n = 0
  try {
    for await (const rec of source) {
      // boxo hands the limit to the router, before filtering
      if (limit > 0 && n++ >= limit) return
      const kept = applyFilters(rec, filterAddrs, filterProtocols)
      if (kept != null) yield kept
    }
  } catch {}
}

async function findProviders (r: RoutingRequest, cidText: string): Promise<void> {
  let cid: GoCid
  try {
    cid = decodeCid(cidText)
  } catch (err) {
    writeErr(r.ctx, 400, `unable to parse CID: ${(err as Error).message}`)
    return
  }
  const mt = detectResponseType(r.ctx)
  if ('error' in mt) {
    writeErr(r.ctx, 400, mt.error)
    return
  }
  const op = routingSignal(r.signal)
  const ndjson = mt.type === NDJSON_TYPE
  const limit = ndjson ? STREAMING_RECORDS_LIMIT : RECORDS_LIMIT
  const records = filtered(r.router.findProviders(cid, limit, op.signal), r.query, limit)
  if (ndjson) {
    await writeNdjson(r.ctx, records, op.done)
    return
  }
  const all: PeerRecord[] = []
  try {
    for await (const rec of records) all.push(rec)
  } finally {
    op.done()
  }
  writeJsonResult(r.ctx, 'Providers', all)
}

async function findPeers (r: RoutingRequest, pidText: string): Promise<void> {
  let pid: Uint8Array
  try {
    pid = parsePeerId(pidText)
  } catch (err) {
    writeErr(r.ctx, 400, `unable to parse PeerID ${JSON.stringify(pidText)}: ${(err as Error).message}`)
    return
  }
  const mt = detectResponseType(r.ctx)
  if ('error' in mt) {
    writeErr(r.ctx, 400, mt.error)
    return
  }
  const op = routingSignal(r.signal)
  let rec: PeerRecord | undefined
  try {
    rec = await r.router.findPeer(pid, op.signal)
  } catch (err) {
    op.done()
    writeErr(r.ctx, 500, `delegate error: ${op.expired() ? 'context deadline exceeded' : (err as Error).message}`)
    return
  }
  op.done()
  const found = rec != null ? [rec] : []
  const records = filtered((async function * () { yield * found })(), r.query, 0)
  if (mt.type === NDJSON_TYPE) {
    await writeNdjson(r.ctx, records, () => {})
    return
  }
  const all: PeerRecord[] = []
  for await (const x of records) all.push(x)
  writeJsonResult(r.ctx, 'Peers', all)
}

async function getIpns (r: RoutingRequest, nameText: string): Promise<void> {
  const ctx = r.ctx
  // boxo reads the first Accept header; none (or */*) means the record type
  let accept = ctx.req.headersDistinct.accept?.[0] ?? ''
  if (accept === '' || accept.includes('*/*')) accept = IPNS_RECORD_TYPE
  if (!accept.includes(IPNS_RECORD_TYPE)) {
    writeErr(ctx, 406, `content type in 'Accept' header is not supported, retry with '${IPNS_RECORD_TYPE}'`)
    return
  }
  const name = ipnsName(nameText)
  if ('error' in name) {
    writeErr(ctx, 400, name.error)
    return
  }
  const op = routingSignal(r.signal)
  let raw: Uint8Array | undefined
  try {
    raw = await r.router.getIpns(name.mh, op.signal)
  } catch (err) {
    writeErr(ctx, 500, `delegate error: ${op.expired() ? 'context deadline exceeded' : (err as Error).message}`)
    return
  } finally {
    op.done()
  }
  if (raw == null) {
    // IPIP-0513: 200 with a text body when there is no record
    setCacheControl(ctx, MAX_AGE_WITHOUT_RESULTS, MAX_STALE)
    httpError(ctx, 200, 'delegate error: routing: not found')
    return
  }
  const rec = unmarshalRecordGo(raw)
  let remaining = DEFAULT_RECORD_LIFETIME_S
  try {
    const eol = recordValidity(rec)
    ctx.set('Expires', httpDate(new Date(eol)))
    remaining = Math.trunc((eol - Date.now()) / 1000)
  } catch {}
  const ttl = recordTtlNs(rec)
  setCacheControl(ctx, ttl != null ? Number(ttl / 1_000_000_000n) : DEFAULT_RECORD_TTL_S, remaining)
  ctx.set('Last-Modified', httpDate(new Date()))
  ctx.set('Etag', `"${xxhash64(raw).toString(16)}"`)
  ctx.set('Content-Type', IPNS_RECORD_TYPE)
  ctx.set('Content-Disposition', `attachment; filename="${CID.createV1(Number(LIBP2P_KEY), Digest.decode(name.mh)).toString(base36)}.ipns-record"`)
  ctx.set('Vary', 'Accept')
  ctx.status = 200
  ctx.body = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)
}

async function readBody (ctx: Context, max: number): Promise<Buffer> {
  const parts: Buffer[] = []
  let size = 0
  for await (const chunk of ctx.req) {
    const b = chunk as Buffer
    // io.LimitReader: what is past the limit is not read
    if (size < max) parts.push(b.subarray(0, max - size))
    size += b.byteLength
  }
  return Buffer.concat(parts)
}

async function putIpns (r: RoutingRequest, nameText: string): Promise<void> {
  const ctx = r.ctx
  if (!ctx.get('Content-Type').includes(IPNS_RECORD_TYPE)) {
    writeErr(ctx, 406, "content type in 'Content-Type' header is missing or not supported")
    return
  }
  const name = ipnsName(nameText)
  if ('error' in name) {
    writeErr(ctx, 400, name.error)
    return
  }
  const raw = await readBody(ctx, MAX_RECORD_SIZE)
  try {
    const rec = unmarshalRecordGo(raw)
    await validateRecordWithName(rec, Digest.decode(name.mh))
  } catch (err) {
    writeErr(ctx, 400, `provided record is invalid: ${(err as Error).message}`)
    return
  }
  const op = routingSignal(r.signal)
  try {
    await r.router.putIpns(name.mh, raw, op.signal)
  } catch (err) {
    writeErr(ctx, 500, `delegate error: ${op.expired() ? 'context deadline exceeded' : (err as Error).message}`)
    return
  } finally {
    op.done()
  }
  emptyBody(ctx, 200)
}

async function getClosestPeers (r: RoutingRequest, keyText: string): Promise<void> {
  let key: Uint8Array
  try {
    key = parseKey(keyText)
  } catch (err) {
    writeErr(r.ctx, 400, `unable to parse key ${JSON.stringify(keyText)}: ${(err as Error).message}`)
    return
  }
  const mt = detectResponseType(r.ctx)
  if ('error' in mt) {
    writeErr(r.ctx, 400, mt.error)
    return
  }
  const op = routingSignal(r.signal)
  let peers: PeerRecord[]
  try {
    peers = await r.router.getClosestPeers(key, op.signal)
  } catch (err) {
    writeErr(r.ctx, 500, `delegate error: ${op.expired() ? 'context deadline exceeded' : (err as Error).message}`)
    return
  } finally {
    op.done()
  }
  if (mt.type === NDJSON_TYPE) {
    await writeNdjson(r.ctx, (async function * () { yield * peers })(), () => {})
    return
  }
  // ReadAllResults of nothing is a nil slice: "Peers":null
  writeJsonResult(r.ctx, 'Peers', peers.length > 0 ? peers : null)
}

/**
 * The deprecated PUT /routing/v1/providers/ (IPIP-526): Kubo's router does not support it, so a bitswap
 * record ends in 500 and anything else in 400.
 */
async function provide (r: RoutingRequest): Promise<void> {
  const body = (await readBody(r.ctx, Number.MAX_SAFE_INTEGER)).toString('utf8')
  let req: unknown
  try {
    req = JSON.parse(body)
  } catch (err) {
    writeErr(r.ctx, 400, `invalid request: ${body.trim() === '' ? 'EOF' : (err as Error).message}`)
    return
  }
  const providers = (req != null && typeof req === 'object' && Array.isArray((req as { Providers?: unknown }).Providers)) ? (req as { Providers: unknown[] }).Providers : []
  for (let i = 0; i < providers.length; i++) {
    const p = providers[i] as { Schema?: unknown } | null
    if (p?.Schema === 'bitswap') {
      writeErr(r.ctx, 500, 'delegate error: routing: operation or key not supported')
      return
    }
    writeErr(r.ctx, 400, `provider record ${i} is not bitswap`)
    return
  }
  r.ctx.set('Content-Type', JSON_TYPE)
  r.ctx.set('Vary', 'Accept')
  setCacheControl(r.ctx, MAX_AGE_WITHOUT_RESULTS, MAX_STALE)
  r.ctx.set('Last-Modified', httpDate(new Date()))
  r.ctx.status = 200
  r.ctx.body = '{"ProvideResults":null}'
}

type Handler = (r: RoutingRequest, arg: string) => Promise<void>
const ROUTES: Array<{ re: RegExp, methods: Record<string, Handler> }> = [
  { re: /^\/routing\/v1\/providers\/([^/]+)$/, methods: { GET: findProviders } },
  { re: /^\/routing\/v1\/providers\/$/, methods: { PUT: async (r) => { await provide(r) } } },
  { re: /^\/routing\/v1\/peers\/([^/]+)$/, methods: { GET: findPeers } },
  { re: /^\/routing\/v1\/ipns\/([^/]+)$/, methods: { GET: getIpns, PUT: putIpns } },
  { re: /^\/routing\/v1\/dht\/closest\/peers\/([^/]+)$/, methods: { GET: getClosestPeers } }
]

/** Is this a path of the routing API's subtree (Go ServeMux pattern "/routing/v1/")? */
export const isRoutingPath = (path: string): boolean => path.startsWith('/routing/v1/')

/** Answer a request under /routing/v1/ (gorilla/mux: 405 with no body for another method, else 404). */
export async function serveRouting (ctx: Context, router: DelegatedRouter, path: string, query: URLSearchParams, signal: AbortSignal): Promise<void> {
  let methodMismatch = false
  for (const route of ROUTES) {
    const m = route.re.exec(path)
    if (m == null) continue
    const handler = route.methods[ctx.method]
    if (handler == null) { methodMismatch = true; continue }
    await handler({ ctx, router, query, signal }, m[1] ?? '')
    return
  }
  if (methodMismatch) emptyBody(ctx, 405)
  else sendNotFound(ctx)
}

/** Multiaddrs as strings, each once. */
export const addrStrings = (addrs: Multiaddr[]): string[] => [...new Set(addrs.map(a => a.toString()))]
