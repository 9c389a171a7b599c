// Complete small responses of the plain path gateway (/ipfs/… on an IP-literal host), kept in memory
// and sent again without going through Koa or the blockstore. /ipfs/ content is immutable, so the
// response to the same request is the same, as long as:
// - the request carries no header that changes the answer other than Host, Accept and If-None-Match,
//   which are part of the key (range, date conditions, forwarding headers…: only a list of neutral
//   headers is allowed), so a browser's revalidation gets its 304 from here too;
// - the gateway settings did not change (the cache is cleared on a config change);
// - no block was removed since it was made (the blockstore's `generation`; without one, no caching);
// - the host is an IP literal: no DNSLink and no subdomain gateway can apply to it.
import type http from 'node:http'

/** largest body kept (bytes) */
export const CACHE_MAX_BODY = 64 * 1024
const MAX_ENTRIES = 2048
const MAX_BYTES = 32 * 1024 * 1024

/** request headers that do not change a gateway response (any other header: no caching) */
const NEUTRAL = new Set([
  'host', 'accept', 'user-agent', 'accept-encoding', 'accept-language', 'connection', 'keep-alive', 'pragma',
  'cache-control', 'referer', 'origin', 'dnt', 'upgrade-insecure-requests', 'priority', 'te', 'sec-gpc',
  'purpose', 'sec-purpose'
])

export interface CachedResponse {
  /** 200, or 304 for a matching If-None-Match */
  status: number
  /** response headers with their names as sent */
  headers: Record<string, string | string[]>
  /** undefined for HEAD */
  body?: Buffer
  /** the blockstore generation the response was made at */
  generation: number
  /** read since it was stored or last given a second chance (eviction) */
  used?: boolean
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/

/** An IPv4 or bracketed IPv6 literal, with or without a port. */
export function isIpHost (host: string): boolean {
  if (host.startsWith('[')) return host.indexOf(']') > 1
  const colon = host.indexOf(':')
  return IPV4.test(colon < 0 ? host : host.slice(0, colon))
}

/** What the gateway's shortcuts (response cache, fast path) read from a request's headers, in one pass. */
export interface PlainHeaders {
  host?: string
  accept?: string
  inm?: string
  range?: string
  /** more than one Range header */
  ranges: boolean
  onlyIfCached: boolean
  /** a header other than these, NEUTRAL ones and sec-fetch-*, sec-ch-* (a Range header included) */
  unlisted: boolean
  /** the names, lower-cased, of the headers other than these and NEUTRAL ones */
  others: string[]
}

/** One pass over a request's raw headers (repeated Accept and If-None-Match values joined as Node joins them). */
export function scanHeaders (req: http.IncomingMessage): PlainHeaders {
  const out: PlainHeaders = { ranges: false, onlyIfCached: false, unlisted: false, others: [] }
  const raw = req.rawHeaders
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase()
    const value = raw[i + 1]
    if (name === 'host') {
      out.host ??= value
    } else if (name === 'accept') {
      out.accept = out.accept == null ? value : `${out.accept}, ${value}`
    } else if (name === 'if-none-match') {
      out.inm = out.inm == null ? value : `${out.inm}, ${value}`
    } else if (NEUTRAL.has(name)) {
      if (name === 'cache-control' && value.includes('only-if-cached')) out.onlyIfCached = true
    } else {
      if (name === 'range') {
        if (out.range != null) out.ranges = true
        out.range = value
      }
      if (!name.startsWith('sec-fetch-') && !name.startsWith('sec-ch-')) out.unlisted = true
      out.others.push(name)
    }
  }
  return out
}

/** The cache key of a request, or undefined when its response must not come from or go to the cache. */
export function cacheKey (req: http.IncomingMessage, h = scanHeaders(req)): string | undefined {
  const method = req.method
  if (method !== 'GET' && method !== 'HEAD') return undefined
  const url = req.url
  if (url == null || !url.startsWith('/ipfs/')) return undefined
  if (h.onlyIfCached || h.unlisted || h.host == null || !isIpHost(h.host)) return undefined
  return `${method} ${h.host} ${h.accept ?? ''} ${h.inm ?? ''} ${url}`
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedResponse>()
  private bytes = 0

  /** @param generation the blockstore's current generation (undefined: it cannot tell, cache nothing) */
  constructor (private readonly generation: () => number | undefined) {}

  get size (): number { return this.entries.size }

  /** whether responses can be cached now */
  get enabled (): boolean { return this.generation() !== undefined }

  currentGeneration (): number | undefined { return this.generation() }

  get (key: string): CachedResponse | undefined {
    const e = this.entries.get(key)
    if (e == null) return undefined
    if (e.generation !== this.generation()) {
      this.remove(key, e)
      return undefined
    }
    // marked, not moved: a delete + set of the Map per hit left old-generation garbage under load
    // (~0.3 MiB/s at 20k hits/s); eviction gives a marked entry a second chance (CLOCK, near LRU)
    if (e.used !== true) e.used = true
    return e
  }

  set (key: string, e: CachedResponse): void {
    const old = this.entries.get(key)
    if (old != null) this.remove(key, old)
    this.entries.set(key, e)
    this.bytes += e.body?.byteLength ?? 0
    for (const [k, v] of this.entries) {
      if (this.entries.size <= MAX_ENTRIES && this.bytes <= MAX_BYTES) break
      // the new entry: the entries moved past it (second chance, now unmarked) go before it
      if (k === key) continue
      if (v.used === true) {
        // read since its last chance: to the young end, unmarked
        v.used = false
        this.entries.delete(k)
        this.entries.set(k, v)
        continue
      }
      this.remove(k, v)
    }
    // alone over the limits
    if (this.entries.size > MAX_ENTRIES || this.bytes > MAX_BYTES) this.remove(key, e)
  }

  clear (): void {
    this.entries.clear()
    this.bytes = 0
  }

  private remove (key: string, e: CachedResponse): void {
    this.entries.delete(key)
    this.bytes -= e.body?.byteLength ?? 0
  }
}

/** Send a cached response (Node adds Date and the connection headers, as for any response). */
export function sendCached (res: http.ServerResponse, method: string, e: Omit<CachedResponse, 'generation'>): void {
  res.writeHead(e.status, e.headers)
  if (method === 'HEAD' || e.body == null) res.end()
  else res.end(e.body)
}
