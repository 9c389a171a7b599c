// A blockstore in Kubo's flatfs layout (next-to-last/2): blocks/<XY>/<BASE32-MULTIHASH>.data.
//
// Crash safety: a block is written to blocks/.temp/, fsynced, then renamed into its shard folder,
// and the shard folder is fsynced; a crash leaves at most a stray temp file (removed on open),
// never a partial block under its final name. A put resolves only once the block is durable.
//
// Speed: fsync dominates (~0.3-2 ms each here). Writes are therefore batched: putMany writes a
// batch of temp files, fsyncs them concurrently, renames them and then fsyncs each touched shard
// folder once; concurrent put() calls are group-committed the same way (puts that arrive while
// batches are being committed form the next batch; two batches may commit at once). A put costs
// two fsync rounds (file, then folder) whatever the batching, so a client waiting for each put
// before sending the next is bound by fsync latency. Small blocks are created with synchronous
// syscalls (cheaper than thread-pool round trips), yielding to the event loop every few files.
// See bench/flatfs.mjs for figures.
import fsSync, { promises as fs } from 'node:fs'
import { promisify } from 'node:util'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { randomBytes } from 'node:crypto'
import { CID } from 'multiformats/cid'
import { base32upper } from 'multiformats/bases/base32'
import * as Digest from 'multiformats/hashes/digest'
import type { Blockstore, InputPair, Pair } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import { NotFoundError } from '../errors.js'

export const SHARDING_SPEC = '/repo/flatfs/shard/v1/next-to-last/2'
export const SHARDING_README = `This is a repository of IPLD objects. Each IPLD object is in a single file,
named <base32 encoding of cid>.data. Where <base32 encoding of cid> is the
"base32" encoding of the CID (as specified in
https://github.com/multiformats/multibase) without the 'B' prefix.
All the object files are placed in a tree of directories, based on a
function of the CID. This is a form of sharding similar to
the objects directory in git repositories. Previously, we used
prefixes, we now use the next-to-last two characters.

    func NextToLast(base32cid string) {
      nextToLastLen := 2
      offset := len(base32cid) - nextToLastLen - 1
      return str[offset : offset+nextToLastLen]
    }

For example, an object with a base58 CIDv1 of

    zb2rhYSxw4ZjuzgCnWSt19Q94ERaeFhu9uSqRgjSdx9bsgM6f

has a base32 CIDv1 of

    BAFKREIA22FLID5AJ2KU7URG47MDLROZIH6YF2KWJ7FL6ZGXWUA5RCHGU

and will be placed at

    SC/AFKREIA22FLID5AJ2KU7URG47MDLROZIH6YF2KWJ7FL6ZGXWUA5RCHGU.data

with 'SC' being the last-to-next two characters and the 'B' at the
beginning of the CIDv1 string is the multibase prefix that is not
stored in the filename.
`

const RAW = 0x55
const IDENTITY = 0x00
/**
 * Blocks up to this size are created with synchronous calls (a few µs of syscall each, where an
 * async call costs a thread-pool round trip); only their fsync goes to the thread pool.
 */
const SMALL_BLOCK = 64 * 1024
/** yield to the event loop after this many synchronous file operations */
const SYNC_SLICE = 64
/**
 * Group commits that may run at once. With one, puts arriving during a commit wait for it to end
 * before theirs starts (a block/put client with 4 connections settles into batches of 1 and 3, one
 * after the other); with two, the next batch's fsyncs overlap the running one's and share its
 * journal commits.
 */
const MAX_COMMITS = 2
const fsyncFd = promisify(fsSync.fsync)
const openFd = promisify(fsSync.open) as (file: string, flags: string, mode: number) => Promise<number>
const closeFd = promisify(fsSync.close)
const writeFd = async (fd: number, bytes: Uint8Array, off: number): Promise<number> => await new Promise((resolve, reject) => {
  fsSync.write(fd, bytes, off, bytes.length - off, null, (err, n) => { if (err != null) reject(err); else resolve(n) })
})
/**
 * Reads are made in place (synchronous read) while they are served from the page cache: a copy of
 * up to a few hundred KiB there takes tens of µs, where a thread-pool round trip costs more CPU than
 * that (thread wake-ups and context switches: reading a 256 MiB file of 256 KiB blocks took about
 * half the CPU time in place as with one fs.read per block, a third of fs.readFile's). A read in
 * place that takes longer than SLOW_READ_MS while the process read from the disk moves reads to the
 * thread pool for ASYNC_READS_MS, so cold storage stalls the event loop for at most one read a second.
 */
