// Issue 10 part 4 and the smaller differences from Kubo, against a spawned daemon: Go's header limit,
// CONNECT, %00 in gateway paths, long CPU-bound requests (other requests served, `timeout`, SIGTERM),
// slow clients, bodies that never end, and clients that leave mid-stream (no leaked descriptors or locks).
import { expect } from 'chai'
import http from 'node:http'
import net from 'node:net'
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { startDaemon, waitExit, type Daemon } from '../helpers/daemon.js'

interface Reply { status: number, headers: http.IncomingHttpHeaders, body: string }

async function request (url: string, opts: { method?: string, headers?: Record<string, string>, body?: string | Buffer } = {}): Promise<Reply> {
  return await new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'POST', headers: opts.headers, agent: false }, res => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}

/** Raw bytes in, the reply's first bytes out. */
async function raw (port: number, text: string, wait = 'Content-Length: 0\r\n\r\n'): Promise<string> {
  return await new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(text))
    let out = ''
    s.on('data', (c: Buffer) => { out += c.toString('latin1'); if (out.includes(wait)) { s.destroy(); resolve(out) } })
    s.on('error', reject)
    s.on('close', () => resolve(out))
  })
}

const multipart = (content: string): { body: string, headers: Record<string, string> } => ({
  body: `--B\r\nContent-Disposition: form-data; name="file"; filename="f"\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n--B--\r\n`,
  headers: { 'Content-Type': 'multipart/form-data; boundary=B' }
})

/** The process that serves (bin/tsipfs.js may re-run itself with the project's Node). */
function servingPid (d: Daemon): number {
  const pid = d.proc.pid as number
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    return children.length > 0 ? children[0] : pid
  } catch {
    return pid
  }
}
const openFds = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length
const sleep = async (ms: number): Promise<void> => { await new Promise(resolve => setTimeout(resolve, ms)) }

