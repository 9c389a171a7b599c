// core/routing/dht-server.ts: our GET_VALUE answer gives what js kad-dht's own handler gives (record held, the
// peer a multihash key names, the closest peers with their addresses; expired records deleted; /pk/ keys and
// empty keys left to kad-dht), on a DHT server that has a peer; its stream loop answers request after request.
import { expect } from 'chai'
import sinon from 'sinon'
import { lpStream } from '@libp2p/utils'
import { decodeAnswer, encodeGetValue } from '../../../core/routing/lookup.js'
import { LAN_PROTOCOL } from '../../../core/routing/dht.js'
import { Libp2pRecord } from '@libp2p/record'
import type { PeerId } from '@libp2p/interface'
import { Key, type Datastore } from 'interface-datastore'
import { base32 } from 'multiformats/bases/base32'
import { connectOnline, createOnlineTestNode, filesOf, libp2pOf, type TestNode } from '../../helpers/node.js'
import { isMultihash, RECORD_VALIDITY_MS } from '../../../core/routing/dht-server.js'
import { dhtRecordKey } from '../../../core/routing/index.js'
import { ipnsRoutingKey, parseIpnsName } from '../../../core/namesys/index.js'

interface Handler { handle: (peer: PeerId, msg: { type: string, key?: Uint8Array, clusterLevel?: number }) => Promise<any> }

/** the answer in comparable form */
const shape = (r: any): unknown => ({
  type: r.type,
  key: Buffer.from(r.key).toString('hex'),
  clusterLevel: r.clusterLevel,
  record: r.record != null ? Buffer.from(r.record).toString('hex') : undefined,
  closer: r.closer.map((p: any) => ({ id: Buffer.from(p.id).toString('hex'), addrs: p.multiaddrs.map((a: Uint8Array) => Buffer.from(a).toString('hex')) })),
  providers: r.providers
})

