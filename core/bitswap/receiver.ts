// Our reader of inbound bitswap streams, in place of @helia/bitswap's Network._onStream (4.0.19), which
// pushes every chunk through a pushable and it-length-prefixed (promises and a timer per message),
// copies each message into one buffer (a 4 MiB concat that lives as long as any of its blocks) and
// decodes it with protons. Here messages are cut from the chunks as they arrive, synchronously; each
// block's bytes are copied once into a buffer of their own (a view when they lie in one chunk), and the
// wants and presences are decoded into the shape @helia/bitswap's codec gives.
import type { Stream } from '@libp2p/interface'
import { PbReader, type PbFault } from '../util/pb-reader.js'

export interface ReceivedEntry { cid: Uint8Array, priority: number, cancel: boolean, wantType: 'WantBlock' | 'WantHave', sendDontHave: boolean }
export interface ReceivedBitswapMessage {
  wantlist?: { entries: ReceivedEntry[], full?: boolean }
  blocks: Array<{ prefix: Uint8Array, data: Uint8Array }>
  blockPresences: Array<{ cid: Uint8Array, type: 'HaveBlock' | 'DoNotHaveBlock' }>
  pendingBytes: number
}

const EMPTY: Uint8Array = new Uint8Array(0)

const FAULTS: Record<PbFault, string> = {
  truncated: 'truncated varint',
  'too-long': 'varint too long',
  beyond: 'field beyond its message',
  wire: 'wire type'
}

/** protobuf reader over one contiguous buffer (the small parts of a message) */
class Reader extends PbReader {
  protected fail (fault: PbFault, wire?: number): Error {
    return new RangeError(`bitswap message: ${FAULTS[fault]}${wire === undefined ? '' : ` ${wire}`}`)
  }
}

function wantlist (buf: Uint8Array): NonNullable<ReceivedBitswapMessage['wantlist']> {
  const out: NonNullable<ReceivedBitswapMessage['wantlist']> = { entries: [] }
  new Reader(buf).fields((f, wire, r) => {
    if (f === 1 && wire === 2) {
      const e: ReceivedEntry = { cid: EMPTY, priority: 0, cancel: false, wantType: 'WantBlock', sendDontHave: false }
      new Reader(r.bytes()).fields((g, w2, s) => {
        if (g === 1 && w2 === 2) e.cid = s.bytes()
        else if (g === 2 && w2 === 0) e.priority = s.int32()
        else if (g === 3 && w2 === 0) e.cancel = s.varint() !== 0
        else if (g === 4 && w2 === 0) e.wantType = s.varint() === 1 ? 'WantHave' : 'WantBlock'
        else if (g === 5 && w2 === 0) e.sendDontHave = s.varint() !== 0
        else s.skip(w2)
      })
      out.entries.push(e)
    } else if (f === 2 && wire === 0) out.full = r.varint() !== 0
    else r.skip(wire)
  })
  return out
}

function presence (buf: Uint8Array): ReceivedBitswapMessage['blockPresences'][number] {
  const p: ReceivedBitswapMessage['blockPresences'][number] = { cid: EMPTY, type: 'HaveBlock' }
  new Reader(buf).fields((f, wire, r) => {
    if (f === 1 && wire === 2) p.cid = r.bytes()
    else if (f === 2 && wire === 0) p.type = r.varint() === 1 ? 'DoNotHaveBlock' : 'HaveBlock'
    else r.skip(wire)
  })
  return p
}

/**
 * Received bytes not yet decoded: a queue of chunks read with a forward cursor (a message's fields are
 * read in order, so finding a position never rescans the chunks before it).
 */
export class FrameReader {
  private bufs: Uint8Array[] = []
  /** bytes of bufs[0] already consumed */
  private head = 0
  /** bytes held (after head) */
  length = 0
  // cursor: bufs[ci] starts at position cbase (relative to head)
  private ci = 0
  private cbase = 0

  constructor (private readonly maxSize: number) {}

  push (data: Uint8Array | Iterable<Uint8Array>): void {
    if (data instanceof Uint8Array) {
      if (data.byteLength > 0) { this.bufs.push(data); this.length += data.byteLength }
      return
    }
    for (const b of data) if (b.byteLength > 0) { this.bufs.push(b); this.length += b.byteLength }
  }

  /** the chunk holding position pos (forward from the cursor); sets ci/cbase */
  private seek (pos: number): void {
    if (pos < this.cbase) { this.ci = 0; this.cbase = 0 }
    for (;;) {
      const len = this.bufs[this.ci].byteLength - (this.ci === 0 ? this.head : 0)
      if (pos < this.cbase + len) return
      this.cbase += len
      this.ci++
    }
  }

  private byteAt (pos: number): number {
    this.seek(pos)
    return this.bufs[this.ci][pos - this.cbase + (this.ci === 0 ? this.head : 0)]
  }

  /** the varint at pos (already read whole) as protobuf's int32: its low 32 bits, signed */
  private int32At (pos: number): number {
    let v = 0
    for (let i = 0; i < 5; i++) {
      const b = this.byteAt(pos + i)
      v |= (b & 0x7f) << (7 * i)
      if ((b & 0x80) === 0) break
    }
    return v | 0
  }

  /** varint at pos: [value, bytes] or undefined when not all here yet (limit: readable end) */
  private varint (pos: number, limit: number): [number, number] | undefined {
    let v = 0
    let mul = 1
    for (let i = 0; i < 10; i++) {
      if (pos + i >= limit) return undefined
      const b = this.byteAt(pos + i)
      v += (b & 0x7f) * mul
      if ((b & 0x80) === 0) return [v, i + 1]
      mul *= 128
    }
    throw new RangeError('bitswap message: varint too long')
  }

