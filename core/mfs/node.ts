// The DAG nodes MFS edits: raw blocks and dag-pb nodes with a CID prefix (go-cid Prefix as a
// cid.Builder), and UnixFS Data messages encoded as protobuf-go does (proto2 presence: an empty
// but present `Data` is written as `12 00`).
import * as dagPb from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import { hashByCode, hashByName, validateMultihash, type HashFn } from '../hashes.js'
import { DataType, decodeUnixfsData, type UnixfsData } from '../resolver/unixfs.js'
import { varintLength } from '../unixfs/pb.js'
import { MfsError } from './errors.js'

export { DataType, decodeUnixfsData, type UnixfsData }

export const DAG_PB = 0x70
export const RAW = 0x55
export const IDENTITY = 0x00
/** boxo verifcid.DefaultMaxIdentityDigestSize */
export const MAX_IDENTITY = 128

/** A CID builder: version and multihash (the codec is decided per node). */
export interface Prefix {
  version: 0 | 1
  hash: HashFn
  /** digest length; -1: the hash's default */
  mhLength: number
}

export const SHA2_256 = hashByName('sha2-256') as HashFn

/** dag.V0CidPrefix / the default builder of a ProtoNode */
export const V0_PREFIX: Prefix = { version: 0, hash: SHA2_256, mhLength: -1 }

/** merkledag.PrefixForCidVersion with the multihash set. */
export function makePrefix (version: number, hash: HashFn = SHA2_256): Prefix {
  if (version !== 0 && version !== 1) throw new MfsError(`unknown CID version: ${version}`)
  return { version, hash, mhLength: -1 }
}

/** cid.Prefix() of an existing CID. */
export function prefixOf (cid: CID): Prefix {
  const hash = hashByCode(cid.multihash.code)
  if (hash == null) throw new MfsError(`unknown multihash code: ${cid.multihash.code}`)
  return { version: cid.version === 0 ? 0 : 1, hash, mhLength: hash.code === IDENTITY ? -1 : cid.multihash.size }
}

export const samePrefix = (a: Prefix, b: Prefix): boolean => a.version === b.version && a.hash.code === b.hash.code && a.mhLength === b.mhLength

/** Prefix.Sum with the codec forced (raw blocks always CIDv1, as WithCodec does for non-dag-pb). */
export function sumCid (prefix: Prefix, codec: number, bytes: Uint8Array): CID {
  let hash = prefix.hash
  let length = prefix.mhLength
  // identity data over the limit falls back to sha2-256 (boxo dagmodifier identity safety)
  if (hash.code === IDENTITY && bytes.length > MAX_IDENTITY) {
    hash = SHA2_256
    length = -1
  }
  const digest = hash.digest(bytes, length)
  validateMultihash(digest)
  if (prefix.version === 0 && codec === DAG_PB) {
    if (digest.code !== 0x12) throw new MfsError('invalid hash for cidv0')
    return CID.createV0(digest as Digest.Digest<0x12, 32>)
  }
  return CID.create(1, codec, digest)
}

/** A dag-pb link; Name is always present. */
export interface Link {
  name: string
  cid: CID
  /** Tsize: the target's cumulative size */
  tsize: number
}

export interface RawNode {
  kind: 'raw'
  cid: CID
  bytes: Uint8Array
}

/** A dag-pb node: Data bytes (undefined: absent) and links; CID and bytes computed on demand. */
export class PbNode {
  readonly kind = 'pb'
  private encoded?: { cid: CID, bytes: Uint8Array }

  constructor (public prefix: Prefix, public data: Uint8Array | undefined, public links: Link[], known?: { cid: CID, bytes: Uint8Array }) {
    this.encoded = known
  }

  /** forget the cached encoding after an in-place change */
  touch (): void { this.encoded = undefined }

  private encode (): { cid: CID, bytes: Uint8Array } {
    if (this.encoded != null) return this.encoded
    // links stably sorted by name bytes, as merkledag does before encoding
    const sorted = sortLinks(this.links)
    const pb: dagPb.PBNode = { Links: sorted.map(l => ({ Hash: l.cid, Name: l.name, Tsize: l.tsize })) }
    if (this.data !== undefined) pb.Data = this.data
    const bytes = dagPb.encode(pb)
    this.encoded = { cid: sumCid(this.prefix, DAG_PB, bytes), bytes }
    return this.encoded
  }

  get cid (): CID { return this.encode().cid }
  get bytes (): Uint8Array { return this.encode().bytes }

  /** ProtoNode.Size(): the block plus its links' sizes */
  get size (): number {
    let s = this.bytes.length
    for (const l of this.links) s += l.tsize
    return s
  }

  copy (): PbNode {
    return new PbNode(this.prefix, this.data, this.links.map(l => ({ ...l })), this.encoded)
  }
}

export type DagNode = RawNode | PbNode

/** Stable sort by name bytes (only sorts when needed). */
export function sortLinks (links: Link[]): Link[] {
  for (let i = 1; i < links.length; i++) {
    if (compareNames(links[i - 1].name, links[i].name) > 0) {
      return links.map((l, idx) => ({ l, idx })).sort((a, b) => compareNames(a.l.name, b.l.name) || a.idx - b.idx).map(x => x.l)
    }
  }
  return links
}