const SLOW_READ_MS = 1
const ASYNC_READS_MS = 1000
/** fs.read into `buf` from `pos` (one thread-pool round trip) */
const readFd = async (fd: number, buf: Buffer, pos: number): Promise<number> => await new Promise((resolve, reject) => {
  fsSync.read(fd, buf, pos, buf.length - pos, pos, (err, n) => { if (err != null) reject(err); else resolve(n) })
})
const nextTick = async (): Promise<void> => { await new Promise<void>(resolve => setImmediate(resolve)) }
/** temp files live here; Kubo's flatfs skips folders starting with '.' */
export const TEMP_DIR = '.temp'

/** Datastore key of a block: base32 (upper, unpadded) of its multihash. */
export const blockKey = (cid: CID): string => base32upper.baseEncode(cid.multihash.bytes)
/** next-to-last/2: the two characters before the last one */
export const shardOf = (key: string): string => key.slice(-3, -1)
export const isIdentity = (cid: CID): boolean => cid.multihash.code === IDENTITY

export interface FlatfsInit {
  /** fsync block files and shard folders (default true) */
  sync?: boolean
  /** files written/fsynced at once within a batch (default 64) */
  concurrency?: number
  /** largest batch putMany / group commit builds (default 512 blocks) */
  batchSize?: number
  /** create small blocks with synchronous syscalls (default true) */
  syncSmallWrites?: boolean
  /** ... or this many bytes (default 64 MiB) */
  batchBytes?: number
  /** read blocks in place while the page cache serves them (default true; false: always in the thread pool) */
  readInPlace?: boolean
}

/** Options of a block read: where the bytes go (default Buffer.allocUnsafe). */
export interface BlockReadOptions extends AbortOptions {
  /** a buffer of `size` bytes for the block (e.g. from core/unixfs/buffer-pool) */
  alloc?: (size: number) => Buffer
}

export interface BlockstoreStat {
  /** number of blocks */
  count: number
  /** sum of block sizes in bytes */
  size: number
}

type Bytes = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>

async function collect (val: Bytes): Promise<Uint8Array> {
  if (val instanceof Uint8Array) return val
  const parts: Uint8Array[] = []
  for await (const p of val) parts.push(p)
  return parts.length === 1 ? parts[0] : Buffer.concat(parts)
}

