// HTTP details the gateway shares: Etag comparison, byte ranges (Go's net/http rules),
// Content-Disposition, cache headers and dates.

export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=29030400, immutable'
export const LISTING_CACHE_CONTROL = 'public, max-age=604800, stale-while-revalidate=2678400'

/** The next entity tag in an If-None-Match / If-Match list (Go's scanETag). */
function scanEtag (s: string): [string, string] {
  s = s.trim()
  let start = 0
  if (s.startsWith('W/')) start = 2
  if (s.length - start < 2 || s[start] !== '"') return ['', '']
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === 0x22) return [s.slice(0, i + 1), s.slice(i + 1)]
    if (!(c === 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80)) return ['', '']
  }
  return ['', '']
}

const weakEqual = (a: string, b: string): boolean => a.replace(/^W\//, '') === b.replace(/^W\//, '')

/** Does an If-None-Match header match one of these Etags (weak comparison, `*` matches all)? */
export function etagMatch (header: string | undefined, ...etags: string[]): boolean {
  let buf = header ?? ''
  for (;;) {
    buf = buf.trim()
    if (buf === '') return false
    if (buf[0] === ',') { buf = buf.slice(1); continue }
    if (buf[0] === '*') return true
    const [etag, remain] = scanEtag(buf)
    if (etag === '') return false
    if (etags.some(e => e !== '' && weakEqual(etag, e))) return true
    buf = remain
  }
}

/** Strong comparison for If-Range. */
export function etagStrongEqual (header: string, etag: string): boolean {
  const [tag] = scanEtag(header)
  return tag !== '' && tag === etag && tag.startsWith('"')
}

export interface ByteRange { start: number, length: number }

export class RangeSyntaxError extends Error {}
export class RangeNotSatisfiableError extends Error {}

/** Syntax check of a Range header without knowing the size (boxo parseRangeWithoutLength). */
export function checkRangeSyntax (s: string): void {
  if (!s.startsWith('bytes=')) throw new RangeSyntaxError('invalid range')
  for (let ra of s.slice(6).split(',')) {
    ra = ra.trim()
    if (ra === '') continue
    const dash = ra.indexOf('-')
    if (dash < 0) throw new RangeSyntaxError('invalid range')
    const start = ra.slice(0, dash).trim()
    const end = ra.slice(dash + 1).trim()
    if (start === '') {
      if (!/^\d+$/.test(end)) throw new RangeSyntaxError('invalid range')
    } else {
      if (!/^\d+$/.test(start)) throw new RangeSyntaxError('invalid range')
      if (end !== '' && (!/^\d+$/.test(end) || Number(start) > Number(end))) throw new RangeSyntaxError('invalid range')
    }
  }
}

/**
 * Whether the first range of a (syntax-checked) header is a suffix longer than the file: boxo seeks to
 * the first range before serving a GET, and that seek fails (Kubo 0.40.1: a 500 with this text).
 */
export function suffixPastStart (s: string, size: number): boolean {
  for (const ra of s.slice(6).split(',')) {
    const t = ra.trim()
    if (t !== '') return t.startsWith('-') && Number(t.slice(1).trim()) > size
  }
  return false
}
export const SUFFIX_PAST_START = 'invalid range: negative start bigger than the file size'

/**
 * Whether boxo reads the first range of a (syntax-checked) header as starting at 0: "0-…" and "-0" (it
 * keeps a suffix as a negative start), the only ranges whose type Kubo sniffs from the file's start.
 */
export function firstRangeAtZero (s: string): boolean {
  for (const ra of s.slice(6).split(',')) {
    const t = ra.trim()
    if (t === '') continue
    const dash = t.indexOf('-')
    const n = dash === 0 ? t.slice(1) : t.slice(0, dash)
    return Number(n.trim()) === 0
  }
  return true
}

/** Go's net/http parseRange: the ranges of a `bytes=` header for a body of `size` bytes. */
export function parseRange (s: string, size: number): ByteRange[] {
  checkRangeSyntax(s)
  const ranges: ByteRange[] = []
  let noOverlap = false
  for (let ra of s.slice(6).split(',')) {
    ra = ra.trim()
    if (ra === '') continue
    const dash = ra.indexOf('-')
    const start = ra.slice(0, dash).trim()
    const end = ra.slice(dash + 1).trim()
    if (start === '') {
      let n = Number(end)
      if (n > size) n = size
      ranges.push({ start: size - n, length: n })
      continue
    }
    const from = Number(start)
    if (from >= size) { noOverlap = true; continue }
    let to = end === '' ? size - 1 : Number(end)
    if (to >= size) to = size - 1
    ranges.push({ start: from, length: to - from + 1 })
  }
  if (noOverlap && ranges.length === 0) throw new RangeNotSatisfiableError('invalid range: failed to overlap')
  return ranges
}

export const contentRange = (r: ByteRange, size: number): string => `bytes ${r.start}-${r.start + r.length - 1}/${size}`


/** Go's url.PathEscape (used by boxo for Content-Disposition file names). */
export function pathEscape (s: string): string {
  let out = ''
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte)
    if (byte < 0x80 && /[A-Za-z0-9\-._~$&+:=@]/.test(c)) out += c
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}

/** `<disposition>; filename="<ascii>"; filename*=UTF-8''<utf8>` with one `_` per non-ASCII character. */
export function contentDisposition (filename: string, disposition: 'inline' | 'attachment'): string {
  const asciiName = pathEscape(filename.replace(/[^\x00-\x7f]/gu, '_'))
  return `${disposition}; filename="${asciiName}"; filename*=UTF-8''${pathEscape(filename)}`
}

/** A header value with its UTF-8 bytes sent as they are (Node writes header strings as latin1), as Go does. */
/** Go's %+q without the quotes (boxo debugStr): ASCII only, Go's escapes. */
export function debugStr (s: string): string {
  let out = ''
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number
    if (ch === '"' || ch === '\\') out += '\\' + ch
    else if (cp >= 0x20 && cp < 0x7f) out += ch
    else if (cp < 0x80) out += GO_ESCAPES[cp] ?? `\\x${cp.toString(16).padStart(2, '0')}`
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, '0')}`
    else out += `\\U${cp.toString(16).padStart(8, '0')}`
  }
  return out
}
const GO_ESCAPES: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r', 0x7f: '\\x7f' }

/** characters Node refuses in a header value */
// eslint-disable-next-line no-control-regex
export const INVALID_HEADER_CHAR = /[^\t\x20-\x7e\x80-\xff]/

export const rawHeader = (s: string): string => /[^\x00-\x7f]/.test(s) ? Buffer.from(s, 'utf8').toString('latin1') : s

/** RFC 7231 IMF-fixdate, as Go's http.TimeFormat. */
export const httpDate = (d: Date): string => d.toUTCString()

export function parseHttpDate (s: string | undefined): Date | undefined {
  if (s == null || s === '') return undefined
  const t = Date.parse(s)
  return Number.isFinite(t) ? new Date(t) : undefined
}

/** Human sizes as go-humanize's Bytes (SI units). */
export function humanBytes (n: number): string {
  if (n < 10) return `${n} B`
  const sizes = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB']
  const e = Math.floor(Math.log(n) / Math.log(1000))
  const val = Math.floor(n / Math.pow(1000, e) * 10 + 0.5) / 10
  return `${val < 10 ? val.toFixed(1) : val.toFixed(0)} ${sizes[e]}`
}
