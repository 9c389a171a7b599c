// name and pubsub commands over two online in-process nodes on loopback (dialled with libp2p directly):
// publish on A and resolve on B through the DHT and through IPNS over pubsub; pubsub sub/pub with
// Kubo's message fields; the persisted seqno check and pubsub reset; Pubsub.Router floodsub.
import { expect } from 'chai'
import sinon from 'sinon'
import { base64url } from 'multiformats/bases/base64'
import { connectOnline, createOnlineTestNode, filesOf, libp2pOf, type TestNode } from '../../helpers/node.js'
import { sleep, waitFor } from '../../helpers/wait.js'
import { rejects } from '../../helpers/assert.js'
import { execute } from '../../../registry/execute.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'
import { GOSSIPSUB_OPTIONS, SEQNO_PREFIX, SeqnoTable, type SeqnoValidators, deferOutboundSends, msgIdKubo, omitInlinedKey, reuseEd25519VerifyKeys, reusedSigningKey } from '../../../core/libp2p/pubsub.js'
import { peerIdText } from '../../../core/libp2p/peer-id-text.js'
import { decodeUrlArg, mb64 } from '../../../plugins/pubsub/common.js'
import { MemoryDatastore } from 'datastore-core/memory'

async function onlineNode (extra: Record<string, unknown> = {}): Promise<TestNode> {
  return await createOnlineTestNode({}, config => {
    config.Pubsub = { ...config.Pubsub, Enabled: true, ...(extra.Pubsub as object ?? {}) }
    config.Ipns = { ...config.Ipns, UsePubsub: true }
  })
}

/** `pubsub sub` as the RPC runs it: values as they come, until stopped. */
async function sub (node: TestNode, topic: string): Promise<{ values: any[], stop: () => void }> {
  const controller = new AbortController()
  const prepared = node.registry.prepare(['pubsub', 'sub'], { args: [base64url.encode(Buffer.from(topic))] })
  const outcome = await execute(prepared, node.container, { signal: controller.signal })
  if (outcome.kind !== 'ndjson') throw new Error('not a stream')
  const values: any[] = []
  void (async () => { for await (const v of outcome.items) values.push(v) })()
  return { values, stop: () => { controller.abort() } }
}

