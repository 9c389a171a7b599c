// Streaming multipart/form-data reader: parts are yielded as they arrive and their bodies are
// streamed, never buffered whole (an `add` of many GiB stays in constant memory).
import path from 'node:path'
import { RequestParseError } from '../core/errors.js'
import type { FileEntry } from '../registry/types.js'

export interface Part {
  headers: Map<string, string>
  body: AsyncGenerator<Buffer>
}

/** The boundary of a multipart/form-data content type, or undefined when it is not multipart. */
export function multipartBoundary (contentType: string | undefined): string | undefined {
  if (contentType == null) return undefined
  const [type, ...params] = contentType.split(';')
  const media = type.trim().toLowerCase()
  if (media !== 'multipart/form-data') return undefined
  for (const p of params) {
    const eq = p.indexOf('=')
    if (eq < 0) continue
    if (p.slice(0, eq).trim().toLowerCase() === 'boundary') {
      let v = p.slice(eq + 1).trim()
      if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1)
      if (v !== '') return v
    }
  }
  throw new RequestParseError('no multipart boundary param in Content-Type')
}

class Reader {
  buf: Buffer = Buffer.alloc(0)
  done = false
  private readonly it: AsyncIterator<Buffer>
  constructor (source: AsyncIterable<Buffer | Uint8Array>) {
    this.it = (source as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
  }

  /** pull one more chunk; false at the end of input */
  async fill (): Promise<boolean> {
    if (this.done) return false
    const { value, done } = await this.it.next()
    if (done === true) { this.done = true; return false }
    const chunk = Buffer.isBuffer(value) ? value : Buffer.from(value)
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk])
    return true
  }

  /** make at least n bytes available; false if input ends first */
  async need (n: number): Promise<boolean> {
    while (this.buf.length < n) if (!await this.fill()) return false
    return true
  }
}

/** Length of the longest tail of `buf` that is a proper prefix of `delim` (0 when none). */
function partialDelimiter (buf: Buffer, delim: Buffer): number {
  const first = delim[0]
  for (let k = Math.min(delim.length - 1, buf.length); k > 0; k--) {
    const at = buf.length - k
    if (buf[at] === first && buf.compare(delim, 0, k, at, buf.length) === 0) return k
  }
  return 0
}

const malformed = (what: string): RequestParseError => new RequestParseError(`multipart: ${what}`)

/** Parse a multipart body. Each part's body must be read (or is drained) before the next part is yielded. */
export async function * parseMultipart (source: AsyncIterable<Buffer | Uint8Array>, boundary: string): AsyncGenerator<Part> {
  const r = new Reader(source)
  const dash = Buffer.from(`--${boundary}`)
  const delim = Buffer.from(`\r\n--${boundary}`)
  // preamble: find the first boundary line
  for (;;) {
    const i = r.buf.indexOf(dash)
    if (i >= 0 && (i === 0 || (i >= 2 && r.buf[i - 2] === 13 && r.buf[i - 1] === 10))) {
      r.buf = r.buf.subarray(i + dash.length)
      break
    }
    if (!await r.fill()) throw malformed('NextPart: EOF')
  }
  for (;;) {
    // after a boundary: "--" ends the body, "\r\n" starts a part
    if (!await r.need(2)) return
    if (r.buf[0] === 45 && r.buf[1] === 45) return
    // tolerate transport padding (spaces/tabs) before the CRLF
    let skip = 0
    for (;;) {
      if (!await r.need(skip + 2)) throw malformed('NextPart: EOF')
      if (r.buf[skip] === 32 || r.buf[skip] === 9) { skip++; continue }
      break
    }
    if (r.buf[skip] !== 13 || r.buf[skip + 1] !== 10) throw malformed('expected CRLF after boundary')
    r.buf = r.buf.subarray(skip + 2)
    // headers
    let end: number
    for (;;) {
      end = r.buf.indexOf('\r\n\r\n')
      if (end >= 0) break
      if (r.buf.length > 64 * 1024) throw malformed('header too large')
      if (!await r.fill()) throw malformed('NextPart: EOF')
    }
    const headers = new Map<string, string>()
    const headerText = r.buf.subarray(0, end).toString('utf8')
    r.buf = r.buf.subarray(end + 4)
    if (headerText !== '') {
      for (const line of headerText.split('\r\n')) {
        const colon = line.indexOf(':')
        if (colon <= 0) continue
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
      }
    }
    let finished = false
    const body = async function * (): AsyncGenerator<Buffer> {
      for (;;) {
        const i = r.buf.indexOf(delim)
        if (i >= 0) {
          if (i > 0) yield r.buf.subarray(0, i)
          r.buf = r.buf.subarray(i + delim.length)
          finished = true
          return
        }
        // hold back only a tail that could be the start of the delimiter (usually none), so the
        // next chunk is searched as it is instead of being copied behind the tail
        const safe = r.buf.length - partialDelimiter(r.buf, delim)
        if (safe > 0) {
          const out = r.buf.subarray(0, safe)
          r.buf = r.buf.subarray(safe)
          yield out
        }
        if (!await r.fill()) throw malformed('NextPart: EOF')
      }
    }
    const gen = body()
    yield { headers, body: gen }
    if (!finished) {
      // drain what the consumer did not read
      for await (const _ of gen) { /* discard */ }
      if (!finished) throw malformed('NextPart: EOF')
    }
  }
}

