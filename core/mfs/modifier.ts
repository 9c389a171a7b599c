// Editing a UnixFS file in place: boxo ipld/unixfs/mod DagModifier with trickle.Append
// (importer/trickle), so `ipfs files write` builds the same DAGs as Kubo: writes are buffered
// (synced once the buffer passes 2 MiB), overwritten ranges change existing leaves in place,
// data past the end is appended trickle-style, sparse gaps are 4096-byte zero chunks, and with
// raw leaves a root left with a single raw child collapses to that raw block.
import type { Chunker } from '../unixfs/chunker/index.js'
import { fixedSize } from '../unixfs/chunker/index.js'
import type { BlockIO } from './blocks.js'
import { MfsError } from './errors.js'
import { Pacer } from '../util/pace.js'
import {
  DataType, PbNode, V0_PREFIX, decodeUnixfsData, encodeFsData, fileSizeOf, linkTo, mtimeOf, newFs, permsOf, prefixOf, rawNode,
  type DagNode, type Link, type Prefix, type UnixfsData
} from './node.js'

/** boxo dagmodifier writebufferSize */
export const WRITE_BUFFER = 1 << 21
/** helpers.DefaultLinksPerBlock */
export const DEFAULT_LINKS_PER_BLOCK = 174
/** helpers.BlockSizeLimit */
const BLOCK_SIZE_LIMIT = 1024 * 1024 * 2
/** trickle depthRepeat */
const DEPTH_REPEAT = 4
const SPARSE_CHUNK = 4096

export const ERR_NOT_UNIXFS = 'dagmodifier only supports unixfs nodes (proto or raw)'

/** The current time as a UnixFS mtime (MFS semantics: content changes refresh a set mtime). */
function now (): { secs: number, nsecs?: number } {
  const ms = Date.now()
  const secs = Math.floor(ms / 1000)
  const nsecs = (ms - secs * 1000) * 1e6
  return nsecs > 0 ? { secs, nsecs } : { secs }
}

/** helpers.FSNodeOverDag: a file node being filled. */
class FsNode {
  constructor (public prefix: Prefix, public fs: UnixfsData, public links: Link[]) {}

  static fromNode (n: PbNode): FsNode {
    return new FsNode(n.prefix, decodeUnixfsData(n.data), n.links.map(l => ({ ...l })))
  }

  get numChildren (): number { return this.fs.blocksizes.length }
  get fileSize (): number { return this.fs.filesize ?? 0 }

  async addChild (io: BlockIO, child: DagNode, fileSize: number): Promise<void> {
    this.links.push(linkTo('', child))
    this.fs.blocksizes.push(fileSize)
    this.fs.filesize = this.fileSize + fileSize
    await io.putNode(child)
  }

  removeChild (i: number): void {
    this.fs.filesize = this.fileSize - this.fs.blocksizes[i]
    this.fs.blocksizes.splice(i, 1)
    this.links.splice(i, 1)
  }

  commit (): PbNode {
    return new PbNode(this.prefix, encodeFsData(this.fs), this.links.map(l => ({ ...l })))
  }

  async child (io: BlockIO, i: number): Promise<FsNode> {
    const n = await io.getNode(this.links[i].cid, undefined, 'expected protobuf dag node')
    if (n.kind !== 'pb') throw new MfsError('expected protobuf dag node')
    return FsNode.fromNode(n)
  }
}

/** helpers.DagBuilderHelper over one splitter. */
class Builder {
  private readonly it: AsyncIterator<Uint8Array>
  private next?: Uint8Array
  private ended = false
  private readonly pacer: Pacer

  constructor (readonly io: BlockIO, chunks: AsyncIterable<Uint8Array>, readonly prefix: Prefix, readonly rawLeaves: boolean, readonly maxLinks: number, signal?: AbortSignal) {
    this.it = chunks[Symbol.asyncIterator]()
    this.pacer = new Pacer(signal)
  }

  async done (): Promise<boolean> {
    if (this.next != null) return false
    if (this.ended) return true
    const r = await this.it.next()
    if (r.done === true) { this.ended = true; return true }
    this.next = r.value
    return false
  }

  private async take (): Promise<Uint8Array> {
    // a sparse gap of many GiB is millions of leaves: let other requests run, stop when the request ends
    await this.pacer.tick()
    if (await this.done()) throw new Error('no more chunks')
    const c = this.next as Uint8Array
    this.next = undefined
    return c
  }

  newFsNode (): FsNode { return new FsNode(this.prefix, newFs(DataType.File), []) }

