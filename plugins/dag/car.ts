// CAR v1/v2 as go-car v2 reads and writes it (Kubo's dag import/export): a streaming block reader
// with go-car's limits and error texts, and CARv1 section encoding.
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import { decodeCbor, encodeCbor } from './ipld/cbor.js'
import { readUvarint } from '../../core/go/cid.js'

/** go-car defaults: MaxAllowedHeaderSize 32 MiB, MaxAllowedSectionSize 8 MiB. */
const MAX_HEADER = 32 << 20
const MAX_SECTION = 8 << 20
const PRAGMA_SIZE = 11
const V2_HEADER_SIZE = 40

/** io.EOF / io.ErrUnexpectedEOF */
export class EofError extends Error {
  constructor (readonly unexpected: boolean) { super(unexpected ? 'unexpected EOF' : 'EOF') }
}

/** Pulls bytes from an async chunk stream on demand, never holding more than it was asked for plus one chunk. */
class ByteReader {
  private chunks: Uint8Array[] = []
  private head = 0 // offset into chunks[0]
  private buffered = 0
  private done = false
  private readonly it: AsyncIterator<Uint8Array>
  /** bytes handed out so far */
  consumed = 0
  /** stop at this many consumed bytes (CARv2 data payload) */
  limit = Infinity

  constructor (source: AsyncIterable<Uint8Array>) {
    this.it = source[Symbol.asyncIterator]()
  }

  private async pull (): Promise<boolean> {
    if (this.done) return false
    const next = await this.it.next()
    if (next.done === true) { this.done = true; return false }
    if (next.value.length > 0) {
      this.chunks.push(next.value)
      this.buffered += next.value.length
    }
    return true
  }

  /** ensure n bytes are buffered (within the limit); returns how many are available */
  private async fill (n: number): Promise<number> {
    const want = Math.min(n, this.limit - this.consumed)
    while (this.buffered < want && await this.pull()) {}
    return Math.min(this.buffered, want)
  }

  /** One byte, or -1 at the end. */
  async byte (): Promise<number> {
    if (await this.fill(1) < 1) return -1
    const c = this.chunks[0]
    const b = c[this.head++]
    this.buffered--
    this.consumed++
    if (this.head === c.length) { this.chunks.shift(); this.head = 0 }
    return b
  }

  /** Exactly n bytes (io.ReadFull): EOF when none are left, unexpected EOF when some are. */
  async exact (n: number): Promise<Uint8Array> {
    const have = await this.fill(n)
    if (have < n) throw new EofError(have > 0)
    const out = new Uint8Array(n)
    let off = 0
    while (off < n) {
      const c = this.chunks[0]
      const take = Math.min(c.length - this.head, n - off)
      out.set(c.subarray(this.head, this.head + take), off)
      off += take
      this.head += take
      if (this.head === c.length) { this.chunks.shift(); this.head = 0 }
    }
    this.buffered -= n
    this.consumed += n
    return out
  }

  async skip (n: number): Promise<void> {
    while (n > 0) {
      if (await this.fill(1) < 1) throw new EofError(true)
      const c = this.chunks[0]
      const take = Math.min(c.length - this.head, n)
      this.head += take
      this.buffered -= take
      this.consumed += take
      n -= take
      if (this.head === c.length) { this.chunks.shift(); this.head = 0 }
    }
  }

  /** Read (and drop) whatever is left of the stream. */
  async drain (): Promise<void> {
    this.chunks = []
    this.buffered = 0
    this.limit = Infinity
    while (await this.pull()) { this.chunks = []; this.buffered = 0 }
  }

  /**
   * go-varint ReadUvarint: EOF before the first byte is EOF, inside the varint unexpected EOF.
   */
  async uvarint (): Promise<number> {
    let x = 0
    let s = 0
    for (let i = 0; ; i++) {
      const b = await this.byte()
      if (b < 0) throw new EofError(i > 0)
      if ((i === 8 && b >= 0x80) || i >= 9) throw new Error('varints larger than uint63 not supported')
      if (b < 0x80) {
        if (b === 0 && s > 0) throw new Error('varint not minimally encoded')
        return x + b * 2 ** s
      }
      x += (b & 0x7f) * 2 ** s
      s += 7
    }
  }
}

/** util.LdRead: a length-prefixed section. */
async function ldRead (r: ByteReader, max: number, tooLarge: string): Promise<Uint8Array> {
  const len = await r.uvarint()
  if (len > max) throw new Error(tooLarge)
  return await r.exact(len)
}

interface CarHeader { version: number, roots: CID[] }

