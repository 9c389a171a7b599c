// The MFS root: its configuration (Import.*), the root pointer in the datastore, the locks every
// operation runs under, and the tree helpers of boxo's mfs ops.go. The commands are in index.ts.
import { Key, type Datastore } from 'interface-datastore'
import { LevelDatastore } from 'datastore-level'
import type { Blockstore } from 'interface-blockstore'
import { CID } from 'multiformats/cid'
import type { ConfigStore } from '../config/index.js'
import { hashByName } from '../hashes.js'
import { goQuote } from '../go/strings.js'
import { newPathFromUri } from '../resolver/path.js'
import type { Resolver } from '../resolver/index.js'
import { parseChunker } from '../unixfs/chunker/index.js'
import { DEFAULT_CHUNKER, hamtThresholdOf, type ImportConfig } from '../unixfs/settings.js'
import { parseHumanBytes } from '../config/units.js'
import type { RwLock } from '../util/rwlock.js'
import { BlockIO } from './blocks.js'
import { MfsError, isNotExist } from './errors.js'
import { Directory, RootParent, type FsNode, type MfsContext, type MkdirOptions } from './fs.js'
import { DataType, PbNode, V0_PREFIX, decodeNode, decodeUnixfsData, makePrefix, type DagNode, type Prefix } from './node.js'
import { goDir, goSplit, lookupParts } from './path.js'
import { UnixfsDir, type DirSettings, type SizeEstimation } from './unixfs-dir.js'

/** Kubo's node.FilesRootDatastoreKey */
export const FILES_ROOT_KEY = new Key('/local/filesroot')
/** config.DefaultMFSNoFlushLimit */
export const DEFAULT_NO_FLUSH_LIMIT = 256
/** the empty directory's CID (always available, hardcoded in boxo) */
export const EMPTY_DIR_CID = CID.parse('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')
const EMPTY_DIR_BYTES = Uint8Array.from([0x0a, 0x02, 0x08, 0x01])

const ERR_PARENT_NOT_DIR = "expected *mfs.Directory, didn't get it. This is likely a race condition"

export interface MfsDeps {
  datastore: Datastore
  blockstore: Blockstore
  config: ConfigStore
  gcLock: RwLock
  resolver: Resolver
}

/** --cid-version / --hash as given (undefined: not given). */
export interface PrefixFlags {
  cidVersion?: number
  hash?: string
}

/** A node found by an MFS or content path. */
export interface FoundNode {
  cid: CID
  bytes: Uint8Array
  /** undefined for codecs other than raw and dag-pb */
  node?: DagNode
}

export class Mutex {
  private tail: Promise<unknown> = Promise.resolve()
  async run<T> (fn: () => Promise<T>): Promise<T> {
    const p = this.tail.then(fn, fn)
    this.tail = p.catch(() => {})
    return await p
  }
}

export const isSet = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined

export interface RootState {
  dir: Directory
  parent: RootParent
  ctx: MfsContext
}

/** The root, locks and tree helpers; `Mfs` (index.ts) adds the commands. */
export class MfsRoot {
  readonly io: BlockIO
  protected state?: RootState
  protected loading?: Promise<RootState>
  protected readonly mutex = new Mutex()
  protected noFlushCount = 0
  protected noFlushLimit?: number
  protected closed = false

  constructor (protected readonly deps: MfsDeps) {
    this.io = new BlockIO(deps.blockstore)
  }

  // --- configuration ---------------------------------------------------------------------------

  protected importConfig (): ImportConfig {
    return (this.deps.config.getKey('Import') ?? {}) as ImportConfig
  }

  /** config.Import.UnixFSCidBuilder */
  importPrefix (cfg = this.importConfig()): Prefix {
    let version = isSet(cfg.CidVersion) ? cfg.CidVersion : 0
    const hashName = isSet(cfg.HashFunction) ? cfg.HashFunction : 'sha2-256'
    if (hashName !== 'sha2-256' && version === 0) version = 1
    const hash = hashByName(hashName.toLowerCase())
    if (hash == null) throw new MfsError(`Import.HashFunction unrecognized: ${goQuote(hashName)}`)
    return makePrefix(version, hash)
  }

  /** Kubo getPrefix: the flags, else (when asked) the Import config, else none. */
  prefixFor (flags: PrefixFlags, useConfig: boolean): Prefix | undefined {
    if (flags.cidVersion !== undefined || flags.hash !== undefined) {
      let version = flags.cidVersion ?? 0
      if (flags.hash !== undefined && version === 0) version = 1
      const prefix = makePrefix(version)
      if (flags.hash !== undefined) {
        const hash = hashByName(flags.hash.toLowerCase())
        if (hash == null) throw new MfsError(`unrecognized hash function: ${goQuote(flags.hash)}`)
        return { ...prefix, hash }
      }
      return prefix
    }
    return useConfig ? this.importPrefix() : undefined
  }

  protected estimation (cfg: ImportConfig): SizeEstimation {
    const v = cfg.UnixFSHAMTDirectorySizeEstimation
    return v === 'block' || v === 'disabled' ? v : 'links'
  }

