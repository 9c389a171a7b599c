// The MFS tree (boxo mfs): directories cache the children that were opened; a change to a child
// reaches its parent either at once (updateChildEntry, up to the root) or when the parent syncs
// its cache (GetNode/Flush). Only the root knows where its latest CID goes (the repo pointer).
import type { Chunker } from '../unixfs/chunker/index.js'
import type { UnixTime } from '../unixfs/pb.js'
import { RwLock } from '../util/rwlock.js'
import type { BlockIO } from './blocks.js'
import { DirExistsError, ExistError, MfsError, NotExistError } from './errors.js'
import { DagModifier, checkOpenable } from './modifier.js'
import {
  DataType, PbNode, V0_PREFIX, decodeUnixfsData, encodeFsData, linkTo, fileSizeOf, type DagNode, type Prefix, type UnixfsData
} from './node.js'
import { UnixfsDir, type DirSettings } from './unixfs-dir.js'

/** What every node of the tree shares. */
export interface MfsContext {
  io: BlockIO
  /** Import.UnixFSChunker */
  chunker: () => Chunker
}

export interface Parent {
  updateChildEntry: (name: string, node: DagNode) => Promise<void>
}

export type FsNode = Directory | File

/** FSNode.SetModeFromUnixPermissions: keep the extended bits, nothing stored for 0. */
function withPerms (fs: UnixfsData, perms: number): void {
  const mode = ((fs.mode ?? 0) & 0xfffff000) | (perms & 0xfff)
  fs.mode = perms === 0 && (mode & 0xfffff000) === 0 ? undefined : mode >>> 0
}

function withMtime (fs: UnixfsData, t: UnixTime): void {
  fs.mtime = t.nsecs !== undefined && t.nsecs > 0 ? { secs: t.secs, nsecs: t.nsecs } : { secs: t.secs }
}

/** Options for a new directory (mfs options resolved against the root's). */
export interface MkdirOptions {
  prefix: Prefix
  settings: DirSettings
  mode?: number
  mtime?: UnixTime
}

export class Directory {
  readonly type = 'directory'
  readonly cache = new Map<string, FsNode>()
  unlinked = false

  constructor (readonly ctx: MfsContext, public name: string, public parent: Parent, public unixfs: UnixfsDir) {}

  get prefix (): Prefix { return this.unixfs.prefix }
  get settings (): DirSettings { return this.unixfs.settings }

  /** Child: the cached object or one made from the DAG; `file does not exist` when absent. */
  async child (name: string): Promise<FsNode> {
    const cached = this.cache.get(name)
    if (cached != null) return cached
    const link = await this.unixfs.find(this.ctx.io, name)
    if (link == null) throw new NotExistError()
    const node = await this.ctx.io.getNode(link.cid)
    return this.cacheNode(name, node)
  }

  /** An uncached view of a child's node (listing without caching every entry). */
  async peek (name: string): Promise<{ node: DagNode, obj?: FsNode }> {
    const cached = this.cache.get(name)
    if (cached != null) return { node: await cached.getNode(), obj: cached }
    const link = await this.unixfs.find(this.ctx.io, name)
    if (link == null) throw new NotExistError()
    return { node: await this.ctx.io.getNode(link.cid) }
  }

  private cacheNode (name: string, node: DagNode): FsNode {
    let obj: FsNode
    if (node.kind === 'raw') {
      obj = new File(this.ctx, name, this, node)
    } else {
      const fs = decodeUnixfsData(node.data)
      switch (fs.type) {
        case DataType.Directory:
        case DataType.HAMTShard:
          obj = new Directory(this.ctx, name, this, UnixfsDir.fromNode(node, this.settings))
          break
        case DataType.File:
        case DataType.Raw:
        case DataType.Symlink:
          obj = new File(this.ctx, name, this, node)
          break
        case DataType.Metadata:
          throw new MfsError('not yet implemented')
        default:
          throw new MfsError('invalid child node')
      }
    }
    this.cache.set(name, obj)
    return obj
  }

