// flatfs's durable batch write: temp files (in the blocks' own shard folders) written and fsynced (concurrently),
// renamed into place, then each touched folder fsynced once (see flatfs.ts for the why and the figures).
import fsSync, { promises as fs } from 'node:fs'
import { promisify } from 'node:util'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { CID } from 'multiformats/cid'
import { SHARD_TEMP_PREFIX, blockKey, markShardTemps, shardOf } from './flatfs-layout.js'

/**
 * Blocks up to this size are created, written and closed with synchronous calls; bigger ones in the thread
 * pool (their copy into the page cache, and their create: see write). Renames are in place either way.
 */
const SMALL_BLOCK = 64 * 1024
/** shard folders made at once (thread pool) */
const MKDIRS = 4
/** yield to the event loop after this many synchronous file operations */
const SYNC_SLICE = 64
const fsyncFd = promisify(fsSync.fsync)
const openFd = promisify(fsSync.open) as (file: string, flags: string, mode: number) => Promise<number>
const closeFd = promisify(fsSync.close)
const writeFd = async (fd: number, bytes: Uint8Array, off: number): Promise<number> => await new Promise((resolve, reject) => {
  fsSync.write(fd, bytes, off, bytes.length - off, null, (err, n) => { if (err != null) reject(err); else resolve(n) })
})
const nextTick = async (): Promise<void> => { await new Promise<void>(resolve => setImmediate(resolve)) }

export interface WriteItem {
  cid: CID
  bytes: Uint8Array
}

