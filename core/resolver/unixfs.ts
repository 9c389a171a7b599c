// Reading UnixFS as Kubo (boxo) does: the Data protobuf with presence of optional fields, files
// read range by range with a bounded prefetch (back-pressured: only what the consumer pulls),
// directories (basic and HAMT) enumerated and looked up by name.
import * as dagPb from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import { murmur364 } from '@multiformats/murmur3'
import { RpcError } from '../errors.js'
import { PbReader } from '../util/pb-reader.js'

export const RAW_CODEC = 0x55
export const DAG_PB_CODEC = 0x70

export enum DataType { Raw = 0, Directory = 1, File = 2, Metadata = 3, Symlink = 4, HAMTShard = 5 }
export const DATA_TYPE_NAMES = ['Raw', 'Directory', 'File', 'Metadata', 'Symlink', 'HAMTShard']

export interface UnixfsMtime {
  secs: number
  /** present only when stored */
  nsecs?: number
}

/** boxo unixfs pb.Data, with unset optional fields left undefined. */
export interface UnixfsData {
  type: DataType
  data?: Uint8Array
  filesize?: number
  blocksizes: number[]
  hashType?: number
  fanout?: number
  mode?: number
  mtime?: UnixfsMtime
}

const INVALID_WIRE = 'proto: cannot parse invalid wire-format data'

class Reader extends PbReader {
  protected fail (): Error { return new RpcError(INVALID_WIRE) }
}

function decodeMtime (buf: Uint8Array): UnixfsMtime {
  const r = new Reader(buf)
  let secs: number | undefined
  let nsecs: number | undefined
  while (r.pos < r.end) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (field === 1 && wire === 0) secs = r.int64()
    else if (field === 2 && wire === 5) nsecs = r.fixed32()
    else r.skip(wire)
  }
  if (secs === undefined) throw new RpcError('proto: required field ipfs.boxo.ipld.unixfs.pb.IPFSTimestamp.seconds not set')
  return nsecs === undefined ? { secs } : { secs, nsecs }
}

/** Decode a UnixFS Data message (boxo FSNodeFromBytes), with protobuf-go's error texts. */
export function decodeUnixfsData (buf: Uint8Array | undefined): UnixfsData {
  const r = new Reader(buf ?? new Uint8Array(0))
  let type: number | undefined
  const out: Omit<UnixfsData, 'type'> = { blocksizes: [] }
  while (r.pos < r.end) {
    const tag = r.varint()
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (field === 0) throw new RpcError(INVALID_WIRE)
    switch (field) {
      case 1: if (wire !== 0) { r.skip(wire); break } { const t = r.varint(); if (t <= 5) type = t } break
      case 2: if (wire !== 2) { r.skip(wire); break } out.data = r.bytes(); break
      case 3: if (wire !== 0) { r.skip(wire); break } out.filesize = r.varint(); break
      case 4:
        if (wire === 0) out.blocksizes.push(r.varint())
        else if (wire === 2) {
          const packed = r.bytes()
          const pr = new Reader(packed)
          while (pr.pos < pr.end) out.blocksizes.push(pr.varint())
        } else r.skip(wire)
        break
      case 5: if (wire !== 0) { r.skip(wire); break } out.hashType = r.varint(); break
      case 6: if (wire !== 0) { r.skip(wire); break } out.fanout = r.varint(); break
      case 7: if (wire !== 0) { r.skip(wire); break } out.mode = r.varint() % 2 ** 32; break
      case 8: if (wire !== 2) { r.skip(wire); break } out.mtime = decodeMtime(r.bytes()); break
      default: r.skip(wire)
    }
  }
  if (type === undefined) throw new RpcError('proto: required field ipfs.boxo.ipld.unixfs.pb.Data.Type not set')
  return { type, ...out }
}

/** boxo FSNode.FileSize (0 where Go's size() errors). */
export function unixfsFileSize (fs: UnixfsData): number {
  switch (fs.type) {
    case DataType.File: case DataType.Raw: return fs.filesize ?? 0
    case DataType.Symlink: return fs.data?.length ?? 0
    default: return 0
  }
}

/** boxo FSNode.ModTime: undefined when unset or the nanoseconds are out of range. */
export function unixfsModTime (fs: UnixfsData): UnixfsMtime | undefined {
  const m = fs.mtime
  if (m == null) return undefined
  if (m.nsecs !== undefined && (m.nsecs < 1 || m.nsecs > 999999999)) return undefined
  return m
}

