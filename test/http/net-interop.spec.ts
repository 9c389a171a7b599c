// Interop with Kubo (the reference, built by scripts/kubo.sh when missing) and Helia (npm `helia`), each
// direction, on loopback and in network namespaces: connect, identify, bitswap both ways, ping.
import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { Cluster, waitFor, type Peer } from '../helpers/cluster.js'
import { kuboBinary } from '../helpers/kubo.js'
import { netnsUnavailable } from '../helpers/netns.js'
import { skipWithReason } from '../helpers/debs.js'

const KUBO_AGENT = /^kubo\/0\.40\.1/
const TSIPFS_AGENT = /^tsipfs\//

/** Kubo's `ping` lines: the replies that succeeded with a round trip time */
const pongs = (lines: Array<{ Success: boolean, Time: number, Text: string }>): number[] => lines.filter(l => l.Success && l.Time > 0).map(l => l.Time)

/** The first provider `p` finds for `cid` with `routing findprovs` (retried: providing is asynchronous). */
async function findProvider (p: Peer, cid: string): Promise<string> {
  return await waitFor(async () => {
    const events = await p.call('routing/findprovs', [cid], { 'num-providers': 1, timeout: '5s' }) as Array<{ Type: number, Responses: Array<{ ID: string }> | null }>
    return events.filter(e => e.Type === 4).flatMap(e => e.Responses ?? [])[0]?.ID
  }, { what: `${p.name} finds a provider of ${cid}`, timeout: 60_000, interval: 1000 })
}

