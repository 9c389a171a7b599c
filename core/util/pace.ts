// Cooperative pacing for long CPU-bound loops (zero-fill, chunking a big input, big directory and HAMT
// builds, DAG walks over cached blocks): awaiting promises that are already resolved never lets the event
// loop run, so such a loop would freeze every other request, timers and signal handlers (SIGTERM). A Pacer
// lets the loop run for a short slice of time, then yields one macrotask turn and checks the abort signal.
import { setImmediate as turn } from 'node:timers/promises'

export const SLICE_MS = 20

export class Pacer {
  private last = performance.now()
  constructor (private readonly signal?: AbortSignal, private readonly sliceMs = SLICE_MS) {}

  /** call once per iteration: cheap, yields to the event loop every `sliceMs` ms and throws once aborted */
  async tick (): Promise<void> {
    if (this.signal?.aborted === true) this.signal.throwIfAborted()
    if (performance.now() - this.last < this.sliceMs) return
    await turn()
    this.last = performance.now()
    this.signal?.throwIfAborted()
  }
}

/** An iterable paced by a Pacer: each item comes after a tick. */
export async function * paced<T> (source: AsyncIterable<T> | Iterable<T>, signal?: AbortSignal): AsyncGenerator<T> {
  const pacer = new Pacer(signal)
  for await (const x of source) {
    await pacer.tick()
    yield x
  }
}