/** Run fn over items with at most `limit` in flight; results in input order (settled). */
export async function settleLimit<T, R> (items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<Array<PromiseSettledResult<R>>> {
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

/** fsync a folder, opened and closed in place (only the fsync goes to the thread pool) */
async function fsyncDir (p: string): Promise<void> {
  const fd = fsSync.openSync(p, 'r')
  try { await fsyncFd(fd) } finally { fsSync.closeSync(fd) }
}

export interface BatchWriterInit {
  /** fsync block files and shard folders (default true) */
  sync?: boolean
  /** files written/fsynced at once within a batch (default 64) */
  concurrency?: number
  /** create, close and rename files with synchronous syscalls, small blocks written too (default true) */
  syncSmallWrites?: boolean
}

export class BatchWriter {
  /** fsync files and folders (Datastore.Spec flatfs `sync`) */
  readonly sync: boolean
  private readonly concurrency: number
  private readonly syncSmallWrites: boolean
  /** shard folders made or being made: resolve once the folder exists */
  private readonly madeDirs = new Map<string, Promise<void>>()
  /** with sync, shard folders whose entry in the root is durable (or being made so) */
  private readonly syncedDirs = new Map<string, Promise<void>>()
  /** the shard-temp mark (markShardTemps) made by this writer */
  private readonly marks = new Set<string>()
  /** folders waiting for a mkdir, and how many mkdirs run (MKDIRS at most) */
  private readonly dirQueue: Array<() => void> = []
  private mkdirs = 0
  private tempReady = false
  private readonly tempPrefix = `put-${process.pid}-${randomBytes(4).toString('hex')}-`
  private tempCounter = 0

  constructor (private readonly path: string, private readonly tempDir: string, init: BatchWriterInit = {}) {
    this.sync = init.sync ?? true
    this.concurrency = init.concurrency ?? 64
    this.syncSmallWrites = init.syncSmallWrites ?? true
  }

  /**
   * Resolves once shard folder `dir` exists. A mkdir cost ~0.4-0.5 ms of
   * kernel time here, so a fresh repo's first big add made ~1,000 folders for 0.5 s CPU and 1-2.6 s wall; in the
   * thread pool (MKDIRS at once: they queue on the root's lock anyway) they overlap the temp file writes.
   */
  private async folder (dir: string): Promise<void> {
    let made = this.madeDirs.get(dir)
    if (made == null) {
      made = this.makeFolder(dir)
      this.madeDirs.set(dir, made)
      // a failed folder is tried again by the next batch that needs it
      made.catch(() => { if (this.madeDirs.get(dir) === made) this.madeDirs.delete(dir) })
    }
    await made
  }

  /** Resolves once shard folder `dir` exists and, with sync, is durable in the root. */
  private async durableFolder (dir: string): Promise<void> {
    await this.folder(dir)
    if (!this.sync) return
    let synced = this.syncedDirs.get(dir)
    if (synced == null) {
      // the root fsyncs of folders made at the same time share one journal commit; a folder that was there may not
      // be durable either (the log's placer fsyncs the root at its checkpoint; a mkdir whose root fsync failed)
      synced = this.syncRoot()
      this.syncedDirs.set(dir, synced)
      synced.catch(() => { if (this.syncedDirs.get(dir) === synced) this.syncedDirs.delete(dir) })
    }
    await synced
  }

  private async makeFolder (dir: string): Promise<void> {
    if (this.mkdirs >= MKDIRS) await new Promise<void>(resolve => this.dirQueue.push(resolve))
    this.mkdirs++
    try {
      await fs.mkdir(dir)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    } finally {
      this.mkdirs--
      this.dirQueue.shift()?.()
    }
  }

  /**
   * A temp file's path in shard folder `dir` (made first, and the mark that lets an open after a crash sweep such
   * files). The file goes to the thread pool's create or is made in place.
   */
  private async tempIn (dir: string): Promise<string> {
    await this.folder(dir)
    markShardTemps(this.path, this.marks)
    return dir + path.sep + SHARD_TEMP_PREFIX + this.tempPrefix + String(this.tempCounter++)
  }

  /** Forget the mark (the store's close removes it once no temp file can be left; the next write makes it again). */
  forgetMark (): void {
    this.marks.clear()
  }

  /** fsync the root: one at a time, the calls that arrive meanwhile share the next one */
  private rootSync: Promise<void> | undefined
  private rootSyncNext: Promise<void> | undefined
  private async syncRoot (): Promise<void> {
    if (this.rootSync == null) {
      this.rootSync = fsyncDir(this.path).finally(() => { this.rootSync = undefined })
      return await this.rootSync
    }
    this.rootSyncNext ??= this.rootSync.catch(() => {}).then(async () => {
      this.rootSyncNext = undefined
      return await this.syncRoot()
    })
    return await this.rootSyncNext
  }

  /** drop temp files a crash left behind in the temp folder (those in shard folders: sweepShardTemps) */
  async open (): Promise<void> {
    await fs.rm(this.tempDir, { recursive: true, force: true })
    await fs.mkdir(this.tempDir, { recursive: true })
    this.tempReady = true
  }

  /**
   * Write a batch durably: skip blocks already present, write + fsync temp files (concurrently),
   * rename them into place, fsync each touched shard folder once. Per-item results; temp files
   * of failed items are removed.
   */
  async write (items: WriteItem[]): Promise<Array<PromiseSettledResult<void>>> {
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
    // new shard folders: made (and the root fsynced) through the thread pool before their temp files are written
    const folders = Promise.all([...new Set(entries.map(e => e.dir))].map(async dir => await this.durableFolder(dir)))
    folders.catch(() => {}) // awaited before the renames

    // phase 1: temp files, written and fsynced
    let ops = 0
    const temps = await settleLimit(entries, this.concurrency, async (e): Promise<string | undefined> => {
      const small = e.bytes.length <= SMALL_BLOCK
      if (this.syncSmallWrites && small) {
        // create, close (and stat) in place: each a few µs, where a thread-pool round trip costs more and,
        // under load, can stall the event loop on the pool's lock; only the fsync goes to the pool. Big
        // blocks stay in the pool: an ext4 create there cost ~0.1 ms (its inode search skips recently
        // deleted inodes), 0.1 s of the event loop per durable 256 MiB add; without fsync the dirty data piles
        // up and an in-place create waits for the journal commits that flush it (the event loop spent 3x the CPU)
        if (++ops % SYNC_SLICE === 0) await nextTick()
        if (fsSync.existsSync(e.file)) return undefined // already stored
        const tmp = await this.tempIn(e.dir)
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
      const tmp = await this.tempIn(e.dir)
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

    // phase 2: rename into place, once every folder is there (and durable in the root)
    try {
      await folders
    } catch (err) {
      await Promise.all(temps.map(async t => { if (t.status === 'fulfilled' && t.value !== undefined) await fs.rm(t.value, { force: true }).catch(() => {}) }))
      throw err
    }
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
    if (this.sync && touched.size > 0) {
      const dirs = [...touched]
      const synced = await settleLimit(dirs, this.concurrency, this.syncSmallWrites ? fsyncDir : fsyncPath)
      const failed = synced.find(r => r.status === 'rejected')
      if (failed != null) {
        // the blocks are in place but maybe not durable: report it to the writers
        for (const e of entries) settle(e, failed)
      }
    }
    return results
  }
}
