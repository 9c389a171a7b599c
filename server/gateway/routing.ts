// The Delegated Routing V1 HTTP API (specs.ipfs.tech/routing/http-routing-v1) Kubo serves on the gateway
// listener when Gateway.ExposeRoutingAPI is true: boxo routing/http/server over the node's routing
// (Kubo core/corehttp/routing.go). Same routes, status codes, bodies and caching headers as boxo v0.37:
// empty results are 200 (IPIP-0513), errors are plain text.
import { Readable } from 'node:stream'
import type { Context } from 'koa'
import { base36 } from 'multiformats/bases/base36'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import { registry, type Multiaddr, multiaddr } from '@multiformats/multiaddr'
import { decodeCid, decodeMultihash, LIBP2P_KEY, type GoCid } from '../../core/go/cid.js'
import { decodeMultibase } from '../../core/go/multibase.js'
import { codecName } from '../../core/go/multicodec.js'
import { httpDate } from './http.js'
import { MAX_RECORD_SIZE, recordTtlNs, recordValidity, unmarshalRecordGo, validateRecordWithName } from './ipns.js'
import { sendNotFound } from './respond.js'
import { xxhash64 } from './xxhash.js'

const JSON_TYPE = 'application/json'
const NDJSON_TYPE = 'application/x-ndjson'
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

/** A record of the "peer" schema. */
export interface PeerRecord {
  ID: string
  Addrs?: string[]
  Protocols?: string[]
}

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

// --- Accept: Go's mime.ParseMediaType (the checks boxo's detectResponseType relies on) ---

const isTokenChar = (c: string): boolean => c > ' ' && c < '\x7f' && !'()<>@,;:\\"/[]?='.includes(c)
function consumeToken (s: string): [string, string] {
  let i = 0
  while (i < s.length && isTokenChar(s[i])) i++
  return [s.slice(0, i), s.slice(i)]
}
function consumeValue (s: string): [string, string] {
  if (!s.startsWith('"')) return consumeToken(s)
  let out = ''
  for (let i = 1; i < s.length; i++) {
    const c = s[i]
    if (c === '"') return [out, s.slice(i + 1)]
    if (c === '\\' && i + 1 < s.length && isTokenChar(s[i + 1])) { out += s[++i]; continue }
    if (c === '\r' || c === '\n') return ['', s]
    out += c
  }
  return ['', s]
}
const trimLeft = (s: string): string => s.replace(/^\s+/, '')

/** The media type of one Accept entry, or Go's error text. */
export function parseMediaType (v: string): { type: string } | { error: string } {
  const semi = v.indexOf(';')
  const base = semi >= 0 ? v.slice(0, semi) : v
  const type = base.toLowerCase().trim()
  const [t, rest] = consumeToken(type)
  if (t === '') return { error: 'mime: no media type' }
  if (rest !== '') {
    if (!rest.startsWith('/')) return { error: 'mime: expected slash after first token' }
    const [sub, after] = consumeToken(rest.slice(1))
    if (sub === '') return { error: 'mime: expected token after slash' }
    if (after !== '') return { error: 'mime: unexpected content after media subtype' }
  }
  let params = v.slice(base.length)
  const seen = new Set<string>()
  while (params.length > 0) {
    params = trimLeft(params)
    if (params === '') break
    // consumeMediaParam
    let r = trimLeft(params)
    let ok = false
    let key = ''
    if (r.startsWith(';')) {
      r = trimLeft(r.slice(1))
      const [k, afterKey] = consumeToken(r)
      key = k.toLowerCase()
      r = trimLeft(afterKey)
      if (key !== '' && r.startsWith('=')) {
        r = trimLeft(r.slice(1))
        const [value, after] = consumeValue(r)
        if (!(value === '' && after === r)) { ok = true; r = after }
      }
    }
    if (!ok) {
      if (params.trim() === ';') break
      return { error: 'mime: invalid media parameter' }
    }
    if (seen.has(key)) return { error: 'mime: duplicate parameter name' }
    seen.add(key)
    params = r
  }
  return { type }
}

