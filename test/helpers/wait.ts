// Polling for tests that wait on another node or a background job.

export const sleep = async (ms: number): Promise<void> => { await new Promise(resolve => setTimeout(resolve, ms)) }

/** Polls `fn` until it returns a value other than false/null/undefined (or stops throwing). */
export async function waitFor<T> (fn: () => Promise<T | false | null | undefined> | T | false | null | undefined, opts: { timeout?: number, interval?: number, what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeout ?? 30_000)
  let last: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v !== false && v != null) return v
    } catch (err) { last = err }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'a condition'}${last != null ? `: ${(last as Error).message}` : ''}`)
    await sleep(opts.interval ?? 250)
  }
}