  /** bytes [a, b): a view when they lie in one chunk, else a copy */
  private bytes (a: number, b: number): Uint8Array {
    if (a === b) return EMPTY // a may be the end of what is held (no chunk to seek)
    this.seek(a)
    const off = a - this.cbase + (this.ci === 0 ? this.head : 0)
    const first = this.bufs[this.ci]
    if (off + (b - a) <= first.byteLength) return first.subarray(off, off + (b - a))
    const out = Buffer.allocUnsafe(b - a)
    let at = 0
    let i = this.ci
    let o = off
    while (at < out.byteLength) {
      const src = this.bufs[i]
      const n = Math.min(src.byteLength - o, out.byteLength - at)
      out.set(src.subarray(o, o + n), at)
      at += n
      i++
      o = 0
    }
    return out
  }

  private consume (n: number): void {
    this.length -= n
    n += this.head
    let i = 0
    while (i < this.bufs.length && n >= this.bufs[i].byteLength) { n -= this.bufs[i].byteLength; i++ }
    this.bufs = i === 0 ? this.bufs : this.bufs.slice(i)
    this.head = n
    this.ci = 0
    this.cbase = 0
  }

  /** the next whole message, or undefined until more bytes come */
  next (): ReceivedBitswapMessage | undefined {
    if (this.length === 0) return undefined
    const lp = this.varint(0, this.length)
    if (lp == null) return undefined
    const [size, hdr] = lp
    if (size > this.maxSize) throw new RangeError(`bitswap message of ${size} bytes is over the ${this.maxSize} byte limit`)
    if (this.length < hdr + size) return undefined
    const msg = this.decode(hdr, hdr + size)
    this.consume(hdr + size)
    return msg
  }

  private decode (start: number, end: number): ReceivedBitswapMessage {
    const msg: ReceivedBitswapMessage = { blocks: [], blockPresences: [], pendingBytes: 0 }
    let pos = start
    const need = (r: [number, number] | undefined): [number, number] => {
      if (r == null) throw new RangeError('bitswap message: truncated field')
      return r
    }
    while (pos < end) {
      const [tag, t] = need(this.varint(pos, end))
      pos += t
      const field = tag >>> 3
      const wire = tag & 7
      if (wire === 0) {
        const n = need(this.varint(pos, end))[1]
        if (field === 5) msg.pendingBytes = this.int32At(pos)
        pos += n
        continue
      }
      if (wire === 1 || wire === 5) {
        pos += wire === 1 ? 8 : 4
        if (pos > end) throw new RangeError('bitswap message: field beyond its message')
        continue
      }
      if (wire !== 2) throw new RangeError(`bitswap message: wire type ${wire}`)
      const [len, n] = need(this.varint(pos, end))
      pos += n
      const stop = pos + len
      if (stop > end) throw new RangeError('bitswap message: field beyond its message')
      if (field === 3) {
        // a block: prefix and data, the data copied out alone
        let prefix = EMPTY
        let data = EMPTY
        let p = pos
        while (p < stop) {
          const [btag, bt] = need(this.varint(p, stop))
          p += bt
          if ((btag & 7) === 0) { p += need(this.varint(p, stop))[1]; continue }
          if ((btag & 7) === 1 || (btag & 7) === 5) {
            p += (btag & 7) === 1 ? 8 : 4
            if (p > stop) throw new RangeError('bitswap message: field beyond its message')
            continue
          }
          if ((btag & 7) !== 2) throw new RangeError(`bitswap message: wire type ${btag & 7}`)
          const [blen, bn] = need(this.varint(p, stop))
          p += bn
          if (p + blen > stop) throw new RangeError('bitswap message: field beyond its message')
          if ((btag >>> 3) === 1) prefix = this.bytes(p, p + blen)
          else if ((btag >>> 3) === 2) data = this.bytes(p, p + blen)
          p += blen
        }
        msg.blocks.push({ prefix, data })
      } else if (field === 1) {
        msg.wantlist = wantlist(this.bytes(pos, stop))
      } else if (field === 4) {
        msg.blockPresences.push(presence(this.bytes(pos, stop)))
      }
      pos = stop
    }
    return msg
  }
}

export interface ReadStreamInit {
  /** largest message accepted (the stream is aborted on a bigger one) */
  maxSize: number
  /** the stream is aborted when no whole message came for this long (as @helia/bitswap) */
  timeoutMs: number
  onMessage: (message: ReceivedBitswapMessage) => void
}

/** Reads an inbound bitswap stream: each whole message goes to onMessage as it completes. */
export function readStream (stream: Stream, init: ReadStreamInit): void {
  const reader = new FrameReader(init.maxSize)
  const timer = setTimeout(() => {
    if (stream.status === 'open') stream.abort(new Error(`Incoming Bitswap stream timed out after ${init.timeoutMs}ms`))
  }, init.timeoutMs)
  const done = (): void => { clearTimeout(timer) }
  stream.addEventListener('message', (evt) => {
    try {
      reader.push(evt.data)
      for (let m = reader.next(); m != null; m = reader.next()) {
        timer.refresh()
        init.onMessage(m)
      }
    } catch (err) {
      done()
      stream.abort(err as Error)
    }
  })
  stream.addEventListener('remoteCloseWrite', done)
  stream.addEventListener('close', done)
  // we never write on an inbound stream
  stream.close().catch((err: Error) => { done(); stream.abort(err) })
}
