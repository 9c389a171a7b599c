// UnixFS directories: basic (one dag-pb node) or HAMT-sharded, decided by Kubo's rules
// (boxo ipld/unixfs/io/directory.go, ipld/unixfs/hamt).
import type { PBLink } from '@ipld/dag-pb'
import type { CID } from 'multiformats/cid'
import { RpcError } from '../errors.js'
import { murmur3x64_64 } from './murmur3.js'
import { Pacer } from '../util/pace.js'
import {
  DataType, DAG_PB, HAMT_HASH_MURMUR3, encodeNode, unixfsSize, dataFieldSize, linkSerializedSize,
  type CidBuilder, type UnixTime
} from './pb.js'

/** A directory entry: a name and the node it links to. */
export interface DirEntry {
  name: string
  /** UTF-8 bytes of the name */
  nameBytes: Buffer
  cid: CID
  /** cumulative DAG size of the target (link Tsize) */
  size: number
}

/** Import.UnixFSHAMTDirectorySizeEstimation */
export type SizeEstimation = 'links' | 'block' | 'disabled'

/** Directory building parameters (Import.* settings) and the block sink. */
export interface DirOptions {
  build: CidBuilder
  put: (cid: CID, bytes: Uint8Array) => Promise<void>
  /** Import.UnixFSDirectoryMaxLinks (<= 0: no limit) */
  maxLinks: number
  /** HAMT fanout (power of 2, multiple of 8) */
  fanout: number
  /** Import.UnixFSHAMTDirectorySizeThreshold (0 disables sharding) */
  threshold: number
  estimation: SizeEstimation
  /** the request's cancellation: long builds yield and stop with it */
  signal?: AbortSignal
}

/** UnixFS 1.5 metadata for a directory (on the HAMT root only when sharded). */
export interface DirAttrs { mode?: number, mtime?: UnixTime }

/**
 * A directory's entries by position: a view over compact storage (the importer keeps a million
 * entries as names and CID bytes, not objects) or over a DirEntry array (listOf).
 */
export interface DirEntryList {
  readonly length: number
  name: (i: number) => string
  cid: (i: number) => CID
  /** byte length of the entry's CID */
  cidLength: (i: number) => number
  /** cumulative DAG size of the target (link Tsize) */
  size: (i: number) => number
}

/** A DirEntryList over an array. */
export function listOf (entries: readonly DirEntry[]): DirEntryList {
  return {
    length: entries.length,
    name: i => entries[i].name,
    cid: i => entries[i].cid,
    cidLength: i => entries[i].cid.bytes.length,
    size: i => entries[i].size
  }
}

/** A built directory. */
export interface BuiltDir {
  cid: CID
  size: number
  sharded: boolean
  /** positions of the entries in the order Kubo lists them (name order; hash order for a HAMT) */
  order: ArrayLike<number>
}

/** the directory's stat fields: boxo writes the mode whenever one was set (FolderPBDataWithStat) */
function statFields (attrs: DirAttrs | undefined): { mode?: number, mtime?: UnixTime } {
  const out: { mode?: number, mtime?: UnixTime } = {}
  if (attrs?.mode !== undefined && attrs.mode !== 0) out.mode = attrs.mode & 0xfff
  if (attrs?.mtime !== undefined) out.mtime = attrs.mtime
  return out
}

const asList = (entries: readonly DirEntry[] | DirEntryList): DirEntryList => Array.isArray(entries) ? listOf(entries) : entries as DirEntryList

/**
 * Kubo's basic→HAMT decision for a directory holding `entries` (boxo needsToSwitchToHAMTDir,
 * applied to the final contents: adds only ever grow the estimate).
 */
export function needsSharding (entries: readonly DirEntry[] | DirEntryList, attrs: DirAttrs | undefined, o: DirOptions): boolean {
  const list = asList(entries)
  const n = list.length
  const overLinks = o.maxLinks > 0 && n > o.maxLinks
  if (o.threshold === 0) {
    // sharding disabled: boxo's basic directory refuses the extra link
    if (overLinks) throw new RpcError('BasicDirectory: cannot add child: maxLinks reached')
    return false
  }
  if (overLinks) return true
  if (o.estimation === 'disabled') return false
  let est = 0
  if (o.estimation === 'block') {
    est = dataFieldSize(unixfsSize({ type: DataType.Directory, ...statFields(attrs) }))
    for (let i = 0; i < n; i++) est += linkSerializedSize(Buffer.byteLength(list.name(i)), list.cidLength(i), list.size(i))
  } else {
    for (let i = 0; i < n; i++) est += Buffer.byteLength(list.name(i)) + list.cidLength(i)
  }
  return est > o.threshold
}

async function store (o: DirOptions, bytes: Uint8Array): Promise<CID> {
  const cid = o.build(bytes, DAG_PB)
  if (cid.multihash.code !== 0) await o.put(cid, bytes)
  return cid
}

