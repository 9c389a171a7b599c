// Giving memory back when the daemon goes quiet. Under load V8 grows its heap and keeps the pages
// afterwards (its memory reducer seldom starts in a server process), so a daemon sat at the size of its
// busiest minute. Once its listeners have been quiet for a moment after enough growth, one
// memory-reducing collection (V8's last-resort flavour: compacting, empty pages returned) brings the
// heap back to its live size. It runs at most once per quiet period and only when nothing is in flight.
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
  /** the collection and the heap size (tests) */
  collect?: () => void
  heapSize?: () => number
}

/** the heap and the memory its objects hold outside it (buffers): both come back with a collection */
const v8HeapSize = (): number => { const h = v8.getHeapStatistics(); return h.total_heap_size + h.external_memory }

export function startIdleGc (options: IdleGcOptions = {}): IdleGc {
  const quietMs = options.quietMs ?? Number(process.env.TSIPFS_IDLE_GC_MS ?? 500)
  const growth = options.growth ?? 16 * 1024 * 1024
  const heapSize = options.heapSize ?? v8HeapSize
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
  const onRequest = (_req: http.IncomingMessage, res: http.ServerResponse): void => {
    inFlight++
    lastActivity = Date.now()
    busySinceGc = true
    res.once('close', () => { inFlight--; lastActivity = Date.now() })
  }
  const timer = setInterval(() => {
    if (!busySinceGc || inFlight > 0 || Date.now() - lastActivity < quietMs) return
    busySinceGc = false
    if (heapSize() - heapAfterGc < growth) return
    run()
    heapAfterGc = heapSize()
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
