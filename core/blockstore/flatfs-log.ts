// flatfs's group-commit log (durable small blocks, flatfs `sync: true`).
//
// Every put of a small block that arrives while a round is being committed joins the next round:
// the round's records (multihash, length, CRC-32, bytes) are appended to one preallocated log file
// and made durable by ONE fdatasync (an overwrite of allocated space touches no metadata, so no
// journal commit); then the puts are acknowledged (readable through an index until placed) and the
// blocks are written into place (a temp file in the shard folder, renamed: never part of a block under its name),
// without fsync, on the placer thread (the replay rewrites a file a power cut left damaged, comparing). Two log files take turns: when the active one
// is full (or the store has been idle for IDLE_MS) the other becomes active and the full one is
// checkpointed in the background (fsync of every file it covered and of their folders, then its
// header is marked empty). A delete of a block whose put is still only in a log is logged too (a
// tombstone), so a replay never brings back a removed block. On open, the records of both logs are
// replayed in order (a record counts only if its header, CRC and multihash check out; the first one
// that does not ends its log: nothing after it was acknowledged), fsynced, and the logs removed;
// close checkpoints and removes them, so Kubo opening the repo after a clean shutdown sees every
// block and no log. The log files are blocks/.tsipfs-wal-0 and -1 (Kubo's flatfs ignores dot files).
import fsSync, { promises as fs } from 'node:fs'
import path from 'node:path'
import { crc32 } from 'node:zlib'
import { createHash, randomBytes } from 'node:crypto'
import { execFile } from 'node:child_process'
import { base32UpperOf } from '../util/base32.js'
import { shardOf } from './flatfs-layout.js'
import { slabAlloc } from '../util/slab.js'
import { Placer, clearShardTempMark, fsyncPath, syncAll } from './flatfs-placer.js'

export const LOG_FILES = ['.tsipfs-wal-0', '.tsipfs-wal-1']
/** blocks up to this size go through the log (larger ones: their data write dominates; flatfs-write.ts) */
export const LOG_BLOCK_MAX = 64 * 1024
const MAGIC = 0x5453574c // "TSWL"
/** header: magic, epoch, state (1: records follow; 0: empty), CRC-32 of the first 12 bytes */
const HEADER = 16
/** record header: magic, epoch, op (u8), 0 (u8), multihash length (u16), data length (u32), CRC-32 */
const REC = 20
const OP_PUT = 1
const OP_DEL = 2
/** a full log switches to the other and is checkpointed; this idle time does the same */
const IDLE_MS = 1000
/**
 * Rounds whose fdatasync may run at once: a round is written while earlier ones still wait for theirs (as Kubo's
 * concurrent puts each fsync), and acknowledged once its own and every earlier round's fdatasync succeeded.
 */
const MAX_ROUNDS = 4
/** placements sent to the worker at once, or after this delay */
const PLACE_BATCH = 128
const PLACE_DELAY_MS = 5

interface PlaceBatch {
  blocks: Array<{ log: LogFile, key: string, bytes: Uint8Array }>
  /** resolves once the worker wrote them (or failed to) */
  done: Promise<void>
  start: () => void
}
const fdatasync = async (fd: number): Promise<void> => { await new Promise<void>((resolve, reject) => { fsSync.fdatasync(fd, (err) => { if (err != null) reject(err); else resolve() }) }) }

export interface LogInit {
  /** bytes of each of the two log files (default 8 MiB: a 10,000 x 1 KiB add fits in two without waiting for a checkpoint) */
  logSize?: number
  /** files fsynced at once by a checkpoint (default 64) */
  concurrency?: number
  /** ms without puts after which the active log is checkpointed (default 1 s) */
  idleMs?: number
  /** the coreutils `sync` a big checkpoint runs as `sync -f <dir>` (default 'sync') */
  syncCommand?: string
}

interface Op {
  op: 'put' | 'del'
  key: string
  mh: Uint8Array
  bytes?: Uint8Array
  resolve: () => void
  reject: (err: unknown) => void
}