async function readHeader (r: ByteReader): Promise<CarHeader> {
  const bytes = await ldRead(r, MAX_HEADER, 'invalid header data, length of read beyond allowable maximum')
  let value
  try {
    value = decodeCbor(bytes, { allowLinks: true })
  } catch (err) {
    throw new Error(`invalid header: ${(err as Error).message}`)
  }
  if (!(value instanceof Map)) throw new Error('invalid header: header is not a map')
  const version = value.get('version')
  const roots = value.get('roots') ?? []
  if (typeof version !== 'number') throw new Error('invalid header: version is not an integer')
  if (!Array.isArray(roots)) throw new Error('invalid header: roots is not a list')
  const cids = roots.map(c => {
    const cid = CID.asCID(c)
    if (cid == null) throw new Error('invalid header: root is not a CID')
    return cid
  })
  return { version, roots: cids }
}

/** go-cid CidFromBytes: a CID at the start of a section. */
function cidFromBytes (data: Uint8Array): [CID, number] {
  const invalid = (reason: string): Error => new Error(`invalid cid: ${reason}`)
  if (data.length > 2 && data[0] === 0x12 && data[1] === 32) {
    if (data.length < 34) throw invalid('not enough bytes for cid v0')
    return [CID.decode(data.subarray(0, 34)), 34]
  }
  try {
    const [version, n] = readUvarint(data)
    if (version !== 1n) throw new Error(`expected 1 as the cid version number, got: ${version}`)
    const [codec, cn] = readUvarint(data, n)
    if (data.length - n - cn < 2) throw new Error('multihash too short. must be >= 2 bytes')
    const [, h1] = readUvarint(data, n + cn)
    const [length, h2] = readUvarint(data, n + cn + h1)
    const end = n + cn + h1 + h2 + Number(length)
    if (end > data.length) throw new Error('length greater than remaining number of bytes in buffer')
    return [CID.create(1, Number(codec), Digest.decode(data.subarray(n + cn, end))), end]
  } catch (err) {
    throw invalid((err as Error).message)
  }
}

export interface CarBlock { cid: CID, bytes: Uint8Array }

export interface CarBlockReader {
  version: number
  roots: CID[]
  /** the next block; undefined at the end of the payload */
  next: () => Promise<CarBlock | undefined>
  /** consume the rest of the input (e.g. a CARv2 index) */
  close: () => Promise<void>
}

/** go-car NewBlockReader over a byte stream: CARv1, or the CARv1 payload inside a CARv2. */
export async function carBlockReader (source: AsyncIterable<Uint8Array>): Promise<CarBlockReader> {
  const r = new ByteReader(source)
  const first = await readHeader(r)
  let roots = first.roots
  if (first.version === 2) {
    await r.skip(16) // characteristics
    const h = await r.exact(24)
    const view = new DataView(h.buffer, h.byteOffset, h.byteLength)
    const dataOffset = Number(view.getBigUint64(0, true))
    const dataSize = Number(view.getBigUint64(8, true))
    const indexOffset = view.getBigInt64(16, true)
    if (dataOffset < PRAGMA_SIZE + V2_HEADER_SIZE) throw new Error(`invalid data payload offset: ${dataOffset}`)
    if (dataSize <= 0) throw new Error(`invalid data payload size: ${dataSize}`)
    if (indexOffset < 0n) throw new Error(`invalid index offset: ${indexOffset}`)
    await r.skip(dataOffset - PRAGMA_SIZE - V2_HEADER_SIZE)
    r.limit = r.consumed + dataSize
    const inner = await readHeader(r)
    if (inner.version !== 1) throw new Error(`invalid data payload header version; expected 1, got ${inner.version}`)
    roots = inner.roots
  } else if (first.version !== 1) {
    throw new Error(`invalid car version: ${first.version}`)
  }
  return {
    version: first.version,
    roots,
    next: async () => {
      let data: Uint8Array
      try {
        data = await ldRead(r, MAX_SECTION, 'invalid section data, length of read beyond allowable maximum')
      } catch (err) {
        if (err instanceof EofError && !err.unexpected) return undefined
        throw err
      }
      const [cid, n] = cidFromBytes(data)
      return { cid, bytes: data.subarray(n) }
    },
    close: async () => { await r.drain() }
  }
}

const varint = (n: number): Uint8Array => {
  const out: number[] = []
  while (n >= 0x80) { out.push((n % 0x80) | 0x80); n = Math.floor(n / 0x80) }
  out.push(n)
  return Uint8Array.from(out)
}

/** The CARv1 header for one root: dag-cbor {roots: [root], version: 1}, length-prefixed. */
export function carV1Header (roots: CID[]): Uint8Array {
  const body = encodeCbor(new Map<string, CID[] | number>([['roots', roots], ['version', 1]]), { allowLinks: true, sort: true })
  return Buffer.concat([varint(body.length), body])
}

/** One CARv1 section: varint(len(cid)+len(data)) cid data. */
export function carSection (cid: CID, bytes: Uint8Array): Uint8Array[] {
  return [varint(cid.bytes.length + bytes.length), cid.bytes, bytes]
}