  /** NewLeafDataNode(TRaw) */
  private async leaf (): Promise<{ node: DagNode, size: number }> {
    const data = await this.take()
    if (data.length > BLOCK_SIZE_LIMIT) throw new MfsError('object size limit exceeded')
    if (this.rawLeaves) return { node: rawNode(this.prefix, data), size: data.length }
    const fs: UnixfsData = { type: DataType.Raw, data, filesize: data.length, blocksizes: [] }
    return { node: new PbNode(this.prefix, encodeFsData(fs), []), size: data.length }
  }

  async fillNodeLayer (node: FsNode): Promise<void> {
    while (node.numChildren < this.maxLinks && !(await this.done())) {
      const { node: child, size } = await this.leaf()
      await node.addChild(this.io, child, size)
    }
  }

  async close (): Promise<void> {
    if (!this.ended) await this.it.return?.()
  }
}

function depthInfo (node: FsNode, maxLinks: number): [depth: number, repeat: number] {
  const n = node.numChildren
  if (n < maxLinks) return [0, 0]
  const nonLeaf = n - maxLinks
  return [Math.floor(nonLeaf / DEPTH_REPEAT) + 1, nonLeaf % DEPTH_REPEAT]
}

async function fillTrickleRec (db: Builder, node: FsNode, maxDepth: number): Promise<{ node: PbNode, size: number }> {
  await db.fillNodeLayer(node)
  for (let depth = 1; maxDepth === -1 || depth < maxDepth; depth++) {
    if (await db.done()) break
    for (let r = 0; r < DEPTH_REPEAT && !(await db.done()); r++) {
      const child = await fillTrickleRec(db, db.newFsNode(), depth)
      await node.addChild(db.io, child.node, child.size)
    }
  }
  return { node: node.commit(), size: node.fileSize }
}

async function appendFillLastChild (fsn: FsNode, depth: number, repeat: number, db: Builder): Promise<void> {
  if (fsn.numChildren <= db.maxLinks) return
  const last = fsn.numChildren - 1
  const lastChild = await fsn.child(db.io, last)
  const { node: filled, size } = await appendRec(lastChild, db, depth - 1)
  fsn.removeChild(last)
  await fsn.addChild(db.io, filled.commit(), size)
  if (repeat !== 0) {
    for (; repeat < DEPTH_REPEAT && !(await db.done()); repeat++) {
      const child = await fillTrickleRec(db, db.newFsNode(), depth)
      await fsn.addChild(db.io, child.node, child.size)
    }
  }
}

async function appendRec (fsn: FsNode, db: Builder, maxDepth: number): Promise<{ node: FsNode, size: number }> {
  if (maxDepth === 0 || await db.done()) return { node: fsn, size: fsn.fileSize }
  let [depth, repeat] = depthInfo(fsn, db.maxLinks)
  if (depth === 0) {
    await db.fillNodeLayer(fsn)
    depth++
  }
  if (depth === maxDepth) return { node: fsn, size: fsn.fileSize }
  await appendFillLastChild(fsn, depth, repeat, db)
  if (!(await db.done())) depth++
  for (let i = depth; i < maxDepth && !(await db.done()); i++) {
    for (let j = 0; j < DEPTH_REPEAT && !(await db.done()); j++) {
      const child = await fillTrickleRec(db, db.newFsNode(), i)
      await fsn.addChild(db.io, child.node, child.size)
    }
  }
  return { node: fsn, size: fsn.fileSize }
}

/** trickle.Append: extend a file DAG with the builder's data. */
async function trickleAppend (base: PbNode, db: Builder): Promise<PbNode> {
  const fsn = FsNode.fromNode(base)
  let [depth, repeat] = depthInfo(fsn, db.maxLinks)
  if (depth === 0) {
    await db.fillNodeLayer(fsn)
    if (await db.done()) {
      if (mtimeOf(fsn.fs) != null) fsn.fs.mtime = now()
      return fsn.commit()
    }
    depth++
  }
  await appendFillLastChild(fsn, depth - 1, repeat, db)
  if (!(await db.done())) depth++
  for (let i = depth; !(await db.done()); i++) {
    for (let j = 0; j < DEPTH_REPEAT && !(await db.done()); j++) {
      const child = await fillTrickleRec(db, db.newFsNode(), i)
      await fsn.addChild(db.io, child.node, child.size)
    }
  }
  return fsn.commit()
}

async function * zeros (size: number): AsyncGenerator<Uint8Array> {
  const block = new Uint8Array(Math.min(size, 1 << 20))
  while (size > 0) {
    const n = Math.min(size, block.length)
    yield block.subarray(0, n)
    size -= n
  }
}