interface LogFile {
  file: string
  fd?: number
  epoch: number
  /** where the next record goes */
  tail: number
  /** the header must be written with the next round (a fresh epoch) */
  fresh: boolean
  /** block files and folders its records touched (to fsync at its checkpoint) */
  files: Set<string>
  dirs: Set<string>
  /** background writes of its blocks into place (a checkpoint waits for them) */
  writing: Set<Promise<void>>
  /** its creation, while under way */
  creating?: Promise<number>
  /** blocks whose background write failed: the checkpoint writes them again */
  failed: Map<string, Uint8Array>
  checkpointing?: Promise<void>
  /** rounds written to it and not finished (a checkpoint waits for them) */
  syncing: Set<Promise<void>>
  /** the outcome of the last round written: its fdatasync's error or an earlier round's, or undefined */
  chain: Promise<unknown>
  /** bumped by a failed fdatasync: rounds written before it fail too, and the log is written again from there */
  gen: number
  /** its last checkpoint failed: the next one writes its blocks into place again (a failed writeback may have lost them) */
  retry?: boolean
}

const u32 = (b: Buffer, off: number): number => b.readUInt32LE(off)

function header (epoch: number, state: number): Buffer {
  const h = Buffer.alloc(HEADER)
  h.writeUInt32LE(MAGIC, 0)
  h.writeUInt32LE(epoch, 4)
  h.writeUInt32LE(state, 8)
  h.writeUInt32LE(crc32(h.subarray(0, 12)), 12)
  return h
}

function record (epoch: number, op: number, mh: Uint8Array, bytes: Uint8Array): Buffer {
  const r = slabAlloc(REC + mh.length + bytes.length)
  r.writeUInt32LE(MAGIC, 0)
  r.writeUInt32LE(epoch, 4)
  r[8] = op
  r[9] = 0
  r.writeUInt16LE(mh.length, 10)
  r.writeUInt32LE(bytes.length, 12)
  r.set(mh, REC)
  r.set(bytes, REC + mh.length)
  r.writeUInt32LE(crc32(r.subarray(REC), crc32(r.subarray(0, 16))), 16)
  return r
}

export interface LogRecord { epoch: number, op: 'put' | 'del', mh: Uint8Array, bytes: Uint8Array }

/** The acknowledged records of one log file's bytes (none when its header is empty or broken). */
export function parseLog (buf: Buffer): LogRecord[] {
  if (buf.length < HEADER || u32(buf, 0) !== MAGIC || u32(buf, 12) !== crc32(buf.subarray(0, 12)) || u32(buf, 8) !== 1) return []
  const epoch = u32(buf, 4)
  const out: LogRecord[] = []
  for (let pos = HEADER; pos + REC <= buf.length;) {
    if (u32(buf, pos) !== MAGIC || u32(buf, pos + 4) !== epoch) break
    const op = buf[pos + 8]
    const end = pos + REC + buf.readUInt16LE(pos + 10) + u32(buf, pos + 12)
    if ((op !== OP_PUT && op !== OP_DEL) || end > buf.length) break
    if (u32(buf, pos + 16) !== crc32(buf.subarray(pos + REC, end), crc32(buf.subarray(pos, pos + 16)))) break
    const mh = buf.subarray(pos + REC, pos + REC + buf.readUInt16LE(pos + 10))
    out.push({ epoch, op: op === OP_PUT ? 'put' : 'del', mh, bytes: buf.subarray(pos + REC + mh.length, end) })
    pos = end
  }
  return out
}

/** Whether bytes hash to the multihash (sha2-256/512; other functions: trusted on their CRC). */
function hashMatches (mh: Uint8Array, bytes: Uint8Array): boolean {
  const algo = mh[0] === 0x12 ? 'sha256' : mh[0] === 0x13 ? 'sha512' : undefined
  if (algo === undefined) return true
  const digest = createHash(algo).update(bytes).digest()
  return Buffer.compare(digest.subarray(0, mh[1]), Buffer.from(mh.subarray(2))) === 0 && mh.length === 2 + mh[1]
}