  /** mkdirWithOpts: the new directory, or the existing one with `exists` set. */
  async mkdir (name: string, o: MkdirOptions): Promise<{ dir: Directory, exists: boolean }> {
    let existing: FsNode | undefined
    try { existing = await this.child(name) } catch {}
    if (existing != null) {
      if (existing instanceof Directory) return { dir: existing, exists: true }
      throw new ExistError()
    }
    const unixfs = UnixfsDir.empty(o.prefix, o.settings, o.mode ?? 0, o.mtime)
    const node = await unixfs.node(this.ctx.io)
    await this.unixfs.addChild(this.ctx.io, name, linkTo(name, node))
    const dir = new Directory(this.ctx, name, this, unixfs)
    this.cache.set(name, dir)
    return { dir, exists: false }
  }

  async unlink (name: string): Promise<void> {
    const cached = this.cache.get(name)
    if (cached != null) cached.unlinked = true
    this.cache.delete(name)
    await this.unixfs.removeChild(this.ctx.io, name)
  }

  /** AddChild: fails when the name is taken. */
  async addChild (name: string, node: DagNode): Promise<void> {
    let exists = false
    try {
      await this.child(name)
      exists = true
    } catch {}
    if (exists) throw new DirExistsError()
    await this.ctx.io.putNode(node)
    await this.unixfs.addChild(this.ctx.io, name, linkTo(name, node))
  }

  /** bring the cached children's current nodes into the directory */
  private async cacheSync (clean: boolean): Promise<void> {
    for (const [name, entry] of [...this.cache]) {
      const node = await entry.getNode()
      await this.unixfs.addChild(this.ctx.io, name, linkTo(name, node))
    }
    if (clean) {
      // files being written stay cached, so their writers stay serialised on one object
      for (const [name, entry] of [...this.cache]) {
        if (!(entry instanceof File) || entry.openCount === 0) this.cache.delete(name)
      }
    }
  }

  /** GetNode: the directory with its cached children's changes, stored. */
  async getNode (clean = false): Promise<PbNode> {
    await this.cacheSync(clean)
    return await this.unixfs.node(this.ctx.io)
  }

  /** Flush: sync, then update the parent (up to the root). */
  async flush (): Promise<void> {
    const node = await this.getNode(true)
    await this.parent.updateChildEntry(this.name, node)
  }

  async updateChildEntry (name: string, node: DagNode): Promise<void> {
    // a directory moved or removed meanwhile must not come back under its old name
    if (this.unlinked) return
    await this.unixfs.addChild(this.ctx.io, name, linkTo(name, node))
    const nd = await this.unixfs.node(this.ctx.io)
    await this.parent.updateChildEntry(this.name, nd)
  }

  setPrefix (prefix: Prefix): void {
    this.unixfs.setPrefix(prefix)
  }

  private async setNodeData (data: Uint8Array, node: PbNode): Promise<void> {
    const nd = new PbNode(this.unixfs.prefix, data, node.links.map(l => ({ ...l })))
    await this.ctx.io.putNode(nd)
    await this.parent.updateChildEntry(this.name, nd)
    const settings = this.unixfs.settings
    this.unixfs = UnixfsDir.fromNode(nd, settings)
  }

  async setMode (perms: number): Promise<void> {
    const node = await this.getNode()
    const fs = decodeUnixfsData(node.data)
    withPerms(fs, perms)
    await this.setNodeData(encodeFsData(fs), node)
    this.unixfs.setStat(perms)
  }

  async setModTime (t: UnixTime): Promise<void> {
    const node = await this.getNode()
    const fs = decodeUnixfsData(node.data)
    withMtime(fs, t)
    await this.setNodeData(encodeFsData(fs), node)
    this.unixfs.setStat(0, t)
  }
}

export interface OpenOptions {
  write: boolean
  /** propagate to the parent on close (the --flush option) */
  sync: boolean
  rawLeaves?: boolean
  signal?: AbortSignal
}

export class File {
  readonly type = 'file'
  unlinked = false
  rawLeaves: boolean
  /** open descriptors (a file being written stays cached in its directory) */
  openCount = 0
  /** desclock: one writer or many readers */
  readonly lock = new RwLock()

