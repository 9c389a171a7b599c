// Prometheus metrics for /debug/metrics/prometheus (prom-client), with Kubo's names where they map:
// ipfs_http_* (the API's request counter and summaries), ipfs_fsrepo_datastore_* (go-ds-measure over the
// datastore), ipfs_bitswap_* (bitswap's counters), ipfs_p2p_peers_total, ipfs_info, and prom-client's
// process_* / nodejs_* defaults in place of Go's process_* / go_*.
import client from 'prom-client'
import type { Datastore } from 'interface-datastore'
import type { AwilixContainer } from 'awilix'
import type { Cradle } from '../core/cradle.js'
import { AGENT_VERSION, KUBO_VERSION } from '../core/version.js'

interface HttpObservation { method: string, code: number, seconds: number, requestBytes: number, responseBytes: number }

/** API requests observed before they are handed to prom-client in one go */
const HTTP_BATCH = 256

export interface Metrics {
  registry: client.Registry
  /** count one API request (Kubo's MetricsCollectionOption("api")); visible from the next text() */
  observeHttp: (o: HttpObservation) => void
  text: () => Promise<string>
}

const OBJECTIVES = [0.5, 0.9, 0.99]
/** go-ds-measure's buckets */
const LATENCY = [0.0001, 0.001, 0.01, 0.1, 1]
const SIZES = [64, 4096, 262144, 16777216]

/** go-ds-measure: <op>_total, <op>_errors_total, <op>_latency_seconds (and sizes) for each datastore call */
function measureDatastore (registry: client.Registry, ds: Datastore): void {
  const ops: Array<[keyof Datastore & string, string, string, 'put' | 'get' | undefined]> = [
    ['get', 'get', 'Datastore.Get', 'get'], ['put', 'put', 'Datastore.Put', 'put'], ['has', 'has', 'Datastore.Has', undefined],
    ['delete', 'delete', 'Datastore.Delete', undefined], ['query', 'query', 'Datastore.Query', undefined], ['queryKeys', 'query', 'Datastore.Query', undefined]
  ]
  const made = new Map<string, { total: client.Counter, errors: client.Counter, latency: client.Histogram, size?: client.Histogram }>()
  for (const [method, op, call, sized] of ops) {
    let m = made.get(op)
    if (m == null) {
      const p = `ipfs_fsrepo_datastore_${op}`
      m = {
        total: new client.Counter({ name: `${p}_total`, help: `Total number of ${call} calls`, registers: [registry] }),
        errors: new client.Counter({ name: `${p}_errors_total`, help: `Number of errored ${call} calls`, registers: [registry] }),
        latency: new client.Histogram({ name: `${p}_latency_seconds`, help: `Latency distribution of ${call} calls`, buckets: LATENCY, registers: [registry] }),
        size: sized == null ? undefined : new client.Histogram({ name: `${p}_size_bytes`, help: sized === 'get' ? 'Size distribution of retrieved byte slices' : 'Size distribution of stored byte slices', buckets: SIZES, registers: [registry] })
      }
      made.set(op, m)
    }
    const orig = (ds as any)[method] as ((...a: unknown[]) => unknown) | undefined
    if (typeof orig !== 'function') continue
    const metric = m
    ;(ds as any)[method] = function (...args: unknown[]) {
      metric.total.inc()
      if (sized === 'put' && args[1] instanceof Uint8Array) metric.size?.observe(args[1].byteLength)
      const end = metric.latency.startTimer()
      let result: unknown
      try {
        result = orig.apply(ds, args)
      } catch (err) {
        metric.errors.inc(); end(); throw err
      }
      if (result instanceof Promise) {
        return result.then((v: unknown) => {
          end()
          if (sized === 'get' && v instanceof Uint8Array) metric.size?.observe(v.byteLength)
          return v
        }, (err: unknown) => {
          // go-ds-measure: a missing key is not an error
          if ((err as { name?: string }).name !== 'NotFoundError') metric.errors.inc()
          end(); throw err
        })
      }
      end()
      return result
    }
  }
}

