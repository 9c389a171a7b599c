// libp2p TLS on the TCP socket (core/libp2p/tls-socket.ts): two real libp2p hosts over loopback TCP.
import { expect } from 'chai'
import net from 'node:net'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { tls } from '@libp2p/tls'
import { yamux } from '@chainsafe/libp2p-yamux'
import sinon from 'sinon'
import { COALESCE_MAX, coalesceWrites, tlsOnSocket } from '../../../core/libp2p/tls-socket.js'
import { oneRecordPerFrame } from '../../../core/libp2p/coalesce.js'

const ECHO = '/test/echo/1.0.0'

/** the @libp2p/tls factory, counting the connections it encrypts itself (the fallback path) */
function countingTls (seen: { stock: number }): any {
  return (components: any) => {
    const encrypter: any = tls()(components)
    for (const m of ['secureInbound', 'secureOutbound']) {
      const f = encrypter[m].bind(encrypter)
      encrypter[m] = async (...args: any[]) => { seen.stock++; return await f(...args) }
    }
    return encrypter
  }
}

/** a private key whose signatures (the TLS certificate's) take `ms` longer */
function slowKey (components: any, ms: number): any {
  const key = components.privateKey
  const slow = Object.create(key)
  slow.sign = async (data: Uint8Array) => { await new Promise(resolve => setTimeout(resolve, ms)); return await key.sign(data) }
  return new Proxy(components, { get: (t, k) => k === 'privateKey' ? slow : t[k] })
}

async function host (opts: { seen: { stock: number }, slow?: number, idleMs?: number }): Promise<any> {
  const encrypter = tlsOnSocket(countingTls(opts.seen))
  const node = await createLibp2p({
    addresses: { listen: ['/ip4/127.0.0.1/tcp/0'] },
    transports: [tcp(opts.idleMs != null ? { inboundSocketInactivityTimeout: opts.idleMs, outboundSocketInactivityTimeout: opts.idleMs } : {})],
    connectionEncrypters: [oneRecordPerFrame(opts.slow != null ? (c: any) => encrypter(slowKey(c, opts.slow as number)) : encrypter)],
    streamMuxers: [yamux()]
  })
  await node.handle(ECHO, async (stream: any) => {
    for await (const chunk of stream) stream.send(chunk.subarray())
    await stream.close()
  })
  return node
}

/** sends `bytes` in 64 KiB messages over an echo stream and counts what comes back */
async function echo (a: any, b: any, bytes: number): Promise<number> {
  const stream = await a.dialProtocol(b.peerId, ECHO)
  let got = 0
  const back = (async () => { for await (const c of stream) { got += c.byteLength; if (got >= bytes) break } })()
  for (let i = 0; i < bytes / 65536; i++) {
    if (!stream.send(new Uint8Array(65536).fill(i))) await new Promise(resolve => stream.addEventListener('drain', resolve, { once: true }))
  }
  await back
  return got
}

const liveSockets = (): number => (process as any)._getActiveHandles().filter((h: any) => h instanceof net.Socket && !h.destroyed).length
const until = async (ok: () => boolean, ms = 5000): Promise<void> => {
  for (const t = Date.now(); !ok() && Date.now() - t < ms;) await new Promise(resolve => setTimeout(resolve, 20))
}