/** checkpoints covering at least this many files flush the filesystem at once (syncfs) instead of fsyncing each */
const SYNCFS_MIN = 64
/** `sync -f` failed because it cannot run here (not a writeback error): the checkpoint fsyncs each file instead */
const SYNCFS_UNSUPPORTED = /Operation not permitted|Function not implemented|No such file or directory|Permission denied|invalid option|unrecognized option|usage/i

/**
 * syncfs(2) of the filesystem holding `dir`, through coreutils' `sync -f` (Node has no binding): one flush and one
 * journal commit for every file a checkpoint covers, where an fsync each cost ~100-800 µs of kernel time per block
 * under load. Writeback errors not yet reported are reported to it (Linux >= 5.8) and fail it. False when it
 * cannot run here (no `sync`, a spawn refused, EPERM/ENOSYS/ENOENT from syncfs): then the caller fsyncs each file.
 */
async function syncfs (dir: string, command: string): Promise<boolean> {
  return await new Promise<boolean>((resolve, reject) => {
    try {
      execFile(command, ['-f', dir], { timeout: 0 }, (err, _out, stderr) => {
        if (err == null) { resolve(true); return }
        const code = (err as NodeJS.ErrnoException).code
        if (typeof code === 'string' || SYNCFS_UNSUPPORTED.test(String(stderr))) { resolve(false); return }
        reject(new Error(`sync -f ${dir}: ${String(stderr).trim() || err.message}`))
      })
    } catch {
      // a spawn refused at once (EPERM under a seccomp sandbox, ENOMEM) throws instead of calling back
      resolve(false)
    }
  })
}

type RoundOp = Op & { logged: boolean, dup: boolean, rec?: Uint8Array }

/** A round written to its log and not yet durable. */
interface Written {
  log: LogFile
  ops: RoundOp[]
  logged: boolean
  /** the log's tail before the round */
  from: { tail: number, fresh: boolean }
  gen: number
  /** its fdatasync's failure or an earlier round's (undefined: durable) */
  outcome: Promise<unknown>
}

export class GroupLog {
  private readonly logs: LogFile[]
  private active = 0
  private epoch = 0
  private readonly size: number
  private readonly concurrency: number
  private readonly idleMs: number
  private readonly syncCommand: string
  /** `sync -f` ran here (false once it could not: each checkpoint then fsyncs every file) */
  private syncfsWorks = process.platform === 'linux'
  private queue: Op[] = []
  /** a round is being prepared and written, or a switch or close runs: no other round starts */
  private preparing = false
  /** rounds written and not finished */
  private rounds = 0
  /** a round with deletes runs: no other round starts (deletes rely on the state of every earlier round) */
  private deleting = false
  /** the last logged op of each block whose log is not checkpointed yet */
  private readonly pending = new Map<string, { op: 'put' | 'del', log: LogFile }>()
  /** blocks acknowledged but not in place yet: key -> bytes (a view of the round's log buffer) */
  private readonly index = new Map<string, Uint8Array>()
  /** the background write of each block in `index` */
  private readonly writes = new Map<string, Promise<void>>()
  private readonly tempPrefix = `wal-${process.pid}-${randomBytes(4).toString('hex')}-`
  private tempCounter = 0
  private idle: NodeJS.Timeout | undefined
  /** writes blocks into place and fsyncs them, on a worker thread */
  private readonly placer: Placer
  /** `dir` with one trailing separator */
  private readonly root: string
  /** blocks to place, not sent to the worker yet */
  private batch: PlaceBatch | undefined
  private batchTimer: NodeJS.Timeout | undefined

