// core/routing/lookup.ts: the dht.pb GET_VALUE codec, and a lookup between two online in-process nodes
// (the record a peer holds comes back, validated; one stream per peer is kept and reused).
import { expect } from 'chai'
import sinon from 'sinon'
import type { PeerId } from '@libp2p/interface'
import { Libp2pRecord } from '@libp2p/record'
import { unmarshalIPNSRecord } from 'ipns'
import { connectOnline, createOnlineTestNode, filesOf, libp2pOf, type TestNode } from '../../helpers/node.js'
import { ValueLookup, decodeAnswer, encodeGetValue, requestSignal } from '../../../core/routing/lookup.js'
import { LAN_PROTOCOL } from '../../../core/routing/dht.js'
import { dhtRecordKey, type Routing } from '../../../core/routing/index.js'
import { Key, type Datastore } from 'interface-datastore'
import { base32 } from 'multiformats/bases/base32'
import { ipnsRoutingKey, parseIpnsName } from '../../../core/namesys/index.js'

const onlineNode = createOnlineTestNode
const routingOf = (n: TestNode): Routing => n.container.cradle.routing as Routing

describe('core/routing/lookup: GET_VALUE codec', () => {
  it('encodes Message{type: GET_VALUE, key} as go-libp2p-kad-dht does', () => {
    expect(Buffer.from(encodeGetValue(Uint8Array.from([0x2f, 0x61]))).toString('hex')).to.equal('080112022f61')
  })

  it('decodes the record and the closer peers of an answer, skipping other fields', () => {
    const record = new Libp2pRecord(Uint8Array.from([1, 2]), Uint8Array.from([9, 9, 9]), new Date(0)).serialize()
    const peer = Buffer.concat([Buffer.from([0x0a, 2, 0xaa, 0xbb]), Buffer.from([0x12, 1, 0x04]), Buffer.from([0x12, 1, 0x05]), Buffer.from([0x18, 1])])
    const msg = Buffer.concat([
      Buffer.from([0x08, 0x01, 0x12, 1, 0x2f]),
      Buffer.from([0x1a, record.length]), Buffer.from(record),
      Buffer.from([0x42, peer.length]), peer,
      Buffer.from([0x50, 0x00])
    ])
    const answer = decodeAnswer(msg)
    expect(Buffer.from(answer.record ?? []).equals(Buffer.from(record))).to.equal(true)
    expect(answer.closer).to.have.length(1)
    expect(Buffer.from(answer.closer[0].id).toString('hex')).to.equal('aabb')
    expect(answer.closer[0].addrs.map(a => Buffer.from(a).toString('hex'))).to.deep.equal(['04', '05'])
    expect(() => decodeAnswer(Uint8Array.from([0x1a, 5, 1]))).to.throw()
  })
})

describe('core/routing/lookup: per-request timeout', () => {
  afterEach(() => { sinon.restore() })

  it('the 10 s timer of a request in flight does not hold the event loop (unref\'d), and done() clears it', () => {
    const set = sinon.spy(globalThis, 'setTimeout')
    const clear = sinon.spy(globalThis, 'clearTimeout')
    const { signal, done } = requestSignal()
    expect(set.callCount).to.equal(1)
    const timer = set.returnValues[0] as unknown as NodeJS.Timeout
    expect(timer.hasRef()).to.equal(false)
    expect(signal.aborted).to.equal(false)
    done()
    expect(clear.calledWith(timer)).to.equal(true)
  })
})

