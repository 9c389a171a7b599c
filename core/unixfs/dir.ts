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

/** A built directory. */
export interface BuiltDir {
  cid: CID
  size: number
  sharded: boolean
  /** the entries in the order Kubo lists them (name order; hash order for a HAMT) */
  order: DirEntry[]
}

/** murmur3-x64-64 of a name: the first half of murmur3 x64_128 (seed 0), big-endian */
function hamtHash (name: Uint8Array): Uint8Array {
  return murmur3x64_64(name)
}

const byName = (a: DirEntry, b: DirEntry): number => Buffer.compare(a.nameBytes, b.nameBytes)

/** the directory's stat fields: boxo writes the mode whenever one was set (FolderPBDataWithStat) */
function statFields (attrs: DirAttrs | undefined): { mode?: number, mtime?: UnixTime } {
  const out: { mode?: number, mtime?: UnixTime } = {}
  if (attrs?.mode !== undefined && attrs.mode !== 0) out.mode = attrs.mode & 0xfff
  if (attrs?.mtime !== undefined) out.mtime = attrs.mtime
  return out
}

/**
 * Kubo's basic→HAMT decision for a directory holding `entries` (boxo needsToSwitchToHAMTDir,
 * applied to the final contents: adds only ever grow the estimate).
 */
export function needsSharding (entries: readonly DirEntry[], attrs: DirAttrs | undefined, o: DirOptions): boolean {
  const n = entries.length
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
    for (const e of entries) est += linkSerializedSize(e.nameBytes.length, e.cid.bytes.length, e.size)
  } else {
    for (const e of entries) est += e.nameBytes.length + e.cid.bytes.length
  }
  return est > o.threshold
}

async function store (o: DirOptions, bytes: Uint8Array): Promise<CID> {
  const cid = o.build(bytes, DAG_PB)
  if (cid.multihash.code !== 0) await o.put(cid, bytes)
  return cid
}

/** Builds and stores a directory (basic or HAMT per Kubo's rule) over `entries` (any order). */
export async function buildDirectory (entries: DirEntry[], attrs: DirAttrs | undefined, o: DirOptions): Promise<BuiltDir> {
  if (needsSharding(entries, attrs, o)) return await buildHamt(entries, attrs, o)
  const sorted = entries.slice().sort(byName)
  const links: PBLink[] = sorted.map(e => ({ Hash: e.cid, Name: e.name, Tsize: e.size }))
  const bytes = encodeNode({ type: DataType.Directory, ...statFields(attrs) }, links)
  let size = bytes.length
  for (const e of sorted) size += e.size
  return { cid: await store(o, bytes), size, sharded: false, order: sorted }
}

interface Hashed { e: DirEntry, h: Uint8Array }

/** `n` bits of the hash starting at bit `from`, most significant bit first (boxo hashBits.Next) */
function bitsAt (h: Uint8Array, from: number, n: number): number {
  let out = 0
  for (let k = from; k < from + n; k++) out = (out * 2) + ((h[k >> 3] >> (7 - (k & 7))) & 1)
  return out
}

/**
 * Builds a HAMT (UnixFS HAMTShard, murmur3-x64-64 of the name, log2(fanout) bits per level).
 * The structure only depends on the set of entries. Mode and mtime go on the root shard only.
 */
export async function buildHamt (entries: DirEntry[], attrs: DirAttrs | undefined, o: DirOptions): Promise<BuiltDir> {
  const fanout = o.fanout
  const bits = Math.log2(fanout)
  if (!Number.isInteger(bits) || fanout % 8 !== 0) throw new RpcError(`HAMT fanout must be a positive power of 2 and multiple of 8: ${fanout}`)
  const padLen = (fanout - 1).toString(16).length
  // a directory of millions of entries is seconds of CPU: let other requests run, stop when cancelled
  const pacer = new Pacer(o.signal)
  const hashed: Hashed[] = []
  for (const e of entries) {
    hashed.push({ e, h: hamtHash(e.nameBytes) })
    if ((hashed.length & 1023) === 0) await pacer.tick()
  }
  const order: DirEntry[] = []

  const shard = async (items: Hashed[], consumed: number, root: boolean): Promise<{ cid: CID, size: number }> => {
    if (consumed + bits > 64) throw new RpcError('sharded directory too deep')
    await pacer.tick()
    const buckets = new Map<number, Hashed[]>()
    for (const it of items) {
      const idx = bitsAt(it.h, consumed, bits)
      const b = buckets.get(idx)
      if (b == null) buckets.set(idx, [it])
      else b.push(it)
    }
    const indices = [...buckets.keys()].sort((a, b) => a - b)
    const bitfield = new Uint8Array(fanout / 8)
    const links: PBLink[] = []
    let size = 0
    for (const idx of indices) {
      bitfield[bitfield.length - 1 - (idx >> 3)] |= 1 << (idx & 7)
      const prefix = idx.toString(16).toUpperCase().padStart(padLen, '0')
      const group = buckets.get(idx) as Hashed[]
      if (group.length === 1) {
        const e = group[0].e
        links.push({ Hash: e.cid, Name: prefix + e.name, Tsize: e.size })
        size += e.size
        order.push(e)
      } else {
        const child = await shard(group, consumed + bits, false)
        links.push({ Hash: child.cid, Name: prefix, Tsize: child.size })
        size += child.size
      }
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

  const root = await shard(hashed, 0, true)
  return { ...root, sharded: true, order }
}
