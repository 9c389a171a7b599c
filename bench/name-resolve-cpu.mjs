// CPU per cached name/resolve and per version request through the RPC app, in one process (server and client
// together), for comparing builds when the machine is too busy for wall-clock figures: batches alternate and the
// least CPU per request of any batch is kept. Usage: node bench/name-resolve-cpu.mjs <dist> [<other dist> ...]
import http from 'node:http'
import path from 'node:path'
const dists = process.argv.slice(2)
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const call = (port, p) => new Promise((resolve, reject) => {
  const r = http.request({ host: '127.0.0.1', port, path: p, method: 'POST', agent }, res => { let b = ''; res.on('data', d => { b += d }); res.on('end', () => res.statusCode === 200 ? resolve(b) : reject(new Error(b))) })
  r.on('error', reject); r.end()
})
async function serve (dist) {
  const { createTestNode } = await import(path.join(dist, 'test/helpers/node.js'))
  const { createRpcApp } = await import(path.join(dist, 'server/app.js'))
  const node = await createTestNode()
  let port = 0
  const server = http.createServer({ keepAlive: true }, createRpcApp({ container: node.container, port: () => port, direct: true }).callback())
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
  port = server.address().port
  const add = JSON.parse(await new Promise((resolve, reject) => {
    const b = 'bnd'; const body = `--${b}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\nContent-Type: application/octet-stream\r\n\r\nhello ${dist}\r\n--${b}--\r\n`
    const r = http.request({ host: '127.0.0.1', port, path: '/api/v0/add', method: 'POST', agent, headers: { 'content-type': `multipart/form-data; boundary=${b}` } }, res => { let s = ''; res.on('data', d => { s += d }); res.on('end', () => resolve(s)) })
    r.on('error', reject); r.end(body)
  }))
  const pub = JSON.parse(await call(port, `/api/v0/name/publish?arg=/ipfs/${add.Hash}&allow-offline=true`))
  return { port, name: pub.Name }
}
const servers = []
for (const d of dists) servers.push(await serve(d))
const best = servers.map(() => ({ resolve: Infinity, version: Infinity }))
for (let b = 0; b < 12; b++) {
  for (let i = 0; i < servers.length; i++) {
    for (const [k, p] of [['resolve', `/api/v0/name/resolve?arg=/ipns/${servers[i].name}`], ['version', '/api/v0/version']]) {
      const c0 = process.cpuUsage()
      for (let j = 0; j < 400; j++) await call(servers[i].port, p)
      const c = process.cpuUsage(c0)
      best[i][k] = Math.min(best[i][k], (c.user + c.system) / 400)
    }
  }
}
dists.forEach((d, i) => console.log(d, `name/resolve cached ${best[i].resolve.toFixed(0)} µs/req, version ${best[i].version.toFixed(0)} µs/req`))
process.exit(0)
