// The UnixFS importer behind `ipfs add` (and MFS writes): Kubo-identical DAGs and CIDs.
//
// Rows come out in Kubo's order: each file and symlink as soon as it is built (input order),
// then, when a top-level argument is complete, its directories in post-order (children in
// listing order), its root last. Without --wrap-with-directory every top-level name is a
// separate import, as Kubo runs one coreunix.Adder per argument.
import { CID } from 'multiformats/cid'
import type { FileEntry } from './entry.js'
import { RpcError } from '../errors.js'
import { parseChunker, type Chunker } from './chunker/index.js'
import { buildDirectory, type DirEntryList, type DirOptions } from './dir.js'
import { importFile, type FileBuilderOptions } from './file.js'
import { cidBuilder, DataType, DAG_PB, encodeDataBlock, type CidBuilder, type UnixTime } from './pb.js'
import type { ImportSettings } from './settings.js'

export { resolveImportSettings, validateImportConfig, type ImportSettings, type ImportFlags, type ImportConfig } from './settings.js'
export type { UnixTime } from './pb.js'

/**
 * One input entry (the registry's FileEntry): a '/'-separated path (parents may be implicit;
 * a directory entry '' sets the --wrap-with-directory root's mode/mtime). Content pieces are
 * kept by reference (chunks and raw leaves may be views of them): never reuse their memory.
 */
export type ImportEntry = Pick<FileEntry, 'path' | 'type' | 'content' | 'target' | 'mode' | 'mtime' | 'abspath'>

/** Where a raw leaf's bytes sit in its file (for a filestore, as boxo's posinfo). */
export interface LeafPosition {
  /** the entry path */
  path: string
  abspath?: string
  /** byte offset of the leaf in the file */
  offset: number
}

/** Where blocks go. Identity-hashed (inlined) blocks are never put. */
export interface BlockSink {
  put: (cid: CID, bytes: Uint8Array, leaf?: LeafPosition) => Promise<void>
}

/** One output row: a file, symlink or directory that was added. */
export interface ImportedNode {
  /**
   * the entry path ('' for the --wrap-with-directory root); an unnamed file ('' path) is named by
   * its CID string, as Kubo does
   */
  path: string
  cid: CID
  /** cumulative DAG size (Kubo's AddEvent Size) */
  size: number
  /** file content length (files only) */
  bytes?: number
  type: 'file' | 'directory' | 'symlink'
  /** the mode and mtime stored in the node, if any */
  mode?: number
  mtime?: UnixTime
  /** directories: whether it was written as a HAMT */
  sharded?: boolean
}

/** Progress reporting and cancellation. */
export interface ImportOptions {
  /** bytes of a file read so far: every 256 KiB and at its end (Kubo's progressReader) */
  onProgress?: (name: string, bytes: number) => void
  signal?: AbortSignal
}

/** Kubo's progress granularity (coreunix progressReaderIncrement) */
const PROGRESS_STEP = 256 * 1024

interface Meta { mode?: number, mtime?: UnixTime }

/** An in-memory directory of the tree being imported. */
interface Dir {
  kind: 'dir'
  name: string
  path: string
  /** subdirectories, and files and symlinks as their position in the import's LeafTable */
  children: Map<string, Dir | number>
  /** given as an entry (implicit parents carry no metadata and are never "empty") */
  explicit: boolean
  meta: Meta
}

/**
 * The CIDs and sizes of the files and symlinks placed in the tree, packed (CID bytes in one
 * buffer): a directory of a million entries holds ~100 bytes per entry, not CID objects.
 */
class LeafTable {
  private bytes = Buffer.alloc(1 << 16)
  private used = 0
  private start = new Uint32Array(1024)
  private len = new Uint16Array(1024)
  private sizes = new Float64Array(1024)
  private count = 0

  add (cid: CID, size: number): number {
    const b = cid.bytes
    if (this.used + b.length > this.bytes.length) {
      const next = Buffer.alloc(Math.max(this.bytes.length * 2, this.used + b.length))
      next.set(this.bytes.subarray(0, this.used))
      this.bytes = next
    }
    if (this.count === this.start.length) {
      const grow = <T extends Uint32Array | Uint16Array | Float64Array>(a: T, make: (n: number) => T): T => { const t = make(a.length * 2); t.set(a); return t }
      this.start = grow(this.start, n => new Uint32Array(n))
      this.len = grow(this.len, n => new Uint16Array(n))
      this.sizes = grow(this.sizes, n => new Float64Array(n))
    }
    this.bytes.set(b, this.used)
    this.start[this.count] = this.used
    this.len[this.count] = b.length
    this.sizes[this.count] = size
    this.used += b.length
    return this.count++
  }

  cid (i: number): CID { return CID.decode(this.bytes.subarray(this.start[i], this.start[i] + this.len[i])) }
  cidLength (i: number): number { return this.len[i] }
  size (i: number): number { return this.sizes[i] }
}

const encoder = new TextEncoder()

