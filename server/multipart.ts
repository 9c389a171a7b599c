// Streaming multipart/form-data reader with the semantics of Go's mime/multipart (what Kubo parses uploads
// with): parts are yielded as they arrive and their bodies streamed, never buffered whole; every step is
// linear in the bytes it reads (busboy was evaluated: it needs CRLF and a form-data Content-Disposition,
// which Go does not).
import path from 'node:path'
import type { Readable } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { RequestParseError } from '../core/errors.js'
import type { FileEntry } from '../registry/types.js'

/** Bytes of a request body read ahead of its consumer (a 256 MiB add: the client never waits on a full socket). */
export const READ_AHEAD = 4 << 20

/**
 * A readable's chunks, as its async iterator yields them (and destroyed, as there, when the reader stops
 * early or it fails) without that iterator's end-of-stream machinery, which cost as much as parsing a
 * small upload. Up to `readAhead` bytes are read before the consumer asks for them: with the stream's own
 * buffer (64 KiB) the socket was paused whenever hashing or writing lagged, and the sender then waited
 * to be woken once per 64 KiB (half the wall time of a big add under load).
 */
export async function * streamChunks (stream: Readable, readAhead = READ_AHEAD, first?: Buffer): AsyncGenerator<Buffer> {
  // a request whose body is all in the stream's buffer before it is read (a small upload: the body came with the
  // headers) is taken from there as one chunk: no listeners, no switch to flowing mode, no wait for a wake-up
  // (`first`: that chunk, already read by the caller)
  if (first != null || bufferedWhole(stream, readAhead)) {
    let early = true
    try {
      const chunk = first ?? stream.read() as Buffer | null
      if (chunk != null) yield chunk
      early = false
    } finally {
      if (early) stream.destroy()
    }
    if (stream.readableLength === 0) {
      // nothing more can come: flowing, so that it ends (and the server sees it consumed) as when read to its end
      stream.resume()
      return
    }
  }
  let wake: (() => void) | undefined
  const kick = (): void => {
    const w = wake
    wake = undefined
    w?.()
  }
  const queue: Array<Buffer | undefined> = []
  let head = 0
  let queued = 0
  const onData = (chunk: Buffer): void => {
    queue.push(chunk)
    queued += chunk.length
    if (queued >= readAhead) stream.pause()
    kick()
  }
  const events = ['end', 'error', 'close'] as const
  for (const e of events) stream.on(e, kick)
  stream.on('data', onData)
  let ended = false
  try {
    for (;;) {
      if (stream.destroyed && !stream.readableEnded) {
        if (stream.errored != null) throw stream.errored
        throw Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })
      }
      if (head < queue.length) {
        const chunk = queue[head] as Buffer
        queue[head++] = undefined
        if (head === queue.length) { queue.length = 0; head = 0 }
        queued -= chunk.length
        if (queued < readAhead >> 1 && stream.isPaused()) stream.resume()
        yield chunk
        continue
      }
      if (stream.readableEnded) { ended = true; return }
      if (stream.errored != null) throw stream.errored
      await new Promise<void>(resolve => { wake = resolve })
    }
  } finally {
    stream.off('data', onData)
    for (const e of events) stream.off(e, kick)
    if (!ended) stream.destroy()
  }
}

/** The stream's buffer holds all of its body: it ended, or it is a request whose Content-Length bytes are all there. */
function bufferedWhole (stream: Readable, max: number): boolean {
  const n = stream.readableLength
  if (stream.readableFlowing !== null || stream.destroyed || n === 0 || n > max) return false
  const req = stream as Readable & Partial<Pick<IncomingMessage, 'complete' | 'headers'>>
  if (req.complete === true) return true
  const length = req.headers?.['content-length']
  return length != null && req.headers?.['transfer-encoding'] == null && Number(length) === n
}

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