describe('name and pubsub between two online nodes', function () {
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

  it('pubsub: B gets A\'s messages once and in order, with Kubo\'s multibase fields', async () => {
    const topic = 'tsipfs-test'
    const s = await sub(b, topic)
    const own = await sub(a, topic)
    try {
      await waitFor(async () => ((await a.invoke('pubsub/peers', { args: [base64url.encode(Buffer.from(topic))] })).Strings as string[]).includes(libp2pOf(b).peerId.toString()))
      expect((await b.invoke('pubsub/ls', {})).Strings).to.include(base64url.encode(Buffer.from(topic)))
      // gossipsub's outbound stream to B has its sends deferred (the module's shape is still what we reach into)
      const toB = (libp2pOf(a).services as any).pubsub.streamsOutbound.get(libp2pOf(b).peerId.toString())
      expect(Object.hasOwn(toB, 'pushPrefixed') && Object.hasOwn(toB, 'close')).to.equal(true)
      for (let i = 0; i < 10; i++) await a.invoke('pubsub/pub', { args: [base64url.encode(Buffer.from(topic))], files: filesOf({ content: `m${i}` }) })
      await waitFor(() => s.values.length >= 10)
      await sleep(300)
      expect(s.values.map(v => Buffer.from(base64url.decode(v.data)).toString())).to.deep.equal(Array.from({ length: 10 }, (_, i) => `m${i}`))
      expect(s.values[0].from).to.equal(libp2pOf(a).peerId.toString())
      expect(s.values[0].topicIDs).to.deep.equal([base64url.encode(Buffer.from(topic))])
      expect(s.values[0].seqno).to.match(/^u[A-Za-z0-9_-]{11}$/)
      // a node gets its own messages too, as go-libp2p-pubsub delivers them
      expect(own.values.length).to.equal(10)
      // they came without the key field (the Ed25519 peer ID holds it), as go-libp2p-pubsub sends them
      const fromA = [...((libp2pOf(b).services as any).pubsub.mcache.msgs.values() as Iterable<{ message: any }>)].map(e => e.message).filter(m => Buffer.from(m.from ?? []).equals(libp2pOf(a).peerId.toMultihash().bytes))
      expect(fromA.length).to.be.at.least(10)
      for (const m of fromA) expect([m.key, m.signature?.byteLength]).to.deep.equal([undefined, 64])
    } finally {
      s.stop()
      own.stop()
    }
    await rejects(b.invoke('pubsub/pub', { args: [topic], files: filesOf({ content: 'x' }) }), /^URL arg must be multibase encoded: /)
    await rejects(b.invoke('pubsub/pub', { args: ['m' + Buffer.from(topic).toString('base64')], files: filesOf({ content: 'x' }) }), 'URL arg must be base64url encoded')
  })

  it('pubsub sub: a subscriber that does not read keeps 4 MiB of messages, the rest are dropped (as go-libp2p-pubsub past its buffer)', async () => {
    const topic = 'tsipfs-slow-reader'
    const arg = base64url.encode(Buffer.from(topic))
    const controller = new AbortController()
    const outcome = await execute(a.registry.prepare(['pubsub', 'sub'], { args: [arg] }), a.container, { signal: controller.signal })
    if (outcome.kind !== 'ndjson') throw new Error('not a stream')
    const slow = outcome.items[Symbol.asyncIterator]()
    // a reader that keeps up: once it has all 40, the slow subscription has been offered them all too
    const fast = await sub(a, topic)
    try {
      // 32 of 128 KiB fill the 4 MiB
      const body = (i: number): string => `m${i}`.padEnd(128 * 1024, '.')
      for (let i = 0; i < 40; i++) await a.invoke('pubsub/pub', { args: [arg], files: filesOf({ content: body(i) }) })
      await waitFor(() => fast.values.length >= 40)
      const got: string[] = []
      for (let i = 0; i < 32; i++) got.push(Buffer.from(base64url.decode(((await slow.next()).value as any).data)).toString())
      expect(got).to.deep.equal(Array.from({ length: 32 }, (_, i) => body(i)))
      await a.invoke('pubsub/pub', { args: [arg], files: filesOf({ content: 'last' }) })
      expect(Buffer.from(base64url.decode(((await slow.next()).value as any).data)).toString()).to.equal('last')
    } finally {
      controller.abort()
      fast.stop()
      await slow.return?.(undefined)
    }
  })

  it('pubsub reset: B has kept A\'s highest seqno in its datastore', async () => {
    const id = libp2pOf(a).peerId.toString()
    expect(await b.invoke('pubsub/reset', { options: { peer: id } })).to.deep.equal({ deleted: 1 })
    expect(await b.invoke('pubsub/reset', { options: { peer: id } })).to.deep.equal({ deleted: 0 })
  })

  it('pubsub reset: a message that comes while the stored seqno is being deleted does not bring it back', async () => {
    const table = ((libp2pOf(b).services as any).pubsub.topicValidators as SeqnoValidators).seqnos
    const from = libp2pOf(a).peerId
    // B knows A at seqno 100 (written through), then forgets it in memory (as after a restart)
    await table.reset(from.toString())
    expect(await table.check({ type: 'signed', from, sequenceNumber: 100n })).to.equal('accept')
    await table.flush()
    ;(table as any).highest.delete(from.toString())
    const ds = b.container.cradle.datastore
    const has = ds.has.bind(ds)
    // A's message arrives between the in-memory reset and the datastore delete: it reads seqno 100 back
    const stub = sinon.stub(ds, 'has').callsFake(async (key: any, options?: any) => {
      if (String(key).startsWith(SEQNO_PREFIX)) await table.check({ type: 'signed', from, sequenceNumber: 1n })
      return await has(key, options)
    })
    try {
      expect(await b.invoke('pubsub/reset', { options: { peer: from.toString() } })).to.deep.equal({ deleted: 1 })
    } finally {
      stub.restore()
    }
    // reset: A's seqno 2 is new again
    expect(await table.check({ type: 'signed', from, sequenceNumber: 2n })).to.equal('accept')
  })

  it('IPNS by DHT: A publishes, B resolves; a newer value replaces it', async () => {
    const cid1 = (await a.invoke('add', { files: filesOf({ path: 'x', content: 'one' }) }))[0].Hash
    const cid2 = (await a.invoke('add', { files: filesOf({ path: 'y', content: 'two' }) }))[0].Hash
    await a.invoke('key/gen', { args: ['dht'] })
    const { Name } = await a.invoke('name/publish', { args: [cid1], options: { key: 'dht', ttl: '1s' } })
    expect((await b.invoke('name/resolve', { args: [Name], options: { nocache: true } })).Path).to.equal(`/ipfs/${cid1}`)
    await a.invoke('name/publish', { args: [cid2], options: { key: 'dht', ttl: '1s' } })
    await waitFor(async () => (await b.invoke('name/resolve', { args: [Name], options: { nocache: true } })).Path === `/ipfs/${cid2}`)
    // name get on B returns A's latest record
    const raw = Buffer.from(await b.invoke('name/get', { args: [Name] }))
    expect((await b.invoke('name/inspect', { files: filesOf({ content: raw }) })).Entry.Value).to.equal(`/ipfs/${cid2}`)
  })

  it('IPNS over pubsub: B subscribes by resolving, and follows A\'s updates', async () => {
    const cid1 = (await a.invoke('add', { files: filesOf({ path: 'p', content: 'ps one' }) }))[0].Hash
    const cid2 = (await a.invoke('add', { files: filesOf({ path: 'q', content: 'ps two' }) }))[0].Hash
    await a.invoke('key/gen', { args: ['ps'] })
    const { Name } = await a.invoke('name/publish', { args: [cid1], options: { key: 'ps', ttl: '1s' } })
    expect((await b.invoke('name/resolve', { args: [Name], options: { nocache: true } })).Path).to.equal(`/ipfs/${cid1}`)
    expect((await b.invoke('name/pubsub/subs', {})).Strings).to.include(`/ipns/${Name as string}`)
    expect(await b.invoke('name/pubsub/state', {})).to.deep.equal({ Enabled: true })
    const topics = (await b.invoke('pubsub/ls', {})).Strings as string[]
    expect(topics.some(t => Buffer.from(base64url.decode(t)).toString('latin1').startsWith('/record/'))).to.equal(true)
    await a.invoke('name/publish', { args: [cid2], options: { key: 'ps', ttl: '1s' } })
    // the record arrives by pubsub: B's local view (offline: no DHT lookup) has it
    await waitFor(async () => (await b.invoke('name/resolve', { args: [Name], options: { nocache: true, offline: true } })).Path === `/ipfs/${cid2}`)
    expect(await b.invoke('name/pubsub/cancel', { args: [Name] })).to.deep.equal({ Canceled: true })
    expect(await b.invoke('name/pubsub/cancel', { args: [Name] })).to.deep.equal({ Canceled: false })
  })
})

