// File DAG builders: boxo importer/balanced and importer/trickle, streaming one chunk at a time.
// Only the current chunk and the links of the open internal nodes are held in memory.
import type { PBLink } from '@ipld/dag-pb'
import type { CID } from 'multiformats/cid'
import { RpcError } from '../errors.js'
import { BLOCK_SIZE_LIMIT } from './chunker/index.js'
import { DataType, RAW, DAG_PB, encodeDataBlock, encodeNode, type CidBuilder, type UnixTime } from './pb.js'
import { Pacer } from '../util/pace.js'
import { OFF_THREAD_MIN } from './hash-pool.js'
import type { Chunker } from './chunker/index.js'

/** A finished node of the file DAG. */
export interface FileNode {
  cid: CID
  /** cumulative DAG size (the Tsize of a link to it) */
  size: number
  /** bytes of file content below it */
  fileSize: number
}

/** UnixFS 1.5 metadata for a file root. */
export interface FileAttrs { mode?: number, mtime?: UnixTime }

/** How file DAGs are built and where their blocks go. */
export interface FileBuilderOptions {
  build: CidBuilder
  /** stores a block (identity CIDs are never stored); raw leaves come with their file offset */
  put: (cid: CID, bytes: Uint8Array, offset?: number) => Promise<void>
  rawLeaves: boolean
  maxLinks: number
  layout: 'balanced' | 'trickle'
  signal?: AbortSignal
}

/** boxo's depthRepeat for trickle DAGs */
const DEPTH_REPEAT = 4
/**
 * leaves being hashed (on a worker thread) and queued for storing while the next chunks are read: with 4,
 * the add's main thread waited for the oldest ~1-3 s per 256 MiB (load ~20; a leaf's promise also waits
 * for room in the sink), with 16 ~0.1-0.7 s
 */
const LEAVES_AHEAD = 16

/** Pulls chunks with one-chunk lookahead (boxo DagBuilderHelper Done/Next). */
class Chunks {
  private readonly it: AsyncIterator<Uint8Array>
  private nextChunk: Uint8Array | undefined
  private ended = false
  /** a big input cut into many small chunks is CPU-bound: let other requests run, stop when cancelled */
  private readonly pacer: Pacer
  constructor (source: AsyncIterable<Uint8Array>, private readonly signal?: AbortSignal) {
    this.it = source[Symbol.asyncIterator]()
    this.pacer = new Pacer(signal)
  }

  /** true when no chunk is left */
  async done (): Promise<boolean> {
    if (this.nextChunk != null) return false
    if (this.ended) return true
    await this.pacer.tick()
    const r = await this.it.next()
    if (r.done === true) { this.ended = true; return true }
    this.nextChunk = r.value
    return false
  }

  async next (): Promise<Uint8Array> {
    if (await this.done()) throw new Error('no more chunks')
    const c = this.nextChunk as Uint8Array
    this.nextChunk = undefined
    return c
  }

  async close (): Promise<void> {
    if (!this.ended) await this.it.return?.()
  }
}

/** An internal File node being filled (boxo FSNodeOverDag); leaves may still be on their way. */
class Pending {
  readonly children: Array<FileNode | Promise<FileNode>> = []
  add (child: FileNode | Promise<FileNode>): void {
    this.children.push(child)
  }

  get count (): number { return this.children.length }
}

function metaFields (attrs: FileAttrs | undefined): { mode?: number, mtime?: UnixTime } {
  if (attrs == null) return {}
  const out: { mode?: number, mtime?: UnixTime } = {}
  // FSNode.SetMode: only the permission bits, nothing when they are all zero
  if (attrs.mode !== undefined && (attrs.mode & 0xfff) !== 0) out.mode = attrs.mode & 0xfff
  if (attrs.mtime !== undefined) out.mtime = attrs.mtime
  return out
}

/** boxo NewLeafNode at file offset `offset`: a raw block, or a UnixFS leaf of `type` */
async function leafNode (o: FileBuilderOptions, data: Uint8Array, type: DataType, offset: number, attrs?: FileAttrs): Promise<FileNode> {
  if (data.length > BLOCK_SIZE_LIMIT) throw new RpcError('object size limit exceeded')
  const fileSize = data.length
  let bytes = o.rawLeaves ? data : encodeDataBlock({ type, data, fileSize, ...metaFields(attrs) })
  const codec = o.rawLeaves ? RAW : DAG_PB
  const size = bytes.length
  let cid: CID
  if (o.build.offThread != null && size >= OFF_THREAD_MIN) {
    // `data` and `bytes` are detached meanwhile: the block comes back as a new view
    ({ cid, bytes } = await o.build.offThread(bytes, codec))
  } else {
    cid = o.build(bytes, codec)
  }
  if (cid.multihash.code !== 0) await o.put(cid, bytes, o.rawLeaves ? offset : undefined)
  return { cid, size, fileSize }
}

class Builder {
  /** file offset of the next leaf */
  private offset = 0
  /** leaves started and maybe not done (LEAVES_AHEAD at most) */
  private readonly ahead: Array<Promise<FileNode>> = []
  constructor (private readonly o: FileBuilderOptions, private readonly chunks: Chunks) {}

  private async store (bytes: Uint8Array, codec: number, offset?: number): Promise<CID> {
    const cid = this.o.build(bytes, codec)
    if (cid.multihash.code !== 0) await this.o.put(cid, bytes, offset)
    return cid
  }

  /** boxo NewLeafNode: a raw block, or a UnixFS leaf of `type` (File for balanced, Raw for trickle) */
  async leaf (data: Uint8Array, type: DataType, attrs?: FileAttrs): Promise<FileNode> {
    const offset = this.offset
    this.offset += data.length
    return await leafNode(this.o, data, type, offset, attrs)
  }

