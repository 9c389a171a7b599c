// flatfs's small-block file work on a worker thread: the group-commit log's (flatfs-log.ts: writing acknowledged
// blocks into their files, fsyncing them at a checkpoint) and, without fsync (`sync: false`), the puts themselves
// (write() coalesces the puts that arrive while a message is out). On the event loop each block cost four thread-pool round trips
// (~250 µs of the loop's time under load) or, done in place, stalled the loop whenever a create waited for an ext4
// journal commit; here a round's blocks are one message, and a checkpoint's thousands of fsyncs another.
import fsSync, { promises as fs } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { randomBytes } from 'node:crypto'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { settleLimit } from './flatfs-write.js'
import { SHARD_TEMP_MARK, SHARD_TEMP_PREFIX, markShardTemps } from './flatfs-layout.js'
import { IdleWorkerStop } from '../util/idle-worker.js'

const fsyncFd = promisify(fsSync.fsync)
/** blocks of write() sent in one message at most */
const WRITE_BATCH = 512
/** files and folders fsynced at once by a checkpoint */
const SYNC_CONCURRENCY = 64
/** the worker exits after this long without requests (its isolate holds ~10 MiB) */
const IDLE_MS = 3_000

export interface PlaceItem { file: string, dir: string, bytes: Uint8Array }

type Body = { op: 'place', items: PlaceItem[] } | { op: 'sync', root: string, files: string[], dirs: string[] }
type Request = Body & { id: number }
interface ErrorInfo { message: string, code?: string }
interface Reply { id: number, failed?: number[], errors?: ErrorInfo[], error?: ErrorInfo }

export { SHARD_TEMP_MARK, SHARD_TEMP_PREFIX, markShardTemps }

/**
 * Remove the temp files a crash left in the shard folders (only when the mark says some may be there: a walk
 * of every shard folder at each start would cost a large repo seconds), then the mark. Returns how many.
 */
export async function sweepShardTemps (root: string): Promise<number> {
  const mark = path.join(root, SHARD_TEMP_MARK)
  if (!fsSync.existsSync(mark)) return 0
  let removed = 0
  for (const shard of await fs.readdir(root).catch(() => [] as string[])) {
    if (shard.length !== 2 || shard.startsWith('.')) continue
    const dir = path.join(root, shard)
    for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
      if (!name.startsWith(SHARD_TEMP_PREFIX)) continue
      await fs.rm(path.join(dir, name), { force: true })
      removed++
    }
  }
  await fs.rm(mark, { force: true })
  return removed
}

/** Remove the mark (at a clean close) and forget what `made` knew (the folders, the mark): the next write makes it again. */
export async function clearShardTempMark (root: string, made?: Set<string>): Promise<void> {
  made?.clear()
  await fs.rm(path.join(root, SHARD_TEMP_MARK), { force: true })
}

/**
 * A block written into place: a temp file in its shard folder `dir` and a rename, no fsync; nothing when the file
 * exists. `madeDirs` remembers the folders made (and the mark) by this thread.
 */
export function writeBlockFile (tmpName: string, file: string, dir: string, bytes: Uint8Array, madeDirs: Set<string>): void {
  if (fsSync.existsSync(file)) return // already stored (a block's bytes are its name's)
  if (!madeDirs.has(dir)) {
    markShardTemps(path.dirname(dir), madeDirs)
    fsSync.mkdirSync(dir, { recursive: true })
    madeDirs.add(dir)
  }
  const tmp = dir + path.sep + SHARD_TEMP_PREFIX + tmpName
  try {
    let fd: number
    try {
      fd = fsSync.openSync(tmp, 'wx', 0o644)
    } catch (err) {
      // the folder removed since we made it: made again
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      madeDirs.delete(path.dirname(dir) + path.sep + SHARD_TEMP_MARK)
      markShardTemps(path.dirname(dir), madeDirs)
      fsSync.mkdirSync(dir, { recursive: true })
      fd = fsSync.openSync(tmp, 'wx', 0o644)
    }
    try {
      for (let off = 0; off < bytes.length;) off += fsSync.writeSync(fd, bytes, off)
    } finally {
      fsSync.closeSync(fd)
    }
    fsSync.renameSync(tmp, file)
  } catch (err) {
    try { fsSync.rmSync(tmp, { force: true }) } catch {}
    throw err
  }
}

/** fsync a file or folder; one gone since is skipped (its removal is in a folder we fsync) */
export async function fsyncPath (p: string): Promise<void> {
  let fd: number
  try { fd = fsSync.openSync(p, 'r') } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return
    throw err
  }
  try { await fsyncFd(fd) } finally { fsSync.closeSync(fd) }
}

