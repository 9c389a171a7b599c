// The mutable file system (deps.mfs): Kubo's `ipfs files` semantics over boxo's MFS model.
//
// - The root CID lives under the datastore key /local/filesroot (CID bytes); without it MFS starts
//   from the empty directory. Import.CidVersion/HashFunction give the root's CID format.
// - Changes reach the root either at once (the commands' --flush, default true) or when a parent
//   is synced (flush, stat, ...). The root pointer is written after every operation that changed
//   the root, and only once the blocks it refers to are durable; close() (node stop) writes the
//   in-memory state, unflushed changes included, as Kubo's root.Close does.
// - Locking: a mutating operation holds the GC lock shared (Kubo's mfsPinLock), then the MFS
//   mutex for its structural steps; a file write keeps only the file's own lock while it streams
//   (writers of one file are serialised, other paths go on). GC asks `roots()` under its exclusive
//   lock (registered in deps.gcRoots as "mfs").
import type { CID } from 'multiformats/cid'
import { goQuote } from '../go/strings.js'
import type { Resolver } from '../resolver/index.js'
import type { UnixTime } from '../unixfs/pb.js'
import { MfsError, isNotExist } from './errors.js'
import { Directory, File, type FsNode } from './fs.js'
import { DataType, PbNode, decodeUnixfsData, emptyFileData, type DagNode, type Prefix } from './node.js'
import { checkContentOrMfsPath, checkPath, goBase, goDir, goSplit, modePermsToUnixPerms, parseGoOctal32 } from './path.js'
import { EMPTY_DIR_CID, MfsRoot, isSet, type FoundNode, type MfsDeps, type PrefixFlags, type RootState } from './root.js'

export { checkContentOrMfsPath, checkPath, goBase, goDir, goSplit, modePermsToUnixPerms, parseGoOctal32 } from './path.js'
export { MfsError, NotExistError } from './errors.js'
export { Directory, File } from './fs.js'
export type { DagNode, Prefix } from './node.js'
export { decodeNode, prefixOf, fileSizeOf, fsFileSize, DataType, RAW, DAG_PB } from './node.js'
export { DEFAULT_NO_FLUSH_LIMIT, EMPTY_DIR_CID, FILES_ROOT_KEY, type FoundNode, type MfsDeps, type PrefixFlags } from './root.js'

declare module '../cradle.js' {
  interface Cradle {
    /** the mutable file system (core/mfs), registered by the files plugin */
    mfs: Mfs
  }
}

const ERR_CP_INVALID = 'cp: source must be a valid UnixFS (dag-pb or raw codec)'
/** Go io.Copy's buffer: each write MFS sees is at most this big */
const COPY_BUFFER = 32 * 1024

export interface WriteOptions extends PrefixFlags {
  offset?: number
  create?: boolean
  parents?: boolean
  truncate?: boolean
  count?: number
  rawLeaves?: boolean
  flush: boolean
  signal?: AbortSignal
}

export interface ListEntry {
  name: string
  /** 0 file, 1 directory */
  type: 0 | 1
  size: number
  /** the CID (long listings only) */
  cid?: CID
}


export class Mfs extends MfsRoot {
  // --- commands ----------------------------------------------------------------------------------

  async mkdir (arg: string, o: PrefixFlags & { parents?: boolean, flush: boolean }): Promise<void> {
    await this.op(async (st) => {
      const dir = checkPath(arg)
      this.countNoFlush(o.flush)
      const prefix = this.prefixFor(o, true) as Prefix
      await this.mkdirAt(st, dir, o.parents === true, o.flush, this.dirOptions(prefix, st.dir))
    })
  }

