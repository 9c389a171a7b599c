// A worker thread that exits once it has had no work for a while (its isolate holds MiBs): ref'd while it has
// work (keeps the process alive), unref'd and armed to stop when it has none. The flatfs placer and the hash
// pool use it.
import type { Worker } from 'node:worker_threads'

export class IdleWorkerStop {
  private timer: NodeJS.Timeout | undefined

  /**
   * `isIdle` is asked again when the time is up (work may have come meanwhile without a busy() call);
   * `beforeExit` runs just before the worker is terminated (to see that no new work reaches it).
   */
  constructor (private readonly worker: Worker, private readonly ms: number, private readonly isIdle: () => boolean, private readonly beforeExit: () => void) {}

  /** work given to the worker: it holds the process and does not stop */
  busy (): void {
    clearTimeout(this.timer)
    this.worker.ref()
  }

  /** no work left: the process may exit; after `ms` without busy() the worker stops */
  idle (): void {
    this.worker.unref()
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      if (!this.isIdle()) return
      this.beforeExit()
      void this.worker.terminate()
    }, this.ms).unref()
  }

  /** no stop by the timer (the worker is stopped otherwise) */
  cancel (): void {
    clearTimeout(this.timer)
  }
}
