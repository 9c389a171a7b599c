// What Kubo serves on the API port beside /api/v0 (corehttp: MetricsScrapingOption, LogOption, the Go
// default mux's /debug/vars and /debug/pprof/): Prometheus metrics, the log stream, process vars, and the
// profiles that map to Node (CPU, heap); Kubo's 404 texts for the rest.
import type { Context } from 'koa'
import type { IncomingMessage } from 'node:http'
import { PassThrough } from 'node:stream'
import v8 from 'node:v8'
import type { AwilixContainer } from 'awilix'
import type { Cradle } from '../core/cradle.js'
import { cpuProfile, heapProfile, resourcesText } from '../core/diag/profile.js'
import { logLine } from '../plugins/log/tail.js'
import { severity } from '../plugins/log/levels.js'
import { metricsFor } from './metrics.js'

const PROFILES: Array<[string, string]> = [
  ['allocs', 'A sampling of the memory allocations made during the next ?seconds= (default 30), as a V8 .heapprofile'],
  ['goroutine', "The event loop's live resources and the main thread's stack (Node has no goroutines)"],
  ['heap', 'The live heap, as a V8 heap snapshot (.heapsnapshot)'],
  ['profile', 'A V8 CPU profile (.cpuprofile). You can specify the duration in the seconds GET parameter.']
]

function text (ctx: Context, status: number, body: string): void {
  ctx.status = status
  ctx.set('Content-Type', 'text/plain; charset=utf-8')
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.body = body
}

function index (): string {
  const rows = PROFILES.map(([name, help]) => `<tr><td><a href='${name}?debug=1'>${name}</a></td><td>${help}</td></tr>`).join('\n')
  return `<html>\n<head>\n<title>/debug/pprof/</title>\n</head>\n<body>\n/debug/pprof/\n<br>\n<p>tsipfs: the profiles Node can take (V8 formats; open them in Chrome DevTools)</p>\n<table>\n<thead><td>Profile</td><td>Description</td></thead>\n${rows}\n</table>\n</body>\n</html>\n`
}

const seconds = (ctx: Context, dflt: number): number => {
  const s = Number(ctx.query.seconds ?? dflt)
  return Number.isFinite(s) && s >= 0 ? s : dflt
}

/** Answer /debug/... and /logs; false when the path is not one of them */
export async function serveDebug (ctx: Context, container: AwilixContainer<Cradle>): Promise<boolean> {
  const p = ctx.path
  if (p === '/logs') {
    // Kubo: any method, every log line as it is written (go-log's pipe reader), until the client goes away
    const { logging } = container.cradle
    const ac = new AbortController()
    ctx.req.once('close', () => { ac.abort() })
    const events = logging.tail(ac.signal)
    logging.forComponent('core/server').info('log API client connected')
    const out = new PassThrough()
    ctx.status = 200
    ctx.set('Content-Type', 'text/plain; charset=utf-8')
    ctx.body = out
    ctx.res.flushHeaders()
    void (async () => {
      for await (const event of events) {
        // what each subsystem's level lets through, as go-log's pipe reader
        if (severity(event.level) < severity(logging.getLevel(event.logger))) continue
        if (!out.write(logLine(event))) await new Promise(resolve => out.once('drain', resolve))
      }
      out.end()
    })().catch(() => { out.end() })
    return true
  }
  if (!p.startsWith('/debug/')) return false
  if (p === '/debug/metrics/prometheus' || p === '/debug/vars' || p.startsWith('/debug/pprof/')) {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD')
      text(ctx, 405, 'Method Not Allowed\n')
      return true
    }
  }
  if (p === '/debug/metrics/prometheus') {
    const metrics = metricsFor(container)
    ctx.status = 200
    ctx.set('Content-Type', metrics.contentType)
    ctx.body = await metrics.text()
    return true
  }
  if (p === '/debug/vars') {
    // Go's expvar: cmdline and memstats (here Node's process.memoryUsage(), V8's heap spaces and resource usage)
    ctx.status = 200
    ctx.set('Content-Type', 'application/json; charset=utf-8')
    const heapSpaces = Object.fromEntries(v8.getHeapSpaceStatistics().map(s => [s.space_name, { size: s.space_size, used: s.space_used_size, committed: s.physical_space_size }]))
    ctx.body = JSON.stringify({ cmdline: process.argv, memstats: process.memoryUsage(), heapSpaces, resourceUsage: process.resourceUsage() }, null, 0) + '\n'
    return true
  }
  if (p === '/debug/pprof/') {
    ctx.status = 200
    ctx.set('Content-Type', 'text/html; charset=utf-8')
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.body = index()
    return true
  }
  const ac = new AbortController()
  ctx.req.once('close', () => { ac.abort() })
  const bytes = (name: string, data: Uint8Array): void => {
    ctx.status = 200
    ctx.set('Content-Type', 'application/octet-stream')
    ctx.set('Content-Disposition', `attachment; filename="${name}"`)
    ctx.body = Buffer.from(data)
  }
  switch (p) {
    case '/debug/pprof/profile': bytes('profile.cpuprofile', await cpuProfile(seconds(ctx, 30) * 1000, ac.signal)); return true
    case '/debug/pprof/heap':
      ctx.status = 200
      ctx.set('Content-Type', 'application/octet-stream')
      ctx.set('Content-Disposition', 'attachment; filename="heap.heapsnapshot"')
      ctx.body = v8.getHeapSnapshot()
      return true
    case '/debug/pprof/allocs': bytes('allocs.heapprofile', await heapProfile(seconds(ctx, 30) * 1000, ac.signal)); return true
    case '/debug/pprof/goroutine': text(ctx, 200, resourcesText()); return true
  }
  if (p.startsWith('/debug/pprof/')) { text(ctx, 404, 'Unknown profile\n'); return true }
  return false
}

/** go's computeApproximateRequestSize for ipfs_http_request_size_bytes */
export function approximateRequestSize (req: IncomingMessage): number {
  let s = (req.url ?? '').length + (req.method ?? '').length + `HTTP/${req.httpVersion}`.length
  const raw = req.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i].toLowerCase() !== 'host') s += raw[i].length + raw[i + 1].length
  s += (req.headers.host ?? '').length
  const len = Number(req.headers['content-length'] ?? '')
  if (Number.isFinite(len) && len > 0) s += len
  return s
}