  /** `o.resolver`: the request's resolver for a content source (its offline view with --offline) */
  async cp (srcArg: string, dstArg: string, o: PrefixFlags & { parents?: boolean, force?: boolean, flush: boolean, signal?: AbortSignal, resolver?: Resolver }): Promise<void> {
    await this.op(async (st) => {
      const prefix = this.prefixFor(o, true) as Prefix
      let src = checkContentOrMfsPath(srcArg)
      src = src.replace(/\/+$/, '')
      let dst = checkPath(dstArg)
      if (dst.endsWith('/')) dst += goBase(src)
      let found: FoundNode
      try {
        found = await this.nodeFromPath(st, src, o.signal, o.resolver)
      } catch (err) {
        throw new MfsError(`cp: cannot get node from path ${src}: ${(err as Error).message}`)
      }
      const node = found.node
      if (node == null) throw new MfsError(ERR_CP_INVALID)
      if (node.kind === 'pb') {
        try { decodeUnixfsData(node.data) } catch (err) { throw new MfsError(`${ERR_CP_INVALID}: ${(err as Error).message}`) }
      }
      if (o.parents === true) await this.ensureParent(st, dst, this.dirOptions(prefix, st.dir))
      if (o.force === true) {
        try {
          await this.unlinkIfExists(st, dst)
        } catch (err) {
          throw new MfsError(`cp: cannot unlink existing file: ${(err as Error).message}`)
        }
      }
      this.countNoFlush(o.flush)
      try {
        await this.putNode(st, dst, node)
      } catch (err) {
        throw new MfsError(`cp: cannot put node in path ${dst}: ${(err as Error).message}`)
      }
      if (o.flush) {
        try { await this.flushPath(st, dst) } catch (err) { throw new MfsError(`cp: cannot flush the created file ${dst}: ${(err as Error).message}`) }
        try { await this.flushPath(st, goDir(dst)) } catch (err) { throw new MfsError(`cp: cannot flush the created file's parent folder ${dst}: ${(err as Error).message}`) }
      }
    })
  }

  private async unlinkIfExists (st: RootState, path: string): Promise<void> {
    const [dir, name] = goSplit(path)
    let parent: FsNode
    try {
      parent = await this.lookup(st, dir)
    } catch (err) {
      if (isNotExist(err)) return
      throw err
    }
    if (!(parent instanceof Directory)) throw new MfsError(`not a directory: ${dir}`)
    let child: FsNode
    try { child = await parent.child(name) } catch { return }
    if (!(child instanceof File)) throw new MfsError(`not a file: ${path}`)
    await parent.unlink(name)
  }

  async mv (srcArg: string, dstArg: string, o: { flush: boolean }): Promise<void> {
    await this.op(async (st) => {
      this.countNoFlush(o.flush)
      const src = checkPath(srcArg)
      const dst = checkPath(dstArg)
      await this.mvAt(st, src, dst)
      if (o.flush) {
        const parentSrc = goDir(src)
        const parentDst = goDir(dst)
        try { await this.flushPath(st, parentDst) } catch (err) { throw new MfsError(`cp: cannot flush the destination file's parent folder ${dst}: ${(err as Error).message}`) }
        if (parentSrc !== parentDst) {
          try { await this.flushPath(st, parentSrc) } catch (err) { throw new MfsError(`cp: cannot flush the source's file's parent folder ${dst}: ${(err as Error).message}`) }
        }
        await this.flushPath(st, '/')
      }
    })
  }

  /** mfs.Mv */
  private async mvAt (st: RootState, src: string, dst: string): Promise<void> {
    const [srcDirName, srcFname] = goSplit(src)
    let dstDirName: string
    let dstFname: string
    if (dst.endsWith('/')) {
      dstDirName = dst
      dstFname = srcFname
    } else {
      [dstDirName, dstFname] = goSplit(dst)
    }
    let dstDir = await this.lookupDir(st, dstDirName)
    const srcDir = await this.lookupDir(st, srcDirName)
    const srcObj = await srcDir.child(srcFname)
    const node = await srcObj.getNode()
    let existing: FsNode | undefined
    try {
      existing = await dstDir.child(dstFname)
    } catch (err) {
      if (!isNotExist(err)) throw err
    }
    if (existing instanceof File) {
      await dstDir.unlink(dstFname).catch(() => {})
    } else if (existing instanceof Directory) {
      dstDir = existing
      dstFname = srcFname
    }
    await dstDir.addChild(dstFname, node)
    if (srcDir.name === dstDir.name && srcFname === dstFname) return
    await srcDir.unlink(srcFname)
  }