/** Order of the names' UTF-8 bytes (code point order), without encoding them. */
export function compareNames (a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    if (x < 0xd800 && y < 0xd800) return x - y
    return (a.codePointAt(i) as number) - (b.codePointAt(i) as number)
  }
  return a.length - b.length
}

export const nodeSize = (n: DagNode): number => n.kind === 'raw' ? n.bytes.length : n.size
export const linkTo = (name: string, n: DagNode): Link => ({ name, cid: n.cid, tsize: nodeSize(n) })

export function rawNode (prefix: Prefix, bytes: Uint8Array): RawNode {
  return { kind: 'raw', cid: sumCid(prefix, RAW, bytes), bytes }
}

/** Decode a block into a node; other codecs give undefined. */
export function decodeNode (cid: CID, bytes: Uint8Array): DagNode | undefined {
  if (cid.code === RAW) return { kind: 'raw', cid, bytes }
  if (cid.code !== DAG_PB) return undefined
  let pb: dagPb.PBNode
  try {
    pb = dagPb.decode(bytes)
  } catch (err) {
    throw new MfsError(`failed to decode Protocol Buffers: ${(err as Error).message}`)
  }
  const links = pb.Links.map(l => ({ name: l.Name ?? '', cid: l.Hash, tsize: l.Tsize ?? 0 }))
  return new PbNode(prefixOf(cid), pb.Data, links, { cid, bytes })
}

// ---------------------------------------------------------------------------------------------
// UnixFS Data messages

function writeVarint (out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n % 128) | 0x80)
    n = Math.floor(n / 128)
  }
  out.push(n)
}

function writeInt64 (out: number[], n: number): void {
  if (n >= 0) { writeVarint(out, n); return }
  let v = BigInt.asUintN(64, BigInt(n))
  for (let i = 0; i < 10; i++) {
    out.push(Number(v & 0x7fn) | (i < 9 ? 0x80 : 0))
    v >>= 7n
  }
}

/** proto.Marshal of a UnixFS Data message (field order, presence as decoded/set). */
export function encodeFsData (d: UnixfsData): Uint8Array {
  const head: number[] = [0x08]
  writeVarint(head, d.type)
  const parts: Uint8Array[] = [Uint8Array.from(head)]
  if (d.data !== undefined) {
    const h: number[] = [0x12]
    writeVarint(h, d.data.length)
    parts.push(Uint8Array.from(h), d.data)
  }
  const tail: number[] = []
  if (d.filesize !== undefined) { tail.push(0x18); writeVarint(tail, d.filesize) }
  for (const b of d.blocksizes) { tail.push(0x20); writeVarint(tail, b) }
  if (d.hashType !== undefined) { tail.push(0x28); writeVarint(tail, d.hashType) }
  if (d.fanout !== undefined) { tail.push(0x30); writeVarint(tail, d.fanout) }
  if (d.mode !== undefined) { tail.push(0x38); writeVarint(tail, d.mode) }
  if (d.mtime !== undefined) {
    const m: number[] = [0x08]
    writeInt64(m, d.mtime.secs)
    if (d.mtime.nsecs !== undefined) {
      m.push(0x15)
      const n = d.mtime.nsecs >>> 0
      m.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff)
    }
    tail.push(0x42)
    writeVarint(tail, m.length)
    tail.push(...m)
  }
  parts.push(Uint8Array.from(tail))
  return Buffer.concat(parts)
}

/** UnixFS data of a pb node (FSNodeFromBytes). */
export const fsOf = (n: PbNode): UnixfsData => decodeUnixfsData(n.data)

/** FSNode.FileSize(): files and raw leaves their filesize, symlinks their target length, else 0. */
export function fsFileSize (d: UnixfsData): number {
  switch (d.type) {
    case DataType.File: case DataType.Raw: return d.filesize ?? 0
    case DataType.Symlink: return d.data?.length ?? 0
    default: return 0
  }
}

/** dagmodifier fileSize(): the size of a file node. */
export function fileSizeOf (n: DagNode): number {
  if (n.kind === 'raw') return n.bytes.length
  return fsOf(n).filesize ?? 0
}

/** A fresh FSNode of a type (NewFSNode: filesize initialised to 0). */
export const newFs = (type: DataType): UnixfsData => ({ type, filesize: 0, blocksizes: [] })

/** ft.FilePBData(nil, 0): an empty file */
export const emptyFileData = (): Uint8Array => encodeFsData({ type: DataType.File, filesize: 0, blocksizes: [] })

/** Unix permission bits (mode & 0xfff) of a node's data, 0 when unset. */
export const permsOf = (d: UnixfsData): number => (d.mode ?? 0) & 0xfff

/** FSNode.ModTime() with boxo's validity rule for nanoseconds. */
export function mtimeOf (d: UnixfsData): { secs: number, nsecs?: number } | undefined {
  const m = d.mtime
  if (m == null) return undefined
  if (m.nsecs !== undefined && (m.nsecs < 1 || m.nsecs > 999999999)) return undefined
  return m
}

/** Size of an encoded varint (re-exported for estimates). */
export { varintLength }
