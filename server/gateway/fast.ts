// The fast path of the plain path gateway: `GET`/`HEAD /ipfs/<cid>[/path]` on an IP-literal host for a
// UnixFS file (or a directory's index.html) whose blocks are all in the local store, answered without
// Koa, the host router, per-request timers or abort signals, from the same building blocks as the full
// path (handler.ts, serve-unixfs.ts, respond.ts) and with the same status, headers (same order) and body.
// Anything else, or anything that goes wrong, is left to the full path, which answers as it always has:
// query strings, percent-escapes, unclean paths, conditional headers other than a matching
// If-None-Match, anything but one satisfiable byte range, format negotiation, missing blocks (the full
// path may fetch them, time out, or answer 404/5xx), symlinks, listings, redirects, empty and large
// (> CACHE_MAX_BODY) bodies. Nothing is written before the whole answer is known, so falling back is
// always possible. Small blocks are kept in a bounded LRU here (not in the blockstore), dropped whenever
// the blockstore's generation says a block may have been removed.
import type http from 'node:http'
import type { Blockstore } from 'interface-blockstore'
import type { CID } from 'multiformats/cid'
import { newPath } from '../../core/resolver/index.js'
import { GatewayBlocks, type BlockSource, type DecodedBlocks } from './blocks.js'
import { CACHE_MAX_BODY, isIpHost, scanHeaders, type PlainHeaders } from './cache.js'
import { knownGateway, type GatewaySettings } from './config.js'
import { CODEC_TO_TYPE, etagFor, responseFormat } from './format.js'
import { dagIndexEtag, dirListingEtag, filenameOf } from './headers.js'
import { checkRangeSyntax, contentRange, etagMatch, firstRangeAtZero, httpDate, IMMUTABLE_CACHE_CONTROL, INVALID_HEADER_CHAR, LISTING_CACHE_CONTROL, parseRange, rawHeader, suffixPastStart } from './http.js'
import { extname, goSniff, sniff, SNIFF_LEN, typeByExtension } from './mime.js'
import { joinPath, parseContentPath, resolveIpfsPath, type ContentPath, type ResolvedPath } from './resolve.js'
import { findEntry, loadUnixfs, type UnixfsNode } from './unixfs.js'

/** A complete answer: what the full path would have sent. */
export interface FastAnswer {
  status: number
  /** in the order the full path sets them */
  headers: Record<string, string | string[]>
  /** GET with a body only */
  body?: Buffer
}

/** What the fast path needs from a request (undefined: not one it answers). */
interface Plan {
  method: 'GET' | 'HEAD'
  path: string
  range: string
  inm: string
  /** the request's headers as scanHeaders read them */
  scan: PlainHeaders
}

/** blocks larger than this are not kept */
const BLOCK_MAX = 64 * 1024
const LRU_MAX_BYTES = 8 * 1024 * 1024
const LRU_MAX_ENTRIES = 4096
/** parsed paths and CIDs kept (pure functions of their text) */
const MEMO_MAX = 1024

const NEVER = new AbortController().signal

/** Request headers that change the answer in ways the fast path leaves to the full path. */
const FALLBACK_HEADERS = new Set([
  'if-match', 'if-unmodified-since', 'if-modified-since', 'if-range', 'service-worker', 'x-forwarded-host', 'x-forwarded-proto'
])

/** The response headers the fast path sets. */
const RESPONSE_HEADERS = new Set([
  'x-ipfs-path', 'x-ipfs-roots', 'etag', 'cache-control', 'content-type', 'last-modified', 'accept-ranges', 'content-range', 'content-length'
])

/** A bounded map: cleared when full (for pure memos, where a miss only costs the work again). */
function memo<V> (map: Map<string, V>, key: string, make: () => V): V {
  let v = map.get(key)
  if (v === undefined) {
    if (map.size >= MEMO_MAX) map.clear()
    v = make()
    map.set(key, v)
  }
  return v
}

const keyOf = (cid: CID): string => Buffer.from(cid.multihash.bytes).toString('latin1')

/** A small LRU of blocks read from the local store, forgotten when a block may have been removed. */
class SmallBlocks implements BlockSource {
  private readonly entries = new Map<string, Uint8Array>()
  private bytes = 0
  private generation: number | undefined