  constructor (private readonly dir: string, private readonly tempDir: string, init: LogInit = {}) {
    this.size = Math.max(init.logSize ?? 8 * 1024 * 1024, HEADER + REC + 1024 + LOG_BLOCK_MAX)
    this.concurrency = init.concurrency ?? 64
    this.idleMs = init.idleMs ?? IDLE_MS
    this.syncCommand = init.syncCommand ?? 'sync'
    this.logs = LOG_FILES.map(name => ({ file: path.join(dir, name), epoch: 0, tail: HEADER, fresh: true, files: new Set<string>(), dirs: new Set<string>(), writing: new Set<Promise<void>>(), failed: new Map<string, Uint8Array>(), syncing: new Set<Promise<void>>(), chain: Promise.resolve(undefined), gen: 0 }))
    this.logs[0].epoch = ++this.epoch
    this.placer = new Placer()
    this.root = path.join(dir, path.sep)
  }

  /** path.join(this.dir, shard) and the file in it, without normalizing the parts we make (hot path) */
  private fileOf (key: string): { file: string, dir: string } {
    const dir = this.root + shardOf(key)
    return { file: dir + path.sep + key + '.data', dir }
  }

  /** A block acknowledged but maybe not in place yet. */
  lookup (key: string): Uint8Array | undefined {
    return this.index.get(key)
  }

  /** Wait until every acknowledged block is in place (listings walk the folders). */
  async settle (): Promise<void> {
    this.flushPlacement()
    while (this.writes.size > 0) await Promise.allSettled([...this.writes.values()])
  }

  /** Resolves once the block is durable (in the log); it is in place soon after (readable at once through lookup). */
  async put (key: string, mh: Uint8Array, bytes: Uint8Array): Promise<void> {
    await new Promise<void>((resolve, reject) => { this.queue.push({ op: 'put', key, mh, bytes, resolve, reject }); this.kick() })
  }

  /** Whether a delete of the block must be logged (its put is in a log not checkpointed yet, or queued). */
  logsDelete (key: string): boolean {
    return this.pending.get(key)?.op === 'put' || this.queue.some(q => q.op === 'put' && q.key === key)
  }

  async delete (key: string, mh: Uint8Array): Promise<void> {
    await new Promise<void>((resolve, reject) => { this.queue.push({ op: 'del', key, mh, resolve, reject }); this.kick() })
  }

  private kick (): void {
    if (this.preparing || this.deleting || this.rounds >= MAX_ROUNDS || this.queue.length === 0) return
    const deletes = this.queue.some(q => q.op === 'del')
    if (deletes && this.rounds > 0) return // started when the running rounds end
    this.preparing = true
    this.deleting = deletes
    this.rounds++
    if (this.idle !== undefined) { clearTimeout(this.idle); this.idle = undefined }
    this.round().catch(() => {}).finally(() => {
      this.rounds--
      if (deletes) this.deleting = false
      if (this.queue.length > 0) { this.kick(); return }
      if (this.rounds > 0 || this.preparing || this.idle !== undefined) return
      this.idle = setTimeout(() => { this.idle = undefined; this.onIdle() }, this.idleMs)
      this.idle.unref()
    })
  }

  /** idle: checkpoint the active log's records in the background (when the other log is free) */
  private onIdle (): void {
    const log = this.logs[this.active]
    if (this.preparing || this.rounds > 0 || log.tail === HEADER || this.logs[1 - this.active].checkpointing != null) return
    this.preparing = true
    this.switchLog().catch(() => {}).finally(() => { this.preparing = false; this.kick() })
  }

  /** Create (zero-filled, so records overwrite allocated space) and open a log file. */
  private async create (log: LogFile): Promise<number> {
    if (log.fd !== undefined) return log.fd
    if (log.creating == null) {
      log.creating = this.make(log).finally(() => { log.creating = undefined })
    }
    return await log.creating
  }

  private async make (log: LogFile): Promise<number> {
    const fh = await fs.open(log.file, 'w')
    try {
      const zeros = Buffer.alloc(Math.min(this.size, 1024 * 1024))
      for (let off = 0; off < this.size; off += zeros.length) await fh.write(zeros, 0, Math.min(zeros.length, this.size - off), off)
      await fh.sync()
    } finally {
      await fh.close()
    }
    await fsyncPath(this.dir)
    log.fd = fsSync.openSync(log.file, 'r+')
    return log.fd
  }