async function * pieces (list: Uint8Array[]): AsyncGenerator<Uint8Array> { yield * list }

export interface DagModifierInit {
  chunker: Chunker
  rawLeaves?: boolean
  signal?: AbortSignal
}

/** mod.DagModifier */
export class DagModifier {
  cur: DagNode
  readonly prefix: Prefix
  rawLeaves: boolean
  maxLinks = DEFAULT_LINKS_PER_BLOCK
  private readonly chunker: Chunker
  private writeStart = 0
  private curWrOff = 0
  private buf: Uint8Array[] | null = null
  private bufLen = 0
  private readonly signal?: AbortSignal

  constructor (private readonly io: BlockIO, from: DagNode, init: DagModifierInit) {
    this.cur = from.kind === 'pb' ? from.copy() : from
    this.prefix = from.kind === 'pb' ? from.prefix : prefixOf(from.cid)
    this.rawLeaves = init.rawLeaves ?? from.cid.version > 0
    this.chunker = init.chunker
    this.signal = init.signal
  }

  /** bytes still buffered */
  private get buffered (): number { return this.bufLen }

  /** wrBuf.Read: fill `target` from the front of the buffer; returns the count. */
  private readInto (target: Uint8Array): number {
    const list = this.buf ?? []
    let n = 0
    while (n < target.length && list.length > 0) {
      const head = list[0]
      const take = Math.min(head.length, target.length - n)
      target.set(head.subarray(0, take), n)
      n += take
      if (take === head.length) list.shift()
      else list[0] = head.subarray(take)
    }
    this.bufLen -= n
    return n
  }

  /** Write: buffered, synced when the buffer passes 2 MiB. */
  async write (b: Uint8Array): Promise<void> {
    if (b.length === 0) return
    this.buf ??= []
    this.buf.push(b)
    this.bufLen += b.length
    this.curWrOff += b.length
    if (this.bufLen > WRITE_BUFFER) await this.sync()
  }

  async size (): Promise<number> {
    const fs = fileSizeOf(this.cur)
    if (this.buf == null) return fs
    return Math.max(fs, this.bufLen + this.writeStart)
  }

  private async expandSparse (size: number): Promise<void> {
    const node = await this.appendData(this.cur, fixedSize(SPARSE_CHUNK)(zeros(size)))
    await this.io.putNode(node)
    this.cur = node
  }

  /** Sync: write the buffer into the DAG. */
  async sync (): Promise<void> {
    if (this.buf == null) return
    this.signal?.throwIfAborted()
    const buflen = this.bufLen
    const fs = fileSizeOf(this.cur)
    if (fs < this.writeStart) await this.expandSparse(this.writeStart - fs)
    this.cur = await this.modifyDag(this.cur, this.writeStart)
    if (this.buffered > 0) {
      const rest = this.buf
      this.buf = []
      this.bufLen = 0
      this.cur = await this.appendData(this.cur, this.chunker(pieces(rest)))
      await this.io.putNode(this.cur)
    }
    this.writeStart += buflen
    this.buf = null
    this.bufLen = 0
  }

  /** modifyDag: overwrite existing data from the buffer, starting at `offset` within `n`. */
  private async modifyDag (n: DagNode, offset: number): Promise<DagNode> {
    if (n.kind === 'raw') {
      if (offset > n.bytes.length) throw new MfsError('failed to seek properly')
      const bytes = Buffer.from(n.bytes)
      this.readInto(bytes.subarray(offset))
      const out = rawNode(prefixOf(n.cid), bytes)
      await this.io.putNode(out)
      return out
    }
    if (n.links.length === 0) {
      const fs = decodeUnixfsData(n.data)
      if (fs.data !== undefined) {
        if (offset > fs.data.length) throw new MfsError('failed to seek properly')
        const data = Buffer.from(fs.data)
        this.readInto(data.subarray(offset))
        fs.data = data
      }
      if (mtimeOf(fs) != null) fs.mtime = now()
      const out = new PbNode(n.prefix, encodeFsData(fs), [])
      await this.io.putNode(out)
      return out
    }
    const fs = decodeUnixfsData(n.data)
    let cur = 0
    for (let i = 0; i < fs.blocksizes.length && i < n.links.length; i++) {
      const bs = fs.blocksizes[i]
      if (cur + bs > offset) {
        const child = await this.io.getNode(n.links[i].cid, this.signal, ERR_NOT_UNIXFS)
        const k = await this.modifyDag(child, offset - cur)
        // the link keeps its Tsize (boxo only swaps the CID)
        n.links[i] = { ...n.links[i], cid: k.cid }
        n.touch()
        if (this.buffered === 0) break
        offset = cur + bs
      }
      cur += bs
    }
    await this.io.putNode(n)
    return n
  }