  constructor (private readonly store: Blockstore, private readonly currentGeneration: () => number | undefined) {}

  get size (): number { return this.bytes }

  /** a kept block (moved to the young end) */
  peek (cid: CID): Uint8Array | undefined {
    const g = this.currentGeneration()
    if (g === undefined || g !== this.generation) return undefined
    return this.touch(keyOf(cid))
  }

  /** the kept block under `key`, moved to the young end */
  private touch (key: string): Uint8Array | undefined {
    const hit = this.entries.get(key)
    if (hit != null) {
      this.entries.delete(key)
      this.entries.set(key, hit)
    }
    return hit
  }

  async * get (cid: CID): AsyncGenerator<Uint8Array> {
    const g = this.currentGeneration()
    if (g === undefined) {
      // the store cannot tell removals: keep nothing
      yield * this.store.get(cid)
      return
    }
    if (g !== this.generation) this.clear(g)
    const key = keyOf(cid)
    const hit = this.touch(key)
    if (hit != null) {
      yield hit
      return
    }
    const parts: Uint8Array[] = []
    let size = 0
    for await (const chunk of this.store.get(cid)) {
      parts.push(chunk)
      size += chunk.byteLength
    }
    let bytes = parts.length === 1 ? parts[0] : Buffer.concat(parts, size)
    // not if a block was removed meanwhile
    if (size <= BLOCK_MAX && this.currentGeneration() === g) {
      // its own memory, so the bound holds (not a view of a larger or pooled buffer)
      if (bytes.byteOffset !== 0 || bytes.buffer.byteLength !== size) bytes = new Uint8Array(bytes)
      this.add(key, bytes)
    }
    yield bytes
  }

  private add (key: string, bytes: Uint8Array): void {
    this.entries.set(key, bytes)
    this.bytes += bytes.byteLength
    for (const [k, v] of this.entries) {
      if (this.entries.size <= LRU_MAX_ENTRIES && this.bytes <= LRU_MAX_BYTES) break
      this.entries.delete(k)
      this.bytes -= v.byteLength
    }
  }

  clear (generation?: number): void {
    this.entries.clear()
    this.bytes = 0
    this.generation = generation
  }
}

export class FastPath {
  private readonly blocks: SmallBlocks
  /** decoded UnixFS nodes of kept blocks (they go with the block buffers) */
  private readonly decoded: DecodedBlocks = new WeakMap()
  private readonly paths = new Map<string, ContentPath>()
  private readonly roots = new Map<string, CID>()
  private hosts = new Map<string, boolean>()
  private hostsFor: GatewaySettings | undefined
  private headersOk: boolean | undefined
  /** Gateway.HTTPHeaders as response headers (copied per answer) */
  private baseHeaders: Record<string, string | string[]> = {}
  /** content types sniffed from whole files' bytes (kept while the bytes are) */
  private readonly sniffed = new WeakMap<Uint8Array, string>()

  /**
   * @param local the node's own blockstore (the fast path never fetches)
   * @param generation the blockstore's removal generation (undefined: no block is kept)
   */
  constructor (local: Blockstore, generation: () => number | undefined) {
    this.blocks = new SmallBlocks(local, generation)
  }

  /** bytes of blocks kept */
  get keptBytes (): number { return this.blocks.size }

  /** Forget kept blocks (the settings changed). */
  clear (): void {
    this.blocks.clear()
  }

  /** The request's plan, when it is one the fast path may answer (cheap, synchronous). */
  plan (req: http.IncomingMessage, s: GatewaySettings, scanned?: PlainHeaders): Plan | undefined {
    const method = req.method
    if (method !== 'GET' && method !== 'HEAD') return undefined
    const url = req.url
    if (url == null || !url.startsWith('/ipfs/') || url.startsWith('/ipfs/ipfs/') || url.startsWith('/ipfs/ipns/')) return undefined
    // no query, no escapes, a clean path (else: redirects, decoding, options of the full path)
    if (url.includes('?') || url.includes('%') || url.includes('//') || /\/\.\.?(\/|$)/.test(url)) return undefined
    const h = scanned ?? scanHeaders(req)
    if (h.ranges || h.onlyIfCached || h.others.some(name => FALLBACK_HEADERS.has(name))) return undefined
    const { host, accept } = h
    if (host == null || !this.plainHost(s, host) || !s.deserializedResponses || !this.plainHeaders(s)) return undefined
    if (accept != null) {
      try {
        if (responseFormat(null, [accept]).type !== '') return undefined
      } catch {
        return undefined
      }
    }
    return { method, path: url, range: h.range ?? '', inm: h.inm ?? '', scan: h }
  }