/** JSON or NDJSON from the Accept headers (boxo detectResponseType), or the 400 text. */
function detectResponseType (ctx: Context): { type: string } | { error: string } {
  const values = ctx.req.headersDistinct.accept ?? []
  if (values.length === 0) return { type: JSON_TYPE }
  let json = false
  let ndjson = false
  for (const header of values) {
    for (const accept of header.split(',')) {
      const mt = parseMediaType(accept)
      if ('error' in mt) return { error: `unable to parse Accept header: ${mt.error}` }
      if (mt.type === JSON_TYPE || mt.type === '*/*') json = true
      else if (mt.type === NDJSON_TYPE) ndjson = true
    }
  }
  if (ndjson) return { type: NDJSON_TYPE }
  if (json) return { type: JSON_TYPE }
  return { error: 'no supported content types' }
}

// --- filters (IPIP-0484) ---

const parseFilter = (param: string | null): string[] => param == null || param === '' ? [] : param.toLowerCase().split(',')

function protocolCode (name: string): number {
  try { return registry.getProtocol(name).code } catch { return -1 }
}

/** The record after filter-addrs and filter-protocols, or undefined when it is left out. */
export function applyFilters (rec: PeerRecord, filterAddrs: string[], filterProtocols: string[]): PeerRecord | undefined {
  if (filterAddrs.length === 0 && filterProtocols.length === 0) return rec
  if (filterProtocols.length > 0) {
    const protos = rec.Protocols ?? []
    const allowed = filterProtocols.some(f => (f === 'unknown' && protos.length === 0) || protos.some(p => p.toLowerCase() === f))
    if (!allowed) return undefined
  }
  const addrs = rec.Addrs ?? []
  if (filterAddrs.length === 0 || (addrs.length === 0 && filterAddrs.includes('unknown'))) return rec
  const positive = filterAddrs.filter(f => !f.startsWith('!')).map(protocolCode)
  const negative = filterAddrs.filter(f => f.startsWith('!')).map(f => protocolCode(f.slice(1)))
  const kept = addrs.filter(a => {
    let codes: number[]
    try { codes = multiaddr(a).getComponents().map(c => c.code) } catch { codes = [] }
    if (negative.some(c => codes.includes(c))) return false
    return positive.length === 0 || positive.some(c => codes.includes(c))
  })
  if (kept.length === 0) return undefined
  return { ...rec, Addrs: kept }
}

// --- identifiers ---

/** boxo parsePeerID: a peer ID string, or any CID whose multihash is taken as one. */
function parsePeerId (s: string): Uint8Array {
  try {
    return decodePeerId(s)
  } catch (err) {
    try {
      return decodeCid(s).hash
    } catch {}
    throw err
  }
}

/** go-libp2p peer.Decode: the peer ID's multihash bytes. */
function decodePeerId (s: string): Uint8Array {
  if (s.startsWith('Qm') || s.startsWith('1')) {
    let bytes: Uint8Array
    try {
      bytes = decodeMultibase('z' + s).data
    } catch {
      throw new Error("failed to parse peer ID: input isn't valid multihash")
    }
    try {
      decodeMultihash(bytes)
    } catch (err) {
      throw new Error(`failed to parse peer ID: ${(err as Error).message}`)
    }
    return bytes
  }
  let c: GoCid
  try {
    c = decodeCid(s)
  } catch (err) {
    throw new Error(`failed to parse peer ID: ${(err as Error).message}`)
  }
  if (c.codec !== LIBP2P_KEY) throw new Error(`can't convert CID of type ${JSON.stringify(codecName(c.codec))} to a peer ID`)
  return c.hash
}

/** boxo parseKey (dht/closest): a peer ID, else any CID; the multihash bytes. */
function parseKey (s: string): Uint8Array {
  let pidErr: Error
  try {
    return decodePeerId(s)
  } catch (err) {
    pidErr = err as Error
  }
  try {
    return decodeCid(s).hash
  } catch (err) {
    throw new Error(`unable to parse as CID or PeerID: ${(err as Error).message}\n${pidErr.message}`)
  }
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

/** The IPNS name in a /routing/v1/ipns/{name} URL: the CID and its multihash, or the 400 text. */
function ipnsName (text: string): { mh: Uint8Array } | { error: string } {
  let cid: GoCid
  try {
    cid = decodeCid(text)
  } catch (err) {
    return { error: `unable to parse CID: ${(err as Error).message}` }
  }
  if (cid.codec !== LIBP2P_KEY) {
    return { error: `peer ID CID is not valid: CID codec ${JSON.stringify(codecName(cid.codec))} is not allowed for IPNS Names, use  "libp2p-key" instead` }
  }
  return { mh: cid.hash }
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
