// Prometheus metrics for /debug/metrics/prometheus (prom-client), with Kubo's names where they map:
// ipfs_http_* (the API's request counter and summaries), ipfs_fsrepo_datastore_* (go-ds-measure over the
// datastore), ipfs_bitswap_* (bitswap's counters), ipfs_p2p_peers_total, ipfs_info, and prom-client's
// process_* / nodejs_* defaults in place of Go's process_* / go_*.
// prom-client (with @opentelemetry/api, ~80 modules) loads off the start-up path: until it is there the
// counts are queued and replayed in order (loaded at the first scrape, 2 s after start, or 10,000 counts).
import { createRequire } from 'node:module'
import type client from 'prom-client'
import type { Datastore } from 'interface-datastore'
import type { AwilixContainer } from 'awilix'
import type { Cradle } from '../core/cradle.js'
import { AGENT_VERSION, KUBO_VERSION } from '../core/version.js'
import { BatchSummary } from './summary.js'

interface HttpObservation { method: string, code: number, seconds: number, requestBytes: number, responseBytes: number }

/** API requests observed before they are handed to prom-client in one go */
const HTTP_BATCH = 256

export interface Metrics {
  /** the exposition format's Content-Type */
  contentType: string
  /** count one API request (Kubo's MetricsCollectionOption("api")); visible from the next text() */
  observeHttp: (o: HttpObservation) => void
  text: () => Promise<string>
}

const OBJECTIVES = [0.5, 0.9, 0.99]
/** go-ds-measure's buckets */
const LATENCY = [0.0001, 0.001, 0.01, 0.1, 1]
const SIZES = [64, 4096, 262144, 16777216]
/** prom-client's Registry.PROMETHEUS_CONTENT_TYPE (known before it loads) */
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'
/** counts queued before prom-client is loaded that start loading it */
const MAX_QUEUED = 10_000
/** after this long it loads anyway (the start-up path is over by then) */
const LOAD_AFTER_MS = 2000

type Client = typeof client

const requireCjs = createRequire(import.meta.url)
type DefaultMetric = (registry: client.Registry, config: { eventLoopMonitoringPrecision: number }) => void
/** one of prom-client's default metrics (lib/metrics/<name>.js, as collectDefaultMetrics calls each) */
const defaultMetric = (name: string): DefaultMetric => requireCjs(`prom-client/lib/metrics/${name}.js`) as DefaultMetric
/** the event-loop lag histogram's timer fires at this resolution, idle or not (prom-client default 10 ms) */
const DEFAULTS = { eventLoopMonitoringPrecision: 1000 }
/** run against prom-client now, or once it is loaded (in order) */
type When = (fn: (client: Client) => void) => void
const seconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9

/** go-ds-measure: <op>_total, <op>_errors_total, <op>_latency_seconds (and sizes) for each datastore call */
function measureDatastore (when: When, registry: () => client.Registry, ds: Datastore): void {
  const ops: Array<[keyof Datastore & string, string, string, 'put' | 'get' | undefined]> = [
    ['get', 'get', 'Datastore.Get', 'get'], ['put', 'put', 'Datastore.Put', 'put'], ['has', 'has', 'Datastore.Has', undefined],
    ['delete', 'delete', 'Datastore.Delete', undefined], ['query', 'query', 'Datastore.Query', undefined], ['queryKeys', 'query', 'Datastore.Query', undefined]
  ]
  interface Made { total: client.Counter, errors: client.Counter, latency: client.Histogram, size?: client.Histogram }
  const made = new Map<string, Made>()
  const metricOf = (c: Client, op: string, call: string, sized: 'put' | 'get' | undefined): Made => {
    let m = made.get(op)
    if (m == null) {
      const p = `ipfs_fsrepo_datastore_${op}`
      const registers = [registry()]
      m = {
        total: new c.Counter({ name: `${p}_total`, help: `Total number of ${call} calls`, registers }),
        errors: new c.Counter({ name: `${p}_errors_total`, help: `Number of errored ${call} calls`, registers }),
        latency: new c.Histogram({ name: `${p}_latency_seconds`, help: `Latency distribution of ${call} calls`, buckets: LATENCY, registers }),
        size: sized == null ? undefined : new c.Histogram({ name: `${p}_size_bytes`, help: sized === 'get' ? 'Size distribution of retrieved byte slices' : 'Size distribution of stored byte slices', buckets: SIZES, registers })
      }
      made.set(op, m)
    }
    return m
  }
  for (const [method, op, call, sized] of ops) {
    // the metrics exist (at 0) from the first scrape on, as go-ds-measure's
    when(c => { metricOf(c, op, call, sized) })
    const orig = (ds as any)[method] as ((...a: unknown[]) => unknown) | undefined
    if (typeof orig !== 'function') continue
    const metric = (c: Client): Made => metricOf(c, op, call, sized)
    ;(ds as any)[method] = function (...args: unknown[]) {
      when(c => { metric(c).total.inc() })
      if (sized === 'put' && args[1] instanceof Uint8Array) { const n = args[1].byteLength; when(c => { metric(c).size?.observe(n) }) }
      const start = process.hrtime.bigint()
      const end = (): void => { const s = seconds(start); when(c => { metric(c).latency.observe(s) }) }
      let result: unknown
      try {
        result = orig.apply(ds, args)
      } catch (err) {
        when(c => { metric(c).errors.inc() }); end(); throw err
      }
      if (result instanceof Promise) {
        return result.then((v: unknown) => {
          end()
          if (sized === 'get' && v instanceof Uint8Array) { const n = v.byteLength; when(c => { metric(c).size?.observe(n) }) }
          return v
        }, (err: unknown) => {
          // go-ds-measure: a missing key is not an error
          if ((err as { name?: string }).name !== 'NotFoundError') when(c => { metric(c).errors.inc() })
          end(); throw err
        })
      }
      end()
      return result
    }
  }
}