/** go-ds-measure's Batch: batchput/batchdelete/batchcommit totals, errors and latencies */
function measureBatches (registry: client.Registry, ds: Datastore): void {
  const make = (op: string, call: string): { total: client.Counter, errors: client.Counter, latency: client.Histogram } => {
    const p = `ipfs_fsrepo_datastore_${op}`
    return {
      total: new client.Counter({ name: `${p}_total`, help: `Total number of ${call} calls`, registers: [registry] }),
      errors: new client.Counter({ name: `${p}_errors_total`, help: `Number of errored ${call} calls`, registers: [registry] }),
      latency: new client.Histogram({ name: `${p}_latency_seconds`, help: `Latency distribution of ${call} calls`, buckets: LATENCY, registers: [registry] })
    }
  }
  const put = make('batchput', 'Batch.Put')
  const size = new client.Histogram({ name: 'ipfs_fsrepo_datastore_batchput_size_bytes', help: 'Size distribution of byte slices put into batches', buckets: SIZES, registers: [registry] })
  const del = make('batchdelete', 'Batch.Delete')
  const commit = make('batchcommit', 'Batch.Commit')
  const orig = ds.batch.bind(ds)
  ds.batch = () => {
    const b = orig()
    const bput = b.put.bind(b)
    const bdel = b.delete.bind(b)
    const bcommit = b.commit.bind(b)
    b.put = (key, value) => { put.total.inc(); size.observe(value.byteLength); const end = put.latency.startTimer(); try { bput(key, value) } finally { end() } }
    b.delete = (key) => { del.total.inc(); const end = del.latency.startTimer(); try { bdel(key) } finally { end() } }
    b.commit = async (options) => {
      commit.total.inc()
      const end = commit.latency.startTimer()
      try { await bcommit(options) } catch (err) { commit.errors.inc(); throw err } finally { end() }
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
  const registry = new client.Registry()
  client.collectDefaultMetrics({ register: registry })
  const labels = { handler: 'api' }
  const requests = new client.Counter({ name: 'ipfs_http_requests_total', help: 'Total number of HTTP requests made.', labelNames: ['code', 'handler', 'method'], registers: [registry] })
  const summary = (name: string, help: string): client.Summary => new client.Summary({ name, help, labelNames: ['handler'], percentiles: OBJECTIVES, registers: [registry] })
  const duration = summary('ipfs_http_request_duration_seconds', 'The HTTP request latencies in seconds.')
  const reqSize = summary('ipfs_http_request_size_bytes', 'The HTTP request sizes in bytes.')
  const resSize = summary('ipfs_http_response_size_bytes', 'The HTTP response sizes in bytes.')
  const info = new client.Gauge({ name: 'ipfs_info', help: 'Kubo IPFS version information.', labelNames: ['commit', 'version', 'agent'], registers: [registry] })
  info.set({ commit: '', version: KUBO_VERSION, agent: AGENT_VERSION }, 1)
  const cradle = container.cradle
  // eslint-disable-next-line no-new
  new client.Gauge({
    name: 'ipfs_p2p_peers_total',
    help: 'Number of connected peers',
    labelNames: ['transport'],
    registers: [registry],
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
  new client.Gauge({
    name: 'ipfs_bitswap_wantlist_total',
    help: 'Number of items in wantlist.',
    registers: [registry],
    collect () { this.set(cradle.bitswap?.wantlist().length ?? 0) }
  })
  measureDatastore(registry, cradle.datastore)
  measureBatches(registry, cradle.datastore)
  const pending: HttpObservation[] = []
  const flushHttp = (): void => {
    if (pending.length === 0) return
    const counts = new Map<string, { code: string, method: string, n: number }>()
    for (const { method, code, seconds, requestBytes, responseBytes } of pending) {
      const key = `${code} ${method}`
      const c = counts.get(key)
      if (c != null) c.n++
      else counts.set(key, { code: String(code), method: method.toLowerCase(), n: 1 })
      duration.observe(labels, seconds)
      reqSize.observe(labels, requestBytes)
      resSize.observe(labels, responseBytes)
    }
    pending.length = 0
    for (const { code, method, n } of counts.values()) requests.inc({ code, handler: 'api', method }, n)
  }
  const metrics: Metrics = {
    registry,
    observeHttp: (o) => {
      // kept until the next scrape (or a full batch): prom-client's label hashing per call cost more than the rest of a small request's metrics
      pending.push(o)
      if (pending.length >= HTTP_BATCH) flushHttp()
    },
    text: async () => {
      flushHttp()
      let out = await registry.metrics()
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