  /** Gateway.HTTPHeaders that none of the response headers set here would replace. */
  private plainHeaders (s: GatewaySettings): boolean {
    this.settingsSeen(s)
    this.headersOk ??= Object.keys(s.headers).every(name => !RESPONSE_HEADERS.has(name.toLowerCase()))
    return this.headersOk
  }

  private settingsSeen (s: GatewaySettings): void {
    if (this.hostsFor === s) return
    this.hosts = new Map()
    this.headersOk = undefined
    this.baseHeaders = {}
    for (const [name, values] of Object.entries(s.headers)) this.baseHeaders[name] = values.length === 1 ? values[0] : values
    this.hostsFor = s
  }

  /** An IP-literal host that no configured gateway (exact, wildcard or as a parent domain) claims. */
  private plainHost (s: GatewaySettings, host: string): boolean {
    this.settingsSeen(s)
    return memo(this.hosts, host, () => {
      if (!isIpHost(host) || knownGateway(s, host) != null) return false
      const labels = host.split('.')
      for (let i = labels.length - 1; i >= 2; i--) if (knownGateway(s, labels.slice(i).join('.')) != null) return false
      return true
    })
  }

  /** The complete answer, or undefined to leave the request to the full path. */
  // (not async: one promise fewer per request)
  answer (plan: Plan, s: GatewaySettings): Promise<FastAnswer | undefined> {
    return this.serve(plan, s).catch(() => undefined)
  }

  private async serve (plan: Plan, s: GatewaySettings): Promise<FastAnswer | undefined> {
    this.settingsSeen(s)
    const headers: Record<string, string | string[]> = { ...this.baseHeaders }
    const cp = memo(this.paths, plan.path, () => parseContentPath(plan.path))
    const xIpfsPath = rawHeader(cp.str)
    if (INVALID_HEADER_CHAR.test(xIpfsPath)) return undefined
    headers['X-Ipfs-Path'] = xIpfsPath

    const blocks = new GatewayBlocks(this.blocks, NEVER)
    blocks.decoded = this.decoded
    let resolved: ResolvedPath
    if (cp.segments.length === 0) {
      const root = memo(this.roots, cp.root, () => newPath(`/ipfs/${cp.root}`).cid as CID)
      resolved = { root, segmentCids: [root], terminal: root, remainder: [] }
    } else {
      resolved = await resolveIpfsPath(blocks, cp)
    }
    const terminal = resolved.terminal

    // handler.ts ifNoneMatch: a 304 for any representation of the terminal; other tags: the full path
    if (plan.inm !== '') {
      const candidates: Array<[string, string]> = [
        [etagFor(terminal, ''), IMMUTABLE_CACHE_CONTROL],
        [dirListingEtag(terminal), LISTING_CACHE_CONTROL],
        [dagIndexEtag(terminal), '']
      ]
      for (const [etag, cc] of candidates) {
        if (etagMatch(plan.inm, etag)) {
          headers.Etag = etag
          if (cc !== '') headers['Cache-Control'] = cc
          return { status: 304, headers }
        }
      }
      return undefined
    }

    // serve-unixfs.ts serveDefaults
    // (a HEAD with a Range gets the 206 headers too; only GET checks the syntax first)
    if (plan.method === 'GET' && plan.range !== '') checkRangeSyntax(plan.range)
    if (CODEC_TO_TYPE[terminal.code] != null) return undefined
    const node = await loadUnixfs(blocks, terminal)
    headers['X-Ipfs-Roots'] = resolved.segmentCids.map(c => c.toString()).join(',')
    const lastModified = node.mtime
    if (node.kind === 'directory') {
      // serveDirectory: only the index.html of a path that ends with a slash
      if (!plan.path.endsWith('/')) return undefined
      const index = await findEntry(blocks, node.cid, 'index.html')
      if (index == null) return undefined
      const file = await loadUnixfs(blocks, index)
      if (file.kind !== 'file') return undefined
      const indexPath: ContentPath = { ...cp, segments: [...cp.segments, 'index.html'], trailingSlash: false, str: joinPath(cp.namespace, cp.root, [...cp.segments, 'index.html']) }
      return await this.file(plan, s, headers, file, indexPath, 'text/html', node, lastModified)
    }
    return await this.file(plan, s, headers, node, cp, '', node, lastModified)
  }