/** go-ds-measure's Batch: batchput/batchdelete/batchcommit totals, errors and latencies */
function measureBatches (when: When, registry: () => client.Registry, ds: Datastore): void {
  interface Made { total: client.Counter, errors: client.Counter, latency: client.Histogram }
  let metrics: { put: Made, size: client.Histogram, del: Made, commit: Made } | undefined
  const of = (c: Client): NonNullable<typeof metrics> => {
    if (metrics != null) return metrics
    const registers = [registry()]
    const make = (op: string, call: string): Made => {
      const p = `ipfs_fsrepo_datastore_${op}`
      return {
        total: new c.Counter({ name: `${p}_total`, help: `Total number of ${call} calls`, registers }),
        errors: new c.Counter({ name: `${p}_errors_total`, help: `Number of errored ${call} calls`, registers }),
        latency: new c.Histogram({ name: `${p}_latency_seconds`, help: `Latency distribution of ${call} calls`, buckets: LATENCY, registers })
      }
    }
    const put = make('batchput', 'Batch.Put')
    const size = new c.Histogram({ name: 'ipfs_fsrepo_datastore_batchput_size_bytes', help: 'Size distribution of byte slices put into batches', buckets: SIZES, registers })
    metrics = { put, size, del: make('batchdelete', 'Batch.Delete'), commit: make('batchcommit', 'Batch.Commit') }
    return metrics
  }
  when(c => { of(c) })
  const orig = ds.batch.bind(ds)
  ds.batch = () => {
    const b = orig()
    const bput = b.put.bind(b)
    const bdel = b.delete.bind(b)
    const bcommit = b.commit.bind(b)
    b.put = (key, value) => {
      const n = value.byteLength
      when(c => { const m = of(c); m.put.total.inc(); m.size.observe(n) })
      const start = process.hrtime.bigint()
      try { bput(key, value) } finally { const s = seconds(start); when(c => { of(c).put.latency.observe(s) }) }
    }
    b.delete = (key) => {
      when(c => { of(c).del.total.inc() })
      const start = process.hrtime.bigint()
      try { bdel(key) } finally { const s = seconds(start); when(c => { of(c).del.latency.observe(s) }) }
    }
    b.commit = async (options) => {
      when(c => { of(c).commit.total.inc() })
      const start = process.hrtime.bigint()
      try { await bcommit(options) } catch (err) { when(c => { of(c).commit.errors.inc() }); throw err } finally { const s = seconds(start); when(c => { of(c).commit.latency.observe(s) }) }
    }
    return b
  }
}

