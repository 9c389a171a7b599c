// A mutable HAMT-sharded directory (boxo ipld/unixfs/hamt): child shards are loaded only when a
// lookup or change reaches them, and only changed shards are encoded again. The structure is
// canonical (a bucket with one entry holds it directly; several entries make a child shard;
// removals collapse a child shard left with a single entry), so it matches the importer's HAMTs.
import { murmur364 } from '@multiformats/murmur3'
import type { CID } from 'multiformats/cid'
import type { BlockIO } from './blocks.js'
import { MfsError } from './errors.js'
import { DataType, PbNode, decodeUnixfsData, encodeFsData, type Link, type Prefix } from './node.js'
import type { UnixTime } from '../unixfs/pb.js'

export const HASH_MURMUR3 = 0x22
const MAX_WIDTH = 1024

type Child =
  | { kind: 'value', key: string, link: Link }
  | { kind: 'shard', shard: Shard }
  /** a child shard not loaded yet */
  | { kind: 'link', cid: CID, tsize: number }

/** murmur3-x64-64 of a name, big-endian (the first half of murmur3 x64_128). */
export function hamtHash (key: string): Uint8Array {
  const d = murmur364.digest(Buffer.from(key))
  if (d instanceof Promise) throw new Error('murmur3 hasher is unexpectedly async')
  return d.digest
}

/** hashBits.Next: `n` bits after `consumed`, MSB first. */
function bitsAt (h: Uint8Array, consumed: number, n: number): number {
  if (consumed + n > h.length * 8) throw new MfsError('sharded directory too deep')
  let out = 0
  for (let k = consumed; k < consumed + n; k++) out = (out * 2) + ((h[k >> 3] >> (7 - (k & 7))) & 1)
  return out
}

export const validShardWidth = (n: number): boolean => n > 0 && (n & (n - 1)) === 0 && (n & 7) === 0

export class Shard {
  readonly children = new Map<number, Child>()
  readonly bits: number
  readonly padLen: number
  /** root only: UnixFS 1.5 metadata */
  mode = 0
  mtime?: UnixTime
  private cached?: PbNode

  constructor (readonly fanout: number, public prefix: Prefix) {
    if (fanout > MAX_WIDTH) throw new MfsError(`hamt width (${fanout}) exceed maximum allowed (${MAX_WIDTH})`)
    const bits = Math.log2(fanout)
    if (fanout <= 0 || !Number.isInteger(bits)) throw new MfsError('hamt size should be a power of two')
    this.bits = bits
    this.padLen = (fanout - 1).toString(16).length
  }

  /** NewHamtFromDag */
  static fromNode (node: PbNode): Shard {
    const fs = decodeUnixfsData(node.data)
    if (fs.type !== DataType.HAMTShard) throw new MfsError('node was not a dir shard')
    if (fs.hashType !== HASH_MURMUR3) throw new MfsError('only murmur3 supported as hash function')
    const shard = new Shard(fs.fanout ?? 0, node.prefix)
    const bitfield = fs.data ?? new Uint8Array(0)
    let li = 0
    for (let idx = 0; idx < shard.fanout; idx++) {
      const byte = bitfield.length - 1 - (idx >> 3)
      if (byte < 0 || ((bitfield[byte] >> (idx & 7)) & 1) === 0) continue
      const l = node.links[li++]
      if (l == null) break
      if (l.name.length < shard.padLen) throw new MfsError(`invalid link name '${l.name}'`)
      if (l.name.length === shard.padLen) shard.children.set(idx, { kind: 'link', cid: l.cid, tsize: l.tsize })
      else shard.children.set(idx, { kind: 'value', key: l.name.slice(shard.padLen), link: { name: l.name.slice(shard.padLen), cid: l.cid, tsize: l.tsize } })
    }
    shard.cached = node
    return shard
  }

  private prefixName (idx: number): string {
    return idx.toString(16).toUpperCase().padStart(this.padLen, '0')
  }

  /** something below changed: encode again */
  invalidate (): void { this.cached = undefined }

  private async child (io: BlockIO, idx: number, c: Child): Promise<Shard> {
    if (c.kind === 'shard') return c.shard
    const shard = await Shard.load(io, c)
    this.children.set(idx, { kind: 'shard', shard })
    return shard
  }

  /** a linked child shard read from its block (not kept in the tree) */
  private static async load (io: BlockIO, c: Child): Promise<Shard> {
    if (c.kind !== 'link') throw new Error('not a shard')
    const node = await io.getNode(c.cid, undefined, 'expected protobuf dag node')
    if (node.kind !== 'pb') throw new MfsError('expected protobuf dag node')
    return Shard.fromNode(node)
  }

  get size (): number { return this.children.size }

  async find (io: BlockIO, key: string, hash = hamtHash(key), consumed = 0): Promise<Link | undefined> {
    const idx = bitsAt(hash, consumed, this.bits)
    const c = this.children.get(idx)
    if (c == null) return undefined
    if (c.kind === 'value') return c.key === key ? c.link : undefined
    return await (await this.child(io, idx, c)).find(io, key, hash, consumed + this.bits)
  }