  /** the directory settings of the root (read when the root is opened) */
  protected rootSettings (cfg: ImportConfig): DirSettings {
    let threshold = hamtThresholdOf(cfg)
    const legacy = (this.deps.config.getKey('Internal') as Record<string, unknown> | undefined)?.UnixFSShardingSizeThreshold
    if (!isSet(cfg.UnixFSHAMTDirectorySizeThreshold) && isSet(legacy)) {
      threshold = typeof legacy === 'number' ? legacy : parseHumanBytes(String(legacy))
    }
    return {
      maxLinks: isSet(cfg.UnixFSDirectoryMaxLinks) ? cfg.UnixFSDirectoryMaxLinks : 0,
      fanout: isSet(cfg.UnixFSHAMTDirectoryMaxFanout) ? cfg.UnixFSHAMTDirectoryMaxFanout : 256,
      threshold,
      estimation: this.estimation(cfg)
    }
  }

  /** mkdir options: the command's prefix, Import's MaxLinks and estimation, the rest from the root */
  protected dirOptions (prefix: Prefix, root: Directory): MkdirOptions {
    const cfg = this.importConfig()
    const maxLinks = isSet(cfg.UnixFSDirectoryMaxLinks) ? cfg.UnixFSDirectoryMaxLinks : 0
    return {
      prefix,
      settings: { ...root.settings, maxLinks: maxLinks !== 0 ? maxLinks : root.settings.maxLinks, estimation: this.estimation(cfg) }
    }
  }

  /** updateNoFlushCounter */
  protected countNoFlush (flush: boolean): void {
    if (flush) {
      this.noFlushCount = 0
      return
    }
    if (this.noFlushLimit === undefined) {
      const v = (this.deps.config.getKey('Internal') as Record<string, unknown> | undefined)?.MFSNoFlushLimit
      this.noFlushLimit = typeof v === 'number' ? v : DEFAULT_NO_FLUSH_LIMIT
    }
    const limit = this.noFlushLimit
    if (limit > 0 && this.noFlushCount >= limit) {
      throw new MfsError(`reached limit of ${limit} unflushed MFS operations. To resolve: 1) run 'ipfs files flush' to persist changes, 2) use --flush=true (default), or 3) increase Internal.MFSNoFlushLimit in config`)
    }
    this.noFlushCount++
  }

  // --- the root --------------------------------------------------------------------------------

  protected async readPointer (): Promise<CID | undefined> {
    let bytes: Uint8Array
    try {
      bytes = await this.deps.datastore.get(FILES_ROOT_KEY)
    } catch (err) {
      if ((err as Error).name === 'NotFoundError') return undefined
      throw err
    }
    return CID.decode(bytes)
  }

  protected async writePointer (cid: CID): Promise<void> {
    const ds = this.deps.datastore
    if (ds instanceof LevelDatastore) {
      const db = ds.db as unknown as { put: (k: string, v: Uint8Array, o: { sync: boolean }) => Promise<void> }
      await db.put(FILES_ROOT_KEY.toString(), cid.bytes, { sync: true })
      return
    }
    await ds.put(FILES_ROOT_KEY, cid.bytes)
  }

  protected async load (): Promise<RootState> {
    const cfg = this.importConfig()
    const settings = this.rootSettings(cfg)
    const prefix = this.importPrefix(cfg)
    const spec = isSet(cfg.UnixFSChunker) ? cfg.UnixFSChunker : DEFAULT_CHUNKER
    const ctx: MfsContext = {
      io: this.io,
      chunker: () => {
        try { return parseChunker(spec) } catch { return parseChunker(DEFAULT_CHUNKER) }
      }
    }
    const stored = await this.readPointer()
    let node: PbNode
    if (stored == null) {
      node = new PbNode(V0_PREFIX, EMPTY_DIR_BYTES.subarray(2), [], { cid: EMPTY_DIR_CID, bytes: EMPTY_DIR_BYTES })
      await this.io.putNode(node)
    } else {
      let found: DagNode
      try {
        found = await this.io.getNode(stored, undefined, 'expected protobuf dag node')
      } catch (err) {
        throw new MfsError(`error loading filesroot from dagservice: ${(err as Error).message}`)
      }
      if (found.kind !== 'pb') throw new MfsError('expected protobuf dag node')
      node = found
    }
    const parent = new RootParent(this.io)
    let unixfs: UnixfsDir
    try {
      const fs = decodeUnixfsData(node.data)
      if (fs.type === DataType.Directory || fs.type === DataType.HAMTShard) {
        unixfs = UnixfsDir.fromNode(node, settings)
        unixfs.setPrefix(prefix)
      } else if (fs.type === DataType.File || fs.type === DataType.Metadata || fs.type === DataType.Raw) {
        throw new MfsError(`root can't be a file (unixfs type: ${DataType[fs.type]})`)
      } else {
        throw new MfsError(`unrecognized unixfs type: ${DataType[fs.type]}`)
      }
    } catch (err) {
      throw new MfsError(`failed to initialize MFS root from ${node.cid.toString()} stored at ${FILES_ROOT_KEY.toString()}: ${(err as Error).message}. If corrupted, use 'ipfs files chroot' to reset (see --help)`)
    }
    return { dir: new Directory(ctx, '', parent, unixfs), parent, ctx }
  }

