// A blockstore in Kubo's flatfs layout (next-to-last/2): blocks/<XY>/<BASE32-MULTIHASH>.data.
//
// Crash safety (durable small blocks: see flatfs-log.ts, the group-commit log): a block is written to a temp file in its
// shard folder, fsynced, then renamed into place, and the shard folder is fsynced; a crash leaves at most a stray temp
// file (removed on open: sweepShardTemps),
// never a partial block under its final name. A put resolves only once the block is durable.
//
// Speed: fsync dominates (~0.3-2 ms each here). Writes are therefore batched: putMany writes a
// batch of temp files, fsyncs them concurrently, renames them and then fsyncs each touched shard
// folder once; concurrent put() calls are group-committed the same way (puts that arrive while
// batches are being committed form the next batch; two batches may commit at once). A put costs
// two fsync rounds (file, then folder) whatever the batching, so a client waiting for each put
// before sending the next is bound by fsync latency. Files up to 64 KiB are created, closed and renamed with
// synchronous syscalls (cheaper than thread-pool round trips), yielding to the event loop every few
// files; fsyncs, new shard folders and blocks over 64 KiB (all but their rename) go to the thread pool. Without fsync, blocks
// up to 64 KiB are written by a worker thread instead (flatfs-placer.ts, temp files in the shard folder itself, swept at
// open after a crash: an unsynced create in place waits for
// the journal commits flushing earlier data). See bench/flatfs.mjs for figures. The batch writer is in flatfs-write.ts, the layout in flatfs-layout.ts.
import fsSync, { promises as fs } from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { CID } from 'multiformats/cid'
import { base32upper } from 'multiformats/bases/base32'
import * as Digest from 'multiformats/hashes/digest'
import type { Blockstore, InputPair, Pair } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import { NotFoundError } from '../errors.js'
import { BatchWriter, type WriteItem } from './flatfs-write.js'
import { TEMP_DIR, blockKey, isIdentity, shardOf, spreadShardFolders } from './flatfs-layout.js'
import { GroupLog, LOG_BLOCK_MAX, replayLogs } from './flatfs-log.js'
import { Placer, clearShardTempMark, sweepShardTemps } from './flatfs-placer.js'
import { BlockSizes } from './flatfs-sizes.js'

export { LOG_FILES } from './flatfs-log.js'
export { SHARDING_README, SHARDING_SPEC, TEMP_DIR, blockKey, flatfsSync, isIdentity, shardOf, spreadShardFolders } from './flatfs-layout.js'

const RAW = 0x55
/**
 * Group commits that may run at once. With one, puts arriving during a commit wait for it to end
 * before theirs starts (a block/put client with 4 connections settles into batches of 1 and 3, one
 * after the other); with more, the next batch's fsyncs overlap the running ones' and share their
 * journal commits. Four (one per connection of a c4 block/put client) gave +20 % block/put ops/s and
 * a lower p50 than two, A/B twice on the loaded dev machine; puts beyond that still form groups.
 */
const MAX_COMMITS = 4
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
  /** durable small blocks go through the group-commit log (flatfs-log.ts; default true unless TSIPFS_FLATFS_LOG=off; only with `sync`) */
  log?: boolean
  /** bytes of each of the two log files (default 8 MiB: a 10,000 x 1 KiB add fits in two without waiting for a checkpoint) */
  logSize?: number
  /** ms without puts after which the log is checkpointed (default 1 s) */
  logIdleMs?: number
  /** the `sync` command of the log's checkpoint (`sync -f`; default 'sync') */
  logSyncCommand?: string
  /**
   * without fsync (`sync: false`), blocks up to 64 KiB are written by a worker thread (flatfs-placer.ts; default
   * true unless TSIPFS_FLATFS_WORKER=off, and only with syncSmallWrites)
   */
  placeInWorker?: boolean
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

interface Queued extends WriteItem {
  resolve: () => void
  reject: (err: unknown) => void
}