describe('core/routing/dht-server: GET_VALUE answers', function () {
  this.timeout(120_000)
  let a: TestNode
  let b: TestNode
  let c: TestNode
  let handler: Handler
  let original: Handler['handle']

  before(async () => {
    a = await createOnlineTestNode()
    b = await createOnlineTestNode()
    c = await createOnlineTestNode()
    await connectOnline(b, a)
    await connectOnline(c, a)
    const lan = (libp2pOf(a).services as any).lanDHT
    // B and C in A's LAN table (C is the closer peer B is sent; B is not sent back itself)
    for (let i = 0; i < 200 && lan.routingTable.size < 2; i++) await new Promise(resolve => setTimeout(resolve, 50))
    expect(lan.routingTable.size).to.equal(2)
    handler = lan.rpc.handlers.GET_VALUE
    // kad-dht's own handle, from its class
    original = Object.getPrototypeOf(handler).handle.bind(handler)
    expect(handler.handle).to.not.equal(Object.getPrototypeOf(handler).handle)
  })
  after(async () => {
    await a?.stop()
    await b?.stop()
    await c?.stop()
  })

  const both = async (key: Uint8Array): Promise<[unknown, unknown]> => {
    const from = libp2pOf(b).peerId
    const msg = { type: 'GET_VALUE', key, clusterLevel: 0 }
    // kad-dht also sends the requester back itself; ours leaves it out, as go-libp2p-kad-dht (betterPeersToQuery)
    const requester = Buffer.from(from.toMultihash().bytes).toString('hex')
    const theirs: any = shape(await original(from, msg))
    theirs.closer = theirs.closer.filter((p: any, i: number) => p.id !== requester || (i === 0 && Buffer.from(key).toString('hex') === requester))
    return [shape(await handler.handle(from, msg)), theirs]
  }

  it('the record A holds, with the closest peers, as kad-dht answers', async () => {
    const cid = (await a.invoke('add', { files: filesOf({ path: 'x', content: 'dht-server' }) }))[0].Hash
    const { Name } = await a.invoke('name/publish', { args: [cid], options: { 'allow-offline': true } })
    const key = ipnsRoutingKey(parseIpnsName(Name)!)
    const [ours, theirs] = await both(key)
    expect(ours).to.deep.equal(theirs)
    expect((ours as any).record).to.be.a('string')
    const hex = (n: TestNode): string => Buffer.from(libp2pOf(n).peerId.toMultihash().bytes).toString('hex')
    expect((ours as any).closer.map((p: any) => p.id)).to.deep.equal([hex(c)])
    // kad-dht's own answer sends B (the requester) back itself
    const raw = await original(libp2pOf(b).peerId, { type: 'GET_VALUE', key, clusterLevel: 0 })
    expect(raw.closer.map((p: any) => Buffer.from(p.id).toString('hex'))).to.include(hex(b))
    expect((ours as any).closer[0].addrs.length).to.be.greaterThan(0)
  })

  it('a key no record is held for; a peer ID key (the peer first); a key that is no multihash', async () => {
    for (const key of [new TextEncoder().encode('/ipns/nothing-here'), libp2pOf(b).peerId.toMultihash().bytes, Uint8Array.from([0x12, 0x40, 1, 2])]) {
      const [ours, theirs] = await both(key)
      expect(ours).to.deep.equal(theirs)
      expect((ours as any).record).to.equal(undefined)
    }
    const [named] = await both(libp2pOf(b).peerId.toMultihash().bytes)
    expect((named as any).closer.length).to.equal(2)
  })

  it('a record received more than 48 h ago is not answered and is deleted, as kad-dht does', async () => {
    const key = new TextEncoder().encode('/test/old')
    const ds = a.container.cradle.datastore as Datastore
    const dsKey = dhtRecordKey('lan', key)
    expect(dsKey.toString()).to.equal(new Key(`/dht-lan/record/${base32.baseEncode(key)}`).toString())
    await ds.put(dsKey, new Libp2pRecord(key, Uint8Array.from([1]), new Date(Date.now() - RECORD_VALIDITY_MS - 60_000)).serialize())
    const from = libp2pOf(b).peerId
    const ours = await handler.handle(from, { type: 'GET_VALUE', key })
    expect(ours.record).to.equal(undefined)
    expect(await ds.has(dsKey)).to.equal(false)
    await ds.put(dsKey, new Libp2pRecord(key, Uint8Array.from([2]), new Date()).serialize())
    const [fresh, theirs] = await both(key)
    expect(fresh).to.deep.equal(theirs)
    expect((fresh as any).record).to.be.a('string')
  })

  it('/pk/ and empty keys go to kad-dht\'s handler', async () => {
    const pk = Buffer.concat([Buffer.from('/pk/'), libp2pOf(b).peerId.toMultihash().bytes])
    const [ours, theirs] = await both(pk)
    expect({ ...(ours as any), record: undefined }).to.deep.equal({ ...(theirs as any), record: undefined })
    let error: Error | undefined
    try { await handler.handle(libp2pOf(b).peerId, { type: 'GET_VALUE', key: new Uint8Array(0) }) } catch (err) { error = err as Error }
    expect(error?.name).to.equal('InvalidMessageError')
  })

  it('a stream carries request after request, answered in order, with no per-message AbortSignal.timeout', async () => {
    // C's own DHT queries (AbortSignal.timeout in this process) would be counted below
    await c.stop()
    c = undefined as unknown as TestNode
    const cid = (await a.invoke('add', { files: filesOf({ path: 'y', content: 'dht-server stream' }) }))[0].Hash
    const { Name } = await a.invoke('name/publish', { args: [cid], options: { 'allow-offline': true } })
    const key = ipnsRoutingKey(parseIpnsName(Name)!)
    const lan = (libp2pOf(a).services as any).lanDHT
    expect(lan.rpc.onIncomingStream).to.not.equal(Object.getPrototypeOf(lan.rpc).onIncomingStream)
    const stream = await libp2pOf(b).dialProtocol(libp2pOf(a).peerId, LAN_PROTOCOL)
    // from the first answer on (the stream's own set-up makes some): js kad-dht made one after each message
    let timeouts: sinon.SinonSpy | undefined
    try {
      const lp = lpStream(stream)
      for (const k of [key, new TextEncoder().encode('/ipns/none'), key]) {
        timeouts ??= k !== key ? sinon.spy(AbortSignal, 'timeout') : undefined
        await lp.write(encodeGetValue(k))
        const answer = decodeAnswer((await lp.read()).subarray())
        expect(answer.record != null).to.equal(k === key)
        if (answer.record != null) expect(Buffer.from(Libp2pRecord.deserialize(answer.record).key).equals(Buffer.from(key))).to.equal(true)
      }
      expect(timeouts?.callCount).to.equal(0)
    } finally {
      timeouts?.restore()
      await stream.close()
    }
  })

  it('isMultihash: code, length and a digest of that length', () => {
    expect(isMultihash(libp2pOf(a).peerId.toMultihash().bytes)).to.equal(true)
    expect(isMultihash(Uint8Array.from([0x12, 2, 1, 2]))).to.equal(true)
    expect(isMultihash(Uint8Array.from([0x12, 3, 1, 2]))).to.equal(false)
    expect(isMultihash(Uint8Array.from([0x12, 1, 1, 2]))).to.equal(false)
    expect(isMultihash(Uint8Array.from([0x80]))).to.equal(false)
    expect(isMultihash(new TextEncoder().encode('/ipns/x'))).to.equal(false)
  })
})