  /** files rm: the per-path errors (Kubo emits them, then fails with "can't remove some files"). */
  async rm (args: string[], o: { recursive?: boolean, force?: boolean }): Promise<string[]> {
    return await this.op(async (st) => {
      const errs: string[] = []
      for (const arg of args) {
        let path: string
        try {
          path = checkPath(arg)
        } catch (err) {
          errs.push(`${arg} is not a valid path: ${(err as Error).message}`)
          continue
        }
        try {
          await this.removePath(st, path, o.force === true, o.recursive === true)
        } catch (err) {
          errs.push(`${path}: ${(err as Error).message}`)
        }
      }
      return errs
    })
  }

  private async removePath (st: RootState, path: string, force: boolean, dashr: boolean): Promise<void> {
    if (path === '/') throw new MfsError('cannot delete root')
    if (path.endsWith('/')) path = path.slice(0, -1)
    const [dir, name] = goSplit(path)
    let pdir: Directory
    try {
      pdir = await this.parentDir(st, dir)
    } catch (err) {
      if (force && isNotExist(err)) return
      throw err
    }
    if (force) {
      try {
        await pdir.unlink(name)
      } catch (err) {
        if (isNotExist(err)) return
        throw err
      }
      await pdir.flush()
      return
    }
    const child = await pdir.child(name)
    if (child instanceof Directory && !dashr) throw new MfsError('path is a directory, use -r to remove directories')
    await pdir.unlink(name)
    await pdir.flush()
  }

  /** files write: the body streamed into the file (constant memory), Kubo's checks in Kubo's order. */
  async write (arg: string, body: () => Promise<AsyncIterable<Uint8Array>>, o: WriteOptions): Promise<void> {
    const path = checkPath(arg)
    const release = await this.deps.gcLock.shared()
    try {
      const { file, rawLeaves } = await this.locked(async (st) => {
        const cfg = this.importConfig()
        this.countNoFlush(o.flush)
        let rawLeaves = o.rawLeaves
        if (rawLeaves === undefined && isSet(cfg.UnixFSRawLeaves)) rawLeaves = cfg.UnixFSRawLeaves
        const prefix = this.prefixFor(o, true) as Prefix
        if ((o.offset ?? 0) < 0) throw new MfsError('cannot have negative write offset')
        if (o.parents === true) await this.ensureParent(st, path, this.dirOptions(prefix, st.dir))
        const file = await this.fileHandle(st, path, o.create === true, prefix)
        return { file, rawLeaves }
      })
      if (rawLeaves !== undefined) file.rawLeaves = rawLeaves
      const fd = await file.open({ write: true, sync: o.flush, signal: o.signal })
      try {
        if (o.truncate === true) await fd.truncate(0)
        if (o.count !== undefined && o.count < 0) throw new MfsError('cannot have negative byte count')
        await fd.seek(o.offset ?? 0)
        let left = o.count ?? Infinity
        for await (const piece of await body()) {
          o.signal?.throwIfAborted()
          // past --count the rest of the body is still read (and dropped), so the client's upload
          // ends normally and its connection stays usable
          for (let at = 0; at < piece.length && left > 0; at += COPY_BUFFER) {
            const part = piece.subarray(at, Math.min(at + COPY_BUFFER, piece.length, at + left))
            await fd.write(part)
            left -= part.length
          }
        }
      } finally {
        // Kubo's deferred Close: what was written is kept, then the parent is flushed
        await this.locked(async (st) => {
          await fd.close()
          if (o.flush) await this.flushPath(st, goDir(path))
        })
      }
    } finally {
      release()
    }
  }

  /** getFileHandle */
  private async fileHandle (st: RootState, path: string, create: boolean, prefix: Prefix): Promise<File> {
    let target: FsNode
    try {
      target = await this.lookup(st, path)
    } catch (err) {
      if (!isNotExist(err) || !create) throw err
      const [dirname, fname] = goSplit(path)
      const pdir = await this.parentDir(st, dirname)
      await pdir.addChild(fname, new PbNode(prefix, emptyFileData(), []))
      const fsn = await pdir.child(fname)
      if (!(fsn instanceof File)) throw new MfsError("expected *mfs.File, didn't get it. This is likely a race condition")
      return fsn
    }
    if (!(target instanceof File)) throw new MfsError(`${path} was not a file`)
    return target
  }

