// Recycled buffers for the blocks of file reads that go straight to a socket (cat, the gateway).
// At a few hundred MiB/s, allocating every block anew keeps V8 collecting (external memory pressure
// triggers scavenges and full collections); a block written to the socket can instead hold the next
// one. A buffer comes back only through release(), called by the one who holds its last use (after
// the socket write of its bytes completed); buffers never released are collected as usual.
//
// Who may release: core/unixfs/reader.ts forgets the blocks it keeps using (nodes with links: their
// CIDs are views of the block), so a chunk it yields is released only by its consumer, once.
// Nothing that keeps blocks (a cache) may be handed a buffer from take().

/** buffers below this size come from Buffer.allocUnsafe as usual (Node's own pool covers tiny ones) */
const MIN_SIZE = 64 * 1024
/** capacities are rounded up to this, so blocks of nearly the same size share buffers */
const GRAIN = 16 * 1024
/** free buffers are dropped when none was taken for this long (an idle daemon keeps no pool) */
const IDLE_MS = 10_000

export class BufferPool {
  /** free buffers by capacity */
  private readonly free = new Map<number, ArrayBuffer[]>()
  /** handed out by take() and not released or forgotten since */
  private readonly issued = new WeakSet<ArrayBuffer>()
  private freeBytes = 0
  private lastTake = 0
  private trimTimer: NodeJS.Timeout | undefined

  /** @param maxBytes most bytes kept free */
  constructor (readonly maxBytes = 16 * 1024 * 1024) {}

  /** A buffer of `size` bytes (contents undefined). */
  take (size: number): Buffer {
    if (size < MIN_SIZE) return Buffer.allocUnsafe(size)
    this.lastTake = Date.now()
    const capacity = Math.ceil(size / GRAIN) * GRAIN
    let ab = this.free.get(capacity)?.pop()
    if (ab != null) this.freeBytes -= capacity
    else ab = Buffer.allocUnsafeSlow(capacity).buffer as ArrayBuffer
    this.issued.add(ab)
    return Buffer.from(ab, 0, size)
  }

  /** Is this (a view of) a buffer from take() not yet released or forgotten? */
  owns (view: Uint8Array): boolean {
    return this.issued.has(view.buffer as ArrayBuffer)
  }

  /** Its holder keeps using it: it will not come back (release becomes a no-op). */
  forget (view: Uint8Array): void {
    this.issued.delete(view.buffer as ArrayBuffer)
  }

  /**
   * Nobody uses the bytes of this buffer any more (any view of it will do); buffers not from take()
   * are ignored, as is a second release.
   */
  release (view: Uint8Array): void {
    const ab = view.buffer as ArrayBuffer
    if (!this.issued.delete(ab)) return
    if (this.freeBytes + ab.byteLength > this.maxBytes) return
    let list = this.free.get(ab.byteLength)
    if (list == null) this.free.set(ab.byteLength, list = [])
    list.push(ab)
    this.freeBytes += ab.byteLength
    this.trimTimer ??= setTimeout(() => { this.trim() }, IDLE_MS).unref()
  }

  /** Drop the free buffers if the pool was idle, else look again later. */
  private trim (): void {
    this.trimTimer = undefined
    const idle = Date.now() - this.lastTake
    if (idle < IDLE_MS) {
      if (this.freeBytes > 0) this.trimTimer = setTimeout(() => { this.trim() }, IDLE_MS - idle).unref()
      return
    }
    this.free.clear()
    this.freeBytes = 0
  }

  /** bytes held free (for tests) */
  get held (): number {
    return this.freeBytes
  }
}

/** The pool of file reads written to sockets. */
export const blockBuffers = new BufferPool()
