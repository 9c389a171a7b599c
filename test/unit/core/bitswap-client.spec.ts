// core/bitswap/client.ts over a recording network (the libp2p side is covered by bitswap.spec.ts and the
// cluster specs): one want per CID whatever the number of requests, cancels sent to the peers asked,
// wants sent again when replies stop, blocks accepted only when they hash to a want.
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import sinon from 'sinon'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { PeerId } from '@libp2p/interface'
import { BitswapClient, type BitswapNetwork, type OutgoingMessage, type ReceivedMessage } from '../../../core/bitswap/client.js'
import { BitswapStats } from '../../../core/bitswap/stats.js'
import { multihashOf } from '../../../core/bitswap/index.js'
import { hashByName } from '../../../core/hashes.js'

use(chaiAsPromised)

interface Sent { peer: string, cid: string, cancel: boolean }

/** A network that records what is sent and lets the test deliver messages and peer events. */
class FakeNetwork extends EventTarget {
  sent: Sent[] = []
  failNext = false
  async sendMessage (peer: PeerId, message: OutgoingMessage): Promise<void> {
    if (this.failNext) { this.failNext = false; throw new Error('stream reset') }
    for (const e of message.wantlist.values()) this.sent.push({ peer: peer.toString(), cid: CID.decode(e.cid).toString(), cancel: e.cancel })
  }

  async * findProviders (): AsyncGenerator<{ id: PeerId }> {}
  async connectTo (): Promise<void> {}
  deliver (peer: PeerId, message: ReceivedMessage): void {
    this.dispatchEvent(new CustomEvent('bitswap:message', { detail: { peer, message } }))
  }
}

const block = (): { cid: CID, bytes: Uint8Array } => {
  const bytes = crypto.getRandomValues(new Uint8Array(64))
  return { cid: CID.createV1(raw.code, hashByName('sha2-256')!.digest(bytes)), bytes }
}
/** a v1 raw sha2-256 block prefix */
const PREFIX = Uint8Array.from([1, raw.code, 0x12, 32])
const peer = async (): Promise<PeerId> => peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
/** let the client's 2 ms flush run (real timers) */
const settle = async (): Promise<void> => { await new Promise(resolve => setTimeout(resolve, 20)) }

describe('core/bitswap client', () => {
  let net: FakeNetwork
  let stored: Map<string, Uint8Array>
  let stats: BitswapStats
  let client: BitswapClient
  let p1: PeerId
  let p2: PeerId

  const make = (peers: PeerId[]): BitswapClient => new BitswapClient({
    network: net as unknown as BitswapNetwork,
    hash: multihashOf,
    store: async (cid, bytes) => { stored.set(cid.toString(), bytes) },
    local: async (cid) => stored.get(cid.toString()) ?? new Uint8Array(),
    stats,
    peers
  })

  beforeEach(async () => {
    net = new FakeNetwork()
    stored = new Map()
    stats = new BitswapStats()
    p1 = await peer()
    p2 = await peer()
    client = make([p1, p2])
  })
  afterEach(() => { client.stop(); sinon.restore() })

  it('two requests share one want, sent once per peer; aborting one keeps it, aborting both cancels it at the peers', async () => {
    const { cid } = block()
    const c1 = new AbortController()
    const c2 = new AbortController()
    const r1 = client.want(cid, { signal: c1.signal })
    const r2 = client.want(cid, { signal: c2.signal })
    await settle()
    expect(net.sent).to.deep.equal([{ peer: p1.toString(), cid: cid.toString(), cancel: false }, { peer: p2.toString(), cid: cid.toString(), cancel: false }])
    c1.abort(new Error('first aborted'))
    await expect(r1).to.be.rejectedWith('first aborted')
    await settle()
    expect(client.wantlist().map(String)).to.deep.equal([cid.toString()])
    expect(net.sent.filter(s => s.cancel)).to.deep.equal([])
    c2.abort(new Error('second aborted'))
    await expect(r2).to.be.rejectedWith('second aborted')
    await settle()
    expect(client.wantlist()).to.deep.equal([])
    expect(net.sent.filter(s => s.cancel).map(s => s.peer).sort()).to.deep.equal([p1.toString(), p2.toString()].sort())
  })

  it('a block that hashes to a want is stored, ends every request for it and is cancelled at the other peers', async () => {
    const { cid, bytes } = block()
    const r1 = client.want(cid)
    const r2 = client.want(cid)
    await settle()
    net.sent = []
    net.deliver(p1, { blocks: [{ prefix: PREFIX, data: bytes }], blockPresences: [] })
    expect(Buffer.from(await r1).equals(bytes)).to.equal(true)
    expect(Buffer.from(await r2).equals(bytes)).to.equal(true)
    expect(stored.has(cid.toString())).to.equal(true)
    await settle()
    expect(net.sent).to.deep.equal([{ peer: p2.toString(), cid: cid.toString(), cancel: true }])
    expect(stats.counters).to.include({ BlocksReceived: 1, DataReceived: 64, DupBlksReceived: 0 })
  })

  it('bytes that do not hash to the want are not accepted (counted as an unwanted block)', async () => {
    const { cid } = block()
    const other = block()
    let done = false
    const r = client.want(cid).finally(() => { done = true })
    net.deliver(p1, { blocks: [{ prefix: PREFIX, data: other.bytes }], blockPresences: [] })
    // an identity "hash" of the wanted digest must not match either
    net.deliver(p1, { blocks: [{ prefix: Uint8Array.from([1, raw.code, 0x00, 32]), data: cid.multihash.digest }], blockPresences: [] })
    await settle()
    expect(done).to.equal(false)
    expect(stats.counters).to.include({ BlocksReceived: 2, DupBlksReceived: 2 })
    client.stop()
    await expect(r).to.be.rejectedWith('bitswap stopped')
  })

  it('a peer that connects gets the wants; one that disconnects is not sent cancels', async () => {
    const { cid } = block()
    const r = client.want(cid)
    await settle()
    const p3 = await peer()
    net.sent = []
    net.dispatchEvent(new CustomEvent('peer:connected', { detail: p3 }))
    net.dispatchEvent(new CustomEvent('peer:disconnected', { detail: p2 }))
    await settle()
    expect(net.sent).to.deep.equal([{ peer: p3.toString(), cid: cid.toString(), cancel: false }])
    client.stop()
    await expect(r).to.be.rejectedWith('bitswap stopped')
  })

  it('wants are sent again when no block arrives for a while (a lost reply or a failed send)', async () => {
    client.stop()
    const clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval', 'Date'] })
    client = make([p1])
    const { cid } = block()
    net.failNext = true
    const r = client.want(cid)
    await clock.tickAsync(10)
    expect(net.sent).to.deep.equal([])
    await clock.tickAsync(6_000)
    expect(net.sent).to.deep.equal([{ peer: p1.toString(), cid: cid.toString(), cancel: false }])
    client.stop()
    await expect(r).to.be.rejectedWith('bitswap stopped')
  })

  it('a block stored locally (another request, a push) ends the want', async () => {
    const { cid, bytes } = block()
    const r = client.want(cid)
    stored.set(cid.toString(), bytes)
    client.arrived(cid)
    expect(Buffer.from(await r).equals(bytes)).to.equal(true)
    expect(client.wantlist()).to.deep.equal([])
  })
})