export class FlatfsBlockstore implements Blockstore {
  readonly path: string
  /** the folder with a trailing separator */
  private readonly prefix: string
  private readonly batchSize: number
  private readonly batchBytes: number
  private readonly readInPlace: boolean
  /** writes batches of blocks durably (flatfs-write.ts) */
  private readonly writer: BatchWriter
  /** reads go to the thread pool until this time (performance.now()); 0: in place */
  private asyncReadsUntil = 0
  /** the process's block input count at the last slow read (process.resourceUsage().fsRead) */
  private fsReads = process.resourceUsage().fsRead
  /** group commit: puts waiting for the next batch */
  private queue: Queued[] = []
  private committing: Promise<void> | undefined
  /** group commits in progress */
  private commits = 0
  /** every batch in progress (close waits for them) */
  private readonly inflight = new Set<Promise<unknown>>()
  /** "<path>/XY/" by XY's char codes (fileOfKey) */
  private readonly shardDirs = new Map<number, string>()
  /** bumped by every delete: lets callers cache what they read and notice removals */
  generation = 0
  /** the group-commit log of small durable blocks (undefined: every block takes the batch writer) */
  private readonly log: GroupLog | undefined
  /** writes small blocks without fsync on a worker thread (sync: false) */
  private readonly placer: Placer | undefined
  /** the size of each block file named so far (repo stat lists the names and stats only the others) */
  readonly sizes = new BlockSizes()

  constructor (dir: string, init: FlatfsInit = {}) {
    this.path = dir
    this.prefix = path.join(dir, path.sep)
    this.writer = new BatchWriter(dir, path.join(dir, TEMP_DIR), init)
    this.batchSize = init.batchSize ?? 512
    this.batchBytes = init.batchBytes ?? 64 * 1024 * 1024
    this.readInPlace = init.readInPlace ?? true
    // TSIPFS_FLATFS_LOG=off: every block takes the batch writer (A/B measurements, a way out)
    const log = init.log ?? process.env.TSIPFS_FLATFS_LOG !== 'off'
    if (this.writer.sync && log) this.log = new GroupLog(dir, path.join(dir, TEMP_DIR), { logSize: init.logSize, idleMs: init.logIdleMs, concurrency: init.concurrency, syncCommand: init.logSyncCommand })
    // in place on the event loop, an unsynced create waits for the journal commits that flush earlier data (the
    // loop spent ~800 µs of kernel time per 1 KiB block/put under load); the worker waits instead
    const worker = (init.placeInWorker ?? process.env.TSIPFS_FLATFS_WORKER !== 'off') && (init.syncSmallWrites ?? true)
    if (!this.writer.sync && worker) this.placer = new Placer()
  }

  /**
   * Create the folder if needed and drop temp files a crash left behind. Kubo's flatfs keeps its disk usage in
   * diskUsage.cache and trusts it on open; tsipfs does not keep that count, so the file goes (Kubo recounts).
   */
  async open (): Promise<void> {
    // a folder made here is spread like init's (spreadShardFolders)
    if (await fs.mkdir(this.path, { recursive: true }) !== undefined) await spreadShardFolders(this.path)
    await fs.rm(path.join(this.path, 'diskUsage.cache'), { force: true })
    await this.writer.open()
    await sweepShardTemps(this.path)
    // what a crash left in the group-commit log goes into place before anything is served
    await replayLogs(this.path, path.join(this.path, TEMP_DIR))
  }

  /**
   * Waits for writes in progress, checkpoints and removes the group-commit log (Kubo then finds every
   * block in place). The store stays usable (reads and writes reopen files).
   */
  async close (): Promise<void> {
    while (this.inflight.size > 0 || this.queue.length > 0) {
      await Promise.allSettled([...this.inflight, this.committing])
    }
    await this.log?.close()
    await this.placer?.stop()
    // no temp file of ours is left in the shard folders (the writer's, the placer's, the log's)
    this.writer.forgetMark()
    await clearShardTempMark(this.path)
  }

  /** Resolves once every acknowledged block is in its file (the group-commit log writes them in the background). */
  async settle (): Promise<void> {
    await this.log?.settle()
  }

  /** whether writes are fsynced before a put resolves (Datastore.Spec flatfs `sync`) */
  get durable (): boolean { return this.writer.sync }

  fileOf (cid: CID): string {
    return this.fileOfKey(blockKey(cid))
  }

  /** path.join(this.path, shard, name), without normalizing the parts we make */
  private fileOfKey (key: string): string {
    // the shard folder's path by its two char codes: slicing a 2-character string interns it (a string table
    // lookup per block read, ~1 % of a cat's main thread)
    const n = key.length
    const code = (key.charCodeAt(n - 3) << 8) | key.charCodeAt(n - 2)
    let dir = this.shardDirs.get(code)
    if (dir === undefined) this.shardDirs.set(code, dir = this.prefix + shardOf(key) + path.sep)
    return dir + key + '.data'
  }