// Go's mime/multipart limits: boundary lines are read through a 4096-byte bufio.Reader, part headers
// may total 10 MiB and 10000 lines.
const LINE_MAX = 4096
const HEADER_BYTES_MAX = 10 << 20
const HEADER_LINES_MAX = 10000
const EMPTY = Buffer.alloc(0)
const NL_DASH = Buffer.from('\n-')

/** Go's %q for an error text */
const goQuote = (b: Buffer): string => JSON.stringify(b.toString('latin1'))

/** Body bytes read ahead: `buf[pos..]` is unread; every operation is linear in the bytes it consumes. */
class Input {
  buf: Buffer = EMPTY
  pos = 0
  eof = false
  private readonly it: AsyncIterator<Buffer | Uint8Array>
  constructor (source: AsyncIterable<Buffer | Uint8Array>) {
    this.it = source[Symbol.asyncIterator]()
  }

  get avail (): number { return this.buf.length - this.pos }

  /** Append the next chunk to the unread bytes (copying only those, which callers keep short). */
  async more (): Promise<boolean> {
    if (this.eof) return false
    for (;;) {
      const { value, done } = await this.it.next()
      if (done === true) { this.eof = true; return false }
      const chunk = Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)
      if (chunk.length === 0) continue
      this.buf = this.avail === 0 ? chunk : Buffer.concat([this.buf.subarray(this.pos), chunk])
      this.pos = 0
      return true
    }
  }

  /**
   * bufio.Reader.ReadSlice('\n') with a buffer of `max` bytes: the line with its '\n'; at the end of input
   * whatever is left (flag eof); `full` when `max` bytes come without a '\n'. Long lines are gathered
   * chunk by chunk, never re-scanned.
   */
  /**
   * Skip the whole lines already read that cannot be a boundary line (they do not start with '-'), a
   * window at a time instead of a line at a time; false when one of them is longer than `max`.
   */
  skipLines (max: number): boolean {
    const b = this.buf
    let p = this.pos
    if (p >= b.length || b[p] === 45) return true
    const next = b.indexOf(NL_DASH, p)
    const end = next >= 0 ? next + 1 : b.lastIndexOf(10) + 1
    if (end <= p) return true
    while (end - p > max) {
      const w = b.lastIndexOf(10, p + max - 1)
      if (w < p) return false
      p = w + 1
    }
    this.pos = end
    return true
  }

  /** a whole line already read (no promise per line), or undefined */
  lineNow (max: number): { line: Buffer, eof?: boolean, full?: boolean } | undefined {
    const nl = this.buf.indexOf(10, this.pos)
    if (nl < 0 || nl + 1 - this.pos > max) return undefined
    const line = this.buf.subarray(this.pos, nl + 1)
    this.pos = nl + 1
    return { line }
  }

  async line (max: number): Promise<{ line: Buffer, eof?: boolean, full?: boolean }> {
    const pieces: Buffer[] = []
    let length = 0
    for (;;) {
      const nl = this.buf.indexOf(10, this.pos)
      if (nl >= 0 && length + nl + 1 - this.pos <= max) {
        pieces.push(this.buf.subarray(this.pos, nl + 1))
        this.pos = nl + 1
        return { line: pieces.length === 1 ? pieces[0] : Buffer.concat(pieces) }
      }
      const take = Math.min(this.avail, max - length)
      pieces.push(this.buf.subarray(this.pos, this.pos + take))
      length += take
      this.pos += take
      if (length >= max) return { line: Buffer.concat(pieces), full: true }
      this.buf = EMPTY
      this.pos = 0
      if (!await this.more()) return { line: Buffer.concat(pieces), eof: true }
    }
  }
}

const skipLwsp = (b: Buffer, from: number): number => {
  while (from < b.length && (b[from] === 32 || b[from] === 9)) from++
  return from
}