function newDir (name: string, path: string): Dir {
  return { kind: 'dir', name, path, children: new Map(), explicit: false, meta: {} }
}

/** Kubo's precedence: --mode/--mtime, else the entry's values when preserving (default). */
function entryMeta (entry: ImportEntry, s: ImportSettings, symlink: boolean): Meta {
  const meta: Meta = {}
  const mode = s.mode ?? (s.preserveMode !== false ? entry.mode : undefined)
  // boxo never stores a mode on symlinks
  if (mode !== undefined && mode !== 0 && !symlink) meta.mode = mode & 0xfff
  const mtime = s.mtime ?? (s.preserveMtime !== false ? entry.mtime : undefined)
  if (mtime !== undefined) meta.mtime = mtime
  return meta
}

async function * counted (source: AsyncIterable<Uint8Array>, name: string, onProgress: (name: string, bytes: number) => void): AsyncGenerator<Uint8Array> {
  let total = 0
  let last = 0
  for await (const piece of source) {
    total += piece.length
    if (total - last >= PROGRESS_STEP) {
      last = total
      onProgress(name, total)
    }
    yield piece
  }
  onProgress(name, total)
}

async function * noContent (): AsyncGenerator<Uint8Array> {}

/**
 * Imports `entries` as UnixFS, putting every block into `sink`, and yields one row per file,
 * symlink and directory in Kubo's order. File content is streamed chunk by chunk.
 */