/** Go's url.QueryUnescape: '+' is a space, bad escapes are kept as they are (boxo keeps the raw name). */
export function queryUnescape (s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '))
  } catch {
    return s
  }
}

/** Parameters of a header value such as `form-data; name="file"; filename="a%20b"`. */
export function headerParams (value: string): Map<string, string> {
  const out = new Map<string, string>()
  const re = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g
  let m: RegExpExecArray | null
  while ((m = re.exec(value)) != null) {
    const v = m[2] != null ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '').trim()
    out.set(m[1].toLowerCase(), v)
  }
  return out
}

/** Parse `mode`/`mtime`/`mtime-nsecs` from a part name's query (`file?mode=0644&mtime=…`). */
function partMeta (name: string): Pick<FileEntry, 'mode' | 'mtime'> {
  const q = name.indexOf('?')
  if (q < 0) return {}
  const params = new URLSearchParams(name.slice(q + 1))
  const out: Pick<FileEntry, 'mode' | 'mtime'> = {}
  const mode = params.get('mode')
  if (mode != null && /^[0-7]+$/.test(mode)) out.mode = Number.parseInt(mode, 8)
  const mtime = params.get('mtime')
  if (mtime != null && /^-?\d+$/.test(mtime)) {
    out.mtime = { secs: Number(mtime) }
    const ns = params.get('mtime-nsecs')
    if (ns != null && /^\d+$/.test(ns)) out.mtime.nsecs = Number(ns)
  }
  return out
}

/** boxo's reading of a part: path from filename, kind from Content-Type, metadata from the name's query. */
export function partToEntry (part: Part): FileEntry {
  const disposition = part.headers.get('content-disposition') ?? ''
  const params = headerParams(disposition)
  const rawName = params.get('filename') ?? ''
  const cleaned = path.posix.normalize('/' + queryUnescape(rawName))
  const entryPath = cleaned === '/' ? '' : cleaned.replace(/^\/+/, '').replace(/\/+$/, '')
  const type = (part.headers.get('content-type') ?? 'application/octet-stream').split(';')[0].trim().toLowerCase()
  const meta = partMeta(params.get('name') ?? '')
  const abspathEncoded = part.headers.get('abspath-encoded')
  const abspath = abspathEncoded != null ? queryUnescape(abspathEncoded) : part.headers.get('abspath')
  if (type === 'application/x-directory' || type === 'multipart/form-data' || type === 'multipart/mixed') {
    return { path: entryPath, type: 'directory', ...meta }
  }
  if (type === 'application/symlink') {
    return { path: entryPath, type: 'symlink', content: part.body, ...meta }
  }
  return { path: entryPath, type: 'file', content: part.body, abspath: abspath ?? undefined, ...meta }
}

/** File entries of a multipart body, in order. */
export async function * multipartFiles (source: AsyncIterable<Buffer | Uint8Array>, boundary: string): AsyncGenerator<FileEntry> {
  for await (const part of parseMultipart(source, boundary)) {
    const entry = partToEntry(part)
    if (entry.type === 'symlink') {
      const chunks: Buffer[] = []
      for await (const c of part.body) chunks.push(c)
      entry.target = Buffer.concat(chunks).toString('utf8')
      entry.content = undefined
    }
    yield entry
  }
}

/** The first part's content as lines (string stdin arguments): split on \n, trailing \r dropped. */
export async function bodyLines (source: AsyncIterable<Buffer | Uint8Array>, boundary: string): Promise<string[]> {
  for await (const part of parseMultipart(source, boundary)) {
    const chunks: Buffer[] = []
    for await (const c of part.body) chunks.push(c)
    const text = Buffer.concat(chunks).toString('utf8')
    if (text === '') return []
    const lines = text.split('\n').map(l => l.endsWith('\r') ? l.slice(0, -1) : l)
    if (lines[lines.length - 1] === '') lines.pop()
    return lines
  }
  return []
}