  /** The other log becomes active (after its own checkpoint ends); the full one is checkpointed in the background. */
  private async switchLog (): Promise<void> {
    const old = this.logs[this.active]
    const next = this.logs[1 - this.active]
    if (next.checkpointing != null) {
      // a failed checkpoint is tried again before the log is reused
      try { await next.checkpointing } catch { await this.checkpoint(next) }
      next.checkpointing = undefined
    }
    await this.create(next)
    this.active = 1 - this.active
    next.epoch = ++this.epoch
    next.tail = HEADER
    next.fresh = true
    const cp = this.checkpoint(old)
    old.checkpointing = cp
    void cp.then(() => { old.checkpointing = undefined }, () => { /* kept: retried by the next switch's await */ })
  }

  /** Make every block the log covered durable in place, then mark the log empty. */
  private async checkpoint (log: LogFile): Promise<void> {
    if (log.fd === undefined || log.tail === HEADER) return
    while (log.syncing.size > 0) await Promise.allSettled([...log.syncing])
    this.flushPlacement()
    while (log.writing.size > 0) await Promise.all([...log.writing])
    const files: string[] = []
    const dirs: string[] = []
    try {
      // a sync retried after a failure succeeds whether or not the failed writeback lost pages: rewrite first
      if (log.retry === true) this.rewriteLogged(log)
      for (const [key, bytes] of log.failed) {
        // replaces whatever is there
        const { file, dir } = this.rewrite(key, bytes)
        log.failed.delete(key)
        log.files.add(file)
        log.dirs.add(dir)
        if (this.index.get(key) === bytes && !this.writes.has(key)) this.index.delete(key)
      }
      files.push(...log.files)
      dirs.push(...log.dirs)
      if (!(files.length >= SYNCFS_MIN && this.syncfsWorks && await syncfs(this.dir, this.syncCommand))) {
        if (files.length >= SYNCFS_MIN) this.syncfsWorks = false
        await this.placer.sync(this.dir, files, dirs)
      }
      fsSync.writeSync(log.fd, header(log.epoch, 0), 0, HEADER, 0)
      await fdatasync(log.fd)
    } catch (err) {
      log.retry = true
      throw err
    }
    log.retry = false
    for (const f of files) log.files.delete(f)
    for (const d of dirs) log.dirs.delete(d)
    log.tail = HEADER
    for (const [key, p] of this.pending) if (p.log === log) this.pending.delete(key)
  }

  /** Write again (temp file + rename, whatever is in place) every block this log still holds the last put of. */
  private rewriteLogged (log: LogFile): void {
    for (const rec of parseLog(fsSync.readFileSync(log.file))) {
      if (rec.op !== 'put') continue
      const key = base32UpperOf(rec.mh)
      const p = this.pending.get(key)
      if (p?.op !== 'put' || p.log !== log) continue
      const { file, dir } = this.rewrite(key, rec.bytes)
      log.files.add(file)
      log.dirs.add(dir)
    }
  }

  /** A block written into place again through a temp file and a rename (replacing whatever file is there). */
  private rewrite (key: string, bytes: Uint8Array): { file: string, dir: string } {
    const { file, dir } = this.fileOf(key)
    fsSync.mkdirSync(dir, { recursive: true })
    const tmp = path.join(this.tempDir, this.tempPrefix + String(this.tempCounter++))
    try {
      fsSync.writeFileSync(tmp, bytes)
      fsSync.renameSync(tmp, file)
    } catch (err) {
      fsSync.rmSync(tmp, { force: true })
      throw err
    }
    return { file, dir }
  }

  /** One group commit: every queued op that fits in the active log, written, then made durable and acknowledged. */
  private async round (): Promise<void> {
    let w: Written
    try {
      w = await this.write()
    } finally {
      // the next round may be written while this one's fdatasync runs
      this.preparing = false
      this.kick()
    }
    const done = this.complete(w)
    w.log.syncing.add(done)
    try { await done } finally { w.log.syncing.delete(done) }
  }

