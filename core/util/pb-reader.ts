/** What stopped a protobuf read: a varint cut short or over 10 bytes, a field past its message, an unknown wire type. */
export type PbFault = 'truncated' | 'too-long' | 'beyond' | 'wire'

/**
 * Protobuf reader over one contiguous buffer; length-delimited fields are views of it. Subclasses give the errors
 * (`fail`), so each format keeps its own texts.
 */
export abstract class PbReader {
  pos = 0
  constructor (readonly buf: Uint8Array, readonly end = buf.byteLength) {}

  protected abstract fail (fault: PbFault, wire?: number): Error

  varint (): number {
    let v = 0
    let mul = 1
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw this.fail('truncated')
      const b = this.buf[this.pos++]
      v += (b & 0x7f) * mul
      if (b < 0x80) return v
      mul *= 128
    }
    throw this.fail('too-long')
  }

  /** int32 as protobuf writes it (negatives as 10-byte varints, beyond a double's precision) */
  int32 (): number { return this.int64() | 0 }

  /** a varint as a signed int64 (two's complement) */
  int64 (): number {
    const start = this.pos
    const v = this.varint()
    if (v < 2 ** 63) return v
    // negative: re-read exactly with BigInt
    let big = 0n
    let shift = 0n
    for (let i = start; i < this.pos; i++) {
      big |= BigInt(this.buf[i] & 0x7f) << shift
      shift += 7n
    }
    return Number(BigInt.asIntN(64, big))
  }

  bytes (): Uint8Array {
    const n = this.varint()
    if (this.pos + n > this.end) throw this.fail('beyond')
    const out = this.buf.subarray(this.pos, this.pos + n)
    this.pos += n
    return out
  }

  fixed32 (): number {
    if (this.pos + 4 > this.end) throw this.fail('beyond')
    const b = this.buf
    const v = (b[this.pos] | (b[this.pos + 1] << 8) | (b[this.pos + 2] << 16) | (b[this.pos + 3] << 24)) >>> 0
    this.pos += 4
    return v
  }

  skip (wire: number): void {
    if (wire === 0) this.varint()
    else if (wire === 1) this.pos += 8
    else if (wire === 2) { const n = this.varint(); this.pos += n } // not `pos += varint()`: that adds to the old pos
    else if (wire === 5) this.pos += 4
    else throw this.fail('wire', wire)
    if (this.pos > this.end) throw this.fail('beyond')
  }

  /** each field of the message, in order */
  fields (fn: (field: number, wire: number, r: this) => void): void {
    while (this.pos < this.end) {
      const tag = this.varint()
      fn(tag >>> 3, tag & 7, this)
    }
  }
}