  constructor (readonly ctx: MfsContext, public name: string, public parent: Parent, public node: DagNode) {
    this.rawLeaves = node.cid.version > 0
  }

  async getNode (): Promise<DagNode> { return this.node }

  /** File.Size */
  size (): number {
    if (this.node.kind === 'raw') return this.node.bytes.length
    return fileSizeOf(this.node)
  }

  /** Open: a descriptor holding the file's lock until closed. */
  async open (o: OpenOptions): Promise<FileDescriptor> {
    this.openCount++
    let release: (() => void) | undefined
    try {
      release = o.write ? await this.lock.exclusive() : await this.lock.shared()
      checkOpenable(this.node)
      const mod = new DagModifier(this.ctx.io, this.node, { chunker: this.ctx.chunker(), rawLeaves: this.rawLeaves, signal: o.signal })
      return new FileDescriptor(this, mod, o, () => { release?.(); this.openCount-- })
    } catch (err) {
      release?.()
      this.openCount--
      throw err
    }
  }

  /**
   * Flush: the node as a fresh descriptor would give it (raw-leaf collapse) sent up to the root.
   * Unlike boxo it does not wait for a writer in progress (whose close sends its own result up).
   */
  async flush (): Promise<void> {
    checkOpenable(this.node)
    const mod = new DagModifier(this.ctx.io, this.node, { chunker: this.ctx.chunker(), rawLeaves: this.rawLeaves })
    const node = await mod.getNode()
    await this.ctx.io.putNode(node)
    this.node = node
    if (!this.unlinked) await this.parent.updateChildEntry(this.name, node)
  }

  private async setNodeData (data: Uint8Array): Promise<void> {
    const old = this.node
    const nd = old.kind === 'pb'
      ? new PbNode(old.prefix, data, old.links.map(l => ({ ...l })))
      : new PbNode(V0_PREFIX, data, [])
    await this.ctx.io.putNode(nd)
    this.node = nd
    await this.parent.updateChildEntry(this.name, nd)
  }

  /** the UnixFS data to change, a raw block wrapped into a file node first */
  private fsForStat (): UnixfsData {
    if (this.node.kind === 'raw') {
      const data = this.node.bytes
      return { type: DataType.File, data, filesize: data.length, blocksizes: [] }
    }
    return decodeUnixfsData(this.node.data)
  }

  async setMode (perms: number): Promise<void> {
    const fs = this.fsForStat()
    withPerms(fs, perms)
    await this.setNodeData(encodeFsData(fs))
  }

  async setModTime (t: UnixTime): Promise<void> {
    const fs = this.fsForStat()
    withMtime(fs, t)
    await this.setNodeData(encodeFsData(fs))
  }
}

/** mfs fileDescriptor */
export class FileDescriptor {
  private closed = false

  constructor (readonly file: File, readonly mod: DagModifier, private readonly o: OpenOptions, private readonly release: () => void) {}

  async size (): Promise<number> { return await this.mod.size() }

  async truncate (size: number): Promise<void> {
    await this.mod.truncate(size)
  }

  async seek (offset: number): Promise<void> { await this.mod.seek(offset) }

  async write (b: Uint8Array): Promise<void> {
    await this.mod.write(b)
  }

  /** the node as of now (for reading) */
  get node (): DagNode { return this.mod.cur }

  /**
   * Close: the new node becomes the file's (flushUp); with sync it goes up to the root.
   * `commit` false drops the changes (a failed write).
   */
  async close (commit = true): Promise<void> {
    if (this.closed) return
    this.closed = true
    try {
      if (!commit) return
      const node = await this.mod.getNode()
      await this.file.ctx.io.putNode(node)
      this.file.node = node
      if (this.o.sync && !this.file.unlinked) await this.file.parent.updateChildEntry(this.file.name, node)
    } finally {
      this.release()
    }
  }
}

/** The root's parent: remembers the latest root node (boxo Root + republisher). */
export class RootParent implements Parent {
  /** the last root CID sent up and not yet persisted */
  pending?: DagNode

  constructor (private readonly io: BlockIO) {}

  async updateChildEntry (_name: string, node: DagNode): Promise<void> {
    await this.io.putNode(node)
    this.pending = node
  }
}