describe('core/routing/lookup: between two online nodes', function () {
  this.timeout(120_000)
  let a: TestNode
  let b: TestNode

  before(async () => {
    a = await onlineNode()
    b = await onlineNode()
    await connectOnline(b, a)
  })
  after(async () => {
    await a?.stop()
    await b?.stop()
  })

  it('B finds the record A published, from A, and asks A on one kept stream', async () => {
    const cid = (await a.invoke('add', { files: filesOf({ path: 'x', content: 'lookup' }) }))[0].Hash
    const { Name } = await a.invoke('name/publish', { args: [cid], options: { 'allow-offline': true } })
    const key = ipnsRoutingKey(parseIpnsName(Name)!)
    const search = async (): Promise<Array<{ value: Uint8Array, from: PeerId }>> => {
      const got: Array<{ value: Uint8Array, from: PeerId }> = []
      await routingOf(b).searchValue!(key, { onRecord: (value, from) => { got.push({ value, from }); return false } })
      return got
    }
    // B holds the copy A put to it: as Kubo's, the search gives it (from B itself) and ends, the DHT without peers
    // (the WAN one on loopback) having ended with it
    const held = await search()
    expect(held.map(g => g.from.toString())).to.deep.equal([libp2pOf(b).peerId.toString()])
    // without it, B looks the record up
    const ds = b.container.cradle.datastore as Datastore
    for (const k of [dhtRecordKey('wan', key), dhtRecordKey('lan', key), new Key('/' + base32.baseEncode(key).toUpperCase())]) await ds.delete(k)
    // the streams the lookup opens (js kad-dht's own queries open short-lived streams of the same protocol too)
    const open = sinon.spy(ValueLookup.prototype as any, 'open')
    try {
      const first = await search()
      expect(first.map(g => g.from.toString())).to.deep.equal([libp2pOf(a).peerId.toString()])
      const second = await search()
      expect(Buffer.from(second[0].value).equals(Buffer.from(first[0].value))).to.equal(true)
      expect(open.callCount).to.equal(1)
      const kept = await open.firstCall.returnValue
      expect([kept.protocol, kept.direction, kept.status]).to.deep.equal([LAN_PROTOCOL, 'outbound', 'open'])
    } finally {
      open.restore()
    }
    // onRecord saying enough ends the lookup
    let calls = 0
    await routingOf(b).searchValue!(key, { onRecord: () => { calls++; return true } })
    expect(calls).to.equal(1)
  })

  it('name resolve --nocache on B goes through the lookup and gives A\'s value', async () => {
    const cid = (await a.invoke('add', { files: filesOf({ path: 'y', content: 'resolve' }) }))[0].Hash
    const { Name } = await a.invoke('name/publish', { args: [cid], options: { 'allow-offline': true } })
    expect((await b.invoke('name/resolve', { args: [Name], options: { nocache: true } })).Path).to.equal(`/ipfs/${cid}`)
  })

  it('a node holding an older copy answers with it without asking its peers, as Kubo 0.40.1 does; routing get too', async () => {
    const cid1 = (await a.invoke('add', { files: filesOf({ path: 'z', content: 'stale 1' }) }))[0].Hash
    const cid2 = (await a.invoke('add', { files: filesOf({ path: 'z', content: 'stale 2' }) }))[0].Hash
    const { Name } = await a.invoke('name/publish', { args: [cid1], options: { 'allow-offline': true, key: 'self' } })
    const key = ipnsRoutingKey(parseIpnsName(Name)!)
    const ds = b.container.cradle.datastore as Datastore
    const lanKey = dhtRecordKey('lan', key)
    const old = await ds.get(lanKey)
    await a.invoke('name/publish', { args: [cid2], options: { 'allow-offline': true, key: 'self' } })
    // B missed the update (its copy is v1 again); A holds v2
    await ds.put(lanKey, old)
    // no GET_VALUE goes out (Kubo starts the LAN lookup, then cancels its requests)
    const open = sinon.spy(ValueLookup.prototype as any, 'request')
    try {
      expect((await b.invoke('name/resolve', { args: [Name], options: { nocache: true } })).Path).to.equal(`/ipfs/${cid1}`)
      const [event] = await b.invoke('routing/get', { args: [`/ipns/${Name as string}`] })
      expect(unmarshalIPNSRecord(Buffer.from(event.Extra, 'base64')).value).to.equal(`/ipfs/${cid1}`)
      expect(open.callCount).to.equal(0)
    } finally {
      open.restore()
    }
    // without its copy, B looks the name up and gets A's v2
    await ds.delete(lanKey)
    expect((await b.invoke('name/resolve', { args: [Name], options: { nocache: true } })).Path).to.equal(`/ipfs/${cid2}`)
  })
})