/** The permission bits stored in a node (0 when unset). */
export const unixfsPerms = (fs: UnixfsData): number => (fs.mode ?? 0) & 0xfff

export function decodePb (bytes: Uint8Array): dagPb.PBNode {
  return dagPb.decode(bytes)
}

/** ProtoNode.Size(): the block plus the cumulative sizes of its links. */
export function cumulativeSize (block: Uint8Array, pb: dagPb.PBNode): number {
  let size = block.length
  for (const l of pb.Links) size += l.Tsize ?? 0
  return size
}

export type GetBlockFn = (cid: CID) => Promise<Uint8Array>

// ---------------------------------------------------------------------------------------------
// Opening a node as a UnixFS file, directory or symlink (boxo unixfile.NewUnixfsFile)

export interface UnixfsFileNode {
  kind: 'file'
  cid: CID
  size: number
  /** the stored mode bits (0 when unset) */
  perms: number
  mtime?: UnixfsMtime
  /** raw block bytes, or the decoded dag-pb root */
  root: Uint8Array | { pb: dagPb.PBNode, fs: UnixfsData }
}

export interface UnixfsDirNode {
  kind: 'directory'
  cid: CID
  pb: dagPb.PBNode
  fs: UnixfsData
  /** cumulative DAG size (ProtoNode.Size) */
  size: number
  perms: number
  mtime?: UnixfsMtime
}

export interface UnixfsSymlinkNode {
  kind: 'symlink'
  cid: CID
  target: string
  mtime?: UnixfsMtime
}

export type UnixfsNode = UnixfsFileNode | UnixfsDirNode | UnixfsSymlinkNode

const utf8 = new TextDecoder()

/** Interpret a block as UnixFS (boxo NewUnixfsFile + NewDagReader errors). */
export async function openUnixfs (cid: CID, block: Uint8Array, getBlock: GetBlockFn): Promise<UnixfsNode> {
  if (cid.code === RAW_CODEC) return { kind: 'file', cid, size: block.length, perms: 0, root: block }
  if (cid.code !== DAG_PB_CODEC) throw new RpcError('unknown node type')
  const pb = decodePb(block)
  const fs = decodeUnixfsData(pb.Data)
  switch (fs.type) {
    case DataType.Directory:
    case DataType.HAMTShard:
      return { kind: 'directory', cid, pb, fs, size: cumulativeSize(block, pb), perms: unixfsPerms(fs), mtime: unixfsModTime(fs) }
    case DataType.Symlink:
      return { kind: 'symlink', cid, target: utf8.decode(fs.data ?? new Uint8Array(0)), mtime: unixfsModTime(fs) }
    case DataType.File:
    case DataType.Raw:
      return { kind: 'file', cid, size: fs.filesize ?? 0, perms: unixfsPerms(fs), mtime: unixfsModTime(fs), root: { pb, fs } }
    case DataType.Metadata: {
      if (pb.Links.length === 0) throw new RpcError('incorrectly formatted metadata object')
      const child = pb.Links[0].Hash
      if (child.code !== DAG_PB_CODEC) throw new RpcError('expected protobuf dag node')
      const opened = await openUnixfs(child, await getBlock(child), getBlock)
      if (opened.kind === 'directory') throw new RpcError('this dag node is a directory')
      if (opened.kind === 'symlink') throw new RpcError('cannot currently read symlinks')
      return opened
    }
    default:
      throw new RpcError('unrecognized node type')
  }
}

// ---------------------------------------------------------------------------------------------
// File content

export interface ReadOptions {
  /** first byte (default 0) */
  offset?: number
  /** bytes to read (default: to the end) */
  length?: number
  /** blocks fetched ahead of the one being read, per DAG level (default 8) */
  prefetch?: number
}

/** a node of a file DAG: a raw leaf's bytes, or a dag-pb node with its UnixFS data */
export type FileDagNode = Uint8Array | { pb: dagPb.PBNode, fs: UnixfsData }

export function decodeFileChild (cid: CID, block: Uint8Array): FileDagNode {
  if (cid.code === RAW_CODEC) return block
  if (cid.code !== DAG_PB_CODEC) throw new RpcError('unknown node type')
  const pb = decodePb(block)
  let fs: UnixfsData
  try {
    fs = decodeUnixfsData(pb.Data)
  } catch (err) {
    throw new RpcError(`incorrectly formatted protobuf: ${(err as Error).message}`)
  }
  if (fs.type !== DataType.File && fs.type !== DataType.Raw) {
    throw new RpcError(`found ${DATA_TYPE_NAMES[fs.type]} node in unexpected place`)
  }
  return { pb, fs }
}

