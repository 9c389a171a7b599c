// CBOR for the dag-cbor (0x71), cbor (0x51) and dag-jose (0x85) codecs, as go-ipld-prime reads and
// writes it: definite lengths only, minimal integers, no NaN/Infinity, tag 42 for links (dag-cbor
// only), maps keep their encoded key order on decode; on encode dag-cbor sorts keys length-first
// (RFC 7049 canonical), plain cbor keeps the map's order; floats are always 64-bit.
import { CID } from 'multiformats/cid'
import { IpldFloat, type IpldMap, type IpldValue } from './model.js'

const LINK_TAG = 42
const MAX_DEPTH = 1024
const ALLOCATION_BUDGET = 1048576 * 10

export interface CborDecodeOptions {
  /** accept tag 42 as links (dag-cbor); otherwise `unhandled cbor tag 42` */
  allowLinks: boolean
}

const utf8 = new TextDecoder('utf-8', { fatal: false })

class Reader {
  pos = 0
  budget = ALLOCATION_BUDGET
  constructor (readonly buf: Uint8Array, readonly opts: CborDecodeOptions) {}

  byte (): number {
    if (this.pos >= this.buf.length) throw new Error('unexpected EOF')
    return this.buf[this.pos++]
  }

  take (n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error('unexpected EOF')
    const out = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }

  /** The argument of a head byte; minimal encodings only (dag-cbor strictness). */
  arg (info: number): number | bigint {
    if (info < 24) return info
    let v: number | bigint
    let min: number | bigint
    switch (info) {
      case 24: v = this.byte(); min = 24; break
      case 25: { const b = this.take(2); v = (b[0] << 8) | b[1]; min = 0x100; break }
      case 26: { const b = this.take(4); v = ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3]; min = 0x10000; break }
      case 27: {
        const b = this.take(8)
        const hi = ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3]
        const lo = ((b[4] << 24) >>> 0) + (b[5] << 16) + (b[6] << 8) + b[7]
        v = (BigInt(hi) << 32n) | BigInt(lo)
        if (v <= BigInt(Number.MAX_SAFE_INTEGER)) v = Number(v)
        min = 0x100000000
        break
      }
      case 31: throw new Error('cbor: indefinite length items are not supported')
      default: throw new Error(`cbor: invalid additional information ${info}`)
    }
    if (v < min) throw new Error('cbor: non-minimal integer encoding')
    return v
  }

  length (info: number): number {
    const n = this.arg(info)
    if (typeof n === 'bigint' || n > this.buf.length - this.pos) throw new Error('unexpected EOF')
    return n
  }

  spend (n: number): void {
    this.budget -= n
    if (this.budget < 0) throw new Error('message structure demanded too many resources to process')
  }

  value (depth: number): IpldValue {
    const head = this.byte()
    const major = head >> 5
    const info = head & 0x1f
    switch (major) {
      case 0: this.spend(1); return this.arg(info)
      case 1: {
        this.spend(1)
        const n = this.arg(info)
        return typeof n === 'bigint' ? -1n - n : (n === Number.MAX_SAFE_INTEGER ? -1n - BigInt(n) : -1 - n)
      }
      case 2: { const n = this.length(info); this.spend(n); return this.take(n).slice() }
      case 3: { const n = this.length(info); this.spend(n); return utf8.decode(this.take(n)) }
      case 4: {
        if (depth >= MAX_DEPTH) throw new Error('message structure exceeded maximum nesting depth')
        const n = this.length(info)
        this.spend(n * 4)
        const out: IpldValue[] = []
        for (let i = 0; i < n; i++) out.push(this.value(depth + 1))
        return out
      }
      case 5: {
        if (depth >= MAX_DEPTH) throw new Error('message structure exceeded maximum nesting depth')
        const n = this.length(info)
        this.spend(n)
        const out: IpldMap = new Map()
        for (let i = 0; i < n; i++) {
          const kh = this.buf[this.pos]
          if (kh === undefined) throw new Error('unexpected EOF')
          if (kh >> 5 !== 3) throw new Error(`unexpected ${tokenName(kh)} token while expecting map key`)
          const key = this.value(depth + 1) as string
          this.spend(key.length + 8)
          if (out.has(key)) throw new Error(`duplicate map key ${JSON.stringify(key)}`)
          out.set(key, this.value(depth + 1))
        }
        return out
      }
      case 6: {
        const tag = this.arg(info)
        const inner = this.buf[this.pos]
        if (tag !== LINK_TAG || !this.opts.allowLinks || inner === undefined || inner >> 5 !== 2) {
          throw new Error(`unhandled cbor tag ${tag}`)
        }
        const bytes = this.value(depth + 1) as Uint8Array
        if (bytes.length < 1 || bytes[0] !== 0) throw new Error('invalid multibase on IPLD link')
        try {
          return CID.decode(bytes.subarray(1))
        } catch (err) {
          throw new Error(`invalid cid: ${(err as Error).message}`)
        }
      }
      default:
        return this.simple(info)
    }
  }

  simple (info: number): IpldValue {
    switch (info) {
      case 20: return false
      case 21: return true
      case 22: case 23: return null // undefined is coerced to null
      case 25: return this.float(halfToFloat((this.byte() << 8) | this.byte()))
      case 26: return this.float(Buffer.from(this.take(4)).readFloatBE(0))
      case 27: return this.float(Buffer.from(this.take(8)).readDoubleBE(0))
      case 31: throw new Error('cbor: indefinite length items are not supported')
      default: throw new Error(`Invalid majorByte: 0x${(0xe0 | info).toString(16)}`)
    }
  }

  float (f: number): IpldFloat {
    if (Number.isNaN(f)) throw new Error('cbor: NaN is not supported')
    if (!Number.isFinite(f)) throw new Error('cbor: Infinity is not supported')
    return new IpldFloat(f)
  }
}

