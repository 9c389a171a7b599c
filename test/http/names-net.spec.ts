// Names and pubsub across daemons on loopback (test/helpers/cluster.ts): three tsipfs nodes, Kubo and a Helia
// peer (js-libp2p gossipsub) for pubsub.
// IPNS: publish on A, resolve on B and C by DHT (LAN DHT, loopback allowed by the test profile) and by
// IPNS over pubsub; sequence and expiry; Kubo resolving tsipfs names and the other way round; the
// gateway's /ipns/ through routing. Pubsub: sub/pub between tsipfs nodes and with Kubo both ways,
// every message once and in order, Kubo's multibase fields, the seqno validator state (pubsub reset).
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { base64url } from 'multiformats/bases/base64'
import { Cluster, waitFor, type Peer } from '../helpers/cluster.js'
import { kuboBinary } from '../helpers/kubo.js'

const PUBSUB = { 'Pubsub.Enabled': true, 'Ipns.UsePubsub': true }
const sleep = async (ms: number): Promise<void> => { await new Promise(resolve => setTimeout(resolve, ms)) }

interface Sub { messages: Array<{ from?: string, data?: string, seqno?: string, topicIDs?: string[] }>, close: () => void }

/** `pubsub sub` held open: the NDJSON lines as they come. Resolves once the response headers arrived. */
async function subscribe (p: Peer, topic: string): Promise<Sub> {
  const controller = new AbortController()
  const res = await fetch(`${p.api as string}/api/v0/pubsub/sub?arg=${base64url.encode(Buffer.from(topic))}`, { method: 'POST', signal: controller.signal })
  expect(res.status).to.equal(200)
  const messages: Sub['messages'] = []
  void (async () => {
    let buf = ''
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buf += Buffer.from(chunk).toString()
        let i: number
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i)
          buf = buf.slice(i + 1)
          if (line.trim() !== '') messages.push(JSON.parse(line))
        }
      }
    } catch {}
  })()
  return { messages, close: () => { controller.abort() } }
}

const pub = async (p: Peer, topic: string, data: string): Promise<void> => {
  await p.call('pubsub/pub', [base64url.encode(Buffer.from(topic))], {}, Buffer.from(data))
}
const text = (m: { data?: string }): string => m.data == null ? '' : Buffer.from(base64url.decode(m.data)).toString()

/** Wait until `p` sees `others` as subscribers of `topic`. */
async function meshed (p: Peer, topic: string, others: Peer[]): Promise<void> {
  await waitFor(async () => {
    const peers = (await p.call('pubsub/peers', [base64url.encode(Buffer.from(topic))])).Strings as string[] | null
    return others.every(o => peers?.includes(o.id) === true)
  }, { what: `${p.name} sees ${others.map(o => o.name).join(', ')} on ${topic}`, timeout: 30_000, interval: 200 })
}

async function resolveEventually (p: Peer, name: string, want: string, options: Record<string, string | boolean> = {}): Promise<string> {
  return await waitFor(async () => {
    try {
      const out = (await p.call('name/resolve', [name], { nocache: true, ...options })).Path as string
      return out === want ? out : undefined
    } catch { return undefined }
  }, { what: `${p.name} resolves ${name} to ${want}`, timeout: 60_000, interval: 500 })
}