describe('net: interop with Kubo and Helia (loopback)', function () {
  this.timeout(120_000)
  let c: Cluster
  let t: Peer
  let k: Peer
  let h: Peer

  before(async function () {
    this.timeout(30 * 60_000) // a fresh machine builds Kubo first
    kuboBinary()
    c = new Cluster({ label: 'interop-loopback' })
    t = await c.tsipfs({ name: 'tsipfs' })
    k = await c.kubo({ name: 'kubo' })
    h = await c.helia({ name: 'helia', dht: 'lan' })
  })
  after(async () => { await c?.stop() })

  describe('Kubo', () => {
    it('dials tsipfs over TCP, and identify gives each side the other\'s AgentVersion', async () => {
      await c.connect(k, t, 'tcp')
      const kuboPeers = (await k.call('swarm/peers')).Peers as Array<{ Peer: string, Addr: string }>
      const seen = kuboPeers.find(p => p.Peer === t.id)
      expect(seen?.Addr).to.match(/\/tcp\//)
      expect(await waitFor(async () => await k.agentOf(t.id), { what: 'Kubo identifies tsipfs' })).to.match(TSIPFS_AGENT)
      expect(await waitFor(async () => await t.agentOf(k.id), { what: 'tsipfs identifies Kubo' })).to.match(KUBO_AGENT)
    })

    it('fetches a multi-block file from tsipfs by bitswap; tsipfs\'s bitswap stat counts what it sent', async () => {
      const data = randomBytes(600 * 1024)
      const cid = await t.add(data)
      const before = await t.call('bitswap/stat')
      expect(Buffer.compare(await k.cat(cid, 30_000), data)).to.equal(0)
      const after = await t.call('bitswap/stat')
      expect(after.BlocksSent - before.BlocksSent).to.be.at.least(3)
      expect(after.DataSent - before.DataSent).to.be.at.least(data.length)
    })

    it('serves a multi-block file that tsipfs fetches by bitswap; tsipfs\'s bitswap stat counts what it received', async () => {
      const data = randomBytes(600 * 1024)
      const cid = await k.add(data)
      const before = await t.call('bitswap/stat')
      expect(Buffer.compare(await t.cat(cid, 30_000), data)).to.equal(0)
      const after = await t.call('bitswap/stat')
      expect(after.BlocksReceived - before.BlocksReceived).to.be.at.least(3)
      expect(after.DataReceived - before.DataReceived).to.be.at.least(data.length)
      // now local: an offline read answers
      expect(Buffer.compare(await t.call('cat', [cid], { offline: true }), data)).to.equal(0)
    })

    it('DHT: Kubo finds tsipfs\'s provider record, and tsipfs finds Kubo\'s (LAN DHT)', async () => {
      const ours = await t.add(randomBytes(1000))
      expect(await findProvider(k, ours)).to.equal(t.id)
      const theirs = await k.add(randomBytes(1000))
      await k.call('routing/provide', [theirs])
      expect(await findProvider(t, theirs)).to.equal(k.id)
    })

    it('pings tsipfs', async () => {
      const lines = await k.call('ping', [t.id], { count: 3 })
      expect(pongs(lines)).to.have.length(3)
      expect(lines[lines.length - 1].Text).to.match(/^Average latency: /)
    })
  })

  describe('tsipfs dials', () => {
    /** the address `a` lists for its connection to `b` */
    const connAddr = async (a: Peer, b: Peer): Promise<string> =>
      ((await a.call('swarm/peers')).Peers as Array<{ Peer: string, Addr: string }>).find(p => p.Peer === b.id)?.Addr ?? ''

    it('Kubo over TCP and over QUIC, and Kubo dials tsipfs over QUIC (fresh Kubo nodes)', async () => {
      const k1 = await c.kubo({ name: 'kubo-tcp' })
      await c.connect(t, k1, 'tcp')
      expect(await connAddr(t, k1)).to.match(/\/tcp\/\d+$/)
      const k2 = await c.kubo({ name: 'kubo-quic' })
      await c.connect(t, k2, 'quic')
      expect(await connAddr(t, k2)).to.match(/\/udp\/\d+\/quic-v1$/)
      expect(await connAddr(k2, t)).to.match(/\/udp\/\d+\/quic-v1$/)
      const data = randomBytes(300 * 1024)
      expect(Buffer.compare(await t.cat(await k2.add(data)), data)).to.equal(0)
      const k3 = await c.kubo({ name: 'kubo-dials-quic' })
      await c.connect(k3, t, 'quic')
      expect(await connAddr(t, k3)).to.match(/\/udp\/\d+\/quic-v1$/)
      expect(Buffer.compare(await k3.cat(await t.add(data)), data)).to.equal(0)
      expect(await waitFor(async () => await t.agentOf(k3.id), { what: 'identify over QUIC' })).to.match(KUBO_AGENT)
      await Promise.all([k1.stop(), k2.stop(), k3.stop()])
    })

    it('pings Kubo and Helia', async () => {
      await c.connect(t, h)
      for (const p of [k, h]) {
        const lines = await t.call('ping', [p.id], { count: 3 }) as Array<{ Success: boolean, Time: number, Text: string }>
        expect(pongs(lines)).to.have.length(3)
        expect(lines[lines.length - 1].Text).to.match(/^Average latency: /)
      }
    })

    it('Helia, which then fetches from tsipfs', async () => {
      await c.connect(t, h)
      const data = randomBytes(200 * 1024)
      expect(Buffer.compare(await h.cat(await t.add(data)), data)).to.equal(0)
    })
  })

  describe('Helia', () => {
    it('dials tsipfs, and identify gives each side the other\'s AgentVersion', async () => {
      await c.connect(h, t, 'tcp')
      expect(await waitFor(async () => await h.agentOf(t.id), { what: 'Helia identifies tsipfs' })).to.match(TSIPFS_AGENT)
      expect(await waitFor(async () => await t.agentOf(h.id), { what: 'tsipfs identifies Helia' })).to.match(/^helia\//)
    })

    it('fetches a multi-block file from tsipfs by bitswap', async () => {
      const data = randomBytes(600 * 1024)
      const cid = await t.add(data)
      expect(Buffer.compare(await h.cat(cid, 30_000), data)).to.equal(0)
    })

    it('serves a file that tsipfs fetches by bitswap', async () => {
      const data = randomBytes(300 * 1024)
      const cid = await h.add(data)
      expect(Buffer.compare(await t.cat(cid, 30_000), data)).to.equal(0)
    })

    it('DHT: Helia finds tsipfs\'s provider record, and tsipfs finds Helia\'s (LAN DHT)', async () => {
      const ours = await t.add(randomBytes(1000))
      expect(await waitFor(async () => (await h.call('findprovs', [], { cid: ours, timeout: 5000 }))[0], { what: 'Helia finds tsipfs', timeout: 60_000 })).to.equal(t.id)
      const theirs = await h.add(randomBytes(1000))
      await h.call('provide', [], { cid: theirs })
      expect(await findProvider(t, theirs)).to.equal(h.id)
    })

    it('pings tsipfs', async () => {
      const rtt = await h.call('ping', [], { peer: t.id })
      expect(rtt).to.be.a('number').and.to.be.at.least(0)
    })
  })
})

describe('net: interop in network namespaces', function () {
  this.timeout(120_000)
  let c: Cluster | undefined
  let t: Peer
  let k: Peer
  let h: Peer

  before(async function () {
    this.timeout(30 * 60_000)
    const why = netnsUnavailable()
    if (why != null) skipWithReason(this, why)
    kuboBinary()
    c = new Cluster({ label: 'interop-netns', netns: true })
    t = await c.tsipfs({ name: 'tsipfs' })
    k = await c.kubo({ name: 'kubo' })
    h = await c.helia({ name: 'helia' })
  })
  after(async () => { await c?.stop() })

  it('each node lives in its own namespace with its own address', () => {
    expect(new Set([t.host, k.host, h.host]).size).to.equal(3)
    for (const p of [t, k, h]) expect(p.host).to.match(/^10\.\d+\.1\.\d+$/)
    expect(t.addr()).to.include(`/ip4/${t.host}/tcp/`)
  })

  it('Kubo and Helia connect to tsipfs across the bridge and fetch from it; tsipfs fetches from both', async () => {
    await c!.connect(k, t)
    await c!.connect(h, t)
    const data = randomBytes(400 * 1024)
    const cid = await t.add(data)
    expect(Buffer.compare(await k.cat(cid), data)).to.equal(0)
    expect(Buffer.compare(await h.cat(cid), data)).to.equal(0)
    const fromKubo = randomBytes(100 * 1024)
    expect(Buffer.compare(await t.cat(await k.add(fromKubo)), fromKubo)).to.equal(0)
    const fromHelia = randomBytes(100 * 1024)
    expect(Buffer.compare(await t.cat(await h.add(fromHelia)), fromHelia)).to.equal(0)
    const seen = ((await k.call('swarm/peers')).Peers as Array<{ Peer: string, Addr: string }>).find(p => p.Peer === t.id)
    expect(seen?.Addr).to.equal(`/ip4/${t.host}/tcp/${t.addr().split('/')[4]}`)
  })

  it('stop() deletes the namespaces and the bridge', async () => {
    const net = c!.network!
    expect(net.existing()).to.have.length(3)
    await c!.stop()
    expect(net.existing()).to.deep.equal([])
    c = undefined
  })
})