  /** appendData: trickle.Append (a raw node is first turned into a file node holding it). */
  private async appendData (nd: DagNode, chunks: AsyncIterable<Uint8Array>): Promise<PbNode> {
    let base: PbNode
    let rawLeaves = this.rawLeaves
    if (nd.kind === 'pb') {
      base = nd
    } else {
      const fs = newFs(DataType.File)
      fs.blocksizes.push(nd.bytes.length)
      fs.filesize = nd.bytes.length
      base = new PbNode(this.prefix, encodeFsData(fs), [linkTo('', nd)])
      rawLeaves = true
    }
    const db = new Builder(this.io, chunks, this.prefix, rawLeaves, this.maxLinks, this.signal)
    try {
      return await trickleAppend(base, db)
    } finally {
      await db.close()
    }
  }

  /** Seek(offset, io.SeekStart) */
  async seek (offset: number): Promise<void> {
    await this.sync()
    const fisize = await this.size()
    if (offset > fisize) await this.expandSparse(offset - fisize)
    this.curWrOff = offset
    this.writeStart = offset
  }

  /** Truncate (or extend with zeros). */
  async truncate (size: number): Promise<void> {
    await this.sync()
    const real = await this.size()
    if (size === real) return
    if (size > real) {
      await this.expandSparse(size - real)
      return
    }
    const node = await this.dagTruncate(this.cur, size)
    await this.io.putNode(node)
    this.cur = node
  }

  private async dagTruncate (n: DagNode, size: number): Promise<DagNode> {
    if (n.kind === 'raw') return rawNode(prefixOf(n.cid), n.bytes.subarray(0, size))
    if (n.links.length === 0) {
      const fs = decodeUnixfsData(n.data)
      const old = fs.data?.length ?? 0
      if (fs.data !== undefined) fs.data = fs.data.subarray(0, size)
      fs.filesize = (fs.filesize ?? 0) + (fs.data?.length ?? 0) - old
      if (mtimeOf(fs) != null) fs.mtime = now()
      // merkledag.NodeWithData: the default (CIDv0) builder
      return new PbNode(V0_PREFIX, encodeFsData(fs), [])
    }
    const fs = decodeUnixfsData(n.data)
    fs.blocksizes = []
    fs.filesize = fs.data?.length ?? 0
    let cur = 0
    let end = 0
    let modified: DagNode | undefined
    for (let i = 0; i < n.links.length; i++) {
      const child = await this.io.getNode(n.links[i].cid, this.signal, ERR_NOT_UNIXFS)
      const childSize = fileSizeOf(child)
      if (size < cur + childSize) {
        modified = await this.dagTruncate(child, size - cur)
        fs.blocksizes.push(size - cur)
        fs.filesize += size - cur
        end = i
        break
      }
      cur += childSize
      fs.blocksizes.push(childSize)
      fs.filesize += childSize
    }
    if (modified == null) throw new MfsError('failed to truncate: the file is smaller than its blocks say')
    await this.io.putNode(modified)
    return new PbNode(n.prefix, encodeFsData(fs), [...n.links.slice(0, end), linkTo('', modified)])
  }

  /** maybeCollapseToRawLeaf */
  private async collapse (): Promise<DagNode | undefined> {
    const n = this.cur
    if (!this.rawLeaves || n.kind !== 'pb' || n.links.length !== 1) return undefined
    let fs: UnixfsData
    try {
      fs = decodeUnixfsData(n.data)
    } catch {
      return undefined
    }
    if (mtimeOf(fs) != null || permsOf(fs) !== 0) return undefined
    try {
      const child = await this.io.getNode(n.links[0].cid, this.signal)
      return child.kind === 'raw' ? child : undefined
    } catch {
      return undefined
    }
  }

  /** GetNode: sync, then the node (collapsed to a raw leaf when that is all there is). */
  async getNode (): Promise<DagNode> {
    await this.sync()
    return await this.collapse() ?? (this.cur.kind === 'pb' ? this.cur.copy() : this.cur)
  }
}

/** File-open type checks (mfs File.Open). */
export function checkOpenable (node: DagNode): void {
  if (node.kind === 'raw') return
  const fs = decodeUnixfsData(node.data)
  if (fs.type === DataType.Symlink) throw new MfsError('symlinks not yet supported')
  if (fs.type !== DataType.File && fs.type !== DataType.Raw) throw new MfsError("unsupported fsnode type for 'file'")
}