/** A promise whose rejection is handled later (or never, when the reader stops early). */
function quiet<T> (p: Promise<T>): Promise<T> {
  p.catch(() => {})
  return p
}

async function * walkFile (node: FileDagNode, pos: number, start: number, end: number, getBlock: GetBlockFn, prefetch: number): AsyncGenerator<Uint8Array, number> {
  if (node instanceof Uint8Array) {
    const s = Math.max(start - pos, 0)
    const e = Math.min(end - pos, node.length)
    if (e > s) yield s === 0 && e === node.length ? node : node.subarray(s, e)
    return pos + node.length
  }
  const { pb, fs } = node
  if (fs.data != null && fs.data.length > 0) {
    const s = Math.max(start - pos, 0)
    const e = Math.min(end - pos, fs.data.length)
    if (e > s) yield fs.data.subarray(s, e)
    pos += fs.data.length
  }
  const links = pb.Links
  if (links.length === 0) return pos
  const sized = fs.blocksizes.length === links.length
  // the children overlapping [start, end), with their start positions when known
  const wanted: Array<{ cid: CID, at: number }> = []
  let p = pos
  for (let i = 0; i < links.length; i++) {
    if (!sized) { wanted.push({ cid: links[i].Hash, at: -1 }); continue }
    const size = fs.blocksizes[i]
    if (p + size > start && p < end) wanted.push({ cid: links[i].Hash, at: p })
    p += size
    if (p >= end) break
  }
  const fetches: Array<Promise<Uint8Array>> = []
  let next = 0
  const fill = (upto: number): void => {
    while (next < wanted.length && next <= upto) {
      fetches.push(quiet(getBlock(wanted[next].cid)))
      next++
    }
  }
  for (let i = 0; i < wanted.length; i++) {
    fill(i + prefetch)
    const block = await fetches[i]
    delete fetches[i]
    const child = decodeFileChild(wanted[i].cid, block)
    const at = sized ? wanted[i].at : pos
    pos = yield * walkFile(child, at, start, end, getBlock, prefetch)
    if (!sized && pos >= end) break
  }
  return sized ? p : pos
}

/** The bytes of a UnixFS file (or raw block) in [offset, offset+length). */
export async function * readFile (file: UnixfsFileNode, getBlock: GetBlockFn, options: ReadOptions = {}): AsyncGenerator<Uint8Array> {
  const start = options.offset ?? 0
  const end = options.length === undefined ? Infinity : start + options.length
  if (end <= start) return
  yield * walkFile(file.root, 0, start, end, getBlock, options.prefetch ?? 8)
}

// ---------------------------------------------------------------------------------------------
// Directories

export interface DirLink {
  name: string
  cid: CID
  /** the link's Tsize (cumulative size) */
  tsize: number
}

const HAMT_TOO_DEEP = 'sharded directory too deep'

/** log2(fanout) and the hex width of a bucket index (boxo hamt). */
function hamtParams (fs: UnixfsData): { bits: number, padLen: number, fanout: number } {
  const fanout = fs.fanout ?? 0
  if (fanout <= 0 || (fanout & (fanout - 1)) !== 0) throw new RpcError('hamt size should be a power of two')
  if (fs.hashType !== undefined && fs.hashType !== 0x22) throw new RpcError('only murmur3 supported as hash function')
  return { bits: Math.log2(fanout), padLen: (fanout - 1).toString(16).length, fanout }
}

async function loadShard (cid: CID, getBlock: GetBlockFn): Promise<{ pb: dagPb.PBNode, fs: UnixfsData }> {
  if (cid.code !== DAG_PB_CODEC) throw new RpcError('expected protobuf dag node')
  const pb = decodePb(await getBlock(cid))
  const fs = decodeUnixfsData(pb.Data)
  if (fs.type !== DataType.HAMTShard) throw new RpcError('node was not a dir shard')
  return { pb, fs }
}

/** One shard being walked: its links, the next one, and the loads of its child shards (started together). */
interface ShardFrame {
  pb: dagPb.PBNode
  padLen: number
  shards: Map<number, Promise<{ pb: dagPb.PBNode, fs: UnixfsData }>>
  next: number
}

