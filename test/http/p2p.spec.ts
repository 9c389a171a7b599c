// p2p tunnels and the gateway's /p2p/ HTTP proxy between spawned daemons on loopback: tsipfs ↔ tsipfs,
// Kubo listening with tsipfs forwarding, tsipfs listening with Kubo forwarding, with a real TCP echo
// service and an HTTP server behind; `p2p ls` / `p2p stream ls` compared with Kubo's field by field;
// close, stream close, --report-peer-id, --foreground ended by the client going away.
import http from 'node:http'
import net from 'node:net'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { Cluster, waitFor, type Peer } from '../helpers/cluster.js'
import { kuboBinary } from '../helpers/kubo.js'
import { exchange } from '../helpers/tcp.js'

const P2P_CONFIG = { 'Experimental.Libp2pStreamMounting': true, 'Experimental.P2pHttpProxy': true, 'Routing.Type': 'dht' }

/** TCP service: echoes upper-cased, ends when the client ends; remembers the raw bytes of each connection. */
async function echoServer (): Promise<{ server: net.Server, port: number, conns: string[], open: () => number }> {
  const conns: string[] = []
  let open = 0
  const server = net.createServer({ allowHalfOpen: true }, (s) => {
    const i = conns.push('') - 1
    open++
    s.on('close', () => { open-- })
    s.on('error', () => {})
    s.on('data', (d) => { conns[i] += d.toString(); s.write(d.toString().toUpperCase()) })
    s.on('end', () => { s.end() })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as net.AddressInfo).port, conns, open: () => open }
}

/** HTTP service answering its request as JSON (404 under /missing). */
async function httpServer (): Promise<{ server: http.Server, port: number }> {
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d) => { body += String(d) })
    req.on('end', () => {
      if (req.url?.startsWith('/missing') === true) { res.writeHead(404); res.end('SORRY GUYS, I LOST IT\n'); return }
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify({ method: req.method, url: req.url, host: req.headers.host, xff: req.headers['x-forwarded-for'], body }))
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as net.AddressInfo).port }
}

async function freePort (): Promise<number> {
  const s = net.createServer()
  await new Promise<void>(resolve => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as net.AddressInfo).port
  await new Promise(resolve => s.close(resolve))
  return port
}

const gatewayOf = (p: Peer): string => readFileSync(path.join(p.repo as string, 'gateway'), 'utf8').trim()

async function get (url: string, init: { method?: string, body?: string } = {}): Promise<{ status: number, body: string, headers: http.IncomingHttpHeaders }> {
  return await new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET' }, (res) => {
      let body = ''
      res.on('data', (d) => { body += String(d) })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, body, headers: res.headers }) })
    })
    req.on('error', reject)
    req.end(init.body)
  })
}

const port = (listenAddress: string): number => Number(listenAddress.split('/')[4])