/** Builds and stores a directory (basic or HAMT per Kubo's rule) over `entries` (any order). */
export async function buildDirectory (entries: readonly DirEntry[] | DirEntryList, attrs: DirAttrs | undefined, o: DirOptions): Promise<BuiltDir> {
  const list = asList(entries)
  if (needsSharding(list, attrs, o)) return await buildHamt(list, attrs, o)
  const names = Array.from({ length: list.length }, (_, i) => Buffer.from(list.name(i)))
  const order = Array.from({ length: list.length }, (_, i) => i).sort((a, b) => Buffer.compare(names[a], names[b]))
  const links: PBLink[] = order.map(i => ({ Hash: list.cid(i), Name: list.name(i), Tsize: list.size(i) }))
  const bytes = encodeNode({ type: DataType.Directory, ...statFields(attrs) }, links)
  let size = bytes.length
  for (const i of order) size += list.size(i)
  return { cid: await store(o, bytes), size, sharded: false, order }
}

/** `n` bits of the 64-bit hash (hi, lo) starting at bit `from`, most significant bit first (boxo hashBits.Next) */
function bitsAt (hi: number, lo: number, from: number, n: number): number {
  let out = 0
  for (let k = from; k < from + n; k++) out = (out * 2) + (k < 32 ? (hi >>> (31 - k)) & 1 : (lo >>> (63 - k)) & 1)
  return out
}

/**
 * Builds a HAMT (UnixFS HAMTShard, murmur3-x64-64 of the name, log2(fanout) bits per level).
 * The structure only depends on the set of entries. Mode and mtime go on the root shard only.
 * The entries are sorted by hash once: every shard is then a run of that order (its entries share
 * the hash bits above it), and the order is Kubo's listing order. Held per entry: 12 bytes.
 */
export async function buildHamt (entries: readonly DirEntry[] | DirEntryList, attrs: DirAttrs | undefined, o: DirOptions): Promise<BuiltDir> {
  const list = asList(entries)
  const fanout = o.fanout
  const bits = Math.log2(fanout)
  if (!Number.isInteger(bits) || fanout % 8 !== 0) throw new RpcError(`HAMT fanout must be a positive power of 2 and multiple of 8: ${fanout}`)
  const padLen = (fanout - 1).toString(16).length
  // a directory of millions of entries is seconds of CPU: let other requests run, stop when cancelled
  const pacer = new Pacer(o.signal)
  const n = list.length
  const hi = new Uint32Array(n)
  const lo = new Uint32Array(n)
  const order = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    // murmur3-x64-64 of the name (the first half of x64_128, seed 0), big-endian
    const h = murmur3x64_64(Buffer.from(list.name(i)))
    hi[i] = ((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0
    lo[i] = ((h[4] << 24) | (h[5] << 16) | (h[6] << 8) | h[7]) >>> 0
    order[i] = i
    if ((i & 1023) === 1023) await pacer.tick()
  }
  order.sort((a, b) => (hi[a] - hi[b]) || (lo[a] - lo[b]))

  const shard = async (start: number, end: number, consumed: number, root: boolean): Promise<{ cid: CID, size: number }> => {
    if (consumed + bits > 64) throw new RpcError('sharded directory too deep')
    await pacer.tick()
    const bitfield = new Uint8Array(fanout / 8)
    const links: PBLink[] = []
    let size = 0
    for (let i = start; i < end;) {
      const idx = bitsAt(hi[order[i]], lo[order[i]], consumed, bits)
      let j = i + 1
      while (j < end && bitsAt(hi[order[j]], lo[order[j]], consumed, bits) === idx) j++
      bitfield[bitfield.length - 1 - (idx >> 3)] |= 1 << (idx & 7)
      const prefix = idx.toString(16).toUpperCase().padStart(padLen, '0')
      if (j - i === 1) {
        const e = order[i]
        links.push({ Hash: list.cid(e), Name: prefix + list.name(e), Tsize: list.size(e) })
        size += list.size(e)
      } else {
        const child = await shard(i, j, consumed + bits, false)
        links.push({ Hash: child.cid, Name: prefix, Tsize: child.size })
        size += child.size
      }
      i = j
    }
    // go-bitfield Bytes(): big-endian, leading zero bytes stripped
    let first = 0
    while (first < bitfield.length && bitfield[first] === 0) first++
    const bytes = encodeNode({
      type: DataType.HAMTShard,
      data: bitfield.subarray(first),
      hashType: HAMT_HASH_MURMUR3,
      fanout,
      ...(root ? statFields(attrs) : {})
    }, links)
    return { cid: await store(o, bytes), size: size + bytes.length }
  }

  const root = await shard(0, n, 0, true)
  return { ...root, sharded: true, order }
}
