// SHA-256 of big import blocks on a worker thread: the main thread of an add copies socket data into
// chunks, frames and writes them; hashing 256 MiB there took ~0.14 s of its ~0.6 s. A block's buffer
// is transferred (moved, not copied) to the worker and back, so every view of it is detached meanwhile
// and the caller gets a new view of the same memory. Until the worker is up (and if it fails) blocks are
// hashed in place.
import { Worker } from 'node:worker_threads'
import { availableParallelism } from 'node:os'
import { IdleWorkerStop } from '../util/idle-worker.js'

/** blocks smaller than this are hashed in place (a round trip costs ~20 µs) */
export const OFF_THREAD_MIN = 64 * 1024
/** the workers exit after this long without work (each holds a few MiB) */
const IDLE_MS = 3_000

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads')
const { createHash } = require('node:crypto')
parentPort.on('message', (m) => {
  let digest
  try {
    const d = createHash('sha256').update(new Uint8Array(m.ab, m.off, m.len)).digest()
    digest = new Uint8Array(d.buffer.slice(d.byteOffset, d.byteOffset + d.length))
  } catch {}
  parentPort.postMessage({ id: m.id, ab: m.ab, digest }, [m.ab])
})
parentPort.postMessage({ ready: true })`

interface Job {
  resolve: (r: { digest: Uint8Array, bytes: Uint8Array }) => void
  reject: (err: unknown) => void
  off: number
  len: number
}

class HashWorker {
  readonly worker: Worker
  ready = false
  failed = false
  readonly jobs = new Map<number, Job>()
  private readonly idleStop: IdleWorkerStop
  /** whenReady() callers */
  private readonly waiting: Array<() => void> = []

  constructor (private readonly onExit: (w: HashWorker) => void) {
    // CommonJS whatever flags the process has (--input-type=module would make the source a module)
    this.worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] })
    // no job may reach it while it exits
    this.idleStop = new IdleWorkerStop(this.worker, IDLE_MS, () => this.jobs.size === 0, () => { this.failed = true })
    this.worker.on('message', (m: { id: number, ab: ArrayBuffer, digest?: Uint8Array, ready?: boolean }) => {
      if (m.ready === true) {
        // its code runs: jobs may go there
        this.ready = true
        this.emitReady()
        return
      }
      const job = this.jobs.get(m.id)
      if (job == null) return
      this.jobs.delete(m.id)
      const bytes = Buffer.from(m.ab, job.off, job.len)
      if (m.digest == null) job.reject(new Error('hash worker failed'))
      else job.resolve({ digest: m.digest, bytes })
      if (this.jobs.size === 0) this.idleStop.idle()
    })
    // the worker keeps the process alive only while it has work (unref after adding the listeners: they ref it)
    this.worker.unref()
    const fail = (err: unknown): void => {
      this.failed = true
      for (const w of this.waiting.splice(0)) w()
      for (const j of this.jobs.values()) j.reject(err)
      this.jobs.clear()
      this.onExit(this)
    }
    this.worker.once('error', fail)
    this.worker.once('exit', () => { fail(new Error('hash worker exited')) })
  }

  private emitReady (): void {
    for (const w of this.waiting.splice(0)) w()
    // no job yet (none goes to a worker before it is ready): idle from now, as after its last job
    if (this.jobs.size === 0) this.idleStop.idle()
  }

  /** resolves once the worker runs its code, or failed */
  async whenReady (): Promise<void> {
    if (this.ready || this.failed) return
    this.worker.ref()
    await new Promise<void>(resolve => this.waiting.push(resolve))
  }

  post (id: number, bytes: Uint8Array, job: Job): void {
    if (this.jobs.size === 0) this.idleStop.busy()
    this.jobs.set(id, job)
    const ab = bytes.buffer as ArrayBuffer
    this.worker.postMessage({ id, ab, off: bytes.byteOffset, len: bytes.byteLength }, [ab])
  }
}

/** worker threads: one per core beyond the main thread's, at most 3 */
const SIZE = Math.max(1, Math.min(3, availableParallelism() - 1))
const workers: HashWorker[] = []
let nextId = 0
let turn = 0
/** a worker failed before it ran its code: hash in place from then on */
let disabled = false

function gone (w: HashWorker): void {
  const i = workers.indexOf(w)
  if (i >= 0) workers.splice(i, 1)
  if (!w.ready) disabled = true
}

function pick (): HashWorker | undefined {
  if (disabled) return undefined
  while (workers.length < SIZE) workers.push(new HashWorker(gone))
  // the least busy ready worker (round robin among equals)
  let best: HashWorker | undefined
  for (let k = 0; k < workers.length; k++) {
    const w = workers[(turn + k) % workers.length]
    if (!w.ready || w.failed) continue
    if (best == null || w.jobs.size < best.jobs.size) best = w
  }
  turn++
  return best
}

/** live worker threads (tests) */
export function hashWorkerCount (): number {
  return workers.length
}

/** Start the workers (if not running) and resolve once one is ready (tests). */
export async function warmHashPool (): Promise<void> {
  pick()
  await Promise.race(workers.map(async w => { await w.whenReady() }))
}

/**
 * The SHA-256 digest of `bytes`, computed on a worker thread, and a new view of the same memory (the
 * buffer moves to the worker and back: every other view of it is left detached, empty). Undefined when
 * the block is hashed in place instead: small, or no worker ready. Only for buffers nobody else reads
 * meanwhile (the import's own chunk buffers, core/unixfs/pb.ts isChunk).
 */
export function sha256OffThread (bytes: Uint8Array): Promise<{ digest: Uint8Array, bytes: Uint8Array }> | undefined {
  if (bytes.byteLength < OFF_THREAD_MIN) return undefined
  const w = pick()
  if (w == null) return undefined
  const id = nextId++
  return new Promise((resolve, reject) => { w.post(id, bytes, { resolve, reject, off: bytes.byteOffset, len: bytes.byteLength }) })
}