/** Run fn over items with at most `limit` in flight; results in input order (settled). */
async function settleLimit<T, R> (items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<Array<PromiseSettledResult<R>>> {
  const out = new Array<PromiseSettledResult<R>>(items.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++
      try {
        out[i] = { status: 'fulfilled', value: await fn(items[i]) }
      } catch (reason) {
        out[i] = { status: 'rejected', reason }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

async function fsyncPath (p: string): Promise<void> {
  const fh = await fs.open(p, 'r')
  try { await fh.sync() } finally { await fh.close() }
}

interface WriteItem {
  cid: CID
  bytes: Uint8Array
}

interface Queued extends WriteItem {
  resolve: () => void
  reject: (err: unknown) => void
}

export class FlatfsBlockstore implements Blockstore {
  readonly path: string
  /** the folder with a trailing separator */
  private readonly prefix: string
  private readonly tempDir: string
  private readonly sync: boolean
  private readonly concurrency: number
  private readonly batchSize: number
  private readonly batchBytes: number
  private readonly syncSmallWrites: boolean
  private readonly readInPlace: boolean
  /** reads go to the thread pool until this time (performance.now()); 0: in place */
  private asyncReadsUntil = 0
  /** the process's block input count at the last slow read (process.resourceUsage().fsRead) */
  private fsReads = process.resourceUsage().fsRead
  private readonly madeDirs = new Set<string>()
  private tempReady = false
  private readonly tempPrefix = `put-${process.pid}-${randomBytes(4).toString('hex')}-`
  private tempCounter = 0
  /** group commit: puts waiting for the next batch */
  private queue: Queued[] = []
  private committing: Promise<void> | undefined
  /** group commits in progress */
  private commits = 0
  /** every batch in progress (close waits for them) */
  private readonly inflight = new Set<Promise<unknown>>()
  /** bumped by every delete: lets callers cache what they read and notice removals */
  generation = 0

  constructor (dir: string, init: FlatfsInit = {}) {
    this.path = dir
    this.prefix = path.join(dir, path.sep)
    this.tempDir = path.join(dir, TEMP_DIR)
    this.sync = init.sync ?? true
    this.concurrency = init.concurrency ?? 64
    this.batchSize = init.batchSize ?? 512
    this.batchBytes = init.batchBytes ?? 64 * 1024 * 1024
    this.syncSmallWrites = init.syncSmallWrites ?? true
    this.readInPlace = init.readInPlace ?? true
  }

  /** Create the folder if needed and drop temp files a crash left behind. */
  async open (): Promise<void> {
    await fs.mkdir(this.path, { recursive: true })
    await fs.rm(this.tempDir, { recursive: true, force: true })
    await fs.mkdir(this.tempDir, { recursive: true })
    this.tempReady = true
  }

  /** Waits for writes in progress. The store stays usable (reads and writes reopen files). */
  async close (): Promise<void> {
    while (this.inflight.size > 0 || this.queue.length > 0) {
      await Promise.allSettled([...this.inflight, this.committing])
    }
  }

  fileOf (cid: CID): string {
    const key = blockKey(cid)
    // path.join(this.path, shard, name), without normalizing the parts we make
    return this.prefix + shardOf(key) + path.sep + key + '.data'
  }

  async has (cid: CID, options?: AbortOptions): Promise<boolean> {
    options?.signal?.throwIfAborted()
    if (isIdentity(cid)) return true
    // a stat is cheaper than a thread-pool round trip (see read)
    return fsSync.statSync(this.fileOf(cid), { throwIfNoEntry: false }) != null
  }

  async put (cid: CID, val: Bytes, options?: AbortOptions): Promise<CID> {
    options?.signal?.throwIfAborted()
    if (isIdentity(cid)) return cid
    const bytes = await collect(val)
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ cid, bytes, resolve, reject })
      this.kick()
    })
    return cid
  }

  /** Start committing the queued puts unless MAX_COMMITS are running (each restarts us when done). */
  private kick (): void {
    if (this.commits >= MAX_COMMITS || this.queue.length === 0) return
    let bytes = 0
    let n = 0
    while (n < this.queue.length && n < this.batchSize && bytes < this.batchBytes) bytes += this.queue[n++].bytes.length
    const batch = this.queue.splice(0, n)
    this.commits++
    this.committing = this.track(this.writeBatch(batch).then((results) => {
      results.forEach((r, i) => { if (r.status === 'fulfilled') batch[i].resolve(); else batch[i].reject(r.reason) })
    }, (err) => { for (const q of batch) q.reject(err) })).finally(() => {
      this.commits--
      if (this.commits === 0) this.committing = undefined
      this.kick()
    })
  }

  private track<T> (p: Promise<T>): Promise<T> {
    this.inflight.add(p)
    void p.finally(() => this.inflight.delete(p)).catch(() => {})
    return p
  }

  async * putMany (source: Iterable<InputPair> | AsyncIterable<InputPair>, options?: AbortOptions): AsyncGenerator<CID> {
    let batch: WriteItem[] = []
    let order: CID[] = []
    let bytes = 0
    const flush = async (): Promise<CID[]> => {
      options?.signal?.throwIfAborted()
      const items = batch
      const cids = order
      batch = []
      order = []
      bytes = 0
      const results = await this.track(this.writeBatch(items))
      const failed = results.find(r => r.status === 'rejected')
      if (failed != null) throw failed.reason
      return cids
    }
    for await (const { cid, bytes: val } of source) {
      order.push(cid)
      if (!isIdentity(cid)) {
        const data = await collect(val)
        batch.push({ cid, bytes: data })
        bytes += data.length
      }
      if (batch.length >= this.batchSize || bytes >= this.batchBytes) yield * await flush()
    }
    if (order.length > 0) yield * await flush()
  }

  /**
   * Write a batch durably: skip blocks already present, write + fsync temp files (concurrently),
   * rename them into place, fsync each touched shard folder once. Per-item results; temp files
   * of failed items are removed.
   */
  private async writeBatch (items: WriteItem[]): Promise<Array<PromiseSettledResult<void>>> {
    const results = new Array<PromiseSettledResult<void>>(items.length)
    // one write per key; duplicates share the outcome
    const byKey = new Map<string, { file: string, dir: string, bytes: Uint8Array, idx: number[] }>()
    items.forEach((item, i) => {
      const key = blockKey(item.cid)
      const entry = byKey.get(key)
      if (entry != null) { entry.idx.push(i); return }
      const dir = path.join(this.path, shardOf(key))
      byKey.set(key, { file: path.join(dir, key + '.data'), dir, bytes: item.bytes, idx: [i] })
    })
    const entries = [...byKey.values()]
    const settle = (e: typeof entries[number], r: PromiseSettledResult<void>): void => { for (const i of e.idx) results[i] = r }

    if (!this.tempReady) {
      await fs.mkdir(this.tempDir, { recursive: true })
      this.tempReady = true
    }
    // new shard folders (and the root after creating them)
    let newDirs = false
    for (const dir of new Set(entries.map(e => e.dir))) {
      if (this.madeDirs.has(dir)) continue
      try {
        await fs.mkdir(dir)
        newDirs = true
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      this.madeDirs.add(dir)
    }

    // phase 1: temp files, written and fsynced
    let ops = 0
    const temps = await settleLimit(entries, this.concurrency, async (e): Promise<string | undefined> => {
      if (this.syncSmallWrites && e.bytes.length <= SMALL_BLOCK) {
        if (++ops % SYNC_SLICE === 0) await nextTick()
        if (fsSync.existsSync(e.file)) return undefined // already stored
        const tmp = path.join(this.tempDir, this.tempPrefix + String(this.tempCounter++))
        let fd: number | undefined
        try {
          fd = fsSync.openSync(tmp, 'wx', 0o644)
          for (let off = 0; off < e.bytes.length;) off += fsSync.writeSync(fd, e.bytes, off)
          if (this.sync) await fsyncFd(fd)
          fsSync.closeSync(fd)
          fd = undefined
          return tmp
        } catch (err) {
          if (fd !== undefined) try { fsSync.closeSync(fd) } catch {}
          await fs.rm(tmp, { force: true }).catch(() => {})
          throw err
        }
      }
      if (this.syncSmallWrites) {
        // a stat is cheaper than a thread-pool round trip
        if (fsSync.existsSync(e.file)) return undefined // already stored
      } else {
        try {
          await fs.access(e.file)
          return undefined // already stored
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        }
      }
      const tmp = path.join(this.tempDir, this.tempPrefix + String(this.tempCounter++))
      // descriptors and callbacks: lighter than FileHandle and promises (one block is 4 round trips)
      let fd: number | undefined
      try {
        fd = await openFd(tmp, 'wx', 0o644)
        for (let off = 0; off < e.bytes.length;) off += await writeFd(fd, e.bytes, off)
        if (this.sync) await fsyncFd(fd)
        const closing = fd
        fd = undefined
        await closeFd(closing)
        return tmp
      } catch (err) {
        if (fd !== undefined) await closeFd(fd).catch(() => {})
        await fs.rm(tmp, { force: true }).catch(() => {})
        throw err
      }
    })

    // phase 2: rename into place
    const touched = new Set<string>()
    await settleLimit(entries.map((e, i) => ({ e, t: temps[i] })), this.concurrency, async ({ e, t }) => {
      if (t.status === 'rejected') { settle(e, t); return }
      if (t.value === undefined) { settle(e, { status: 'fulfilled', value: undefined }); return }
      try {
        if (this.syncSmallWrites) {
          if (++ops % SYNC_SLICE === 0) await nextTick()
          fsSync.renameSync(t.value, e.file)
        } else {
          await fs.rename(t.value, e.file)
        }
        touched.add(e.dir)
        settle(e, { status: 'fulfilled', value: undefined })
      } catch (err) {
        await fs.rm(t.value, { force: true }).catch(() => {})
        settle(e, { status: 'rejected', reason: err })
      }
    })

    // phase 3: make the renames durable, one fsync per folder
    if (this.sync && (touched.size > 0 || newDirs)) {
      const dirs = [...touched]
      if (newDirs) dirs.push(this.path)
      const synced = await settleLimit(dirs, this.concurrency, fsyncPath)
      const failed = synced.find(r => r.status === 'rejected')
      if (failed != null) {
        // the blocks are in place but maybe not durable: report it to the writers
        for (const e of entries) settle(e, failed)
      }
    }
    return results
  }

  async * get (cid: CID, options?: BlockReadOptions): AsyncGenerator<Uint8Array> {
    options?.signal?.throwIfAborted()
    if (isIdentity(cid)) {
      yield cid.multihash.digest
      return
    }
    yield await this.read(cid, options?.alloc)
  }

  /**
   * A block's bytes (get without the generator). open, fstat and close are synchronous: they touch
   * the dentry and inode caches only (as the write path's existence checks do) and cost a few µs,
   * where a promisified readFile makes four thread-pool round trips. The bytes are read in place or
   * in the thread pool (see SLOW_READ_MS).
   */
  async read (cid: CID, alloc?: (size: number) => Buffer): Promise<Uint8Array> {
    if (isIdentity(cid)) return cid.multihash.digest
    let fd: number
    try {
      fd = fsSync.openSync(this.fileOf(cid), 'r')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError(`ipld: could not find ${cid.toString()}`)
      throw err
    }
    try {
      const size = fsSync.fstatSync(fd).size
      const buf = alloc != null ? alloc(size) : Buffer.allocUnsafe(size)
      let got = 0
      if (this.inPlace()) {
        const t0 = performance.now()
        for (let n = -1; got < size && n !== 0; got += n) n = fsSync.readSync(fd, buf, got, size - got, got)
        if (performance.now() - t0 > SLOW_READ_MS) this.slowRead()
      } else {
        for (let n = -1; got < size && n !== 0; got += n) n = await readFd(fd, buf, got)
      }
      // shorter only if the file shrank under us (it never does: blocks are renamed into place)
      return got === size ? buf : buf.subarray(0, got)
    } finally {
      fsSync.closeSync(fd)
    }
  }

  private inPlace (): boolean {
    if (!this.readInPlace) return false
    if (this.asyncReadsUntil === 0) return true
    if (performance.now() < this.asyncReadsUntil) return false
    this.asyncReadsUntil = 0
    return true
  }

  /** A read in place was slow: the disk (when the process read from it since the last one) or preemption. */
  private slowRead (): void {
    const reads = process.resourceUsage().fsRead
    if (reads > this.fsReads) this.asyncReadsUntil = performance.now() + ASYNC_READS_MS
    this.fsReads = reads
  }

  async * getMany (source: Iterable<CID> | AsyncIterable<CID>, options?: AbortOptions): AsyncGenerator<Pair> {
    for await (const cid of source) yield { cid, bytes: this.get(cid, options) }
  }

  /** Removing a missing block is not an error (go-datastore semantics); identity blocks are never stored. */
  async delete (cid: CID, options?: AbortOptions): Promise<void> {
    options?.signal?.throwIfAborted()
    if (isIdentity(cid)) return
    // before and after: a read that overlaps the removal sees a change either way
    this.generation++
    try {
      await fs.unlink(this.fileOf(cid))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    } finally {
      this.generation++
    }
  }

  async * deleteMany (source: Iterable<CID> | AsyncIterable<CID>, options?: AbortOptions): AsyncGenerator<CID> {
    for await (const cid of source) {
      await this.delete(cid, options)
      yield cid
    }
  }

  /** Every stored block's CID: CIDv1 raw (the store is keyed by multihash, as Kubo's). */
  async * cids (options?: AbortOptions): AsyncGenerator<CID> {
    for await (const { cid } of this.files(options)) yield cid
  }

  private async * files (options?: AbortOptions): AsyncGenerator<{ cid: CID, file: string }> {
    const shards = await fs.readdir(this.path).catch(() => [] as string[])
    shards.sort()
    for (const shard of shards) {
      if (shard.length !== 2 || shard.startsWith('.')) continue
      const dir = path.join(this.path, shard)
      const names = await fs.readdir(dir).catch(() => [] as string[])
      for (const name of names) {
        if (!name.endsWith('.data')) continue
        options?.signal?.throwIfAborted()
        let cid: CID
        try {
          cid = CID.createV1(RAW, Digest.decode(base32upper.baseDecode(name.slice(0, -5))))
        } catch { continue }
        yield { cid, file: path.join(dir, name) }
      }
    }
  }

  async * getAll (options?: AbortOptions): AsyncGenerator<Pair> {
    for await (const { cid } of this.files(options)) yield { cid, bytes: this.get(cid, options) }
  }

  /** Block count and total size (for repo stat); a walk of the folders, safe while writes go on. */
  async stat (options?: AbortOptions): Promise<BlockstoreStat> {
    let count = 0
    let size = 0
    for await (const { file } of this.files(options)) {
      try {
        const st = await fs.stat(file)
        count++
        size += st.size
      } catch { /* removed meanwhile */ }
    }
    return { count, size }
  }
}
