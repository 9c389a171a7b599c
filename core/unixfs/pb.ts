// UnixFS `Data` messages and dag-pb blocks exactly as boxo writes them (proto2 field presence),
// and the CID builder (CIDv0/v1 prefix, inline identity CIDs as go-cidutil's InlineBuilder).
//
// The UnixFS message is encoded here rather than with ipfs-unixfs's UnixFS class because that
// class drops a mode equal to the default (0644 files / 0755 dirs), which Kubo writes.
import type { PBLink } from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import { validateMultihash, type HashFn } from '../hashes.js'
import { sha256OffThread } from './hash-pool.js'
import { slabAlloc } from '../util/slab.js'

/** multicodec codes: dag-pb, raw, and the identity multihash */
export const DAG_PB = 0x70
export const RAW = 0x55
export const IDENTITY = 0x00
/** UnixFS hashType of HAMT shards (murmur3-x64-64) */
export const HAMT_HASH_MURMUR3 = 0x22

/** UnixFS Data.Type values */
export enum DataType { Raw = 0, Directory = 1, File = 2, Metadata = 3, Symlink = 4, HAMTShard = 5 }

/** A modification time: seconds since the epoch and optional nanoseconds (0..999999999). */
export interface UnixTime { secs: number, nsecs?: number }

/** The fields of a UnixFS `Data` message; an absent field is not written. */
export interface UnixFSData {
  type: DataType
  data?: Uint8Array
  fileSize?: number
  blockSizes?: readonly number[]
  hashType?: number
  fanout?: number
  /** unix permission bits (written as given; callers decide presence) */
  mode?: number
  mtime?: UnixTime
}

/** Length of an unsigned protobuf varint. */
export function varintLength (n: number): number {
  let len = 1
  while (n >= 0x80) { n = Math.floor(n / 128); len++ }
  return len
}

function writeVarint (buf: Uint8Array, pos: number, n: number): number {
  while (n >= 0x80) {
    buf[pos++] = (n % 128) | 0x80
    n = Math.floor(n / 128)
  }
  buf[pos++] = n
  return pos
}

/** int64 varint: negative values take 10 bytes (two's complement) */
function int64Bytes (n: number): Uint8Array | number {
  if (n >= 0) return n
  let v = BigInt.asUintN(64, BigInt(n))
  const out = new Uint8Array(10)
  for (let i = 0; i < 10; i++) {
    out[i] = Number(v & 0x7fn) | (i < 9 ? 0x80 : 0)
    v >>= 7n
  }
  return out
}

/** Normalises seconds/nanoseconds as Go's time.Unix does. */
export function normalizeTime (t: UnixTime): { secs: number, nsecs: number } {
  let secs = Math.trunc(t.secs)
  let nsecs = Math.trunc(t.nsecs ?? 0)
  if (nsecs < 0 || nsecs >= 1e9) {
    const carry = Math.floor(nsecs / 1e9)
    secs += carry
    nsecs -= carry * 1e9
  }
  return { secs, nsecs }
}

function mtimeBody (t: UnixTime): Uint8Array {
  const { secs, nsecs } = normalizeTime(t)
  const s = int64Bytes(secs)
  const sLen = typeof s === 'number' ? varintLength(s) : s.length
  const out = new Uint8Array(1 + sLen + (nsecs > 0 ? 5 : 0))
  out[0] = 0x08
  if (typeof s === 'number') writeVarint(out, 1, s)
  else out.set(s, 1)
  if (nsecs > 0) {
    const p = 1 + sLen
    out[p] = 0x15
    new DataView(out.buffer, out.byteOffset + p + 1, 4).setUint32(0, nsecs, true)
  }
  return out
}

/** Serialised length of the UnixFS message without its `data` payload bytes (see encodeUnixFS). */
function unixfsLayout (d: UnixFSData): { headLen: number, tailLen: number, mtime?: Uint8Array } {
  let head = 2 // type
  const dataLen = d.data?.length ?? 0
  if (dataLen > 0) head += 1 + varintLength(dataLen)
  let tail = 0
  if (d.fileSize !== undefined) tail += 1 + varintLength(d.fileSize)
  for (const b of d.blockSizes ?? []) tail += 1 + varintLength(b)
  if (d.hashType !== undefined) tail += 1 + varintLength(d.hashType)
  if (d.fanout !== undefined) tail += 1 + varintLength(d.fanout)
  if (d.mode !== undefined) tail += 1 + varintLength(d.mode)
  let mtime: Uint8Array | undefined
  if (d.mtime !== undefined) {
    mtime = mtimeBody(d.mtime)
    tail += 1 + varintLength(mtime.length) + mtime.length
  }
  return { headLen: head, tailLen: tail, mtime }
}