  /** Set key → link; returns the replaced link. */
  async set (io: BlockIO, key: string, link: Link, hash = hamtHash(key), consumed = 0): Promise<Link | undefined> {
    const idx = bitsAt(hash, consumed, this.bits)
    const c = this.children.get(idx)
    const value: Child = { kind: 'value', key, link: { ...link, name: key } }
    if (c == null) {
      this.children.set(idx, value)
      this.invalidate()
      return undefined
    }
    if (c.kind === 'value') {
      this.invalidate()
      if (c.key === key) {
        this.children.set(idx, value)
        return c.link
      }
      const sub = new Shard(this.fanout, this.prefix)
      await sub.set(io, key, link, hash, consumed + this.bits)
      await sub.set(io, c.key, c.link, hamtHash(c.key), consumed + this.bits)
      this.children.set(idx, { kind: 'shard', shard: sub })
      return undefined
    }
    const sub = await this.child(io, idx, c)
    const old = await sub.set(io, key, link, hash, consumed + this.bits)
    this.invalidate()
    return old
  }

  /** Remove key; returns the removed link (undefined when absent). */
  async take (io: BlockIO, key: string, hash = hamtHash(key), consumed = 0): Promise<Link | undefined> {
    const idx = bitsAt(hash, consumed, this.bits)
    const c = this.children.get(idx)
    if (c == null) return undefined
    if (c.kind === 'value') {
      if (c.key !== key) return undefined
      this.children.delete(idx)
      this.invalidate()
      return c.link
    }
    const sub = await this.child(io, idx, c)
    const old = await sub.take(io, key, hash, consumed + this.bits)
    if (old == null) return undefined
    this.invalidate()
    if (sub.size === 0) {
      this.children.delete(idx)
    } else if (sub.size === 1) {
      const only = sub.children.values().next().value as Child
      // a child shard left with a single entry collapses into this bucket
      if (only.kind === 'value') this.children.set(idx, only)
    }
    return old
  }

  /**
   * Entries in shard order (walkTrie). The child shards of a shard not loaded yet are read together
   * when it is reached, and are not kept: a listing leaves no per-entry state behind (a 1M HAMT
   * loaded by `files ls` stayed, ~470 MiB). Changed shards are in the tree and walked from there. One generator for all.
   */
  async * walk (io: BlockIO): AsyncGenerator<Link> {
    const enter = (shard: Shard): { shard: Shard, indices: number[], next: number, loads: Map<number, Promise<Shard>> } => {
      const indices = [...shard.children.keys()].sort((a, b) => a - b)
      const loads = new Map<number, Promise<Shard>>()
      for (const idx of indices) {
        const c = shard.children.get(idx) as Child
        if (c.kind === 'link') {
          const p = Shard.load(io, c)
          p.catch(() => {})
          loads.set(idx, p)
        }
      }
      return { shard, indices, next: 0, loads }
    }
    const stack = [enter(this)]
    while (stack.length > 0) {
      const f = stack[stack.length - 1]
      if (f.next >= f.indices.length) {
        stack.pop()
        continue
      }
      const idx = f.indices[f.next++]
      const c = f.shard.children.get(idx) as Child
      if (c.kind === 'value') yield c.link
      else stack.push(enter(c.kind === 'shard' ? c.shard : await (f.loads.get(idx) ?? Shard.load(io, c))))
    }
  }

  /** The shard's node (changed child shards encoded and stored first). */
  async node (io: BlockIO): Promise<PbNode> {
    if (this.cached != null) return this.cached
    const indices = [...this.children.keys()].sort((a, b) => a - b)
    const bitfield = new Uint8Array(this.fanout / 8)
    const links: Link[] = []
    for (const idx of indices) {
      bitfield[bitfield.length - 1 - (idx >> 3)] |= 1 << (idx & 7)
      const c = this.children.get(idx) as Child
      const name = this.prefixName(idx)
      if (c.kind === 'value') {
        links.push({ name: name + c.key, cid: c.link.cid, tsize: c.link.tsize })
      } else if (c.kind === 'link') {
        links.push({ name, cid: c.cid, tsize: c.tsize })
      } else {
        const n = await c.shard.node(io)
        links.push({ name, cid: n.cid, tsize: n.size })
      }
    }
    let first = 0
    while (first < bitfield.length && bitfield[first] === 0) first++
    const data = encodeFsData({
      type: DataType.HAMTShard,
      data: first < bitfield.length ? bitfield.subarray(first) : undefined,
      blocksizes: [],
      hashType: HASH_MURMUR3,
      fanout: this.fanout,
      mode: this.mode !== 0 ? this.mode : undefined,
      mtime: this.mtime
    })
    const node = new PbNode(this.prefix, data, links)
    await io.putNode(node)
    this.cached = node
    return node
  }
}
