// Bounded, order-preserving concurrency for block reads.

/**
 * Map an async source with up to `concurrency` calls in flight; results come out in source order.
 * The first failure (in order) ends the stream; later failures are dropped.
 */
export async function * mapOrdered<T, R> (source: AsyncIterable<T>, fn: (item: T) => Promise<R>, concurrency: number): AsyncGenerator<R> {
  const queue: Array<Promise<R>> = []
  for await (const item of source) {
    const p = fn(item)
    p.catch(() => {})
    queue.push(p)
    if (queue.length >= concurrency) yield await (queue.shift() as Promise<R>)
  }
  while (queue.length > 0) yield await (queue.shift() as Promise<R>)
}