/** `dataInPlace`: the payload already sits where it goes (see allocChunk), only the fields around it are written */
function writeUnixFS (buf: Uint8Array, pos: number, d: UnixFSData, mtime: Uint8Array | undefined, dataInPlace = false): number {
  buf[pos++] = 0x08
  buf[pos++] = d.type
  const data = d.data
  if (data !== undefined && data.length > 0) {
    buf[pos++] = 0x12
    pos = writeVarint(buf, pos, data.length)
    if (!dataInPlace) buf.set(data, pos)
    pos += data.length
  }
  if (d.fileSize !== undefined) { buf[pos++] = 0x18; pos = writeVarint(buf, pos, d.fileSize) }
  for (const b of d.blockSizes ?? []) { buf[pos++] = 0x20; pos = writeVarint(buf, pos, b) }
  if (d.hashType !== undefined) { buf[pos++] = 0x28; pos = writeVarint(buf, pos, d.hashType) }
  if (d.fanout !== undefined) { buf[pos++] = 0x30; pos = writeVarint(buf, pos, d.fanout) }
  if (d.mode !== undefined) { buf[pos++] = 0x38; pos = writeVarint(buf, pos, d.mode) }
  if (mtime !== undefined) {
    buf[pos++] = 0x42
    pos = writeVarint(buf, pos, mtime.length)
    buf.set(mtime, pos)
    pos += mtime.length
  }
  return pos
}

/** Encodes a UnixFS `Data` message (fields in number order, blocksizes unpacked). */
export function encodeUnixFS (d: UnixFSData): Uint8Array {
  const { headLen, tailLen, mtime } = unixfsLayout(d)
  const len = headLen + (d.data?.length ?? 0) + tailLen
  const out = new Uint8Array(len)
  writeUnixFS(out, 0, d, mtime)
  return out
}

/** Serialised size of a UnixFS message, without encoding it. */
export function unixfsSize (d: UnixFSData): number {
  const { headLen, tailLen } = unixfsLayout(d)
  return headLen + (d.data?.length ?? 0) + tailLen
}

/** Bytes kept free before and after a chunk from allocChunk: a leaf's dag-pb and UnixFS fields (2 MiB chunks need 11 before). */
const FRAME_HEAD = 16
const FRAME_TAIL = 48
/** what allocChunk allocates beyond the chunk's length */
export const CHUNK_FRAME = FRAME_HEAD + FRAME_TAIL
/** chunks from allocChunk not framed yet: their buffer's free margins are ours to write */
const framable = new WeakSet<Uint8Array>()
/** the buffers of allocChunk not released yet */
const chunkBuffers = new WeakSet<ArrayBuffer>()

/**
 * A buffer for `length` bytes of file data (a chunk being assembled) with room around it, so that
 * encodeDataBlock can turn it into a leaf block in place instead of copying it into a new buffer.
 * Only the chunker that allocated it may hand it out, once (it is framed at most once).
 */
export function allocChunk (length: number): Uint8Array {
  const size = FRAME_HEAD + length + FRAME_TAIL
  let ab = size >= RECYCLE_MIN ? freeChunks.get(size)?.pop() : undefined
  if (ab != null) freeBytes -= size
  else ab = Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer
  lastAlloc = Date.now()
  const chunk = Buffer.from(ab, FRAME_HEAD, length)
  framable.add(chunk)
  chunkBuffers.add(ab)
  return chunk
}

/**
 * Released chunk buffers by size, reused by allocChunk: a fresh buffer of a few hundred KiB is mapped
 * and page-faulted in by the kernel on first write and unmapped when freed (glibc maps it on its own,
 * see bin/tsipfs.js), ~0.1 s of system time per 256 MiB added; a reused one costs nothing.
 */