  protected async root (): Promise<RootState> {
    if (this.state != null) return this.state
    this.loading ??= this.load().finally(() => { this.loading = undefined })
    this.state = await this.loading
    return this.state
  }

  /** write the root pointer if an operation changed the root (blocks first) */
  protected async persist (): Promise<void> {
    const st = this.state
    const pending = st?.parent.pending
    if (st == null || pending == null) return
    await this.io.flush()
    await this.writePointer(pending.cid)
    if (st.parent.pending === pending) st.parent.pending = undefined
  }

  /** Run under the GC lock (shared) and the MFS mutex; the root is persisted afterwards. */
  protected async op<T> (fn: (st: RootState) => Promise<T>, o: { gcHeld?: boolean } = {}): Promise<T> {
    const release = o.gcHeld === true ? () => {} : await this.deps.gcLock.shared()
    try {
      return await this.locked(fn)
    } finally {
      release()
    }
  }

  protected async locked<T> (fn: (st: RootState) => Promise<T>): Promise<T> {
    return await this.mutex.run(async () => {
      if (this.closed) throw new MfsError('mfs is closed')
      const st = await this.root()
      try {
        return await fn(st)
      } finally {
        await this.persist()
      }
    })
  }

  // --- tree helpers (boxo mfs ops.go) ------------------------------------------------------------

  /** Lookup / DirLookup */
  protected async lookup (st: RootState, path: string): Promise<FsNode> {
    const parts = lookupParts(path)
    let cur: FsNode = st.dir
    for (let i = 0; i < parts.length; i++) {
      if (!(cur instanceof Directory)) throw new MfsError(`cannot access ${parts.slice(0, i + 1).join('/')}: Not a directory`)
      cur = await cur.child(parts[i])
    }
    return cur
  }

  protected async lookupDir (st: RootState, path: string): Promise<Directory> {
    const n = await this.lookup(st, path)
    if (!(n instanceof Directory)) throw new MfsError(`${path} is not a directory`)
    return n
  }

  protected async parentDir (st: RootState, dir: string): Promise<Directory> {
    const n = await this.lookup(st, dir)
    if (!(n instanceof Directory)) throw new MfsError(ERR_PARENT_NOT_DIR)
    return n
  }

  /** FlushPath: flush the node at `path` (up to the root) and return its node. */
  protected async flushPath (st: RootState, path: string): Promise<DagNode> {
    const n = await this.lookup(st, path)
    await n.flush()
    return await n.getNode()
  }

  /** PutNode */
  protected async putNode (st: RootState, path: string, node: DagNode): Promise<void> {
    const [dir, name] = goSplit(path)
    if (name === '') throw new MfsError('cannot create file with empty name')
    const pdir = await this.lookupDir(st, dir)
    await pdir.addChild(name, node)
  }

  /** mfs.Mkdir */
  protected async mkdirAt (st: RootState, pth: string, mkparents: boolean, flush: boolean, o: MkdirOptions): Promise<void> {
    if (pth === '') throw new MfsError('no path given to Mkdir')
    let parts = pth.split('/')
    if (parts[0] === '') parts = parts.slice(1)
    if (parts.length > 0 && parts[parts.length - 1] === '') parts = parts.slice(0, -1)
    if (parts.length === 0) {
      if (mkparents) return
      throw new MfsError("cannot create directory '/': Already exists")
    }
    const parentsCfg: MkdirOptions = { prefix: o.prefix, settings: o.settings }
    let cur = st.dir
    for (let i = 0; i < parts.length - 1; i++) {
      let fsn: FsNode
      try {
        fsn = await cur.child(parts[i])
      } catch (err) {
        if (!(isNotExist(err) && mkparents)) throw err
        fsn = (await cur.mkdir(parts[i], parentsCfg)).dir
      }
      if (!(fsn instanceof Directory)) throw new MfsError(`${parts.slice(0, i).join('/')} was not a directory`)
      cur = fsn
    }
    const { dir, exists } = await cur.mkdir(parts[parts.length - 1], o)
    if (exists && !mkparents) throw new MfsError('file already exists')
    if (flush) await dir.flush()
  }

  protected async ensureParent (st: RootState, path: string, o: MkdirOptions): Promise<void> {
    const dir = goDir(path)
    if (dir === '/') return
    await this.mkdirAt(st, dir, true, false, o)
  }

  /** getNodeFromPath: a content path through the resolver, anything else in MFS. */
  protected async nodeFromPath (st: RootState, p: string, signal?: AbortSignal, resolver = this.deps.resolver): Promise<FoundNode> {
    let content = true
    try { newPathFromUri(p) } catch { content = false }
    if (content) {
      const { cid, block } = await resolver.resolveNode(p, { signal })
      return { cid, bytes: block, node: decodeNode(cid, block) }
    }
    const n = await (await this.lookup(st, p)).getNode()
    return { cid: n.cid, bytes: n.bytes, node: n }
  }
}
