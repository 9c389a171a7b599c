// libp2p TLS on the TCP socket (core/libp2p/tls-socket.ts): two real libp2p hosts over loopback TCP.
import { expect } from 'chai'
import net from 'node:net'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { tls } from '@libp2p/tls'
import { yamux } from '@chainsafe/libp2p-yamux'
import { tlsOnSocket } from '../../../core/libp2p/tls-socket.js'
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