const freeChunks = new Map<number, ArrayBuffer[]>()
/** buffers smaller than this are freed (the allocator's heap serves them cheaply) */
const RECYCLE_MIN = 64 * 1024
/** most bytes kept free (an add holds up to ~24 MiB of chunks in flight: five 4 MiB batches, the leaves ahead) */
const RECYCLE_MAX = 16 * 1024 * 1024
/** the free buffers go when no chunk was allocated for this long (an idle daemon keeps none) */
const RECYCLE_IDLE_MS = 5_000
let freeBytes = 0
let lastAlloc = 0
let trimTimer: NodeJS.Timeout | undefined

function trimChunks (): void {
  trimTimer = undefined
  const idle = Date.now() - lastAlloc
  if (idle < RECYCLE_IDLE_MS) {
    trimTimer = setTimeout(trimChunks, RECYCLE_IDLE_MS - idle).unref()
    return
  }
  freeChunks.clear()
  freeBytes = 0
}

/** bytes of released chunk buffers kept for reuse (for tests) */
export function recycledChunkBytes (): number {
  return freeBytes
}

/**
 * Give back at once the memory of a block whose bytes are a chunk from allocChunk (a raw leaf, or a
 * leaf framed around it), once it is stored where no reference to it is kept (a file written).
 * Otherwise a stored block's buffer waits for a full GC: its JS object outlives the young generation
 * while the write is under way, and V8 runs a full GC only every ~64 MiB of such external memory,
 * which the allocator keeps afterwards. Every view of the buffer becomes empty (its memory is
 * reused by later chunks). Other buffers are left alone; true when this one was released.
 */
export function releaseChunk (bytes: Uint8Array): boolean {
  const ab = bytes.buffer as ArrayBuffer
  if (!chunkBuffers.delete(ab)) return false
  // ES2024 ArrayBuffer.prototype.transfer (Node >= 21) detaches `ab`: its memory moves, without a copy,
  // to a new ArrayBuffer that allocChunk hands out again (or it is freed: transfer(0))
  const transfer = (ab as ArrayBuffer & { transfer: (length?: number) => ArrayBuffer }).transfer.bind(ab)
  const size = ab.byteLength
  if (size < RECYCLE_MIN || freeBytes + size > RECYCLE_MAX) {
    transfer(0)
    return true
  }
  let list = freeChunks.get(size)
  if (list == null) freeChunks.set(size, list = [])
  list.push(transfer())
  freeBytes += size
  trimTimer ??= setTimeout(trimChunks, RECYCLE_IDLE_MS).unref()
  return true
}

/**
 * A dag-pb block holding only a UnixFS message (no links): a leaf, an empty file or directory,
 * a symlink. The payload is copied once, straight into the block; a chunk from allocChunk is not
 * copied at all: the block is written around it, in the same buffer.
 */
export function encodeDataBlock (d: UnixFSData): Uint8Array {
  const { headLen, tailLen, mtime } = unixfsLayout(d)
  const data = d.data
  const inner = headLen + (data?.length ?? 0) + tailLen
  const size = 1 + varintLength(inner) + inner
  if (data != null && data.length > 0 && framable.has(data)) {
    framable.delete(data)
    const start = data.byteOffset - (1 + varintLength(inner) + headLen)
    if (start >= 0 && start + size <= data.buffer.byteLength) {
      const out = Buffer.from(data.buffer, start, size)
      out[0] = 0x0a
      writeUnixFS(out, writeVarint(out, 1, inner), d, mtime, true)
      return out
    }
  }
  const out = slabAlloc(size)
  out[0] = 0x0a
  const pos = writeVarint(out, 1, inner)
  writeUnixFS(out, pos, d, mtime)
  return out
}

/** A dag-pb block with links (sorted by name bytes by the caller) and a UnixFS message. */
export function encodeNode (d: UnixFSData, links: PBLink[]): Uint8Array {
  return encodeLinked(encodeUnixFS(d), links)
}

/**
 * The bytes @ipld/dag-pb's encode writes for { Data, Links } (each link: Hash, then Name when a string, Tsize
 * when a number; the links, then Data), without its validation: its sort check encoded both names of every
 * adjacent pair of links (~12 % of the main thread of a 10,000-file add, HAMT shards). The callers sort.
 */