describe('pubsub seqno validation (Kubo\'s BasicSeqnoValidator)', () => {
  it('accepts increasing seqnos per author, ignores repeats and older ones, keeps the highest in the datastore', async () => {
    const ds = new MemoryDatastore()
    const table = new SeqnoTable(ds)
    const id = identityOf(await generateIdentity()).PeerID
    const from = { toString: () => id }
    const msg = (n: bigint): any => ({ type: 'signed', from, sequenceNumber: n })
    expect(await table.check(msg(5n))).to.equal('accept')
    expect(await table.check(msg(5n))).to.equal('ignore')
    expect(await table.check(msg(4n))).to.equal('ignore')
    // a burst checked together, in arrival order: only what is above the highest so far passes
    const burst = await Promise.all([7n, 6n, 7n, 8n].map(async n => await table.check(msg(n))))
    expect(burst).to.deep.equal(['accept', 'ignore', 'ignore', 'accept'])
    await table.flush()
    const key = new (await import('interface-datastore')).Key(`/pubsub/seqno/${id}`)
    expect(Buffer.from(await ds.get(key)).readBigUInt64BE(0)).to.equal(8n)
    expect(await table.check({ type: 'unsigned' })).to.equal('accept')
    // a restarted node starts from what the datastore holds
    const after = new SeqnoTable(ds)
    expect(await after.check(msg(8n))).to.equal('ignore')
    expect(await after.check(msg(9n))).to.equal('accept')
    // pubsub reset: what is pending is written first (the command then deletes and counts it, as Kubo's)
    await after.reset(id)
    expect(Buffer.from(await ds.get(key)).readBigUInt64BE(0)).to.equal(9n)
    // the author starts over once its datastore key is gone too
    await ds.delete(key)
    expect(await after.check(msg(1n))).to.equal('accept')
  })
})

