// A readers-writer lock: many shared holders (adds, imports, pins) or one exclusive holder (GC).

export class RwLock {
  private readers = 0
  private writer = false
  private readonly queue: Array<{ exclusive: boolean, go: () => void }> = []

  private pump (): void {
    while (this.queue.length > 0) {
      const next = this.queue[0]
      if (next.exclusive) {
        if (this.writer || this.readers > 0) return
        this.writer = true
      } else {
        if (this.writer) return
        this.readers++
      }
      this.queue.shift()
      next.go()
    }
  }

  private async acquire (exclusive: boolean): Promise<() => void> {
    await new Promise<void>(resolve => { this.queue.push({ exclusive, go: resolve }); this.pump() })
    let released = false
    return () => {
      if (released) return
      released = true
      if (exclusive) this.writer = false
      else this.readers--
      this.pump()
    }
  }

  /** shared hold; call the returned function to release */
  async shared (): Promise<() => void> { return await this.acquire(false) }
  /** exclusive hold; waits for every shared holder */
  async exclusive (): Promise<() => void> { return await this.acquire(true) }

  async withShared<T> (fn: () => Promise<T>): Promise<T> {
    const release = await this.shared()
    try { return await fn() } finally { release() }
  }

  async withExclusive<T> (fn: () => Promise<T>): Promise<T> {
    const release = await this.exclusive()
    try { return await fn() } finally { release() }
  }
}