export function encodeLinked (data: Uint8Array, links: PBLink[]): Uint8Array {
  const n = links.length
  const lens = new Array<number>(n)
  const nameLens = new Array<number>(n)
  let size = 1 + varintLength(data.length) + data.length
  for (let i = 0; i < n; i++) {
    const { Hash, Name, Tsize } = links[i]
    const h = Hash.bytes.length
    let len = 1 + varintLength(h) + h
    if (typeof Name === 'string') {
      const nl = Buffer.byteLength(Name)
      nameLens[i] = nl
      len += 1 + varintLength(nl) + nl
    }
    if (typeof Tsize === 'number') len += 1 + varintLength(Tsize)
    lens[i] = len
    size += 1 + varintLength(len) + len
  }
  const out = slabAlloc(size)
  let pos = 0
  for (let i = 0; i < n; i++) {
    const { Hash, Name, Tsize } = links[i]
    out[pos++] = 0x12
    pos = writeVarint(out, pos, lens[i])
    const h = Hash.bytes
    out[pos++] = 0x0a
    pos = writeVarint(out, pos, h.length)
    out.set(h, pos)
    pos += h.length
    if (typeof Name === 'string') {
      out[pos++] = 0x12
      pos = writeVarint(out, pos, nameLens[i])
      pos += out.write(Name, pos, nameLens[i], 'utf8')
    }
    if (typeof Tsize === 'number') {
      out[pos++] = 0x18
      pos = writeVarint(out, pos, Tsize)
    }
  }
  out[pos++] = 0x0a
  pos = writeVarint(out, pos, data.length)
  out.set(data, pos)
  return out
}

/** Exact serialised size of a PBLink entry in a PBNode (boxo linkSerializedSize). */
export function linkSerializedSize (nameBytes: number, cidBytes: number, tsize: number): number {
  const linkLen = 1 + varintLength(cidBytes) + cidBytes + 1 + varintLength(nameBytes) + nameBytes + 1 + varintLength(tsize)
  return 1 + varintLength(linkLen) + linkLen
}

/** Size the PBNode Data field takes for a UnixFS message of `size` bytes. */
export const dataFieldSize = (size: number): number => 1 + varintLength(size) + size

/** What a CID is made of: version, hash, and the inline (identity) rule. */
export interface CidBuilderOptions {
  cidVersion: 0 | 1
  hash: HashFn
  /** blocks whose encoded size is <= inlineLimit get identity CIDs (go-cidutil InlineBuilder) */
  inline?: boolean
  inlineLimit?: number
}

/** Makes the CID of a block from its bytes and codec; raw blocks are always CIDv1. */
export type CidBuilder = ((bytes: Uint8Array, codec: number) => CID) & {
  /**
   * The same for a block whose buffer is an import chunk's (isChunk): hashed on a worker thread when
   * that pays (core/unixfs/hash-pool.ts). Its buffer moves there and back: use the returned bytes, the
   * views given are detached.
   */
  offThread?: (bytes: Uint8Array, codec: number) => Promise<{ cid: CID, bytes: Uint8Array }>
}

/**
 * Kubo's CID prefix for imports: CIDv0 (dag-pb only) or CIDv1 with the given hash; raw blocks
 * switch to CIDv1 (boxo NewRawNodeWPrefix). Every multihash is checked as boxo's blockservice
 * does (verifcid), so a disallowed hash or an oversized identity digest fails the import.
 */
export function cidBuilder (opts: CidBuilderOptions): CidBuilder {
  const { cidVersion, hash } = opts
  const inlineLimit = opts.inline === true ? (opts.inlineLimit ?? 32) : -1
  const cidOf = (mh: Digest.Digest<number, number>, codec: number): CID => {
    validateMultihash(mh)
    if (cidVersion === 0 && codec === DAG_PB) return CID.createV0(mh as Digest.Digest<0x12, 32>)
    return CID.create(1, codec, mh)
  }
  const build: CidBuilder = (bytes, codec) => {
    if (bytes.length <= inlineLimit) return CID.create(1, codec, Digest.create(IDENTITY, bytes))
    return cidOf(hash.digest(bytes), codec)
  }
  if (hash.code === SHA2_256) {
    build.offThread = async (bytes, codec) => {
      const job = bytes.length > inlineLimit && chunkBuffers.has(bytes.buffer as ArrayBuffer) ? sha256OffThread(bytes) : undefined
      if (job == null) return { cid: build(bytes, codec), bytes }
      const done = await job
      // the same memory, back from the worker: still a chunk buffer (releaseChunk recycles it)
      chunkBuffers.add(done.bytes.buffer as ArrayBuffer)
      return { cid: cidOf(Digest.create(SHA2_256, done.digest), codec), bytes: done.bytes }
    }
  }
  return build
}

const SHA2_256 = 0x12