describe('pubsub peer scores (Kubo scores no peer)', () => {
  it('twenty peers on one IP keep a score at or above every threshold with our options, not with the defaults', async () => {
    const { PeerScore, createPeerScoreParams, createPeerScoreThresholds } = await import('@libp2p/gossipsub/score')
    const { defaultLogger } = await import('@libp2p/logger')
    const scoreOf = (params: any): number => {
      const score = new PeerScore(createPeerScoreParams(params), null, defaultLogger(), { scoreCacheValidityMs: 0 } as any)
      const ids = Array.from({ length: 20 }, (_, i) => `peer${i}`)
      for (const id of ids) { score.addPeer(id); score.addIP(id, '127.0.0.1') }
      score.addPenalty(ids[0], 1, 'broken_promise' as any)
      return Math.min(...ids.map(id => score.score(id)))
    }
    const graylist = createPeerScoreThresholds().graylistThreshold
    expect(scoreOf({})).to.be.below(graylist)
    expect(scoreOf(GOSSIPSUB_OPTIONS.scoreParams)).to.equal(0)
  })
})

describe('pubsub outbound sends (after the callback that made them, as Kubo answers a pub before the write)', () => {
  /** a gossipsub OutboundStream's shape over a raw stream that records what it is sent */
  const outbound = (sent: string[]): any => {
    const rawStream = { writeStatus: 'writable' }
    return {
      rawStream,
      pushPrefixed (data: string) {
        if (rawStream.writeStatus === 'closed' || rawStream.writeStatus === 'closing') throw new Error('Cannot write to a stream that is closed')
        sent.push(data)
      },
      async close () { sent.push('close'); rawStream.writeStatus = 'closed' }
    }
  }

  it('RPCs leave on the next tick, in order per peer; close sends what is queued first; a closed stream throws at once', async () => {
    const service = { streamsOutbound: new Map<string, any>() }
    deferOutboundSends(service)
    const [a, b]: string[][] = [[], []]
    service.streamsOutbound.set('a', outbound(a))
    service.streamsOutbound.set('b', outbound(b))
    const sa = service.streamsOutbound.get('a')
    const sb = service.streamsOutbound.get('b')
    sa.pushPrefixed('a1'); sb.pushPrefixed('b1'); sa.pushPrefixed('a2')
    expect([a, b]).to.deep.equal([[], []])
    await new Promise(resolve => process.nextTick(resolve))
    expect([a, b]).to.deep.equal([['a1', 'a2'], ['b1']])
    sa.pushPrefixed('a3')
    await sa.close()
    expect(a).to.deep.equal(['a1', 'a2', 'a3', 'close'])
    expect(() => sa.pushPrefixed('a4')).to.throw('closed')
    await new Promise(resolve => setImmediate(resolve))
    expect(a).to.deep.equal(['a1', 'a2', 'a3', 'close'])
  })
})

describe('pubsub: our messages without the key a peer ID holds; peer ID texts; URL args', () => {
  it('drops the key of our own signed messages when the peer ID is an identity multihash, keeps every other', async () => {
    const { generateKeyPair, publicKeyToProtobuf } = await import('@libp2p/crypto/keys')
    const { peerIdFromPrivateKey } = await import('@libp2p/peer-id')
    for (const [type, kept] of [['Ed25519', false], ['secp256k1', false], ['RSA', true]] as const) {
      const key = await generateKeyPair(type as any, 1024)
      const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
      const me = peerIdFromPrivateKey(key)
      const stored: any[] = []
      const service = { components: { peerId: me }, mcache: { put: (_id: unknown, raw: any) => { stored.push({ ...raw }); return 'ok' } } }
      omitInlinedKey(service)
      const k = publicKeyToProtobuf(key.publicKey)
      const sig = new Uint8Array(64)
      // a copy of our ID bytes (the message holds its own array), another author's, an unsigned one
      expect(service.mcache.put('1', { from: Uint8Array.from(me.toMultihash().bytes), key: k, signature: sig })).to.equal('ok')
      service.mcache.put('2', { from: other.toMultihash().bytes, key: k, signature: sig })
      service.mcache.put('3', { from: me.toMultihash().bytes, key: k })
      expect(stored.map(m => m.key != null)).to.deep.equal([kept, true, true])
    }
  })

  it('peer ID texts are the peer IDs\' own, for every key type and for any object with only toString', async () => {
    const { generateKeyPair } = await import('@libp2p/crypto/keys')
    const { peerIdFromPrivateKey, peerIdFromString } = await import('@libp2p/peer-id')
    for (const type of ['Ed25519', 'secp256k1', 'RSA'] as const) {
      const id = peerIdFromPrivateKey(await generateKeyPair(type as any, 1024))
      expect(peerIdText(id)).to.equal(id.toString())
      // a new object of the same peer (each received message has one)
      expect(peerIdText(peerIdFromString(id.toString()))).to.equal(id.toString())
    }
    expect(peerIdText({ toString: () => 'x' } as any)).to.equal('x')
  })

  it('URL args and message fields: base64url as multiformats decodes and encodes it, its errors for the rest', () => {
    for (const text of ['', 'a', 'ab', 'abc', 'topic/with ünïcode', '\u0000\u00ff']) {
      expect(decodeUrlArg(base64url.encode(Buffer.from(text)))).to.equal(text)
      expect(mb64(Buffer.from(text))).to.equal(base64url.encode(Buffer.from(text)))
    }
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) % 256)
    expect(mb64(bytes.subarray(3, 200))).to.equal(base64url.encode(bytes.subarray(3, 200)))
    // padding is taken (multiformats strips it)
    expect(decodeUrlArg('uYQ==')).to.equal('a')
    // non-zero trailing bits, a character outside the alphabet, another base
    for (const [arg, err] of [['uYR', /^URL arg must be multibase encoded: Unexpected end of data$/], ['uY!', /^URL arg must be multibase encoded: /], ['mYQ', /^URL arg must be base64url encoded$/]] as const) {
      expect(() => decodeUrlArg(arg)).to.throw(err)
    }
  })
})

