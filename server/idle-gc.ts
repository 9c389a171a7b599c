// Giving memory back when the daemon goes quiet. Under load V8 grows its heap and keeps the pages
// afterwards (its memory reducer seldom starts in a server process), so a daemon sat at the size of its
// busiest minute. Once its listeners have been quiet for a moment after enough growth, one
// memory-reducing collection (V8's last-resort flavour: compacting, empty pages returned) brings the
// heap back to its live size. It runs at most once per quiet period and only when nothing is in flight.
// Under sustained load there is no quiet moment: V8 keeps the pages its collections free in a pool and
// collects the old generation only past its floor (bin/tsipfs.js), so the RSS sat 40-50 MiB above the live
// size for as long as the load lasted. A soft limit (off by default), as Go's GOMEMLIMIT: while busy, once the RSS is over
// `softLimit` and the heap grew by `growth` since our last collection, the same collection runs, at most
// once per `busyIntervalMs` (a pause of tens of ms, a few per minute under load).
import v8 from 'node:v8'
import vm from 'node:vm'
import type http from 'node:http'

export interface IdleGc {
  /** count this server's requests as activity */
  watch: (server: http.Server) => void
  stop: () => void
}

type GcFunction = (options?: { type?: 'major' | 'minor', execution?: 'sync' | 'async', flavor?: 'regular' | 'last-resort' }) => void

/** V8's gc() without --expose-gc on the command line: a context made while the flag is on has it. */
function gcFunction (): GcFunction | undefined {
  try {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc') as GcFunction
    v8.setFlagsFromString('--no-expose-gc')
    return typeof gc === 'function' ? gc : undefined
  } catch {
    return undefined
  }
}

export interface IdleGcOptions {
  /** no request started or in flight for this long (TSIPFS_IDLE_GC_MS, 0 = never) */
  quietMs?: number
  /** bytes the heap (with its external memory) grew since the last collection of ours that make one worth it */
  growth?: number
  /**
   * under load: the RSS in bytes over which a collection runs (TSIPFS_GC_SOFT_LIMIT_MIB; default 0 = never:
   * each collection cost the gateway under wrk ~6-13 % more CPU per request, for 3-23 MiB less RSS)
   */
  softLimit?: number
  /** under load: at most one collection per this long */
  busyIntervalMs?: number
  /** told after each collection: why, how long it took, the RSS before and after (bytes) */
  onCollect?: (why: 'idle' | 'busy', ms: number, rssBefore: number, rssAfter: number) => void
  /** the collection, the heap size and the RSS (tests) */
  collect?: () => void
  heapSize?: () => number
  rss?: () => number
}

/** the heap and the memory its objects hold outside it (buffers): both come back with a collection */
const v8HeapSize = (): number => { const h = v8.getHeapStatistics(); return h.total_heap_size + h.external_memory }

export function startIdleGc (options: IdleGcOptions = {}): IdleGc {
  const quietMs = options.quietMs ?? Number(process.env.TSIPFS_IDLE_GC_MS ?? 500)
  const growth = options.growth ?? 16 * 1024 * 1024
  const heapSize = options.heapSize ?? v8HeapSize
  const softLimit = options.softLimit ?? Number(process.env.TSIPFS_GC_SOFT_LIMIT_MIB ?? 0) * 1024 * 1024
  const busyIntervalMs = options.busyIntervalMs ?? 5000
  const rss = options.rss ?? process.memoryUsage.rss
  if (!(quietMs > 0)) return { watch: () => {}, stop: () => {} }
  // V8's gc() is made on the first collection (a new context: off the start-up path)
  let gc: GcFunction | undefined | null
  const run = options.collect ?? (() => {
    if (gc === undefined) gc = gcFunction() ?? null
    gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' })
  })
  let inFlight = 0
  let lastActivity = 0
  let busySinceGc = false
  let heapAfterGc = heapSize()
  let lastGc = Date.now()
  const collect = (why: 'idle' | 'busy'): void => {
    const before = options.onCollect != null ? rss() : 0
    const t0 = performance.now()
    run()
    const ms = performance.now() - t0
    heapAfterGc = heapSize()
    lastGc = Date.now()
    options.onCollect?.(why, ms, before, rss())
  }
  const onRequest = (_req: http.IncomingMessage, res: http.ServerResponse): void => {
    inFlight++
    lastActivity = Date.now()
    busySinceGc = true
    res.once('close', () => { inFlight--; lastActivity = Date.now() })
  }
  const timer = setInterval(() => {
    const now = Date.now()
    if (inFlight > 0 || now - lastActivity < quietMs) {
      // busy: the soft limit
      if (softLimit > 0 && now - lastGc >= busyIntervalMs && heapSize() - heapAfterGc >= growth && rss() > softLimit) collect('busy')
      return
    }
    if (!busySinceGc) return
    busySinceGc = false
    if (heapSize() - heapAfterGc < growth) return
    collect('idle')
  }, Math.max(100, Math.floor(quietMs / 2))).unref()
  const watched: http.Server[] = []
  return {
    watch: (server) => { server.on('request', onRequest); watched.push(server) },
    stop: () => {
      clearInterval(timer)
      for (const s of watched) s.off('request', onRequest)
    }
  }
}