describe('p2p between daemons (tsipfs, Kubo)', function () {
  this.timeout(120_000)
  let c: Cluster
  let t1: Peer
  let t2: Peer
  let k: Peer
  let echo: Awaited<ReturnType<typeof echoServer>>
  let web: Awaited<ReturnType<typeof httpServer>>

  before(async function () {
    this.timeout(30 * 60_000) // a fresh machine builds Kubo first
    kuboBinary()
    c = new Cluster({ label: 'p2p' })
    ;[t1, t2, k] = await Promise.all([
      c.tsipfs({ name: 't1', config: P2P_CONFIG }),
      c.tsipfs({ name: 't2', config: P2P_CONFIG }),
      c.kubo({ name: 'kubo', config: P2P_CONFIG })
    ])
    echo = await echoServer()
    web = await httpServer()
    await c.connect(t1, t2)
    await c.connect(t1, k)
    await c.connect(t2, k)
  })
  after(async () => {
    await c?.stop()
    echo?.server.close()
    web?.server.close()
  })
  afterEach(async () => {
    for (const p of [t1, t2, k]) {
      if (p == null) continue
      await p.call('p2p/close', [], { all: true }).catch(() => {})
      await p.call('p2p/stream/close', [], { all: true }).catch(() => {})
    }
  })

  it('tsipfs → tsipfs: forward, listen, echo both ways; stream ls on each side; close frees the port', async () => {
    await t1.call('p2p/listen', ['/x/echo', `/ip4/127.0.0.1/tcp/${echo.port}`])
    await t2.call('p2p/forward', ['/x/echo', '/ip4/127.0.0.1/tcp/0', `/p2p/${t1.id}`])
    const fwd = (await t2.call('p2p/ls')).Listeners[0]
    expect(fwd).to.include({ Protocol: '/x/echo', TargetAddress: `/p2p/${t1.id}` })
    expect(await exchange(port(fwd.ListenAddress), 'over the tunnel')).to.equal('OVER THE TUNNEL')
    const big = 'abc'.repeat(200_000)
    expect(await exchange(port(fwd.ListenAddress), big)).to.equal(big.toUpperCase())
    await waitFor(async () => (await t1.call('p2p/stream/ls')).Streams == null && (await t2.call('p2p/stream/ls')).Streams == null, { what: 'finished tunnels to leave stream ls' })
    // nothing leaks: after 20 more tunnels, both daemons are back to their open file count
    const fds = (p: Peer): number => readdirSync(`/proc/${p.proc.pid as number}/fd`).length
    const before = [fds(t1), fds(t2)]
    const answers = await Promise.all(Array.from({ length: 20 }, async (_v, i) => await exchange(port(fwd.ListenAddress), `n${i}`)))
    expect(answers).to.deep.equal(Array.from({ length: 20 }, (_v, i) => `N${i}`))
    await waitFor(async () => (await t1.call('p2p/stream/ls')).Streams == null && (await t2.call('p2p/stream/ls')).Streams == null, { what: 'the 20 tunnels to leave stream ls' })
    await waitFor(() => echo.open() === 0 && fds(t1) <= before[0] + 2 && fds(t2) <= before[1] + 2, { what: `file descriptors to be released (before ${before.join('/')}, now ${fds(t1)}/${fds(t2)})` })
    expect(await t2.call('p2p/close', [], { protocol: '/x/echo' })).to.equal(1)
    const refused = await new Promise<boolean>(resolve => {
      const s = net.connect({ port: port(fwd.ListenAddress), host: '127.0.0.1' })
      s.on('error', () => { resolve(true) })
      s.on('connect', () => { s.destroy(); resolve(false) })
    })
    expect(refused, 'the forward port is closed').to.equal(true)
  })

  it('Kubo listens, tsipfs forwards; stream ls on both matches field for field; stream close on Kubo closes tsipfs\'s end', async () => {
    await k.call('p2p/listen', ['/x/kubo-echo', `/ip4/127.0.0.1/tcp/${echo.port}`])
    await t1.call('p2p/forward', ['/x/kubo-echo', '/ip4/127.0.0.1/tcp/0', `/p2p/${k.id}`])
    const fwd = (await t1.call('p2p/ls')).Listeners[0]
    // Kubo's listener closes the whole tunnel at the client's EOF: what was sent arrives, the answer may be cut
    const before = echo.conns.length
    const answer = await exchange(port(fwd.ListenAddress), 'to kubo')
    expect('TO KUBO'.startsWith(answer)).to.equal(true)
    await waitFor(() => echo.conns.slice(before).includes('to kubo'), { what: 'the data to reach the service behind Kubo' })
    // an idle tunnel
    const client = net.connect({ port: port(fwd.ListenAddress), host: '127.0.0.1' })
    client.on('error', () => {})
    const closed = new Promise(resolve => client.once('close', resolve))
    const got: Buffer[] = []
    client.on('data', (d) => got.push(d))
    client.write('idle')
    await waitFor(() => Buffer.concat(got).toString() === 'IDLE', { what: 'the echo through Kubo' })
    const ks = await waitFor(async () => (await k.call('p2p/stream/ls')).Streams, { what: "Kubo's stream" })
    const ts = (await t1.call('p2p/stream/ls')).Streams
    expect(ks).to.have.length(1)
    expect(ts).to.have.length(1)
    expect(Object.keys(ts[0])).to.deep.equal(Object.keys(ks[0]))
    expect(ks[0]).to.deep.include({ Protocol: '/x/kubo-echo', OriginAddress: `/p2p/${t1.id}`, TargetAddress: `/ip4/127.0.0.1/tcp/${echo.port}` })
    expect(ts[0]).to.deep.include({ Protocol: '/x/kubo-echo', OriginAddress: `/ip4/127.0.0.1/tcp/${client.localPort as number}`, TargetAddress: `/p2p/${k.id}` })
    await k.call('p2p/stream/close', [ks[0].HandlerID])
    await closed
    await waitFor(async () => (await t1.call('p2p/stream/ls')).Streams == null, { what: "tsipfs's end of the tunnel to close" })
  })

  it('tsipfs listens with --report-peer-id, Kubo forwards: the service reads Kubo\'s peer ID first; stream close on tsipfs closes Kubo\'s end', async () => {
    await t1.call('p2p/listen', ['/x/report', `/ip4/127.0.0.1/tcp/${echo.port}`], { 'report-peer-id': true })
    const fport = await freePort()
    await k.call('p2p/forward', ['/x/report', `/ip4/127.0.0.1/tcp/${fport}`, `/p2p/${t1.id}`])
    const before = echo.conns.length
    // a client that stays open gets the echo back through Kubo
    // a client that half-closes at once: Kubo's forwarder closes the tunnel at that EOF, what was sent still arrives
    await exchange(fport, 'quick')
    await waitFor(() => echo.conns[before] === `${k.id}\nquick`, { what: `the service to read Kubo's peer ID, then the data (got ${JSON.stringify(echo.conns.slice(before))})` })
    const client = net.connect({ port: fport, host: '127.0.0.1' })
    client.on('error', () => {})
    const closed = new Promise(resolve => client.once('close', resolve))
    const got: Buffer[] = []
    client.on('data', (d) => got.push(d))
    client.write('from kubo')
    await waitFor(() => echo.conns[before + 1] === `${k.id}\nfrom kubo`, { what: `the service to read Kubo's peer ID, then the data (got ${JSON.stringify(echo.conns.slice(before))})` })
    await waitFor(() => Buffer.concat(got).toString() === `${k.id}\nFROM KUBO`.toUpperCase(), { what: 'the echo back through Kubo' })
    const ts = await waitFor(async () => (await t1.call('p2p/stream/ls')).Streams, { what: "tsipfs's stream" })
    const ks = await waitFor(async () => (await k.call('p2p/stream/ls')).Streams, { what: "Kubo's stream" })
    expect(ts[0]).to.deep.include({ Protocol: '/x/report', OriginAddress: `/p2p/${k.id}`, TargetAddress: `/ip4/127.0.0.1/tcp/${echo.port}` })
    expect(ks[0]).to.deep.include({ Protocol: '/x/report', TargetAddress: `/p2p/${t1.id}` })
    await t1.call('p2p/stream/close', [ts[0].HandlerID])
    expect((await t1.call('p2p/stream/ls')).Streams).to.equal(null)
    await closed
    await waitFor(async () => (await k.call('p2p/stream/ls')).Streams == null, { what: "Kubo's end of the tunnel to close" })
  })

  it('p2p ls: the same listeners give the same JSON and the same text table as Kubo', async () => {
    const fport = await freePort()
    const fport2 = await freePort()
    for (const [p, other, fp] of [[t1, k, fport], [k, t1, fport2]] as const) {
      await p.call('p2p/forward', ['/x/ls', `/ip4/127.0.0.1/tcp/${fp}`, `/p2p/${other.id}`])
      await p.call('p2p/listen', ['/x/ls', `/ip4/127.0.0.1/tcp/${echo.port}`])
      await p.call('p2p/listen', ['/custom', `/ip4/127.0.0.1/tcp/${echo.port}`], { 'allow-custom-protocol': true })
    }
    const norm = (s: string, self: Peer, other: Peer, fp: number): string => s.replaceAll(self.id, 'SELF').replaceAll(other.id, 'OTHER').replaceAll(`tcp/${fp}`, 'tcp/FWD')
    const tj = norm(JSON.stringify(await t1.call('p2p/ls')), t1, k, fport)
    const kj = JSON.parse(norm(JSON.stringify(await k.call('p2p/ls')), k, t1, fport2))
    // Kubo lists forwarders first, then listeners, each from a Go map (any order)
    const sorted = (o: any): any[] => [...o.Listeners].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    expect(sorted(JSON.parse(tj))).to.deep.equal(sorted(kj))
    expect(JSON.parse(tj).Listeners[0].ListenAddress).to.equal('/ip4/127.0.0.1/tcp/FWD')
    for (const headers of [false, true]) {
      const tt = norm((await get(`${t1.api as string}/api/v0/p2p/ls?encoding=text&headers=${String(headers)}`, { method: 'POST' })).body, t1, k, fport)
      const kt = norm((await get(`${k.api as string}/api/v0/p2p/ls?encoding=text&headers=${String(headers)}`, { method: 'POST' })).body, k, t1, fport2)
      const rows = (s: string): string[] => headers ? s.split('\n').filter(Boolean).filter((_l, i) => i % 2 === 1).sort() : s.split('\n').filter(Boolean).sort()
      expect(rows(tt)).to.deep.equal(rows(kt))
      if (headers) expect(tt.split('\n')[0]).to.equal(kt.split('\n')[0])
    }
    expect(await t1.call('p2p/close', [], { 'listen-address': `/p2p/${t1.id}` })).to.equal(2)
    expect(await k.call('p2p/close', [], { 'listen-address': `/p2p/${k.id}` })).to.equal(2)
    expect(await t1.call('p2p/close', [], { 'target-address': `/p2p/${k.id}` })).to.equal(1)
    expect(await k.call('p2p/close', [], { 'target-address': `/p2p/${t1.id}` })).to.equal(1)
  })

  it('--foreground: the listener lives as long as the request and goes when the client goes away', async () => {
    const url = `${t1.api as string}/api/v0/p2p/listen?arg=/x/fg&arg=/ip4/127.0.0.1/tcp/${echo.port}&foreground=true`
    const req = http.request(url, { method: 'POST' })
    const first = await new Promise<string>((resolve, reject) => {
      req.on('response', (res) => { res.once('data', (d) => { resolve(String(d)) }) })
      req.on('error', reject)
      req.end()
    })
    expect(JSON.parse(first)).to.deep.equal({ Status: 'active', Protocol: '/x/fg', Address: `/ip4/127.0.0.1/tcp/${echo.port}` })
    expect((await t1.call('p2p/ls')).Listeners).to.have.length(1)
    req.on('error', () => {})
    req.destroy()
    await waitFor(async () => (await t1.call('p2p/ls')).Listeners == null, { what: 'the foreground listener to go' })
  })

  it('gateway /p2p/ proxy: tsipfs gateway → tsipfs and → Kubo listening on /http; Kubo\'s 400 and 502 answers', async () => {
    await t2.call('p2p/listen', ['/http', `/ip4/127.0.0.1/tcp/${web.port}`], { 'allow-custom-protocol': true })
    await k.call('p2p/listen', ['/http', `/ip4/127.0.0.1/tcp/${web.port}`], { 'allow-custom-protocol': true })
    await k.call('p2p/listen', ['/x/custom/http', `/ip4/127.0.0.1/tcp/${web.port}`])
    const gw = gatewayOf(t1)
    for (const far of [t2, k]) {
      const r = await get(`${gw}/p2p/${far.id}/http/index.txt?a=1`)
      expect(r.status, far.name).to.equal(200)
      expect(r.headers['content-type']).to.equal('application/json')
      expect(JSON.parse(r.body)).to.deep.equal({ method: 'GET', url: '/index.txt?a=1', host: far.id, xff: '127.0.0.1', body: '' })
      const post = await get(`${gw}/p2p/${far.id}/http/form`, { method: 'POST', body: 'field=value' })
      expect(JSON.parse(post.body)).to.include({ method: 'POST', url: '/form', body: 'field=value' })
      const missing = await get(`${gw}/p2p/${far.id}/http/missing`)
      expect(missing.status).to.equal(404)
      expect(missing.body).to.equal('SORRY GUYS, I LOST IT\n')
    }
    expect(JSON.parse((await get(`${gw}/p2p/${k.id}/x/custom/http/deep/path`)).body)).to.include({ url: '/deep/path' })
    const bad = await get(`${gw}/p2p/DERPDERPDERP`)
    expect(bad.status).to.equal(400)
    expect(bad.body).to.equal("failed to parse request: invalid request path '/p2p/DERPDERPDERP'\n")
    expect((await get(`${gw}/p2p/invalid_peer/http/index.txt`)).status).to.equal(400)
    expect((await get(`${gw}/p2p/${k.id}/x/custom/index.txt`)).status).to.equal(400)
    expect((await get(`${gw}/p2p/${k.id}/x/missing/http/index.txt`)).status).to.equal(502)
    // a listener whose service is gone
    await t2.call('p2p/close', [], { protocol: '/http' })
    await t2.call('p2p/listen', ['/http', '/ip4/127.0.0.1/tcp/1'], { 'allow-custom-protocol': true })
    expect((await get(`${gw}/p2p/${t2.id}/http/index.txt`)).status).to.equal(502)
    // Kubo's gateway answers the same
    const kgw = gatewayOf(k)
    expect((await get(`${kgw}/p2p/${t2.id}/http/index.txt`)).status).to.equal(502)
    const kbad = await get(`${kgw}/p2p/DERPDERPDERP`)
    expect([kbad.status, kbad.body]).to.deep.equal([bad.status, bad.body])
    await t2.call('p2p/close', [], { all: true })
    await t2.call('p2p/listen', ['/http', `/ip4/127.0.0.1/tcp/${web.port}`], { 'allow-custom-protocol': true })
    expect(JSON.parse((await get(`${kgw}/p2p/${t2.id}/http/from-kubo`)).body)).to.include({ url: '/from-kubo', host: t2.id })
  })
})