  /** serve-unixfs.ts serveFile and respond.ts serveContent for one file. */
  private async file (plan: Plan, s: GatewaySettings, headers: Record<string, string | string[]>, node: UnixfsNode, contentPath: ContentPath,
    fallbackType: string, etagNode: UnixfsNode, modtime: Date | undefined): Promise<FastAnswer | undefined> {
    if (node.kind !== 'file' || node.size === 0) return undefined
    const size = node.size
    const max = s.maxRangeRequestFileSize
    if (max > 0 && plan.range !== '' && size > max) return undefined
    // (the full path's 500, as Kubo)
    if (plan.method === 'GET' && plan.range !== '' && suffixPastStart(plan.range, size)) return undefined
    // the range first: a body the full path would stream is left to it before anything is read
    let start = 0
    let length = size
    let status = 200
    if (plan.range !== '') {
      const ranges = parseRange(plan.range, size)
      if (ranges.length > 1) return undefined
      if (ranges.length === 1 && ranges[0].length <= size) {
        start = ranges[0].start
        length = ranges[0].length
        status = 206
      }
    }
    if (plan.method === 'GET' && length > CACHE_MAX_BODY) return undefined
    headers.Etag = etagFor(etagNode.cid, '')
    headers['Cache-Control'] = IMMUTABLE_CACHE_CONTROL

    // the body (or, for HEAD, the first bytes for sniffing), read up front
    let body: Buffer | undefined
    const whole = node.whole
    const read = async (offset: number, length: number): Promise<Buffer | undefined> => {
      const parts: Uint8Array[] = []
      let got = 0
      for await (const chunk of node.read(offset, length, { recycle: false })) {
        parts.push(chunk)
        got += chunk.byteLength
      }
      if (got !== length) return undefined
      const b = parts.length === 1 ? parts[0] : Buffer.concat(parts, got)
      return Buffer.from(b.buffer, b.byteOffset, b.byteLength)
    }

    // (a bare /ipfs/<cid>[/] names no file)
    let ctype = contentPath.segments.length === 0 ? '' : typeByExtension(extname(filenameOf(contentPath)))
    if (ctype === '') ctype = fallbackType
    let goType = false
    if (ctype === '' && plan.method === 'GET' && status === 206 && !firstRangeAtZero(plan.range)) {
      // serve-unixfs.ts fileType: net/http's sniff of the range body
      body = whole != null ? Buffer.from(whole.buffer, whole.byteOffset + start, length) : await read(start, length)
      if (body == null) return undefined
      ctype = goSniff(body)
      goType = true
    }
    if (ctype === '' && whole != null) {
      // (bytes at hand: their type is a function of them)
      ctype = this.sniffed.get(whole) ?? ''
      if (ctype === '') {
        ctype = sniff(whole.subarray(0, SNIFF_LEN), size <= SNIFF_LEN)
        this.sniffed.set(whole, ctype)
      }
    }
    if (ctype === '') {
      // a whole body is read once, for sniffing and sending
      const all = plan.method === 'GET' && status === 200
      const first = await read(0, all ? size : Math.min(size, SNIFF_LEN))
      if (first == null) return undefined
      if (all) body = first
      ctype = sniff(first.subarray(0, SNIFF_LEN), size <= SNIFF_LEN)
    }
    if (!goType && ctype.startsWith('text/html;')) ctype = 'text/html'
    headers['Content-Type'] = ctype
    if (modtime != null && modtime.getTime() > 0) headers['Last-Modified'] = httpDate(modtime)
    headers['Accept-Ranges'] = 'bytes'
    if (status === 206) headers['Content-Range'] = contentRange({ start, length }, size)
    headers['Content-Length'] = String(length)
    if (plan.method === 'HEAD') return { status, headers }
    body ??= whole != null ? Buffer.from(whole.buffer, whole.byteOffset + start, length) : await read(start, length)
    if (body == null) return undefined
    return { status, headers, body }
  }
}