  /** Write the next round's records to the active log (no fdatasync yet). */
  private async write (): Promise<Written> {
    let log = this.logs[this.active]
    try {
      await this.create(log)
      // the other one ready before it is needed (its zero-fill would stall the round that switches)
      void this.create(this.logs[1 - this.active]).catch(() => {})
      const first = this.queue[0]
      if (log.tail + REC + first.mh.length + (first.bytes?.length ?? 0) > this.size) {
        await this.switchLog()
        log = this.logs[this.active]
      }
    } catch (err) {
      // no log to write to: the waiting puts fail (the next ones try again)
      const failed = this.queue
      this.queue = []
      for (const q of failed) q.reject(err)
      throw err
    }
    const fd = log.fd as number
    const parts: Buffer[] = []
    const from = { tail: log.tail, fresh: log.fresh }
    const start = log.fresh ? 0 : log.tail
    let end = log.tail
    if (log.fresh) parts.push(header(log.epoch, 1))
    const headers = parts.length
    const ops: RoundOp[] = []
    const state = new Map<string, 'put' | 'del'>()
    while (this.queue.length > 0) {
      const q = this.queue[0]
      // a removal queued after this round started waits for a round of its own (kick): here it would run
      // beside rounds not yet acknowledged, whose puts it does not see (a later put of the block, taken as
      // already stored, would be acknowledged and then removed)
      if (q.op === 'del' && !this.deleting) break
      const len = REC + q.mh.length + (q.bytes?.length ?? 0)
      if (end + len > this.size) break
      this.queue.shift()
      const was = state.get(q.key) ?? this.pending.get(q.key)?.op
      let logged = false
      let dup = false
      if (q.op === 'put') {
        // logged before: nothing to add. A block already in place is logged again rather than looked up here:
        // on the event loop that stat of a new name waited behind the placer's creates in the same folder (the
        // placer skips a file in place, the checkpoint fsyncs it)
        dup = was === 'put'
        logged = !dup
      } else {
        logged = was === 'put'
      }
      let rec: Uint8Array | undefined
      if (logged) {
        const r = record(log.epoch, q.op === 'put' ? OP_PUT : OP_DEL, q.mh, q.bytes ?? new Uint8Array(0))
        parts.push(r)
        // the index keeps this copy (the caller may reuse its buffer once the put resolves)
        rec = r.subarray(REC + q.mh.length)
        end += len
        state.set(q.key, q.op)
      }
      ops.push({ ...q, logged, dup, rec })
    }
    const logged = parts.length > headers
    try {
      if (logged) {
        const buf = parts.length === 1 ? parts[0] : Buffer.concat(parts)
        for (let off = 0; off < buf.length;) off += fsSync.writeSync(fd, buf, off, buf.length - off, start + off)
        log.tail = end
        log.fresh = false
      }
    } catch (err) {
      // nothing after `from` was acknowledged: the next round writes there again
      log.tail = Math.max(log.tail, end)
      this.rewind(log, from)
      for (const o of ops) o.reject(err)
      throw err
    }
    // acknowledged only after every earlier round of this log is durable (one fdatasync's success says nothing
    // of pages an earlier, failed one covered: Linux reports a writeback error to one caller)
    const prev = log.chain
    const outcome = (async () => {
      let failure: unknown
      if (logged) { try { await fdatasync(fd) } catch (err) { failure = err } }
      return failure ?? await prev
    })()
    log.chain = outcome
    return { log, ops, logged, from, gen: log.gen, outcome }
  }

  /**
   * The log goes on from `from` (what was written after it failed): those records are zeroed, else a shorter
   * round written there could end on a record boundary of theirs, and a replay would go on with them (same
   * epoch, valid checksums) and apply puts and removals that failed. The next round's fdatasync flushes the zeros.
   */
  private rewind (log: LogFile, from: { tail: number, fresh: boolean }): void {
    const end = log.tail
    log.tail = from.tail
    log.fresh = from.fresh
    if (log.fd === undefined || end <= from.tail) return
    try {
      const zeros = Buffer.alloc(end - from.tail)
      for (let off = 0; off < zeros.length;) off += fsSync.writeSync(log.fd, zeros, off, zeros.length - off, from.tail + off)
    } catch {}
  }