  /**
   * files read: Kubo's checks; the node to read (a snapshot: opening waits for a writer in
   * progress, and blocks never change, so the bytes can be streamed without holding the file).
   */
  async read (arg: string, o: { offset?: number, count?: number, signal?: AbortSignal }): Promise<{ node: DagNode, offset: number, count?: number }> {
    const path = checkPath(arg)
    const file = await this.locked(async (st) => {
      let fsn: FsNode
      try {
        fsn = await this.lookup(st, path)
      } catch (err) {
        throw new MfsError(`${path}: ${(err as Error).message}`)
      }
      if (!(fsn instanceof File)) throw new MfsError(`${path} was not a file`)
      return fsn
    })
    const fd = await file.open({ write: false, sync: false, signal: o.signal })
    let ok = false
    try {
      const offset = o.offset ?? 0
      if (offset < 0) throw new MfsError('cannot specify negative offset')
      const size = await fd.size()
      if (offset > size) throw new MfsError(`offset was past end of file (${offset} > ${size})`)
      if (o.count !== undefined && o.count < 0) throw new MfsError("cannot specify negative 'count'")
      ok = true
      return { node: fd.node, offset, count: o.count }
    } finally {
      // closing a read descriptor keeps boxo's raw-leaf collapse of the file's node
      await fd.close(ok)
    }
  }

  /** files ls: a directory's entries, or the file itself. */
  async ls (arg: string, o: { long?: boolean }): Promise<{ file: boolean, entries: ListEntry[] }> {
    const path = checkPath(arg)
    return await this.locked(async (st) => {
      const fsn = await this.lookup(st, path)
      if (fsn instanceof File) {
        const [, name] = goSplit(path)
        const out: ListEntry = { name, type: 0, size: 0 }
        if (o.long === true) {
          out.size = fsn.size()
          out.cid = (await fsn.getNode()).cid
        }
        return { file: true, entries: [out] }
      }
      const entries: ListEntry[] = []
      for await (const l of fsn.unixfs.links(this.io)) {
        if (o.long !== true) {
          entries.push({ name: l.name, type: 0, size: 0 })
          continue
        }
        const { node, obj } = await fsn.peek(l.name)
        let type: 0 | 1 = 0
        let size = 0
        if (obj != null) {
          type = obj instanceof Directory ? 1 : 0
          if (obj instanceof File) size = obj.size()
        } else if (node.kind === 'raw') {
          size = node.bytes.length
        } else {
          const fs = decodeUnixfsData(node.data)
          if (fs.type === DataType.Directory || fs.type === DataType.HAMTShard) type = 1
          else if (fs.type === DataType.Metadata) throw new MfsError('not yet implemented')
          else if (fs.type === DataType.File || fs.type === DataType.Raw || fs.type === DataType.Symlink) size = fs.type === DataType.Symlink ? (fs.data?.length ?? 0) : (fs.filesize ?? 0)
          else throw new MfsError('invalid child node')
        }
        entries.push({ name: l.name, type, size, cid: node.cid })
      }
      return { file: false, entries }
    })
  }

  /** The node at an MFS or content path (files stat, cp's source). */
  async stat (arg: string, o: { signal?: AbortSignal, resolver?: Resolver } = {}): Promise<FoundNode> {
    const path = checkContentOrMfsPath(arg)
    return await this.op(async (st) => await this.nodeFromPath(st, path, o.signal, o.resolver))
  }

  /** files flush: the CID of the flushed node. */
  async flush (arg = '/'): Promise<CID> {
    return await this.op(async (st) => {
      const node = await this.flushPath(st, arg)
      this.noFlushCount = 0
      return node.cid
    })
  }

  async chcid (arg: string, o: PrefixFlags & { flush: boolean }): Promise<void> {
    await this.op(async (st) => {
      if (arg === '/') {
        throw new MfsError("cannot change CID format of the MFS root; use 'ipfs config Import.CidVersion' and 'ipfs config Import.HashFunction' instead")
      }
      const prefix = this.prefixFor(o, false)
      if (prefix != null) {
        const n = await this.lookup(st, arg)
        if (!(n instanceof Directory)) throw new MfsError('can only update directories')
        n.setPrefix(prefix)
      }
      if (o.flush) {
        await this.flushPath(st, arg)
        await this.flushPath(st, goDir(arg))
      }
    })
  }

