// Fewer segments per libp2p frame (core/libp2p/coalesce.ts), on the real @libp2p/tls and yamux over in-memory pairs.
import { expect } from 'chai'
import { yamux } from '@chainsafe/libp2p-yamux'
import { tls } from '@libp2p/tls'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { defaultLogger } from '@libp2p/logger'
import { multiaddrConnectionPair } from '@libp2p/utils'
import { Uint8ArrayList } from 'uint8arraylist'
import { halfWindowUpdates, oneRecordPerFrame } from '../../../core/libp2p/coalesce.js'

/** counts the messages (each is one write on a real transport) and bytes a connection sends */
function countSends (conn: any): { n: number, bytes: number } {
  const seen = { n: 0, bytes: 0 }
  const send = conn.send.bind(conn)
  conn.send = (data: Uint8Array | Uint8ArrayList) => { seen.n++; seen.bytes += data.byteLength; return send(data) }
  return seen
}

/** yamux frames without a body (window updates) a receiver sent: its bytes over the 12-byte header */
const FRAME_HEADER = 12
const settle = async (): Promise<void> => { await new Promise(resolve => setTimeout(resolve, 50)) }

async function received (stream: any, bytes: number): Promise<Uint8Array> {
  const out = new Uint8ArrayList()
  await new Promise<void>(resolve => {
    stream.addEventListener('message', (evt: any) => { out.append(evt.data); if (out.byteLength >= bytes) resolve() })
  })
  return out.subarray()
}

/** the muxers a test made: aborted after it (each runs a 30 s keep-alive timer that would keep mocha alive) */
const muxers: any[] = []

async function muxedPair (factory: any): Promise<{ out: any, inbound: any, sentByReceiver: { n: number, bytes: number } }> {
  const [a, b] = multiaddrConnectionPair()
  const sentByReceiver = countSends(b)
  const muxA = factory({}).createStreamMuxer(a)
  const muxB = factory({}).createStreamMuxer(b)
  muxers.push(muxA, muxB)
  const incoming = new Promise<any>(resolve => muxB.addEventListener('stream', (evt: any) => resolve(evt.detail), { once: true }))
  const out = await muxA.createStream()
  out.send(new Uint8Array([0]))
  const inbound = await incoming
  await received(inbound, 1)
  await settle()
  return { out, inbound, sentByReceiver }
}

describe('core/libp2p/coalesce', function () {
  this.timeout(20_000)
  afterEach(() => { for (const m of muxers.splice(0)) m.abort(new Error('test over')) })

  it('oneRecordPerFrame: a frame of several parts leaves the TLS connection in one write, and arrives whole', async () => {
    const [a, b] = multiaddrConnectionPair()
    const components = async (): Promise<any> => ({ privateKey: await generateKeyPair('Ed25519'), logger: defaultLogger(), upgrader: { getStreamMuxers: () => new Map() } })
    const client = oneRecordPerFrame(tls())(await components())
    const server = oneRecordPerFrame(tls())(await components())
    const opts = { skipStreamMuxerNegotiation: true }
    const [c, s] = await Promise.all([client.secureOutbound(a, opts), server.secureInbound(b, opts)])
    const writes = countSends(a)
    const parts = [new Uint8Array(12).fill(1), new Uint8Array([2, 3]), new Uint8Array(100).fill(4)]
    const arrived = received(s.connection, 114)
    c.connection.send(new Uint8ArrayList(...parts) as any)
    const got = await arrived
    expect(Buffer.from(got)).to.deep.equal(Buffer.concat(parts))
    await new Promise(resolve => setImmediate(resolve))
    expect(writes.n).to.equal(1)
  })

  it('halfWindowUpdates: many small frames are answered by no window update until half the window is used', async () => {
    const { out, inbound, sentByReceiver } = await muxedPair(halfWindowUpdates(yamux()))
    const before = sentByReceiver.bytes
    const arrived = received(inbound, 100 * 100)
    for (let i = 0; i < 100; i++) out.send(new Uint8Array(100).fill(i))
    await arrived
    await settle()
    expect(sentByReceiver.bytes - before).to.equal(0)
  })

  it('halfWindowUpdates: the module alone sends updates for the same frames (what the wrapper saves)', async () => {
    const { out, inbound, sentByReceiver } = await muxedPair(yamux())
    const before = sentByReceiver.bytes
    const arrived = received(inbound, 20 * 100)
    for (let i = 0; i < 20; i++) out.send(new Uint8Array(100).fill(i))
    await arrived
    await settle()
    expect((sentByReceiver.bytes - before) / FRAME_HEADER).to.be.greaterThan(1)
  })

  it('halfWindowUpdates: a transfer of several windows still completes (updates are sent once half is used)', async () => {
    const { out, inbound, sentByReceiver } = await muxedPair(halfWindowUpdates(yamux()))
    const before = sentByReceiver.bytes
    const chunk = new Uint8Array(64 * 1024).fill(7)
    const total = 40 * chunk.byteLength
    const arrived = received(inbound, total)
    for (let i = 0; i < 40; i++) {
      if (!out.send(chunk)) await new Promise(resolve => out.addEventListener('drain', resolve, { once: true }))
    }
    const got = await arrived
    expect(got.byteLength).to.equal(total)
    const updates = (sentByReceiver.bytes - before) / FRAME_HEADER
    expect(updates).to.be.greaterThan(0)
    expect(updates).to.be.lessThan(40)
  })

  it('halfWindowUpdates: a stream drained fast widens its window past 256 KiB (go-yamux tuning, with an RTT floor)', async () => {
    const { out, inbound } = await muxedPair(halfWindowUpdates(yamux()))
    const chunk = new Uint8Array(64 * 1024).fill(9)
    const total = 64 * chunk.byteLength
    const arrived = received(inbound, total)
    for (let i = 0; i < 64; i++) {
      if (!out.send(chunk)) await new Promise(resolve => out.addEventListener('drain', resolve, { once: true }))
    }
    await arrived
    expect(inbound.recvWindow).to.be.greaterThan(256 * 1024)
  })
})