describe('net: IPNS and pubsub between nodes', function () {
  this.timeout(180_000)
  let c: Cluster
  let a: Peer
  let b: Peer
  let cc: Peer
  let k: Peer
  let h: Peer

  before(async function () {
    this.timeout(30 * 60_000) // a fresh machine builds Kubo first
    kuboBinary()
    c = new Cluster({ label: 'names-net' })
    ;[a, b, cc, k, h] = await Promise.all([
      c.tsipfs({ name: 'A', config: PUBSUB }),
      c.tsipfs({ name: 'B', config: PUBSUB }),
      c.tsipfs({ name: 'C', config: PUBSUB }),
      c.kubo({ name: 'kubo', config: PUBSUB }),
      c.helia({ name: 'helia', pubsub: true })
    ])
    // a line A - B - C, Kubo next to B and A, Helia next to A
    await c.connect(a, b)
    await c.connect(b, cc)
    await c.connect(k, b)
    await c.connect(k, a)
    await c.connect(h, a)
  })
  after(async () => { await c?.stop() })

  describe('IPNS', () => {
    it('publish on A; B and C (two hops away) resolve it; Kubo resolves it too', async () => {
      const cid = await a.add('hello from A\n')
      const { Name } = await a.call('name/publish', [cid], { ttl: '1s' })
      expect(Name).to.match(/^k51/)
      await resolveEventually(b, Name, `/ipfs/${cid}`)
      await resolveEventually(cc, Name, `/ipfs/${cid}`)
      await resolveEventually(k, Name, `/ipfs/${cid}`)
      // and the gateway of C serves /ipns/<name>, fetching the record and the block through the network
      const gw = readFileSync(path.join(cc.repo as string, 'gateway'), 'utf8').trim()
      const res = await fetch(`${gw}/ipns/${Name as string}`)
      expect(res.status).to.equal(200)
      expect(await res.text()).to.equal('hello from A\n')
      expect(res.headers.get('cache-control')).to.match(/^public, max-age=\d+$/)
    })

    it('a new value (sequence + 1) replaces the old one on B; the old record is not taken back', async () => {
      const cid1 = await a.add('v1\n')
      const cid2 = await a.add('v2\n')
      const { Name } = await a.call('name/publish', [cid1], { ttl: '1s' })
      await resolveEventually(b, Name, `/ipfs/${cid1}`)
      const old = await a.call('name/get', [Name]) as Buffer
      await a.call('name/publish', [cid2], { ttl: '1s' })
      await resolveEventually(b, Name, `/ipfs/${cid2}`)
      // putting the older record on B is refused
      await b.call('name/put', [Name], {}, old).then(() => { throw new Error('put an older record') }, (err: Error) => {
        expect(err.message).to.match(/^existing IPNS record has sequence \d+ >= new record sequence \d+/)
      })
    })

    it('tsipfs resolves a name Kubo publishes', async () => {
      const cid = await k.add('hello from kubo\n')
      const { Name } = await k.call('name/publish', [cid], { ttl: '1s', key: 'self' })
      await resolveEventually(b, Name, `/ipfs/${cid}`)
      await resolveEventually(a, Name, `/ipfs/${cid}`)
    })

    it('an expired record does not resolve', async () => {
      await a.call('key/gen', ['short'])
      const cid = await a.add('short-lived\n')
      const { Name } = await a.call('name/publish', [cid], { key: 'short', lifetime: '3s', ttl: '1s' })
      await resolveEventually(b, Name, `/ipfs/${cid}`)
      await sleep(4000)
      for (const p of [a, b]) {
        await p.call('name/resolve', [Name], { nocache: true, 'dht-timeout': '5s' }).then(
          (out: { Path: string }) => { throw new Error(`${p.name} resolved an expired record to ${out.Path}`) },
          (err: Error) => { expect(err.message).to.equal('could not resolve name') })
      }
    })

    it('IPNS over pubsub: B follows A\'s name on its topic and gets each new value', async () => {
      await a.call('key/gen', ['ps'])
      const cid1 = await a.add('ps v1\n')
      const { Name } = await a.call('name/publish', [cid1], { key: 'ps', ttl: '1s' })
      await resolveEventually(b, Name, `/ipfs/${cid1}`)
      const subs = (await b.call('name/pubsub/subs')).Strings as string[]
      expect(subs).to.include(`/ipns/${Name as string}`)
      expect(await b.call('name/pubsub/state')).to.deep.equal({ Enabled: true })
      const cid2 = await a.add('ps v2\n')
      await a.call('name/publish', [cid2], { key: 'ps', ttl: '1s' })
      await resolveEventually(b, Name, `/ipfs/${cid2}`)
      expect(await b.call('name/pubsub/cancel', [Name])).to.deep.equal({ Canceled: true })
      expect(await b.call('name/pubsub/cancel', [Name])).to.deep.equal({ Canceled: false })
    })
  })

  describe('pubsub', () => {
    it('B and C get every message A publishes, once and in order, in Kubo\'s format', async () => {
      const topic = `t-${Date.now()}`
      const sb = await subscribe(b, topic)
      const sc = await subscribe(cc, topic)
      try {
        await meshed(a, topic, [b])
        await meshed(b, topic, [cc])
        for (let i = 0; i < 20; i++) await pub(a, topic, `m${i}`)
        await waitFor(() => sb.messages.length >= 20 && sc.messages.length >= 20, { what: 'all messages', timeout: 30_000, interval: 100 })
        await sleep(500)
        for (const s of [sb, sc]) {
          expect(s.messages.map(text)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `m${i}`))
          const m = s.messages[0]
          expect(m.from).to.equal(a.id)
          expect(m.topicIDs).to.deep.equal([base64url.encode(Buffer.from(topic))])
          expect(m.seqno).to.match(/^u[A-Za-z0-9_-]{11}$/)
        }
        const ls = (await b.call('pubsub/ls')).Strings as string[]
        expect(ls).to.include(base64url.encode(Buffer.from(topic)))
      } finally {
        sb.close()
        sc.close()
      }
    })

    it('Kubo receives tsipfs messages and tsipfs receives Kubo messages', async () => {
      const topic = `k-${Date.now()}`
      const sk = await subscribe(k, topic)
      const st = await subscribe(a, topic)
      try {
        await meshed(a, topic, [k])
        await meshed(k, topic, [a])
        // Kubo validates incoming messages concurrently (go-libp2p-pubsub's validation workers) and its seqno validator
        // ignores a message whose seqno is not above the highest it accepted from the author: two messages of one author
        // that reach it together can be validated in the wrong order and the first dropped (Kubo to Kubo as well). So A
        // publishes its next message once Kubo delivered the one before; Kubo's messages reach A as a burst (A keeps
        // their order).
        const fromA = (): string[] => sk.messages.filter(m => m.from === a.id).map(text)
        for (let i = 0; i < 10; i++) {
          await pub(a, topic, `from-tsipfs-${i}`)
          await waitFor(() => fromA().length > i, { what: `Kubo delivers from-tsipfs-${i}`, timeout: 30_000, interval: 20 })
        }
        for (let i = 0; i < 10; i++) await pub(k, topic, `from-kubo-${i}`)
        await waitFor(() => st.messages.filter(m => m.from === k.id).length >= 10, { what: 'Kubo\'s messages on A', timeout: 30_000, interval: 100 })
        expect(sk.messages.filter(m => m.from === a.id).map(text)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `from-tsipfs-${i}`))
        expect(st.messages.filter(m => m.from === k.id).map(text)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `from-kubo-${i}`))
      } finally {
        sk.close()
        st.close()
      }
    })

    it('a Helia peer (js-libp2p gossipsub) gets tsipfs messages and tsipfs gets its messages', async () => {
      const topic = `h-${Date.now()}`
      await h.call('subscribe', [], { topic })
      const st = await subscribe(a, topic)
      try {
        await meshed(a, topic, [h])
        await waitFor(async () => ((await h.call('subscribers', [], { topic })) as string[]).includes(a.id), { what: 'Helia sees A on the topic', timeout: 30_000, interval: 200 })
        for (let i = 0; i < 10; i++) await pub(a, topic, `from-tsipfs-${i}`)
        for (let i = 0; i < 10; i++) await h.call('publish', [], { topic, data: Buffer.from(`from-helia-${i}`).toString('base64') })
        const fromA = async (): Promise<string[]> => ((await h.call('messages', [], { topic })) as Array<{ from?: string, data: string }>)
          .filter(m => m.from === a.id).map(m => Buffer.from(m.data, 'base64').toString())
        await waitFor(async () => (await fromA()).length >= 10 && st.messages.filter(m => m.from === h.id).length >= 10, { what: 'messages both ways with Helia', timeout: 30_000, interval: 100 })
        expect(await fromA()).to.deep.equal(Array.from({ length: 10 }, (_, i) => `from-tsipfs-${i}`))
        const fromH = st.messages.filter(m => m.from === h.id)
        expect(fromH.map(text)).to.deep.equal(Array.from({ length: 10 }, (_, i) => `from-helia-${i}`))
        expect(fromH[0].topicIDs).to.deep.equal([base64url.encode(Buffer.from(topic))])
        expect(fromH[0].seqno).to.match(/^u[A-Za-z0-9_-]{11}$/)
      } finally {
        st.close()
      }
    })

    it('keeps the highest seqno seen per author; pubsub reset clears it', async () => {
      const one = await b.call('pubsub/reset', [], { peer: a.id })
      expect(one).to.deep.equal({ deleted: 1 })
      expect(await b.call('pubsub/reset', [], { peer: a.id })).to.deep.equal({ deleted: 0 })
      const all = await b.call('pubsub/reset')
      expect(all.deleted).to.be.a('number')
    })
  })
})