  async chmod (modeArg: string, pathArg: string): Promise<void> {
    await this.op(async (st) => {
      const path = checkPath(pathArg)
      const mode = parseGoOctal32(modeArg)
      const n = await this.lookup(st, path)
      await n.setMode(modePermsToUnixPerms(mode))
    })
  }

  async touch (pathArg: string, mtime: UnixTime): Promise<void> {
    await this.op(async (st) => {
      const path = checkPath(pathArg)
      const n = await this.lookup(st, path)
      await n.setModTime(mtime)
    })
  }

  /**
   * `ipfs add --to-files`: link one added top-level entry into MFS (Kubo's rules and errors;
   * nothing is flushed, as in Kubo). `state.added` tracks whether an entry was already linked.
   */
  async addToFiles (toFiles: string, name: string, cid: CID, state: { added: boolean }, o: { gcHeld?: boolean } = {}): Promise<void> {
    const opt = 'to-files'
    await this.op(async (st) => {
      if (name === '') throw new MfsError(`${opt}: cannot add unnamed files to MFS`)
      let dst: string
      try {
        dst = checkPath(toFiles === '' ? '/' : toFiles)
      } catch (err) {
        throw new MfsError(`${opt}: ${(err as Error).message}`)
      }
      const dstAsDir = dst.endsWith('/')
      if (dstAsDir) {
        let n: FsNode
        try {
          n = await this.lookup(st, dst)
        } catch (err) {
          throw new MfsError(`${opt}: MFS destination directory ${goQuote(dst)} does not exist: ${(err as Error).message}`)
        }
        if (!(n instanceof Directory)) throw new MfsError(`${opt}: MFS destination ${goQuote(dst)} is not a directory`)
        dst += goBase(name)
      }
      if (state.added && !dstAsDir) throw new MfsError(`${opt}: MFS destination is a file: only one entry can be copied to ${goQuote(dst)}`)
      try {
        await this.lookup(st, goDir(dst))
      } catch (err) {
        throw new MfsError(`${opt}: MFS destination parent ${goQuote(dst)} ${goQuote(goDir(dst))} does not exist: ${(err as Error).message}`)
      }
      const node = await this.io.getNode(cid)
      try {
        await this.putNode(st, dst, node)
      } catch (err) {
        throw new MfsError(`${opt}: cannot put node in path ${goQuote(dst)}: ${(err as Error).message}`)
      }
      state.added = true
    }, o)
  }

  // --- lifecycle ---------------------------------------------------------------------------------

  /**
   * GC roots (Kubo's BestEffortRoots): the current root with every unflushed change, its blocks
   * stored. Called by GC while it holds the GC lock, so it must not take that lock.
   */
  async roots (): Promise<CID[]> {
    return await this.mutex.run(async () => {
      if (this.state == null) {
        const stored = await this.readPointer()
        return [stored ?? EMPTY_DIR_CID]
      }
      const node = await this.state.dir.getNode()
      await this.io.flush()
      return [node.cid]
    })
  }

  /** Forget the in-memory tree (after `files chroot` changed the pointer). */
  async reset (): Promise<void> {
    await this.mutex.run(async () => {
      this.state = undefined
      this.noFlushCount = 0
    })
  }

  /** Write the in-memory root, unflushed changes included (root.Close). Idempotent. */
  async close (): Promise<void> {
    await this.mutex.run(async () => {
      if (this.closed) return
      this.closed = true
      const st = this.state
      if (st == null) return
      const node = await st.dir.getNode()
      await st.parent.updateChildEntry('', node)
      await this.persist()
    })
  }

  /** Startable: nothing to do at start (the root opens on first use). */
  start (): void {}
  async stop (): Promise<void> { await this.close() }
}

export function createMfs (deps: MfsDeps): Mfs {
  return new Mfs(deps)
}