export async function * importFiles (entries: AsyncIterable<ImportEntry>, sink: BlockSink, settings: ImportSettings, opts: ImportOptions = {}): AsyncGenerator<ImportedNode> {
  const { signal, onProgress } = opts
  const build: CidBuilder = cidBuilder({
    cidVersion: settings.cidVersion,
    hash: settings.hash,
    inline: settings.inline,
    inlineLimit: settings.inlineLimit
  })
  const put = async (cid: CID, bytes: Uint8Array): Promise<void> => await sink.put(cid, bytes)
  const fileOpts: FileBuilderOptions = {
    build,
    put,
    rawLeaves: settings.rawLeaves,
    maxLinks: settings.maxFileLinks > 0 ? settings.maxFileLinks : 174,
    layout: settings.layout,
    signal
  }
  const dirOpts: DirOptions = {
    build,
    put,
    maxLinks: settings.maxDirectoryLinks,
    fanout: settings.hamtFanout,
    threshold: settings.hamtThreshold,
    estimation: settings.hamtEstimation,
    signal
  }
  let chunker: Chunker | undefined

  const wrap = settings.wrapWithDirectory
  /** the tree of the current top-level argument (or the wrapper) */
  let tree: Dir | undefined
  /** its files and symlinks */
  let leaves = new LeafTable()
  if (wrap) {
    tree = newDir('', '')
    tree.explicit = true
    if (settings.mode !== undefined) tree.meta.mode = settings.mode
    if (settings.mtime !== undefined) tree.meta.mtime = settings.mtime
  }

  /** the directory at `parts` in the current tree, creating implicit parents */
  const dirAt = (root: Dir, parts: string[]): Dir => {
    let cur = root
    for (let i = 0; i < parts.length; i++) {
      const next = cur.children.get(parts[i])
      if (next == null) {
        const d = newDir(parts[i], cur.path === '' ? parts[i] : `${cur.path}/${parts[i]}`)
        cur.children.set(parts[i], d)
        cur = d
      } else if (typeof next !== 'number') {
        cur = next
      } else {
        // Kubo's mfs.Mkdir (with parents) finds a file there
        throw new RpcError('file already exists')
      }
    }
    return cur
  }

  /** post-order rows of a finished tree (boxo Adder.outputDirs) */
  const finish = async function * (root: Dir): AsyncGenerator<ImportedNode> {
    const rows: ImportedNode[] = []
    await finalize(root, true, rows)
    leaves = new LeafTable()
    yield * rows
  }

  const finalize = async (dir: Dir, top: boolean, rows: ImportedNode[]): Promise<{ cid: CID, size: number } | undefined> => {
    signal?.throwIfAborted()
    // an explicit directory with no entries at all is dropped with --empty-dirs=false
    if (!top && !settings.emptyDirs && dir.explicit && dir.children.size === 0) return undefined
    // the entries as names and LeafTable positions (subdirectories are added to the table once built)
    const names: string[] = []
    const at: number[] = []
    /** rows of the subdirectories, by their entry's position */
    const subRows = new Map<number, ImportedNode[]>()
    for (const [name, child] of dir.children) {
      if (typeof child === 'number') {
        names.push(name)
        at.push(child)
        continue
      }
      const own: ImportedNode[] = []
      const e = await finalize(child, false, own)
      if (e == null) continue
      subRows.set(names.length, own)
      names.push(name)
      at.push(leaves.add(e.cid, e.size))
    }
    const table = leaves
    const list: DirEntryList = {
      length: names.length,
      name: i => names[i],
      cid: i => table.cid(at[i]),
      cidLength: i => table.cidLength(at[i]),
      size: i => table.size(at[i])
    }
    const built = await buildDirectory(list, dir.meta, dirOpts)
    if (subRows.size > 0) {
      for (let k = 0; k < built.order.length; k++) {
        const r = subRows.get(built.order[k])
        if (r != null) for (const x of r) rows.push(x)
      }
    }
    const row: ImportedNode = { path: dir.path, cid: built.cid, size: built.size, type: 'directory', sharded: built.sharded }
    if (dir.meta.mode !== undefined) row.mode = dir.meta.mode
    if (dir.meta.mtime !== undefined) row.mtime = dir.meta.mtime
    rows.push(row)
    return { cid: built.cid, size: built.size }
  }

  /** the last entry's path when it was a file or symlink: entries under it that follow at once are dropped */
  let lastLeaf: string | undefined

  for await (const entry of entries) {
    signal?.throwIfAborted()
    const path = entry.path.split('/').filter(p => p !== '').join('/')
    // as Kubo's multipart reader: not imported, no row, no error (one that comes later fails: the mkdir finds a file)
    if (lastLeaf !== undefined && path.startsWith(lastLeaf)) {
      if (entry.content != null) for await (const _ of entry.content) { signal?.throwIfAborted() }
      continue
    }
    lastLeaf = undefined
    const parts = path === '' ? [] : path.split('/')
    const top = parts[0] ?? ''

    // a new top-level argument: the previous one is complete
    if (!wrap && tree != null && (tree.name !== top || parts.length <= 1)) {
      const done = tree
      tree = undefined
      yield * finish(done)
    }

    if (entry.type === 'directory') {
      if (!wrap) tree ??= newDir(top, top)
      const rel = wrap ? parts : parts.slice(1)
      // Kubo's mfs.Mkdir (with parents) finds a file there: os.ErrExist
      if (rel.length > 0 && typeof dirAt(tree as Dir, rel.slice(0, -1)).children.get(rel[rel.length - 1]) === 'number') throw new RpcError('file already exists')
      const dir = dirAt(tree as Dir, rel)
      dir.explicit = true
      dir.meta = entryMeta(entry, settings, false)
      continue
    }

    // files and symlinks
    const meta = entryMeta(entry, settings, entry.type === 'symlink')
    let node: { cid: CID, size: number, fileSize?: number }
    let type: 'file' | 'symlink'
    if (entry.type === 'symlink') {
      type = 'symlink'
      const bytes = encodeDataBlock({ type: DataType.Symlink, data: encoder.encode(entry.target ?? ''), ...meta })
      const cid = build(bytes, DAG_PB)
      if (cid.multihash.code !== 0) await put(cid, bytes)
      node = { cid, size: bytes.length }
    } else {
      type = 'file'
      chunker ??= parseChunker(settings.chunker)
      let content = entry.content ?? noContent()
      if (onProgress != null) content = counted(content, entry.path, onProgress)
      const { path: entryPath, abspath } = entry
      const filePut = async (cid: CID, bytes: Uint8Array, offset?: number): Promise<void> =>
        await sink.put(cid, bytes, offset === undefined ? undefined : { path: entryPath, abspath, offset })
      node = await importFile(content, chunker, { ...fileOpts, put: filePut }, meta)
    }

    const name = parts.length === 0 ? node.cid.toString() : parts[parts.length - 1]
    // its directory (a top-level file or symlink without wrapping is a root of its own)
    let parent: Dir | undefined
    if (wrap) {
      parent = dirAt(tree as Dir, parts.slice(0, -1))
    } else if (parts.length > 1) {
      tree ??= newDir(top, top)
      parent = dirAt(tree, parts.slice(1, -1))
    }
    // Kubo's adder puts each node into MFS (PutNode), which refuses a name taken, before its row
    if (parent?.children.has(name) === true) throw new RpcError('directory already has entry by that name')
    const row: ImportedNode = { path: parts.length === 0 ? name : path, cid: node.cid, size: node.size, type }
    if (node.fileSize !== undefined) row.bytes = node.fileSize
    // a raw root cannot carry metadata
    if (node.cid.code === DAG_PB) {
      if (meta.mode !== undefined) row.mode = meta.mode
      if (meta.mtime !== undefined) row.mtime = meta.mtime
    }
    yield row
    if (path !== '') lastLeaf = path + '/'

    parent?.children.set(name, leaves.add(node.cid, node.size))
    // a top-level file or symlink without wrapping: Kubo's adder puts it into its MFS root under its CID string and
    // flushes that root, so a directory node {<cid>: node} is stored too (unpinned; `repo stat` and gc count it)
    if (!wrap && parts.length <= 1) {
      const key = node.cid.toString()
      await buildDirectory([{ name: key, nameBytes: Buffer.from(key), cid: node.cid, size: node.size }], undefined, dirOpts)
    }
  }

  if (tree != null) yield * finish(tree)
}