/** Go's matchAfterPrefix: +1 a delimiter ("--" or whitespace after it), -1 body bytes, 0 not known yet. */
function matchAfter (buf: Buffer, at: number, eof: boolean): number {
  if (at === buf.length) return eof ? 1 : 0
  const c = buf[at]
  if (c === 32 || c === 9 || c === 13 || c === 10) return 1
  if (c === 45) {
    if (at + 1 === buf.length) return eof ? -1 : 0
    if (buf[at + 1] === 45) return 1
  }
  return -1
}

/**
 * Go's scanUntilBoundary over the unread bytes: `n` bytes are part body; then `end` (the delimiter is next),
 * `truncated` (input ended without one), or neither (n = 0: read more).
 */
function scanUntilBoundary (b: Buffer, dash: Buffer, nlDash: Buffer, total: number, eof: boolean): { n: number, end?: boolean, truncated?: boolean } {
  const startsWith = (x: Buffer, prefix: Buffer): boolean => x.length >= prefix.length && x.compare(prefix, 0, prefix.length, 0, prefix.length) === 0
  if (total === 0) {
    // at the very start of a body, the delimiter may come without its newline
    if (startsWith(b, dash)) {
      const m = matchAfter(b, dash.length, eof)
      return m === -1 ? { n: dash.length } : m === 0 ? { n: 0 } : { n: 0, end: true }
    }
    if (startsWith(dash, b)) return { n: 0, truncated: eof }
  }
  const i = b.indexOf(nlDash)
  if (i >= 0) {
    const m = matchAfter(b, i + nlDash.length, eof)
    return m === -1 ? { n: i + nlDash.length } : m === 0 ? { n: i } : { n: i, end: true }
  }
  if (startsWith(nlDash, b)) return { n: 0, truncated: eof }
  // hold back only a tail that could start the delimiter, so the next chunk is searched as it is
  const k = b.lastIndexOf(nlDash[0])
  if (k >= 0 && startsWith(nlDash, b.subarray(k))) return { n: k }
  return { n: b.length, truncated: eof }
}

