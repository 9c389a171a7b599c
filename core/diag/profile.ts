// Profiles of this process through V8's inspector (node:inspector): the Node counterparts of Go's pprof
// profiles that `diag profile` and /debug/pprof/ hand out. One inspector session per profile; V8 allows
// one CPU profile and one sampling heap profile at a time, so overlapping requests wait for each other.
import { Session } from 'node:inspector/promises'

let chain: Promise<unknown> = Promise.resolve()
/** run profiles one after the other (the inspector's profilers are process-wide) */
function serial<T> (fn: () => Promise<T>): Promise<T> {
  const run = chain.then(fn, fn)
  chain = run.catch(() => {})
  return run
}

/** wait `ms`, or less when the signal aborts */
async function wait (ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted === true) return
  await new Promise<void>(resolve => {
    const t = setTimeout(done, ms)
    function done (): void { clearTimeout(t); signal?.removeEventListener('abort', done); resolve() }
    signal?.addEventListener('abort', done, { once: true })
  })
}

async function withSession<T> (fn: (s: Session) => Promise<T>): Promise<T> {
  const session = new Session()
  session.connect()
  try {
    return await fn(session)
  } finally {
    session.disconnect()
  }
}

/** A V8 CPU profile over `ms` (Chrome DevTools' .cpuprofile JSON) */
export async function cpuProfile (ms: number, signal?: AbortSignal): Promise<Uint8Array> {
  return await serial(async () => await withSession(async (s) => {
    await s.post('Profiler.enable')
    await s.post('Profiler.start')
    let stopped: { profile: unknown } | undefined
    try {
      await wait(ms, signal)
    } finally {
      stopped = await s.post('Profiler.stop')
    }
    return Buffer.from(JSON.stringify(stopped.profile))
  }))
}

/**
 * A sampling heap profile (.heapprofile JSON). `ms` 0: what is live now (Go's heap profile);
 * over `ms` with the collected objects kept: what was allocated meanwhile (Go's allocs profile).
 */
export async function heapProfile (ms: number, signal?: AbortSignal): Promise<Uint8Array> {
  return await serial(async () => await withSession(async (s) => {
    await s.post('HeapProfiler.enable')
    const allocs = ms > 0
    await s.post('HeapProfiler.startSampling', { samplingInterval: 32768, includeObjectsCollectedByMajorGC: allocs, includeObjectsCollectedByMinorGC: allocs })
    let stopped: { profile: unknown } | undefined
    try {
      await wait(ms, signal)
    } finally {
      stopped = await s.post('HeapProfiler.stopSampling')
    }
    return Buffer.from(JSON.stringify(stopped.profile))
  }))
}

/** Go's goroutine dump, as far as Node has one: the event loop's live resources and the main thread's stack */
export function resourcesText (): string {
  const counts = new Map<string, number>()
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1)
  const lines = [`event loop resources: total ${[...counts.values()].reduce((a, b) => a + b, 0)}`]
  for (const [name, n] of [...counts].sort((a, b) => b[1] - a[1])) lines.push(`${n} ${name}`)
  const stack = (new Error('stack').stack ?? '').split('\n').slice(1).map(l => l.trim())
  lines.push('', 'main thread [running]:', ...stack)
  const mem = process.memoryUsage()
  lines.push('', `memory: rss ${mem.rss} heapTotal ${mem.heapTotal} heapUsed ${mem.heapUsed} external ${mem.external} arrayBuffers ${mem.arrayBuffers}`)
  return lines.join('\n') + '\n'
}