/** fsync files, then folders and the root; the first failure is thrown. */
export async function syncAll (root: string, files: Iterable<string>, dirs: Iterable<string>, concurrency = SYNC_CONCURRENCY): Promise<void> {
  for (const group of [[...files], [...dirs, root]]) {
    const failed = (await settleLimit(group, concurrency, fsyncPath)).find(r => r.status === 'rejected')
    if (failed != null) throw (failed as PromiseRejectedResult).reason
  }
}

/**
 * A place request with its blocks' bytes copied into one buffer that is moved to the worker: cloned, each view
 * took its whole backing buffer along (an 8 KiB Buffer pool slab per 1 KiB log record), copied twice.
 */
function packed (req: Body): [Body, ArrayBuffer[]] {
  if (req.op !== 'place') return [req, []]
  let total = 0
  for (const { bytes } of req.items) {
    assertAttached(bytes)
    total += bytes.byteLength
  }
  const all = Buffer.allocUnsafeSlow(total)
  let off = 0
  const items = req.items.map(({ file, dir, bytes }) => {
    all.set(bytes, off)
    return { file, dir, bytes: all.subarray(off, off += bytes.byteLength) }
  })
  return [{ op: 'place', items }, [all.buffer]]
}

function assertAttached (bytes: Uint8Array): void {
  if ((bytes.buffer as { detached?: boolean }).detached === true) throw new TypeError('An ArrayBuffer is detached and could not be cloned')
}

/** Each item written into place (writeBlockFile); the indices and errors of those that failed. */
function placeItems (items: PlaceItem[], tmpName: () => string, madeDirs: Set<string>): { failed: number[], errors: ErrorInfo[] } {
  const failed: number[] = []
  const errors: ErrorInfo[] = []
  items.forEach((it, i) => {
    try { writeBlockFile(tmpName(), it.file, it.dir, it.bytes, madeDirs) } catch (err) {
      failed.push(i)
      errors.push({ message: String((err as Error)?.message ?? err), code: (err as NodeJS.ErrnoException)?.code })
    }
  })
  return { failed, errors }
}

/** Makes the placer's worker thread (injectable: a spec gives one that cannot start). */
export type PlacerWorkerFactory = () => Worker
const newPlacerWorker: PlacerWorkerFactory = () => new Worker(new URL(import.meta.url), { workerData: { flatfsPlacer: true } })

/**
 * The main thread's handle: requests to the worker (started on first use, ref'd only while requests are out).
 * A worker that cannot start (its constructor throws, or it fails before its first reply) is not tried again:
 * requests run in place on the main thread (slower for the loop, but puts do not fail).
 */
export class Placer {
  private worker: Worker | undefined
  private nextId = 0
  private readonly pending = new Map<number, { req: Body, resolve: (r: Reply) => void, reject: (err: unknown) => void }>()
  /** the worker could not start: requests run on the main thread */
  private inPlace = false
  private readonly madeDirs = new Set<string>()
  private readonly prefix = `${process.pid}-${randomBytes(4).toString('hex')}-m`
  private counter = 0
  /** write(): blocks waiting for the next message, and whether one is out */
  private queue: Array<{ item: PlaceItem, resolve: () => void, reject: (err: unknown) => void }> = []
  private writing = false
  /** the running worker's stop when idle */
  private idleStop: IdleWorkerStop | undefined

  constructor (private readonly newWorker: PlacerWorkerFactory = newPlacerWorker) {}

  /**
   * Write logged blocks into place (temp file and rename: never part of a block under its name, which Kubo, opening
   * the repo after a kill without our replay, would serve); resolves with the indices of those that failed.
   */
  async place (items: PlaceItem[]): Promise<number[]> {
    return (await this.call({ op: 'place', items })).failed ?? []
  }

  /**
   * Write one block into place, resolved once it is there (a put without fsync). Blocks that arrive while a
   * message is out go together in the next one (up to WRITE_BATCH).
   */
  async write (item: PlaceItem): Promise<void> {
    await new Promise<void>((resolve, reject) => { this.queue.push({ item, resolve, reject }); this.pump() })
  }