/**
 * A HAMT's entries in shard order. Each level's child shards are fetched together and walked in
 * link order; one generator for the whole tree (no generator per shard for every entry to pass).
 */
async function * walkShard (pb: dagPb.PBNode, fs: UnixfsData, getBlock: GetBlockFn): AsyncGenerator<DirLink> {
  const enter = (pb: dagPb.PBNode, fs: UnixfsData): ShardFrame => {
    const { padLen } = hamtParams(fs)
    const shards = new Map<number, Promise<{ pb: dagPb.PBNode, fs: UnixfsData }>>()
    pb.Links.forEach((l, i) => {
      if ((l.Name ?? '').length === padLen) shards.set(i, quiet(loadShard(l.Hash, getBlock)))
    })
    return { pb, padLen, shards, next: 0 }
  }
  const stack = [enter(pb, fs)]
  while (stack.length > 0) {
    const f = stack[stack.length - 1]
    if (f.next >= f.pb.Links.length) {
      stack.pop()
      continue
    }
    const i = f.next++
    const l = f.pb.Links[i]
    const name = l.Name ?? ''
    if (name.length < f.padLen) throw new RpcError(`invalid link name '${name}'`)
    const shard = f.shards.get(i)
    if (shard != null) {
      const child = await shard
      stack.push(enter(child.pb, child.fs))
    } else {
      yield { name: name.slice(f.padLen), cid: l.Hash, tsize: l.Tsize ?? 0 }
    }
  }
}

/** The entries of a directory (a basic directory's links, or a HAMT's entries in shard order). */
export async function * dirEntries (dir: Pick<UnixfsDirNode, 'pb' | 'fs'>, getBlock: GetBlockFn): AsyncGenerator<DirLink> {
  if (dir.fs.type === DataType.HAMTShard) {
    yield * walkShard(dir.pb, dir.fs, getBlock)
    return
  }
  for (const l of dir.pb.Links) yield { name: l.Name ?? '', cid: l.Hash, tsize: l.Tsize ?? 0 }
}

/** murmur3-x64-64 of a name, as the HAMT hashes it. */
export function hamtHash (name: string): Uint8Array {
  const digest = murmur364.digest(new TextEncoder().encode(name))
  if (digest instanceof Promise) throw new Error('murmur3 digest is async')
  return digest.digest
}

function takeBits (hash: Uint8Array, consumed: number, n: number): number {
  if (consumed + n > hash.length * 8) throw new RpcError(HAMT_TOO_DEEP)
  let out = 0
  for (let i = 0; i < n; i++) {
    const bit = consumed + i
    out = (out << 1) | ((hash[bit >> 3] >> (7 - (bit & 7))) & 1)
  }
  return out
}

/** Is bucket `index` set in a shard's bitfield (big-endian, leading zero bytes stripped)? */
function bitfieldHas (data: Uint8Array, index: number): boolean {
  const byte = data.length - 1 - (index >> 3)
  return byte >= 0 && ((data[byte] >> (index & 7)) & 1) === 1
}

/** The position among the shard's links of bucket `index` (the set bits below it). */
function bitfieldRank (data: Uint8Array, index: number): number {
  let n = 0
  for (let i = 0; i < index; i++) if (bitfieldHas(data, i)) n++
  return n
}

/** Look a name up in a HAMT directory (go-unixfsnode hamt lookup); undefined when absent. */
export async function hamtLookup (root: { pb: dagPb.PBNode, fs: UnixfsData }, name: string, getBlock: GetBlockFn): Promise<CID | undefined> {
  const hash = hamtHash(name)
  let consumed = 0
  let { pb, fs } = root
  for (;;) {
    const { bits, padLen } = hamtParams(fs)
    const index = takeBits(hash, consumed, bits)
    consumed += bits
    const bitfield = fs.data ?? new Uint8Array(0)
    if (!bitfieldHas(bitfield, index)) return undefined
    const link = pb.Links[bitfieldRank(bitfield, index)]
    if (link == null) return undefined
    const linkName = link.Name ?? ''
    if (linkName.length < padLen) throw new RpcError(`invalid link name '${linkName}'`)
    if (linkName.length > padLen) return linkName.slice(padLen) === name ? link.Hash : undefined
    ;({ pb, fs } = await loadShard(link.Hash, getBlock))
  }
}