  async has (cid: CID, options?: AbortOptions): Promise<boolean> {
    options?.signal?.throwIfAborted()
    if (isIdentity(cid)) return true
    if (this.log?.lookup(blockKey(cid)) != null) return true
    // a stat is cheaper than a thread-pool round trip (see read)
    return fsSync.statSync(this.fileOf(cid), { throwIfNoEntry: false }) != null
  }

  async put (cid: CID, val: Bytes, options?: AbortOptions): Promise<CID> {
    options?.signal?.throwIfAborted()
    if (isIdentity(cid)) return cid
    const bytes = await collect(val)
    if (this.log != null && bytes.length <= LOG_BLOCK_MAX) {
      const key = blockKey(cid)
      this.sizes.set(key, bytes.length)
      await this.log.put(key, cid.multihash.bytes, bytes)
      return cid
    }
    if (this.placer != null && bytes.length <= LOG_BLOCK_MAX) {
      await this.track(this.placer.write(this.placeItem(cid, bytes)))
      return cid
    }
    this.sizes.set(blockKey(cid), bytes.length)
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
    this.committing = this.track(this.writer.write(batch).then((results) => {
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
      const log = this.log
      const results = log != null
        ? await this.track(this.writeLogged(log, items))
        : this.placer != null
          ? await this.track(this.writePlaced(this.placer, items))
          : await this.track(this.writer.write(this.remember(items)))
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

  /** the items, their sizes remembered */
  private remember (items: WriteItem[]): WriteItem[] {
    for (const i of items) this.sizes.set(blockKey(i.cid), i.bytes.length)
    return items
  }

  private placeItem (cid: CID, bytes: Uint8Array): { file: string, dir: string, bytes: Uint8Array } {
    const key = blockKey(cid)
    this.sizes.set(key, bytes.length)
    return { file: this.fileOfKey(key), dir: this.prefix + shardOf(key), bytes }
  }

  /** small blocks through the worker (one message for the lot), the others through the batch writer */
  private async writePlaced (placer: Placer, items: WriteItem[]): Promise<Array<PromiseSettledResult<void>>> {
    const small = items.filter(i => i.bytes.length <= LOG_BLOCK_MAX)
    const large = items.filter(i => i.bytes.length > LOG_BLOCK_MAX)
    const [placed, big] = await Promise.all([
      Promise.allSettled(small.map(async i => { await placer.write(this.placeItem(i.cid, i.bytes)) })),
      large.length > 0 ? this.writer.write(this.remember(large)) : []
    ])
    return [...placed, ...big]
  }

  /** small blocks through the log (one round for the lot), the others through the batch writer */
  private async writeLogged (log: GroupLog, items: WriteItem[]): Promise<Array<PromiseSettledResult<void>>> {
    const large = items.filter(i => i.bytes.length > LOG_BLOCK_MAX)
    const [small, big] = await Promise.all([
      Promise.allSettled(items.filter(i => i.bytes.length <= LOG_BLOCK_MAX).map(async i => {
        const key = blockKey(i.cid)
        this.sizes.set(key, i.bytes.length)
        await log.put(key, i.cid.multihash.bytes, i.bytes)
      })),
      large.length > 0 ? this.writer.write(this.remember(large)) : []
    ])
    return [...small, ...big]
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
    const key = blockKey(cid)
    const logged = this.log?.lookup(key)
    if (logged != null) {
      // acknowledged, on its way into place: a copy (the caller may keep or change it)
      const buf = alloc != null ? alloc(logged.length) : Buffer.allocUnsafe(logged.length)
      buf.set(logged)
      return buf
    }
    let fd: number
    try {
      fd = fsSync.openSync(this.fileOfKey(key), 'r')
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
      const key = blockKey(cid)
      // a block whose put is only in the log yet: its removal is logged after it (a replay keeps it removed)
      if (this.log?.logsDelete(key) === true) await this.log.delete(key, cid.multihash.bytes)
      else await fs.unlink(this.fileOf(cid))
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
    // every acknowledged block in place first
    await this.log?.settle()
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