  /** Wait for the round's durability, then acknowledge it and write its blocks into place. */
  private async complete ({ log, ops, from, gen, outcome }: Written): Promise<void> {
    const failure = await outcome
    if (failure !== undefined) {
      if (gen === log.gen) {
        // the first failure of its generation: what this and later rounds wrote is not acknowledged, so
        // the log goes on from where this round began (the rounds written since fail through the chain)
        log.gen++
        this.rewind(log, from)
        log.chain = Promise.resolve(undefined)
      }
      for (const o of ops) o.reject(failure)
      throw failure
    }
    // durable: the puts are acknowledged (readable through the index) and written into place in the background
    const placed: Array<{ key: string, bytes: Uint8Array }> = []
    for (const o of ops) {
      if (o.op === 'put') {
        if (o.logged) {
          const bytes = o.rec as Uint8Array
          this.index.set(o.key, bytes)
          this.pending.set(o.key, { op: 'put', log })
          placed.push({ key: o.key, bytes })
        }
        o.resolve()
        continue
      }
      try {
        // a removal waits for the block's background write (else that would put it back)
        if (this.batch != null && this.writes.get(o.key) === this.batch.done) this.flushPlacement()
        await this.writes.get(o.key)
        this.index.delete(o.key)
        // a failed background write is not tried again by the checkpoint (it would put the block back)
        for (const l of this.logs) l.failed.delete(o.key)
        const { file, dir } = this.fileOf(o.key)
        // marked removed before the file goes (a checkpoint retry rewrites the blocks whose last op is a put)
        if (o.logged) {
          log.files.delete(file)
          log.dirs.add(dir)
          this.pending.set(o.key, { op: 'del', log })
        }
        await fs.rm(file, { force: true })
        o.resolve()
      } catch (err) {
        o.reject(err)
      }
    }
    if (placed.length > 0) this.place(log, placed)
  }

  /**
   * Write acknowledged blocks into place (temp file + rename, no fsync: the log holds them until the
   * checkpoint), on the placer's worker thread (flatfs-placer.ts), in batches of up to PLACE_BATCH blocks or
   * after PLACE_DELAY_MS: each message wakes another thread, which under load cost the event loop more than the
   * round's own work when sent per round.
   */
  private place (log: LogFile, blocks: Array<{ key: string, bytes: Uint8Array }>): void {
    for (const { key, bytes } of blocks) {
      // a block already in the open batch (removed and put again): that batch goes first
      if (this.batch != null && this.writes.get(key) === this.batch.done) this.flushPlacement()
      const batch = this.batch ?? this.openBatch()
      batch.blocks.push({ log, key, bytes })
      if (!log.writing.has(batch.done)) log.writing.add(batch.done)
      this.writes.set(key, batch.done)
      if (batch.blocks.length >= PLACE_BATCH) this.flushPlacement()
    }
  }

  private openBatch (): PlaceBatch {
    let start!: () => void
    const started = new Promise<void>(resolve => { start = resolve })
    const blocks: PlaceBatch['blocks'] = []
    // no wait for earlier batches: the worker writes batches in order, and a block is placed again only after
    // its removal, which waited for its earlier write
    const done: Promise<void> = (async () => {
      await started
      const items = blocks.map(({ key, bytes }) => ({ ...this.fileOf(key), bytes }))
      let failed: number[]
      try {
        failed = await this.placer.place(items)
      } catch {
        failed = items.map((_, i) => i)
      }
      const bad = new Set(failed)
      items.forEach(({ file, dir }, i) => {
        const { log, key, bytes } = blocks[i]
        // a failed one is kept in the index and written again by the checkpoint (which fails if that fails too)
        if (bad.has(i)) { log.failed.set(key, bytes); return }
        log.files.add(file)
        log.dirs.add(dir)
      })
    })().finally(() => {
      for (const { log, key, bytes } of blocks) {
        log.writing.delete(done)
        if (this.writes.get(key) !== done) continue
        this.writes.delete(key)
        if (!log.failed.has(key) && this.index.get(key) === bytes) this.index.delete(key)
      }
    })
    const batch: PlaceBatch = { blocks, done, start }
    this.batch = batch
    this.batchTimer = setTimeout(() => { this.flushPlacement() }, PLACE_DELAY_MS)
    return batch
  }