describe('core/libp2p/tls-socket', function () {
  this.timeout(30_000)
  const nodes: any[] = []
  afterEach(async () => { await Promise.all(nodes.splice(0).map(async n => { await n.stop() })) })

  it('encrypts TCP connections on their socket (no fallback) and carries 8 MiB both ways', async () => {
    const seen = { stock: 0 }
    const a = await host({ seen }); const b = await host({ seen })
    nodes.push(a, b)
    const conn = await a.dial(b.getMultiaddrs()[0])
    expect(conn.encryption).to.equal('/tls/1.0.0')
    expect(await echo(a, b, 8 * 1024 * 1024)).to.equal(8 * 1024 * 1024)
    expect(seen.stock).to.equal(0)
  })

  it('a ClientHello that arrives while the server makes its certificate is read from the socket', async () => {
    const seen = { stock: 0 }
    const a = await host({ seen }); const b = await host({ seen, slow: 300 })
    nodes.push(a, b)
    await a.dial(b.getMultiaddrs()[0])
    expect(await echo(a, b, 1024 * 1024)).to.equal(1024 * 1024)
    expect(seen.stock).to.equal(0)
  })

  for (const side of ['local', 'remote']) {
    it(`a ${side} close closes both ends and their TCP sockets`, async () => {
      const seen = { stock: 0 }
      const a = await host({ seen }); const b = await host({ seen })
      nodes.push(a, b)
      const before = liveSockets()
      const conn = await a.dial(b.getMultiaddrs()[0])
      await echo(a, b, 65536)
      expect(liveSockets()).to.equal(before + 2)
      await (side === 'local' ? conn : b.getConnections()[0]).close()
      await until(() => a.getConnections().length + b.getConnections().length === 0 && liveSockets() === before)
      expect(a.getConnections().length + b.getConnections().length).to.equal(0)
      expect(liveSockets()).to.equal(before)
    })
  }

  it('connections aborted and closed mid-transfer, from either end, end cleanly (the TCP socket closes after TLS)', async () => {
    const seen = { stock: 0 }
    const a = await host({ seen }); const b = await host({ seen })
    nodes.push(a, b)
    const before = liveSockets()
    for (let i = 0; i < 12; i++) {
      try { await a.dial(b.getMultiaddrs()[0]) } catch { continue }
      const flowing = echo(a, b, 4 * 1024 * 1024).catch(() => 0)
      await new Promise(resolve => setTimeout(resolve, 5 + i))
      const conn = (i % 2 === 0 ? a : b).getConnections()[0]
      if (i % 3 === 0) await conn?.close().catch(() => {})
      else conn?.abort(new Error('trimmed'))
      void flowing
      await until(() => a.getConnections().length + b.getConnections().length === 0 && liveSockets() === before)
    }
    expect(a.getConnections().length + b.getConnections().length).to.equal(0)
    expect(liveSockets()).to.equal(before)
  })

  it('a peer that closes after choosing /tls/1.0.0 fails the upgrade: its pending inbound slot is given back', async () => {
    const seen = { stock: 0 }
    const b = await host({ seen })
    nodes.push(b)
    const cm = b.components.connectionManager
    const port = Number(b.getMultiaddrs()[0].toString().split('/')[4])
    const msg = (s: string): Buffer => { const t = Buffer.from(s + '\n'); return Buffer.concat([Buffer.from([t.length]), t]) }
    for (let i = 0; i < 3; i++) {
      const s = net.connect(port, '127.0.0.1')
      s.on('error', () => {})
      s.write(Buffer.concat([msg('/multistream/1.0.0'), msg('/tls/1.0.0')]))
      // the server's echo of both lines, then FIN before any TLS byte
      await new Promise<void>(resolve => { let got = 0; s.on('data', (d: Buffer) => { got += d.byteLength; if (got >= 31) resolve() }) })
      s.end()
      await new Promise(resolve => s.once('close', resolve))
    }
    await until(() => cm.incomingPendingConnections === 0)
    expect(cm.incomingPendingConnections).to.equal(0)
    expect(seen.stock).to.equal(0)
  })

  it('the TCP inactivity timeout counts the TLS traffic: a busy connection stays, an idle one is closed', async () => {
    const seen = { stock: 0 }
    const a = await host({ seen, idleMs: 1500 }); const b = await host({ seen, idleMs: 1500 })
    nodes.push(a, b)
    const conn = await a.dial(b.getMultiaddrs()[0])
    for (let i = 0; i < 20; i++) {
      await echo(a, b, 65536)
      await new Promise(resolve => setTimeout(resolve, 150))
    }
    expect(conn.status).to.equal('open')
    await until(() => conn.status !== 'open', 10_000)
    expect(conn.status).to.not.equal('open')
    expect(seen.stock).to.equal(0)
  })
})

describe('core/libp2p/tls-socket coalesceWrites', function () {
  this.timeout(30_000)
  afterEach(() => { sinon.restore() })

  /** a loopback TCP pair; the server side collects what it reads */
  async function pair (): Promise<{ client: net.Socket, got: Buffer[], close: () => void }> {
    const got: Buffer[] = []
    const server = net.createServer(s => { s.on('data', (c: Buffer) => got.push(c)) })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1')
    await new Promise(resolve => client.once('connect', resolve))
    return { client, got, close: () => { client.destroy(); server.close() } }
  }

  /** writes the parts corked (one writev), resolves once written */
  const corked = async (socket: net.Socket, parts: Uint8Array[]): Promise<void> => {
    socket.cork()
    for (const p of parts.slice(0, -1)) socket.write(p)
    const written = new Promise(resolve => socket.write(parts.at(-1) as Uint8Array, resolve))
    socket.uncork()
    await written
  }

  it('queued writes of every size (under, within and over the reused sizes) arrive whole and in order', async () => {
    const { client, got, close } = await pair()
    try {
      coalesceWrites(client)
      const sent: Uint8Array[] = []
      let n = 0
      for (const sizes of [[12, 100], [12, 65536], [12, 200_000, 7], [12, COALESCE_MAX], [1000, COALESCE_MAX]]) {
        const parts = sizes.map(size => new Uint8Array(size).fill(++n))
        // writes queued behind a pending one go out in one writev too
        for (const p of parts) client.write(p)
        await corked(client, parts)
        sent.push(...parts, ...parts)
      }
      const total = sent.reduce((t, p) => t + p.byteLength, 0)
      await until(() => got.reduce((t, c) => t + c.byteLength, 0) >= total)
      expect(Buffer.concat(got).equals(Buffer.concat(sent))).to.equal(true)
    } finally { close() }
  })

  it('reuses its buffers: 20 writes of one size allocate at most two', async () => {
    const { client, got, close } = await pair()
    try {
      coalesceWrites(client)
      const slow = sinon.spy(Buffer, 'allocUnsafeSlow')
      for (let i = 0; i < 20; i++) await corked(client, [new Uint8Array(12), new Uint8Array(400_000).fill(i)])
      await until(() => got.reduce((t, c) => t + c.byteLength, 0) >= 20 * 400_012)
      expect(slow.getCalls().filter(c => c.args[0] === 524288).length).to.be.within(1, 2)
    } finally { close() }
  })
})
