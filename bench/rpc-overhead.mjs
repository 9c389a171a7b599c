// CPU per RPC request through the API app, in one process (server and client together), for comparing
// builds and paths when the machine is too busy for wall-clock figures: batches of each variant
// alternate and the least CPU per request of any batch is reported (contention only ever adds).
// Usage: node bench/rpc-overhead.mjs [batches=15] [perBatch=400] [otherDist=/work/main/dist]
// Variants: this build (direct path), this build through Koa only, a bare node:http server (the floor,
// client included), and otherDist's app if given.
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const [batches = 15, perBatch = 400] = process.argv.slice(2, 4).map(Number)
const other = process.argv[4]
const ownDist = path.join(here, '..', 'dist')

async function serve (dist, direct) {
  const { createTestNode } = await import(path.join(dist, 'test/helpers/node.js'))
  const { createRpcApp, CountedResponse } = await import(path.join(dist, 'server/app.js'))
  const node = await createTestNode()
  let port = 0
  // the daemon's API server answers (a build that has them)
  const server = http.createServer({ keepAlive: true, ...(CountedResponse != null ? { ServerResponse: CountedResponse } : {}) }, createRpcApp({ container: node.container, port: () => port, direct }).callback())
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
  port = server.address().port
  return { port, close: async () => { await new Promise(resolve => server.close(resolve)); await node.stop() } }
}

const boundary = 'blockputboundary'
const pre = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="data"\r\nContent-Type: application/octet-stream\r\n\r\n`)
const post = Buffer.from(`\r\n--${boundary}--\r\n`)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const request = (port, p, body, headers = {}) => new Promise((resolve, reject) => {
  const r = http.request({ host: '127.0.0.1', port, path: p, method: 'POST', agent, headers }, res => {
    res.resume()
    res.on('end', () => res.statusCode === 200 ? resolve() : reject(new Error(`${p}: ${res.statusCode}`)))
  })
  r.on('error', reject)
  r.end(body)
})
const workloads = {
  version: (port) => request(port, '/api/v0/version'),
  'block/put 1 KiB': (port) => {
    const body = Buffer.concat([pre, randomBytes(1024), post])
    return request(port, '/api/v0/block/put?cid-codec=raw', body, { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length })
  },
  'block/stat': (port) => request(port, '/api/v0/block/stat?arg=bafkqaaa')
}

const variants = [['direct', await serve(ownDist, true)]]
if (process.env.DIRECT_ONLY == null) variants.push(['koa', await serve(ownDist, false)])
// the floor: a bare node:http server reading the body and answering a small chunked JSON value
const bare = http.createServer({ keepAlive: true }, (req, res) => {
  req.resume()
  req.on('end', () => { res.setHeader('Content-Type', 'application/json'); res.setHeader('Trailer', 'X-Stream-Error'); res.end('{"Key":"x","Size":1024}\n') })
})
await new Promise(resolve => bare.listen(0, '127.0.0.1', resolve))
variants.push(['bare node:http', { port: bare.address().port, close: async () => { await new Promise(resolve => bare.close(resolve)) } }])
if (other != null) variants.push([`other (${other})`, await serve(other, undefined)])
const only = process.env.WORKLOAD
for (const [name, run] of Object.entries(workloads)) {
  if (only != null && !name.startsWith(only)) continue
  const best = new Map()
  for (const [v, s] of variants) for (let i = 0; i < 100; i++) await run(s.port)
  for (let b = 0; b < batches; b++) {
    for (const [v, s] of variants) {
      const c0 = process.cpuUsage()
      for (let i = 0; i < perBatch; i++) await run(s.port)
      const c = process.cpuUsage(c0)
      const us = (c.user + c.system) / perBatch
      best.set(v, Math.min(best.get(v) ?? Infinity, us))
    }
  }
  console.log(`${name}: ` + [...best].map(([v, us]) => `${v} ${us.toFixed(0)} us`).join(', ') + ' (least CPU per request, client included)')
}
for (const [, s] of variants) await s.close()
agent.destroy()