describe('daemon hardening (issue 10)', function () {
  this.timeout(180_000)
  let d: Daemon
  let gw: string
  let apiPort: number
  let gwPort: number
  before(async () => {
    d = await startDaemon({ config: { 'Addresses.Gateway': '/ip4/127.0.0.1/tcp/0' } })
    gw = readFileSync(path.join(d.repo, 'gateway'), 'utf8').trim()
    apiPort = Number(new URL(d.url).port)
    gwPort = Number(new URL(gw).port)
  })
  after(async () => { await d?.stop() })

  it('answers CONNECT with an empty 200 on the API and on the gateway, as Go\'s net/http', async () => {
    for (const port of [apiPort, gwPort]) {
      const reply = await raw(port, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
      expect(reply).to.match(/^HTTP\/1\.1 200 OK\r\n/)
      expect(reply).to.include('\r\nContent-Length: 0\r\n\r\n')
    }
  })

  it('takes request headers up to Go\'s 1 MiB: 10k args, a long If-None-Match; 431 beyond', async () => {
    const cid = 'bafkqaaa'
    const args = Array.from({ length: 10_000 }, () => `arg=${cid}`).join('&')
    const r = await request(`${d.url}/api/v0/cid/base32?${args}`)
    expect(r.status).to.equal(200)
    expect(r.body.trim().split('\n')).to.have.length(10_000)
    const etag = `"${cid}"`
    const inm = [...Array.from({ length: 4000 }, (_, i) => `"x${i}-${'y'.repeat(20)}"`), etag].join(', ')
    expect(inm.length).to.be.above(64 * 1024)
    const g = await request(`${gw}/ipfs/${cid}`, { method: 'GET', headers: { 'If-None-Match': inm } })
    expect(g.status).to.equal(304)
    const big = await request(`${d.url}/api/v0/version`, { headers: { 'X-Big': 'a'.repeat(1 << 21) } }).catch((err: Error) => ({ status: -1, body: err.message }))
    expect([431, -1]).to.include(big.status)
  })

  it('a client that half-closes after its request still gets the answer, as from Go\'s net/http', async () => {
    const halfClosed = async (port: number, text: string): Promise<string> => await new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => s.end(text))
      let out = ''
      s.on('data', (c: Buffer) => { out += c.toString('latin1') })
      s.on('error', reject)
      s.on('close', () => resolve(out))
    })
    const body = '--B\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\nhalf-closed\r\n--B--\r\n'
    const put = await halfClosed(apiPort, `POST /api/v0/block/put?cid-codec=raw HTTP/1.1\r\nHost: a\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
    expect(put).to.match(/^HTTP\/1\.1 200 OK\r\n/)
    const key = /"Key":"(\w+)"/.exec(put)?.[1]
    expect(key, put).to.be.a('string')
    const dir = JSON.parse((await request(`${d.url}/api/v0/add?wrap-with-directory=true&quiet=true`, multipart('x'))).body.trim().split('\n').pop() as string).Hash as string
    const listing = await halfClosed(gwPort, `GET /ipfs/${dir}/ HTTP/1.1\r\nHost: a\r\n\r\n`)
    expect(listing).to.match(/^HTTP\/1\.1 200 OK\r\n/)
    expect(listing).to.include('</html>')
  })

  it('%00 in a gateway path gets Kubo\'s 404 and text, not a 500', async () => {
    const dir = JSON.parse((await request(`${d.url}/api/v0/add?wrap-with-directory=true&quiet=true&cid-version=1`, multipart('x'))).body.trim().split('\n').pop() as string).Hash as string
    const r = await request(`${gw}/ipfs/${dir}/%00`, { method: 'GET' })
    expect(r.status).to.equal(404)
    expect(r.body).to.equal(`failed to resolve /ipfs/${dir}/\\x00: no link named "\\x00" under ${dir}\n`)
  })

  it('a files write zero-filling 1 TiB lets other requests through and ends at its `timeout`', async () => {
    const started = request(`${d.url}/api/v0/files/write?arg=/sparse&create=true&offset=${2 ** 40}&timeout=3s`, multipart('x'))
    await sleep(500)
    for (let i = 0; i < 3; i++) {
      const v = await request(`${d.url}/api/v0/version`)
      expect(v.status).to.equal(200)
    }
    const r = await started
    expect(r.status).to.equal(500)
    expect(JSON.parse(r.body).Message).to.equal('context deadline exceeded')
    // the MFS lock is free and nothing was half-written
    const w = await request(`${d.url}/api/v0/files/write?arg=/after&create=true`, multipart('ok'))
    expect(w.status).to.equal(200)
    const ls = JSON.parse((await request(`${d.url}/api/v0/files/ls?arg=/&long=true`)).body) as { Entries: Array<{ Name: string, Size: number }> }
    expect(ls.Entries.find(e => e.Name === 'sparse')?.Size ?? 0).to.equal(0)
  })

  it('200 slow clients sending headers a byte at a time do not stop normal requests', async () => {
    const sockets: net.Socket[] = []
    for (let i = 0; i < 200; i++) {
      const s = net.connect(i % 2 === 0 ? apiPort : gwPort, '127.0.0.1')
      s.on('error', () => {})
      s.write('POST /api/v0/version HTTP/1.1\r\nHost: x\r\n')
      sockets.push(s)
    }
    const drip = setInterval(() => { for (const s of sockets) s.write('X') }, 100)
    try {
      await sleep(300)
      for (let i = 0; i < 5; i++) {
        expect((await request(`${d.url}/api/v0/version`)).status).to.equal(200)
        expect((await request(`${gw}/ipfs/bafkqaaa`, { method: 'GET' })).status).to.equal(200)
      }
    } finally {
      clearInterval(drip)
      for (const s of sockets) s.destroy()
    }
  })

  it('bodies that never end and clients that leave mid-stream leak no descriptors or locks', async () => {
    const pid = servingPid(d)
    const big = 'z'.repeat(8 << 20)
    const added = JSON.parse((await request(`${d.url}/api/v0/add?quiet=true`, multipart(big))).body.trim()) as { Hash: string }
    await sleep(500)
    const before = openFds(pid)
    for (let round = 0; round < 20; round++) {
      // an upload whose body never ends, into MFS (holds the MFS lock while it runs)
      const endless = http.request(`${d.url}/api/v0/files/write?arg=/endless${round}&create=true`, { method: 'POST', agent: false, headers: { 'Content-Type': 'multipart/form-data; boundary=B' } })
      endless.on('error', () => {})
      endless.write('--B\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\n')
      endless.write('partial data')
      // a cat and a gateway read left after the first bytes
      for (const url of [`${d.url}/api/v0/cat?arg=${added.Hash}`, `${gw}/ipfs/${added.Hash}`]) {
        await new Promise<void>((resolve) => {
          const req = http.request(url, { method: url.includes('/api/') ? 'POST' : 'GET', agent: false }, res => {
            res.once('data', () => { req.destroy(); resolve() })
          })
          req.on('error', () => resolve())
          req.end()
        })
      }
      await sleep(50)
      endless.destroy()
    }
    await sleep(1500)
    // the gc lock and the MFS lock are free: gc runs, MFS writes go through
    const gc = await request(`${d.url}/api/v0/repo/gc`)
    expect(gc.status).to.equal(200)
    expect((await request(`${d.url}/api/v0/files/write?arg=/free&create=true`, multipart('ok'))).status).to.equal(200)
    const after = openFds(pid)
    expect(after, `descriptors before ${before}, after ${after}`).to.be.at.most(before + 5)
  })

  it('SIGTERM stops the daemon while a long CPU-bound request runs', async () => {
    const pending = request(`${d.url}/api/v0/files/write?arg=/sparse2&create=true&offset=${2 ** 42}`, multipart('x')).catch(() => undefined)
    await sleep(500)
    d.proc.kill('SIGTERM')
    const t0 = Date.now()
    await waitExit(d)
    expect(Date.now() - t0).to.be.below(20_000)
    await pending
  })
})