/** Go's textproto.ReadMIMEHeader (keys lowercased; the first value of a key wins for Get); undefined at EOF. */
async function readHeaders (input: Input): Promise<Map<string, string> | undefined> {
  const headers = new Map<string, string>()
  let bytes = 0
  let lines = 0
  let last: string | undefined
  for (;;) {
    // a line already read needs no promise (a part's few header lines usually are)
    const { line, eof } = input.lineNow(HEADER_BYTES_MAX - bytes + 1) ?? await input.line(HEADER_BYTES_MAX - bytes + 1)
    bytes += line.length
    if (bytes > HEADER_BYTES_MAX || ++lines > HEADER_LINES_MAX) throw new Error('multipart: message too large')
    // the end of input inside the headers is io.EOF for Go's reader: no more parts
    if (eof === true && !line.includes(10)) return undefined
    let text = line.toString('utf8')
    text = text.endsWith('\r\n') ? text.slice(0, -2) : text.slice(0, -1)
    if (text === '') return headers
    if (text[0] === ' ' || text[0] === '\t') {
      // a continuation of the previous line
      if (last == null) throw new Error(`malformed MIME header initial line: ${goQuote(Buffer.from(text))}`)
      headers.set(last, `${headers.get(last) ?? ''} ${text.trim()}`)
      continue
    }
    const colon = text.indexOf(':')
    if (colon < 0) throw new Error(`malformed MIME header: missing colon: ${goQuote(Buffer.from(text))}`)
    // Go takes a name with spaces (golang/go#34540) as is: no lookup of ours can match it
    if (colon === 0 || /[^!#$%&'*+.^_`|~0-9A-Za-z -]/.test(text.slice(0, colon))) throw new Error(`malformed MIME header line: ${text}`)
    last = text.slice(0, colon).toLowerCase()
    if (!headers.has(last)) headers.set(last, text.slice(colon + 1).trim())
  }
}

/**
 * Parse a multipart body as Go's mime/multipart Reader does: boundary lines end in CRLF or, when the first
 * one does, in a bare LF; a part may have no headers; the preamble and epilogue are skipped. Each part's body
 * must be read (or is drained) before the next part is yielded. Errors carry Go's texts.
 */
export async function * parseMultipart (source: AsyncIterable<Buffer | Uint8Array>, boundary: string): AsyncGenerator<Part> {
  const input = new Input(source)
  const dash = Buffer.from(`--${boundary}`)
  let nl = Buffer.from('\r\n')
  let nlDash = Buffer.from(`\r\n--${boundary}`)
  let partsRead = 0
  const isFinal = (line: Buffer): boolean => {
    if (line.length < dash.length + 2 || line.compare(dash, 0, dash.length, 0, dash.length) !== 0 || line[dash.length] !== 45 || line[dash.length + 1] !== 45) return false
    const rest = line.subarray(skipLwsp(line, dash.length + 2))
    return rest.length === 0 || rest.equals(nl)
  }
  const isDelimiter = (line: Buffer): boolean => {
    if (line.length < dash.length || line.compare(dash, 0, dash.length, 0, dash.length) !== 0) return false
    const rest = line.subarray(skipLwsp(line, dash.length))
    if (partsRead === 0 && rest.length === 1 && rest[0] === 10) {
      nl = nl.subarray(1)
      nlDash = nlDash.subarray(1)
    }
    return rest.equals(nl)
  }
  for (;;) {
    // Go's Reader.NextPart
    let expectNewPart = false
    for (;;) {
      if (partsRead === 0 && !input.skipLines(LINE_MAX)) throw new Error('multipart: NextPart: bufio: buffer full')
      const { line, eof, full } = input.lineNow(LINE_MAX) ?? await input.line(LINE_MAX)
      if (full === true) throw new Error('multipart: NextPart: bufio: buffer full')
      if (eof === true) {
        if (isFinal(line)) return
        throw new Error('multipart: NextPart: EOF')
      }
      if (isDelimiter(line)) break
      if (isFinal(line)) return
      if (expectNewPart) throw new Error(`multipart: expecting a new Part; got line ${goQuote(line)}`)
      if (partsRead === 0) continue
      if (line.equals(nl)) { expectNewPart = true; continue }
      throw new Error(`multipart: unexpected line in Next(): ${goQuote(line)}`)
    }
    partsRead++
    const headers = await readHeaders(input)
    if (headers == null) return
    let finished = false
    const body = async function * (): AsyncGenerator<Buffer> {
      let total = 0
      for (;;) {
        const unread = input.buf.subarray(input.pos)
        const r = scanUntilBoundary(unread, dash, nlDash, total, input.eof)
        if (r.n > 0) {
          input.pos += r.n
          total += r.n
          yield unread.subarray(0, r.n)
        }
        if (r.end === true) { finished = true; return }
        if (r.truncated === true) throw new Error('unexpected EOF')
        if (r.n === 0) await input.more()
      }
    }
    const gen = body()
    yield { headers, body: gen }
    if (!finished) {
      // drain what the consumer did not read
      for await (const _ of gen) { /* discard */ }
      if (!finished) throw new Error('multipart: NextPart: EOF')
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

/**
 * File entries of a multipart body, in order. As boxo's multipartIterator, a part whose Content-Disposition
 * is missing or has no disposition type names no file under the root: the listing ends there.
 */
export async function * multipartFiles (source: AsyncIterable<Buffer | Uint8Array>, boundary: string): AsyncGenerator<FileEntry> {
  for await (const part of parseMultipart(source, boundary)) {
    const entry = await fileOfPart(part)
    if (entry == null) return
    yield entry
  }
}

/** multipartFiles' entry of one part; undefined ends the listing. */
async function fileOfPart (part: Part): Promise<FileEntry | undefined> {
  if (!/^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*(;|$)/.test(part.headers.get('content-disposition') ?? '')) return undefined
  const entry = partToEntry(part)
  if (entry.type === 'symlink') {
    const chunks: Buffer[] = []
    for await (const c of part.body) chunks.push(c)
    entry.target = Buffer.concat(chunks).toString('utf8')
    entry.content = undefined
  }
  return entry
}

/**
 * A request's file entries: multipartFiles over its body, but a body already whole in the stream's buffer (a
 * small upload) in the plain form clients send is split at once, without the streaming parser's generators
 * and promises per line and per chunk (same parts, same bytes); any other form goes to the streaming parser.
 */
export async function * requestFiles (stream: Readable, boundary: string, readAhead = READ_AHEAD): AsyncGenerator<FileEntry> {
  const whole = bufferedWhole(stream, readAhead) ? stream.read() as Buffer | null : null
  if (whole == null) { yield * multipartFiles(streamChunks(stream, readAhead), boundary); return }
  const parts = plainParts(whole, boundary)
  if (parts == null) { yield * multipartFiles(streamChunks(stream, readAhead, whole), boundary); return }
  // nothing more can come: flowing, so that it ends (as streamChunks does)
  if (stream.readableLength === 0) stream.resume()
  for (const part of parts) {
    const entry = await fileOfPart(part)
    if (entry == null) return
    yield entry
  }
}

/** One chunk as a part body (none when empty), as parseMultipart's body generator yields a whole part. */
async function * oneChunk (chunk: Buffer): AsyncGenerator<Buffer> {
  if (chunk.length > 0) yield chunk
}

/**
 * The parts of a whole body when it has the plain form (CRLF lines; `--boundary` first, each header line
 * `Name: value` with a token name, each part's bytes ended by CRLF `--boundary` CRLF or the final
 * `--boundary--`, then CRLF or nothing), which parseMultipart reads into the same parts; undefined for
 * any other form (preamble, bare LF, whitespace after a delimiter, continuation lines, boundary-like
 * bytes in a part, a missing end...), left to parseMultipart and its Go errors.
 */
function plainParts (b: Buffer, boundary: string): Part[] | undefined {
  // (an ASCII boundary: its bytes are its latin1 characters)
  if (boundary.length > 1024 || !/^[\x20-\x7e]+$/.test(boundary)) return undefined
  const dash = `--${boundary}`
  const dl = dash.length
  if (b.length < dl + 2 || b.toString('latin1', 0, dl) !== dash || b[dl] !== 13 || b[dl + 1] !== 10) return undefined
  const nlDash = `\r\n${dash}`
  let pos = dl + 2
  const parts: Part[] = []
  for (;;) {
    const headers = new Map<string, string>()
    let lines = 0
    for (;;) {
      const nl = b.indexOf(10, pos)
      if (nl <= pos || b[nl - 1] !== 13 || ++lines > HEADER_LINES_MAX) return undefined
      if (nl - 1 === pos) { pos = nl + 1; break }
      const text = b.toString('utf8', pos, nl - 1)
      const colon = text.indexOf(':')
      if (text[0] === ' ' || text[0] === '\t' || colon <= 0 || /[^!#$%&'*+.^_`|~0-9A-Za-z-]/.test(text.slice(0, colon))) return undefined
      const name = text.slice(0, colon).toLowerCase()
      if (!headers.has(name)) headers.set(name, text.slice(colon + 1).trim())
      pos = nl + 1
    }
    // the part's bytes end at CRLF "--boundary" followed by "--", whitespace or the end (Go's matchAfterPrefix)
    if (b.toString('latin1', pos, Math.min(b.length, pos + dl)) === dash) return undefined
    const end = b.indexOf(nlDash, pos, 'latin1')
    if (end < 0) return undefined
    const after = end + nlDash.length
    parts.push({ headers, body: oneChunk(b.subarray(pos, end)) })
    if (b[after] === 13 && b[after + 1] === 10) { pos = after + 2; continue }
    if (b[after] === 45 && b[after + 1] === 45 && (after + 2 === b.length || (b[after + 2] === 13 && b[after + 3] === 10))) return parts
    return undefined
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