function tokenName (head: number): string {
  switch (head >> 5) {
    case 0: return 'uint'
    case 1: return 'int'
    case 2: return 'bytes'
    case 4: return 'arrOpen'
    case 5: return 'mapOpen'
    case 6: return 'tag'
    default: return [20, 21].includes(head & 0x1f) ? 'bool' : (head & 0x1f) >= 25 ? 'float' : 'null'
  }
}

function halfToFloat (h: number): number {
  const exp = (h >> 10) & 0x1f
  const mant = h & 0x3ff
  const sign = (h & 0x8000) !== 0 ? -1 : 1
  if (exp === 0) return sign * mant * 2 ** -24
  if (exp === 31) return mant === 0 ? sign * Infinity : NaN
  return sign * (1 + mant / 1024) * 2 ** (exp - 15)
}

/** Decode one CBOR item; trailing bytes are an error (go-ipld-prime ErrTrailingBytes). */
export function decodeCbor (bytes: Uint8Array, opts: CborDecodeOptions): IpldValue {
  const r = new Reader(bytes, opts)
  if (bytes.length === 0) throw new Error('unexpected EOF')
  const v = r.value(0)
  if (r.pos !== bytes.length) throw new Error('unexpected content after end of cbor object')
  return v
}

export interface CborEncodeOptions {
  /** dag-cbor: links as tag 42; otherwise `cannot Marshal ipld links to CBOR` */
  allowLinks: boolean
  /** dag-cbor: keys sorted length-first; otherwise map order */
  sort: boolean
}

const utf8enc = new TextEncoder()

class Writer {
  private chunks: Uint8Array[] = []
  private buf = new Uint8Array(1024)
  private pos = 0
  constructor (readonly opts: CborEncodeOptions) {}

  private ensure (n: number): void {
    if (this.pos + n <= this.buf.length) return
    this.chunks.push(this.buf.subarray(0, this.pos))
    this.buf = new Uint8Array(Math.max(1024, n, this.buf.length * 2))
    this.pos = 0
  }

  head (major: number, n: number | bigint): void {
    const m = major << 5
    if (typeof n === 'bigint') {
      if (n <= 0xffffffffn) { this.head(major, Number(n)); return }
      this.ensure(9)
      this.buf[this.pos++] = m | 27
      for (let s = 56n; s >= 0n; s -= 8n) this.buf[this.pos++] = Number((n >> s) & 0xffn)
      return
    }
    this.ensure(9)
    if (n < 24) this.buf[this.pos++] = m | n
    else if (n < 0x100) { this.buf[this.pos++] = m | 24; this.buf[this.pos++] = n } else if (n < 0x10000) {
      this.buf[this.pos++] = m | 25; this.buf[this.pos++] = n >> 8; this.buf[this.pos++] = n & 0xff
    } else if (n < 0x100000000) {
      this.buf[this.pos++] = m | 26
      this.buf[this.pos++] = (n >>> 24) & 0xff; this.buf[this.pos++] = (n >>> 16) & 0xff
      this.buf[this.pos++] = (n >>> 8) & 0xff; this.buf[this.pos++] = n & 0xff
    } else {
      this.head(major, BigInt(n))
    }
  }

  raw (b: Uint8Array): void {
    this.ensure(b.length)
    this.buf.set(b, this.pos)
    this.pos += b.length
  }

  value (v: IpldValue): void {
    if (v === null) { this.ensure(1); this.buf[this.pos++] = 0xf6; return }
    switch (typeof v) {
      case 'boolean': this.ensure(1); this.buf[this.pos++] = v ? 0xf5 : 0xf4; return
      case 'number':
        if (v >= 0) this.head(0, v)
        else this.head(1, v >= -Number.MAX_SAFE_INTEGER ? -1 - v : -1n - BigInt(v))
        return
      case 'bigint':
        if (v >= 0n) this.head(0, v)
        else this.head(1, -1n - v)
        return
      case 'string': { const b = utf8enc.encode(v); this.head(3, b.length); this.raw(b); return }
    }
    if (v instanceof IpldFloat) {
      this.ensure(9)
      this.buf[this.pos++] = 0xfb
      new DataView(this.buf.buffer, this.buf.byteOffset).setFloat64(this.pos, v.value)
      this.pos += 8
      return
    }
    if (v instanceof Uint8Array) { this.head(2, v.length); this.raw(v); return }
    if (Array.isArray(v)) {
      this.head(4, v.length)
      for (const x of v) this.value(x)
      return
    }
    if (v instanceof Map) {
      this.head(5, v.size)
      const entries = [...v.entries()].map(([k, x]) => [utf8enc.encode(k), x] as const)
      if (this.opts.sort) entries.sort((a, b) => a[0].length - b[0].length || Buffer.compare(a[0], b[0]))
      for (const [k, x] of entries) { this.head(3, k.length); this.raw(k); this.value(x) }
      return
    }
    const cid = CID.asCID(v)
    if (cid != null) {
      if (!this.opts.allowLinks) throw new Error('cannot Marshal ipld links to CBOR')
      this.head(6, LINK_TAG)
      this.head(2, cid.bytes.length + 1)
      this.ensure(1)
      this.buf[this.pos++] = 0
      this.raw(cid.bytes)
      return
    }
    throw new Error('not an IPLD value')
  }

  finish (): Uint8Array {
    if (this.chunks.length === 0) return this.buf.slice(0, this.pos)
    return Buffer.concat([...this.chunks, this.buf.subarray(0, this.pos)])
  }
}

export function encodeCbor (v: IpldValue, opts: CborEncodeOptions): Uint8Array {
  const w = new Writer(opts)
  w.value(v)
  return w.finish()
}
