// JSON for the dag-json (0x0129) and json (0x0200) codecs, as go-ipld-prime (with refmt) reads and
// writes it. dag-json: `{"/":"<cid>"}` is a link, `{"/":{"bytes":"<base64>"}}` is bytes, output is
// compact with keys sorted bytewise. json: no links or bytes, output indented with tabs and a
// trailing newline, keys in map order. Numbers without '.'/'e' are int64, others float64.
import { CID } from 'multiformats/cid'
import { IpldFloat, type IpldMap, type IpldValue } from './model.js'
import { decodeGoCid } from '../../../core/resolver/path.js'

const MAX_DEPTH = 1024
const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

export interface JsonDecodeOptions {
  /** dag-json: parse links and bytes */
  dag: boolean
}

const byteName: Record<string, string> = { ',': 'comma', ':': 'colon', '{': 'map open', '}': 'map close', '[': 'array open', ']': 'array close', '"': 'quote' }
const describe = (text: string, i: number): string => {
  const c = text[i]
  return byteName[c] ?? `0x${(text.charCodeAt(i) & 0xff).toString(16)}`
}

class Parser {
  pos = 0
  constructor (readonly text: string, readonly opts: JsonDecodeOptions) {}

  ws (): void {
    const t = this.text
    let p = this.pos
    for (;;) {
      const c = t.charCodeAt(p)
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) p++
      else break
    }
    this.pos = p
  }

  eof (): boolean { return this.pos >= this.text.length }

  next (): string {
    this.ws()
    if (this.eof()) throw new Error('unexpected EOF')
    return this.text[this.pos]
  }

  string (): string {
    // this.text[this.pos] === '"'
    const t = this.text
    let p = this.pos + 1
    let simple = true
    for (;;) {
      if (p >= t.length) throw new Error('unexpected EOF')
      const c = t.charCodeAt(p)
      if (c === 0x22) break
      if (c === 0x5c) { simple = false; p += 2; continue }
      p++
    }
    const raw = t.slice(this.pos, p + 1)
    this.pos = p + 1
    if (simple) return raw.slice(1, -1)
    try {
      return JSON.parse(raw) as string
    } catch {
      throw new Error(`invalid string escape in ${raw}`)
    }
  }

  number (): number | bigint | IpldFloat {
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(this.text.slice(this.pos, this.pos + 400))
    if (m == null) throw new Error(`invalid char while expecting start of value: ${describe(this.text, this.pos)}`)
    const s = m[0]
    this.pos += s.length
    if (!/[.eE]/.test(s)) {
      const n = BigInt(s)
      if (n < INT64_MIN || n > INT64_MAX) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`)
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n
    }
    const f = Number(s)
    if (!Number.isFinite(f)) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: value out of range`)
    return new IpldFloat(f)
  }

  literal (word: string, value: IpldValue): IpldValue {
    // refmt only checks the first letter, then skips the rest of the word
    this.pos += word.length
    return value
  }

  value (depth: number, what = 'value'): IpldValue {
    const c = this.next()
    switch (c) {
      case '{': return this.map(depth)
      case '[': return this.list(depth)
      case '"': return this.string()
      case 'n': return this.literal('null', null)
      case 't': return this.literal('true', true)
      case 'f': return this.literal('false', false)
      default:
        if (c === '-' || (c >= '0' && c <= '9')) return this.number()
        throw new Error(`invalid char while expecting start of ${what}: ${describe(this.text, this.pos)}`)
    }
  }

  list (depth: number): IpldValue[] {
    if (depth >= MAX_DEPTH) throw new Error('message structure exceeded maximum nesting depth')
    this.pos++ // [
    const out: IpldValue[] = []
    if (this.next() === ']') { this.pos++; return out }
    for (;;) {
      out.push(this.value(depth + 1))
      const c = this.next()
      if (c === ']') { this.pos++; return out }
      if (c !== ',') throw new Error(`expected comma or array close after array value; got ${describe(this.text, this.pos)}`)
      this.pos++
    }
  }

  /** A map, or (dag-json) a link / bytes in their reserved `"/"` forms. */
  map (depth: number): IpldValue {
    if (depth >= MAX_DEPTH) throw new Error('message structure exceeded maximum nesting depth')
    const start = this.pos
    this.pos++ // {
    if (this.opts.dag) {
      const special = this.special()
      if (special !== undefined) return special
      this.pos = start + 1
    }
    const out: IpldMap = new Map()
    if (this.next() === '}') { this.pos++; return out }
    for (;;) {
      if (this.next() !== '"') {
        throw new Error(`invalid char while expecting start of key: ${describe(this.text, this.pos)}`)
      }
      const key = this.string()
      if (this.next() !== ':') throw new Error(`expected colon after map key; got ${describe(this.text, this.pos)}`)
      this.pos++
      const v = this.value(depth + 1)
      if (out.has(key)) throw new Error(`cannot repeat map key ${JSON.stringify(key)}`)
      out.set(key, v)
      const c = this.next()
      if (c === '}') { this.pos++; return out }
      if (c !== ',') throw new Error(`expected comma or map close after map value; got ${describe(this.text, this.pos)}`)
      this.pos++
    }
  }

  /** After `{`: exactly {"/":"<cid>"} or {"/":{"bytes":"<b64>"}}, else undefined (not consumed). */
  special (): IpldValue | undefined {
    const tryString = (): string | undefined => this.next() === '"' ? this.string() : undefined
    const expect = (ch: string): boolean => { if (this.eof() || this.next() !== ch) return false; this.pos++; return true }
    if (tryString() !== '/') return undefined
    if (!expect(':')) return undefined
    if (this.next() === '"') {
      const text = this.string()
      if (!expect('}')) return undefined
      return decodeGoCid(text)
    }
    if (this.next() !== '{') return undefined
    this.pos++
    if (tryString() !== 'bytes') return undefined
    if (!expect(':')) return undefined
    const b64 = tryString()
    if (b64 === undefined) return undefined
    if (!expect('}') || !expect('}')) return undefined
    return decodeBase64(b64)
  }
}