  /** starts a leaf and returns at once unless LEAVES_AHEAD are under way (then waits for the oldest) */
  async leafAhead (data: Uint8Array, type: DataType): Promise<{ leaf: Promise<FileNode> }> {
    const leaf = this.leaf(data, type)
    // its failure surfaces where it is awaited (commit, or here), never unhandled
    leaf.catch(() => {})
    this.ahead.push(leaf)
    if (this.ahead.length > LEAVES_AHEAD) await this.ahead.shift()
    // wrapped: an async function's returned promise would be awaited
    return { leaf }
  }

  /** encodes and stores an internal File node */
  async commit (node: Pending, attrs?: FileAttrs): Promise<FileNode> {
    const kids = await Promise.all(node.children)
    const links: PBLink[] = []
    const sizes: number[] = []
    let fileSize = 0
    let size = 0
    for (const k of kids) {
      links.push({ Hash: k.cid, Name: '', Tsize: k.size })
      sizes.push(k.fileSize)
      fileSize += k.fileSize
      size += k.size
    }
    const bytes = encodeNode({ type: DataType.File, fileSize, blockSizes: sizes, ...metaFields(attrs) }, links)
    size += bytes.length
    return { cid: await this.store(bytes, DAG_PB), size, fileSize }
  }

  /** boxo balanced.Layout */
  async balanced (attrs?: FileAttrs): Promise<FileNode> {
    const { chunks } = this
    if (await chunks.done()) return await this.leaf(new Uint8Array(0), DataType.File, attrs)
    const first = await chunks.next()
    // a single-chunk file's root is the leaf itself, carrying the attributes
    if (await chunks.done()) return await this.leaf(first, DataType.File, attrs)
    // boxo never terminates here (every new level is already full); fail instead of hanging
    if (this.o.maxLinks < 2) throw new RpcError(`cannot build a balanced DAG with ${this.o.maxLinks} link(s) per node`)
    let root: FileNode | Pending = await this.leaf(first, DataType.File)
    for (let depth = 1; !(await chunks.done()); depth++) {
      const node = new Pending()
      node.add(root instanceof Pending ? await this.commit(root) : root)
      root = await this.fillBalanced(node, depth)
    }
    return root instanceof Pending ? await this.commit(root, attrs) : root
  }

  /** boxo fillNodeRec: fills `node` with up to maxLinks children of depth-1 */
  private async fillBalanced (node: Pending, depth: number): Promise<Pending> {
    const { chunks, o } = this
    while (node.count < o.maxLinks && !(await chunks.done())) {
      if (depth === 1) {
        node.add((await this.leafAhead(await chunks.next(), DataType.File)).leaf)
      } else {
        node.add(await this.commit(await this.fillBalanced(new Pending(), depth - 1)))
      }
    }
    return node
  }

  /** boxo trickle.Layout: the root is always an internal node */
  async trickle (attrs?: FileAttrs): Promise<FileNode> {
    const root = new Pending()
    await this.fillTrickle(root, -1)
    return await this.commit(root, attrs)
  }

  /** boxo fillTrickleRec */
  private async fillTrickle (node: Pending, maxDepth: number): Promise<void> {
    const { chunks, o } = this
    // FillNodeLayer: leaves of UnixFS type Raw
    while (node.count < o.maxLinks && !(await chunks.done())) {
      node.add((await this.leafAhead(await chunks.next(), DataType.Raw)).leaf)
    }
    for (let depth = 1; maxDepth === -1 || depth < maxDepth; depth++) {
      if (await chunks.done()) break
      for (let r = 0; r < DEPTH_REPEAT && !(await chunks.done()); r++) {
        const child = new Pending()
        await this.fillTrickle(child, depth)
        node.add(await this.commit(child))
      }
    }
  }
}

/**
 * Builds the DAG of one file from its chunks with Kubo's balanced or trickle layout and stores its
 * blocks. `attrs` (mode/mtime) go on the root node only, and not on a raw root.
 */
export async function buildFile (chunks: AsyncIterable<Uint8Array>, o: FileBuilderOptions, attrs?: FileAttrs): Promise<FileNode> {
  const reader = new Chunks(chunks, o.signal)
  try {
    const b = new Builder(o, reader)
    return o.layout === 'trickle' ? await b.trickle(attrs) : await b.balanced(attrs)
  } finally {
    await reader.close()
  }
}

/** the pieces already read, then the rest of `it` (closing the reader closes `it`) */
async function * replay (head: Uint8Array[], it: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield * head
  yield * { [Symbol.asyncIterator]: () => it }
}

/**
 * Builds a file from its content with `chunker`, as buildFile(chunker(content)) does. A file that
 * comes as one piece no longer than the fixed-size chunker's size is its only chunk, so with the
 * balanced layout its root is that leaf: it is built at once, without the chunker and the builder
 * (most of the per-file cost of adding many small files).
 */
export async function importFile (content: AsyncIterable<Uint8Array>, chunker: Chunker, o: FileBuilderOptions, attrs?: FileAttrs): Promise<FileNode> {
  const size = chunker.fixedSize
  if (size === undefined || o.layout !== 'balanced') return await buildFile(chunker(content), o, attrs)
  const it = content[Symbol.asyncIterator]()
  const head: Uint8Array[] = []
  try {
    const first = await it.next()
    if (first.done !== true) {
      head.push(first.value)
      const second = await it.next()
      if (second.done === true) {
        if (first.value.length > 0 && first.value.length <= size) {
          o.signal?.throwIfAborted()
          return await leafNode(o, first.value, DataType.File, 0, attrs)
        }
      } else {
        head.push(second.value)
      }
    }
  } catch (err) {
    await it.return?.()
    throw err
  }
  return await buildFile(chunker(replay(head, it)), o, attrs)
}