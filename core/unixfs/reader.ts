// Reading the bytes of a UnixFS file (balanced or trickle DAG, dag-pb or raw leaves), shared by `cat`
// and the gateway. Only the blocks overlapping the requested range are fetched (positions come from
// each node's blocksizes); the next blocks of each level are requested ahead of the one being read
// (up to a byte budget), so reading them overlaps the consumer's work (a socket write). Errors are
// the ones of boxo's DagReader as the resolver's readFile words them.
import type { CID } from 'multiformats/cid'
import type { BufferPool } from './buffer-pool.js'
import { decodeFileChild, type FileDagNode } from '../resolver/unixfs.js'

export type BlockGetter = (cid: CID) => Promise<Uint8Array>

/** A file's root: the bytes of a raw block, or a decoded dag-pb node and its UnixFS data. */
export type FileRoot = FileDagNode

export interface FileReadOptions {
  /** first byte (default 0) */
  offset?: number
  /** bytes to read (default: to the end) */
  length?: number
  /** content bytes requested ahead per DAG level, the block being read included (default 2 MiB) */
  readAhead?: number
  /** at most this many blocks requested per level (default 16) */
  maxAhead?: number
  /**
   * a counter of the block reads that had to go to the network: each time it moved, the read-ahead
   * doubles (to NETWORK_READ_AHEAD and NETWORK_MAX_AHEAD), so a remote file is fetched with many
   * blocks in flight while a local read keeps the small window (and its memory)
   */
  networkReads?: () => number
  /**
   * the pool getBlock takes buffers from, if any: the blocks of nodes with links (whose CIDs are views
   * of the block) are forgotten, so the consumer may release every chunk once it has used it
   */
  pool?: BufferPool
}

const DEFAULT_READ_AHEAD = 2 * 1024 * 1024
const DEFAULT_MAX_AHEAD = 16
const NETWORK_READ_AHEAD = 32 * 1024 * 1024
const NETWORK_MAX_AHEAD = 128
/** the size assumed for a child whose size is not recorded (the default chunk size) */
const SIZE_GUESS = 256 * 1024


interface Child {
  cid: CID
  /** file position of its first byte (sized levels) */
  at: number
  /** content bytes below it; -1 when the parent does not record it */
  size: number
}

/** The children of one node being read, with the fetches requested for them. */
interface Level {
  children: Child[]
  sized: boolean
  /** next child to read */
  next: number
  /** children requested so far */
  requested: number
  /** content bytes of the children requested and not yet read */
  ahead: number
  fetches: Array<Promise<Uint8Array> | undefined>
  /** unsized levels: file position of the next child */
  pos: number
  /** position after this node (sized levels) */
  end: number
}

/** A promise whose rejection is handled later (or never, when the reader stops early). */
function quiet<T> (p: Promise<T>): Promise<T> {
  p.catch(() => {})
  return p
}

/**
 * The bytes of a UnixFS file in [offset, offset+length): views of the blocks read (not copies).
 * Stops fetching when the consumer stops pulling; blocks already requested are left to finish.
 */
export async function * readUnixfsFile (root: FileRoot, getBlock: BlockGetter, options: FileReadOptions = {}): AsyncGenerator<Uint8Array> {
  const start = options.offset ?? 0
  const end = options.length === undefined ? Infinity : start + options.length
  if (end <= start) return
  let budget = options.readAhead ?? DEFAULT_READ_AHEAD
  let maxAhead = Math.max(options.maxAhead ?? DEFAULT_MAX_AHEAD, 1)
  const networkReads = options.networkReads
  let seenNetwork = networkReads?.() ?? 0
  /** widen the window when blocks came from the network since the last look */
  const widen = (): void => {
    if (networkReads == null) return
    const n = networkReads()
    if (n === seenNetwork) return
    seenNetwork = n
    budget = Math.max(budget, Math.min(budget * 2, NETWORK_READ_AHEAD))
    maxAhead = Math.max(maxAhead, Math.min(maxAhead * 2, NETWORK_MAX_AHEAD))
  }

  const stack: Level[] = []
  /** set by enter when it pushes no level: the file position after the node */
  let after = 0

  /** a node: returns the part of its own bytes in the range and pushes its children as a new level */
  const enter = (node: FileRoot, pos: number): Uint8Array | undefined => {
    if (node instanceof Uint8Array) {
      after = pos + node.length
      return clip(node, pos)
    }
    const { pb, fs } = node
    const data = fs.data
    let out: Uint8Array | undefined
    if (data != null && data.length > 0) {
      out = clip(data, pos)
      pos += data.length
    }
    const links = pb.Links
    after = pos
    if (links.length === 0) return out
    const sized = fs.blocksizes.length === links.length
    const children: Child[] = []
    let p = pos
    for (let i = 0; i < links.length; i++) {
      if (!sized) { children.push({ cid: links[i].Hash, at: -1, size: -1 }); continue }
      const size = fs.blocksizes[i]
      if (p + size > start && p < end) children.push({ cid: links[i].Hash, at: p, size })
      p += size
      if (p >= end) break
    }
    if (children.length > 0) {
      stack.push({ children, sized, next: 0, requested: 0, ahead: 0, fetches: new Array(children.length), pos, end: p })
    } else {
      after = p
    }
    return out
  }

  /** the part of `bytes` (at file position `pos`) inside the range */
  const clip = (bytes: Uint8Array, pos: number): Uint8Array | undefined => {
    const s = Math.max(start - pos, 0)
    const e = Math.min(end - pos, bytes.length)
    if (e <= s) return undefined
    return s === 0 && e === bytes.length ? bytes : bytes.subarray(s, e)
  }

  /** request the next children of a level: the current one and the next, then more within the budget */
  const fill = (level: Level): void => {
    const { children } = level
    while (level.requested < children.length) {
      const count = level.requested - level.next
      if (count >= 2 && (count >= maxAhead || level.ahead >= budget)) break
      const child = children[level.requested]
      level.fetches[level.requested] = quiet(getBlock(child.cid))
      level.ahead += child.size >= 0 ? child.size : SIZE_GUESS
      level.requested++
    }
  }

  const first = enter(root, 0)
  if (first != null) yield first
  while (stack.length > 0) {
    const level = stack[stack.length - 1]
    if (level.next >= level.children.length || (!level.sized && level.pos >= end)) {
      stack.pop()
      // an unsized parent continues after this node
      const parent = stack[stack.length - 1]
      if (parent != null && !parent.sized) parent.pos = level.sized ? level.end : level.pos
      continue
    }
    widen()
    fill(level)
    const i = level.next++
    const child = level.children[i]
    const block = await (level.fetches[i] as Promise<Uint8Array>)
    level.fetches[i] = undefined
    level.ahead -= child.size >= 0 ? child.size : SIZE_GUESS
    const node = decodeFileChild(child.cid, block)
    if (options.pool != null && !(node instanceof Uint8Array) && node.pb.Links.length > 0) options.pool.forget(block)
    const at = level.sized ? child.at : level.pos
    const depth = stack.length
    const out = enter(node, at)
    // under an unsized parent, a node with no level to read ends here
    if (!level.sized && stack.length === depth) level.pos = after
    if (out != null) yield out
  }
}