/** a histogram from running totals (a count and a sum, one +Inf bucket), as text */
function totalsHistogram (name: string, help: string, count: number, sum: number): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} histogram\n${name}_bucket{le="+Inf"} ${count}\n${name}_sum ${sum}\n${name}_count ${count}\n`
}

const perContainer = new WeakMap<object, Metrics>()

/** The metrics of one node (made once per container: the datastore is measured from then on) */
export function metricsFor (container: AwilixContainer<Cradle>): Metrics {
  const found = perContainer.get(container)
  if (found != null) return found
  const cradle = container.cradle
  let loaded: { client: Client, registry: client.Registry } | undefined
  let loading: Promise<void> | undefined
  let queue: Array<(c: Client) => void> = []
  const load = async (): Promise<void> => {
    loading ??= import('prom-client').then(({ default: c }) => {
      const registry = new c.Registry()
      loaded = { client: c, registry }
      for (const fn of queue) fn(c)
      queue = []
    })
    await loading
  }
  const when: When = (fn) => {
    if (loaded != null) { fn(loaded.client); return }
    queue.push(fn)
    if (queue.length === MAX_QUEUED) void load()
  }
  const registry = (): client.Registry => loaded!.registry
  setTimeout(() => { void load() }, LOAD_AFTER_MS).unref()
  const labels = { handler: 'api' }
  let http: { requests: client.Counter, duration: BatchSummary, reqSize: BatchSummary, resSize: BatchSummary } | undefined
  when((c) => {
    const registers = [registry()]
    // prom-client's defaults; nodejs_gc_duration_seconds from the first scrape on (text()): its GC observer
    // makes objects per collection that outlive scavenges, ~3/4 of what the gateway promoted under wrk
    // (old-generation garbage: a mark-compact pause every few seconds)
    for (const name of c.collectDefaultMetrics.metricsList) if (name !== 'gc') defaultMetric(name)(registry(), DEFAULTS)
    const requests = new c.Counter({ name: 'ipfs_http_requests_total', help: 'Total number of HTTP requests made.', labelNames: ['code', 'handler', 'method'], registers })
    const summary = (name: string, help: string): BatchSummary => {
      const s = new BatchSummary(name, help, labels, OBJECTIVES)
      registry().registerMetric(s as unknown as client.Metric)
      return s
    }
    const duration = summary('ipfs_http_request_duration_seconds', 'The HTTP request latencies in seconds.')
    const reqSize = summary('ipfs_http_request_size_bytes', 'The HTTP request sizes in bytes.')
    const resSize = summary('ipfs_http_response_size_bytes', 'The HTTP response sizes in bytes.')
    http = { requests, duration, reqSize, resSize }
    const info = new c.Gauge({ name: 'ipfs_info', help: 'Kubo IPFS version information.', labelNames: ['commit', 'version', 'agent'], registers })
    info.set({ commit: '', version: KUBO_VERSION, agent: AGENT_VERSION }, 1)
    // eslint-disable-next-line no-new
    new c.Gauge({
      name: 'ipfs_p2p_peers_total',
      help: 'Number of connected peers',
      labelNames: ['transport'],
      registers,
      collect () {
        this.reset()
        const libp2p = cradle.libp2p
        if (libp2p == null) return
        const counts = new Map<string, number>()
        for (const peer of libp2p.getPeers()) {
          const conn = libp2p.getConnections(peer)[0]
          if (conn == null) continue
          const tr = conn.remoteAddr.getComponents().filter(c => c.name !== 'p2p').map(c => '/' + c.name).join('')
          counts.set(tr, (counts.get(tr) ?? 0) + 1)
        }
        for (const [transport, n] of counts) this.set({ transport }, n)
      }
    })
    // eslint-disable-next-line no-new
    new c.Gauge({
      name: 'ipfs_bitswap_wantlist_total',
      help: 'Number of items in wantlist.',
      registers,
      collect () { this.set(cradle.bitswap?.wantlist().length ?? 0) }
    })
  })
  measureDatastore(when, registry, cradle.datastore)
  measureBatches(when, registry, cradle.datastore)
  const pending: HttpObservation[] = []
  let gcObserved = false
  const flushHttp = (): void => {
    if (http == null || pending.length === 0) return
    const counts = new Map<string, { code: string, method: string, n: number }>()
    const n = pending.length
    const seconds = new Float64Array(n)
    const requestBytes = new Float64Array(n)
    const responseBytes = new Float64Array(n)
    for (let i = 0; i < n; i++) {
      const o = pending[i]
      const key = `${o.code} ${o.method}`
      const c = counts.get(key)
      if (c != null) c.n++
      else counts.set(key, { code: String(o.code), method: o.method.toLowerCase(), n: 1 })
      seconds[i] = o.seconds
      requestBytes[i] = o.requestBytes
      responseBytes[i] = o.responseBytes
    }
    pending.length = 0
    http.duration.observeAll(seconds)
    http.reqSize.observeAll(requestBytes)
    http.resSize.observeAll(responseBytes)
    for (const { code, method, n } of counts.values()) http.requests.inc({ code, handler: 'api', method }, n)
  }
  const metrics: Metrics = {
    contentType: CONTENT_TYPE,
    observeHttp: (o) => {
      // kept until the next scrape (or a full batch): prom-client's label hashing per call cost more than the rest of a small request's metrics
      pending.push(o)
      if (pending.length % HTTP_BATCH !== 0) return
      if (http != null) flushHttp()
      else if (pending.length >= MAX_QUEUED) void load()
    },
    text: async () => {
      await load()
      if (!gcObserved) {
        gcObserved = true
        defaultMetric('gc')(registry(), DEFAULTS)
      }
      flushHttp()
      let out = await registry().metrics()
      const c = cradle.bitswap?.counters()
      if (c != null) {
        // boxo's bitswap histograms, from the running totals bitswap keeps
        out += totalsHistogram('ipfs_bitswap_recv_all_blocks_bytes', 'Summary of all data blocks recived', c.BlocksReceived, c.DataReceived)
        out += totalsHistogram('ipfs_bitswap_recv_dup_blocks_bytes', 'Summary of duplicate data blocks recived', c.DupBlksReceived, c.DupDataReceived)
        out += totalsHistogram('ipfs_bitswap_sent_all_blocks_bytes', 'Histogram of blocks sent by this bitswap', c.BlocksSent, c.DataSent)
      }
      return out
    }
  }
  perContainer.set(container, metrics)
  return metrics
}