  /** Send the open batch of placements to the worker now. */
  private flushPlacement (): void {
    const batch = this.batch
    if (batch == null) return
    this.batch = undefined
    if (this.batchTimer !== undefined) { clearTimeout(this.batchTimer); this.batchTimer = undefined }
    batch.start()
  }

  /** Checkpoint both logs and remove them (the store stays usable: the next put makes them again). */
  async close (): Promise<void> {
    while (this.preparing || this.rounds > 0 || this.queue.length > 0) {
      await new Promise<void>(resolve => setTimeout(resolve, 5))
    }
    this.preparing = true
    try {
      if (this.idle !== undefined) { clearTimeout(this.idle); this.idle = undefined }
      for (const log of this.logs) await log.creating?.catch(() => {})
      for (const log of this.logs) await log.checkpointing?.catch(() => {})
      for (const log of this.logs) { await this.checkpoint(log); log.checkpointing = undefined }
      for (const log of this.logs) {
        if (log.fd !== undefined) fsSync.closeSync(log.fd)
        log.fd = undefined
        log.fresh = true
        await fs.rm(log.file, { force: true })
      }
      this.pending.clear()
      await this.placer.stop()
      // every block is in place and synced: no temp file of ours is left in the shard folders
      await clearShardTempMark(this.dir)
    } finally {
      this.preparing = false
    }
    this.kick()
  }
}

/**
 * Replay the logs a crash left (before the store serves): every acknowledged record, oldest log first,
 * written into place (temp file + rename, so a partial file left by the crash is replaced), made
 * durable, then the logs removed. Returns the number of records applied.
 */
export async function replayLogs (dir: string, tempDir: string, concurrency = 64): Promise<number> {
  const logs: LogRecord[][] = []
  const present: string[] = []
  for (const name of LOG_FILES) {
    const file = path.join(dir, name)
    let buf: Buffer
    try { buf = await fs.readFile(file) } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw err
    }
    present.push(file)
    const records = parseLog(buf)
    if (records.length > 0) logs.push(records)
  }
  if (present.length === 0) return 0
  logs.sort((a, b) => a[0].epoch - b[0].epoch)
  const files = new Set<string>()
  const dirs = new Set<string>()
  let applied = 0
  let n = 0
  // small files: synchronous calls (a thread-pool round trip each would cost more), a turn of the event loop now and then
  for (const rec of logs.flat()) {
    if (++n % 256 === 0) await new Promise(resolve => setImmediate(resolve))
    const key = base32UpperOf(rec.mh)
    const shard = path.join(dir, shardOf(key))
    const file = path.join(shard, key + '.data')
    if (rec.op === 'del') {
      fsSync.rmSync(file, { force: true })
      files.delete(file)
      dirs.add(shard)
      applied++
      continue
    }
    if (!hashMatches(rec.mh, rec.bytes)) continue
    files.add(file)
    dirs.add(shard)
    applied++
    // in place already (a process crash loses no written file): only its fsync is missing
    let current: Buffer | undefined
    try { current = fsSync.readFileSync(file) } catch {}
    if (current !== undefined && Buffer.compare(current, rec.bytes) === 0) continue
    fsSync.mkdirSync(shard, { recursive: true })
    const tmp = path.join(tempDir, `replay-${process.pid}-${n}`)
    fsSync.writeFileSync(tmp, rec.bytes)
    fsSync.renameSync(tmp, file)
  }
  await syncAll(dir, files, dirs, concurrency)
  for (const file of present) await fs.rm(file, { force: true })
  await fsyncPath(dir)
  return applied
}