/** Go base64.RawStdEncoding, falling back to StdEncoding (padded) as go-ipld-prime does. */
function decodeBase64 (s: string): Uint8Array {
  const raw = s.replace(/=+$/, '')
  if (!/^[A-Za-z0-9+/]*$/.test(raw) || raw.length % 4 === 1 || (s !== raw && s.length % 4 !== 0)) {
    const bad = s.search(/[^A-Za-z0-9+/=]/)
    throw new Error(`illegal base64 data at input byte ${bad >= 0 ? bad : s.length}`)
  }
  return new Uint8Array(Buffer.from(raw, 'base64'))
}

const utf8 = new TextDecoder('utf-8', { fatal: false })

export function decodeJson (bytes: Uint8Array, opts: JsonDecodeOptions): IpldValue {
  const p = new Parser(utf8.decode(bytes), opts)
  p.ws()
  if (p.eof()) throw new Error('unexpected EOF')
  const v = p.value(0)
  // only whitespace (and NULs) may follow
  for (let i = p.pos; i < p.text.length; i++) {
    const c = p.text[i]
    if (c !== ' ' && c !== '\0' && c !== '\t' && c !== '\r' && c !== '\n') {
      throw new Error('unexpected content after end of json object')
    }
  }
  return v
}

export interface JsonEncodeOptions {
  /** dag-json: links and bytes in their `"/"` forms, keys sorted bytewise, compact */
  dag: boolean
}

/** refmt's string escaping: \" \\ \n \r \t, other controls as \u00XX, U+2028/2029 escaped, nothing else. */
export function goJsonString (s: string): string {
  let out = '"'
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    let esc: string | undefined
    if (c < 0x20) {
      esc = c === 0x0a ? '\\n' : c === 0x0d ? '\\r' : c === 0x09 ? '\\t' : '\\u00' + c.toString(16).padStart(2, '0')
    } else if (c === 0x22) esc = '\\"'
    else if (c === 0x5c) esc = '\\\\'
    else if (c === 0x2028 || c === 0x2029) esc = '\\u' + c.toString(16)
    else if (c >= 0xd800 && c <= 0xdfff) {
      // lone surrogates are invalid UTF-8 in Go: written as U+FFFD
      const pair = c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff
      if (pair) { i++; continue }
      esc = '\\ufffd'
    }
    if (esc !== undefined) {
      out += s.slice(start, i) + esc
      start = i + 1
    }
  }
  return out + s.slice(start) + '"'
}

/** refmt's float format: like ES6 Number#toString (shortest round trip; exponent below 1e-6 and from 1e21). */
export function goJsonFloat (f: number): string {
  if (!Number.isFinite(f)) throw new Error(`unsupported value: ${String(f)}`)
  if (Object.is(f, -0)) return '-0'
  return String(f)
}

const bytewise = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

export function encodeJson (v: IpldValue, opts: JsonEncodeOptions): Uint8Array {
  const parts: string[] = []
  const pretty = !opts.dag
  const indent = (depth: number): string => '\n' + '\t'.repeat(depth)
  const walk = (x: IpldValue, depth: number): void => {
    if (x === null) { parts.push('null'); return }
    switch (typeof x) {
      case 'boolean': parts.push(x ? 'true' : 'false'); return
      case 'number': case 'bigint': parts.push(String(x)); return
      case 'string': parts.push(goJsonString(x)); return
    }
    if (x instanceof IpldFloat) { parts.push(goJsonFloat(x.value)); return }
    if (x instanceof Uint8Array) {
      if (!opts.dag) throw new Error('cannot marshal IPLD bytes to this codec')
      parts.push('{"/":{"bytes":"' + Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64').replace(/=+$/, '') + '"}}')
      return
    }
    if (Array.isArray(x)) {
      parts.push('[')
      x.forEach((item, i) => {
        if (i > 0) parts.push(',')
        if (pretty) parts.push(indent(depth + 1))
        walk(item, depth + 1)
      })
      if (pretty && x.length > 0) parts.push(indent(depth))
      parts.push(']')
      return
    }
    if (x instanceof Map) {
      parts.push('{')
      const keys = [...x.keys()]
      if (opts.dag) keys.sort(bytewise)
      keys.forEach((k, i) => {
        if (i > 0) parts.push(',')
        if (pretty) parts.push(indent(depth + 1))
        parts.push(goJsonString(k), pretty ? ': ' : ':')
        walk(x.get(k) as IpldValue, depth + 1)
      })
      if (pretty && keys.length > 0) parts.push(indent(depth))
      parts.push('}')
      return
    }
    const cid = CID.asCID(x)
    if (cid != null) {
      if (!opts.dag) throw new Error('cannot marshal IPLD links to this codec')
      parts.push('{"/":"' + cid.toString() + '"}')
      return
    }
    throw new Error('not an IPLD value')
  }
  walk(v, 0)
  // refmt ends a top-level map or list with the line separator (none in compact mode)
  if (pretty && (v instanceof Map || Array.isArray(v))) parts.push('\n')
  return Buffer.from(parts.join(''), 'utf8')
}