  private pump (): void {
    if (this.writing || this.queue.length === 0) return
    this.writing = true
    const batch = this.queue.splice(0, WRITE_BATCH)
    this.call({ op: 'place', items: batch.map(b => b.item) }).then((r) => {
      const failed = r.failed ?? []
      const bad = new Map(failed.map((i, n) => [i, r.errors?.[n]]))
      batch.forEach((b, i) => {
        if (!bad.has(i)) { b.resolve(); return }
        const e = bad.get(i)
        b.reject(Object.assign(new Error(e?.message ?? 'write failed'), { code: e?.code }))
      })
    }, (err) => { for (const b of batch) b.reject(err) }).finally(() => {
      this.writing = false
      this.pump()
    })
  }

  /** fsync files, then their folders and root. */
  async sync (root: string, files: string[], dirs: string[]): Promise<void> {
    await this.call({ op: 'sync', root, files, dirs })
  }

  /** Stop the worker (the next request starts another); requests still out fail. */
  async stop (): Promise<void> {
    this.idleStop?.cancel()
    const w = this.worker
    this.worker = undefined
    const stopped = new Error('flatfs placer worker stopped')
    for (const p of this.pending.values()) p.reject(stopped)
    this.pending.clear()
    // (in place) the folders and the mark made here: a close removes the mark, the next write makes it again
    this.madeDirs.clear()
    if (w != null) await w.terminate()
  }

  /** A request done on the main thread (the worker could not start). */
  private async runInPlace (req: Body): Promise<Reply> {
    if (req.op === 'sync') {
      await syncAll(req.root, req.files, req.dirs)
      return { id: -1 }
    }
    for (const { bytes } of req.items) assertAttached(bytes)
    return { id: -1, ...placeItems(req.items, () => this.prefix + String(this.counter++), this.madeDirs) }
  }

  private start (): Worker {
    if (this.worker != null) return this.worker
    const w = this.newWorker()
    let started = false
    w.unref()
    // once idle IDLE_MS, it exits; a later request starts another (none reaches the exiting one)
    const idleStop = new IdleWorkerStop(w, IDLE_MS, () => this.worker === w && this.pending.size === 0, () => { this.worker = undefined })
    w.on('message', (r: Reply) => {
      started = true
      const p = this.pending.get(r.id)
      if (p == null) return
      this.pending.delete(r.id)
      if (this.pending.size === 0) idleStop.idle()
      if (r.error != null) p.reject(Object.assign(new Error(r.error.message), { code: r.error.code }))
      else p.resolve(r)
    })
    const fail = (err: unknown): void => {
      if (this.worker !== w) return // stopped or exited when idle: its requests are settled
      this.worker = undefined
      const out = [...this.pending.values()]
      this.pending.clear()
      idleStop.cancel()
      if (!started) {
        // it never answered: it could not start; its requests (idempotent) and all later ones run here
        this.inPlace = true
        for (const p of out) this.runInPlace(p.req).then(p.resolve, p.reject)
        return
      }
      for (const p of out) p.reject(err)
    }
    w.on('error', fail)
    w.on('exit', (code) => { fail(new Error(`flatfs placer worker exited (${code})`)) })
    this.worker = w
    this.idleStop = idleStop
    return w
  }

  private async call (req: Body): Promise<Reply> {
    if (this.inPlace) return await this.runInPlace(req)
    let w: Worker
    try {
      w = this.start()
    } catch {
      this.inPlace = true
      return await this.runInPlace(req)
    }
    const idleStop = this.idleStop as IdleWorkerStop
    const id = this.nextId++
    return await new Promise<Reply>((resolve, reject) => {
      if (this.pending.size === 0) idleStop.busy()
      this.pending.set(id, { req, resolve, reject })
      try {
        const [message, transfer] = packed(req)
        w.postMessage({ ...message, id }, transfer)
      } catch (err) {
        // not sent (e.g. bytes of a detached buffer): no reply will come, so it must not stay pending
        this.pending.delete(id)
        if (this.pending.size === 0) idleStop.idle()
        throw err
      }
    })
  }
}

if (!isMainThread && parentPort != null && (workerData as { flatfsPlacer?: boolean } | null)?.flatfsPlacer === true) {
  const port = parentPort
  const madeDirs = new Set<string>()
  const prefix = `${process.pid}-${randomBytes(4).toString('hex')}-`
  let counter = 0
  port.on('message', (req: Request) => {
    if (req.op === 'place') {
      port.postMessage({ id: req.id, ...placeItems(req.items, () => prefix + String(counter++), madeDirs) } satisfies Reply)
      return
    }
    syncAll(req.root, req.files, req.dirs).then(() => { port.postMessage({ id: req.id } satisfies Reply) }, (err: NodeJS.ErrnoException) => {
      port.postMessage({ id: req.id, error: { message: String(err?.message ?? err), code: err?.code } } satisfies Reply)
    })
  })
}