describe('pubsub signing key', () => {
  it('signs as the node key does (Ed25519 signatures are deterministic), and the public key verifies it', async () => {
    const { generateKeyPair } = await import('@libp2p/crypto/keys')
    const key = await generateKeyPair('Ed25519')
    const signer = reusedSigningKey(key as any)
    for (const text of ['a message', 'another one']) {
      const msg = Buffer.from(text)
      const sig = await signer.sign(msg)
      expect(Buffer.from(sig)).to.deep.equal(Buffer.from(await key.sign(msg)))
      expect(await key.publicKey.verify(msg, sig)).to.equal(true)
    }
    expect(signer.publicKey).to.equal(key.publicKey)
    expect(signer.type).to.equal('Ed25519')
  })

  it('message IDs are Kubo\'s (go-libp2p-pubsub default: author peer ID bytes + 8-byte seqno), for Ed25519 and other keys', async () => {
    const { generateKeyPair } = await import('@libp2p/crypto/keys')
    const { peerIdFromPrivateKey } = await import('@libp2p/peer-id')
    const ed = await generateKeyPair('Ed25519')
    const secp = await generateKeyPair('secp256k1')
    const rsa = await generateKeyPair('RSA', 1024)
    // DefaultMsgIdFn: string(From) + string(Seqno), From being the peer ID's multihash bytes
    const expected = (from: any, seqno: bigint): Buffer => Buffer.concat([from.toMultihash().bytes, Buffer.from(seqno.toString(16).padStart(16, '0'), 'hex')])
    for (const key of [ed, secp, rsa]) {
      const from = peerIdFromPrivateKey(key)
      for (const seqno of [1n, 0x0102030405060708n, 2n ** 64n - 1n]) {
        const id = msgIdKubo({ type: 'signed', from, key: key.publicKey, sequenceNumber: seqno } as any)
        expect(Buffer.from(id)).to.deep.equal(expected(from, seqno))
        expect(id.byteLength).to.equal(from.toMultihash().bytes.byteLength + 8)
      }
    }
    expect(() => msgIdKubo({ type: 'unsigned' })).to.throw('expected signed message type')
  })

  it('verifies with a reused public KeyObject as the library does: good, tampered, other key, bad lengths', async () => {
    const { generateKeyPair, publicKeyFromRaw } = await import('@libp2p/crypto/keys')
    const [key, other] = [await generateKeyPair('Ed25519'), await generateKeyPair('Ed25519')]
    const msg = Buffer.from('a message')
    const sig = await key.sign(msg)
    const cases = async (): Promise<unknown[]> => {
      // a new instance per check, as a received message makes one from its author's key
      const pub = publicKeyFromRaw(key.publicKey.raw)
      const out: unknown[] = []
      for (const [data, s, k] of [[msg, sig, pub], [msg, sig, pub], [Buffer.from('a massage'), sig, pub], [msg, sig, publicKeyFromRaw(other.publicKey.raw)], [msg, sig.subarray(1), pub]] as const) {
        try { out.push(await k.verify(data, s)) } catch (err) { out.push((err as Error).message) }
      }
      return out
    }
    const before = await cases()
    reuseEd25519VerifyKeys(publicKeyFromRaw(key.publicKey.raw))
    expect(await cases()).to.deep.equal(before)
    expect(before.slice(0, 4)).to.deep.equal([true, true, false, false])
    expect(before[4]).to.be.a('string')
  })
})
