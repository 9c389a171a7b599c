// Five tsipfs daemons, each in its own network namespace, forming a private DHT around B: A adds, E (not
// connected to A) finds A with `routing findprovs` and fetches by bitswap; `ping`, `stats bw`, `bitswap stat`
// move with the traffic; `swarm filters` block an address range both ways; peering reconnects after
// `swarm disconnect`; the connection manager trims above HighWater, keeps peered peers, and trimmed peers that
// dial back do not push it above HighWater again.
import { randomBytes } from 'node:crypto'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { Cluster, RpcCallError, waitFor, type Peer } from '../helpers/cluster.js'
import { netnsUnavailable } from '../helpers/netns.js'
import { skipWithReason } from '../helpers/debs.js'

use(chaiAsPromised)

/** the last value of a streamed answer (Kubo streams `stats bw` and `swarm peering add`) */
const last = (v: any): any => Array.isArray(v) ? v[v.length - 1] : v

describe('net: a private DHT of five tsipfs nodes in network namespaces', function () {
  this.timeout(120_000)
  let c: Cluster
  let a: Peer, b: Peer, cc: Peer, d: Peer, e: Peer

  before(async function () {
    this.timeout(300_000)
    const why = netnsUnavailable()
    if (why != null) skipWithReason(this, why)
    c = new Cluster({ label: 'private-dht', netns: true })
    ;[a, b, cc, d] = await c.many(4, async (i) => await c.tsipfs({ name: 'ABCD'[i] }))
    e = await c.tsipfs({ name: 'E', zone: 2 }) // another address range, for the filters test
    for (const p of [a, cc, d, e]) await c.connect(p, b)
  })
  after(async () => { await c?.stop() })

  it('E finds A as the provider of what A added (routing findprovs) and fetches it by bitswap', async () => {
    expect(await e.peers()).to.not.include(a.id)
    const data = randomBytes(700 * 1024)
    const cid = await a.add(data)
    const statsBefore = await e.call('bitswap/stat')
    const bwBefore = last(await e.call('stats/bw'))
    const sentBefore = await a.call('bitswap/stat')
    const providers = await waitFor(async () => {
      const events = await e.call('routing/findprovs', [cid], { 'num-providers': 1, timeout: '10s' }) as Array<{ Type: number, Responses: Array<{ ID: string }> | null }>
      const ids = events.filter(ev => ev.Type === 4).flatMap(ev => ev.Responses ?? []).map(r => r.ID)
      return ids.length > 0 && ids
    }, { what: 'E finds a provider', timeout: 60_000, interval: 1000 })
    expect(providers).to.deep.equal([a.id])
    expect(Buffer.compare(await e.cat(cid, 60_000), data)).to.equal(0)
    expect(await e.peers()).to.include(a.id)

    const statsAfter = await e.call('bitswap/stat')
    expect(statsAfter.BlocksReceived - statsBefore.BlocksReceived).to.be.at.least(3) // 3 leaves + the root
    expect(statsAfter.DataReceived - statsBefore.DataReceived).to.be.at.least(data.length)
    const sentAfter = await a.call('bitswap/stat')
    expect(sentAfter.BlocksSent - sentBefore.BlocksSent).to.be.at.least(3)
    expect(sentAfter.DataSent - sentBefore.DataSent).to.be.at.least(data.length)
    // every byte read from a stream counts, as in Kubo (TotalIn grows by at least the data); totals are
    // sampled by a ticker, so wait for them to catch up
    const bwAfter = await waitFor(async () => { const bw = last(await e.call('stats/bw')); return bw.TotalIn - bwBefore.TotalIn >= data.length && bw }, { what: `E's stats bw TotalIn grows by ${data.length}`, timeout: 10_000 })
    expect(bwAfter.TotalOut).to.be.greaterThan(bwBefore.TotalOut)
  })

  it('ping: E pings A three times', async () => {
    const lines = await e.call('ping', [a.id], { count: 3 }) as Array<{ Success: boolean, Time: number, Text: string }>
    expect(lines.filter(l => l.Success && l.Time > 0)).to.have.length(3)
    expect(lines[lines.length - 1].Text).to.match(/^Average latency: [\d.]+ms$/)
  })

  it('swarm filters: D blocks E\'s address range both ways until the filter is removed', async () => {
    const range = `/ip4/${e.host.split('.').slice(0, 3).join('.')}.0/ipcidr/24`
    expect((await d.call('swarm/filters/add', [range])).Strings).to.deep.equal([range])
    expect((await d.call('swarm/filters')).Strings).to.include(range)
    // existing connections stay (as in Kubo): close any, whichever side opened it
    await d.call('swarm/disconnect', [`/p2p/${e.id}`]).catch(() => {})
    await waitFor(async () => !(await d.peers()).includes(e.id), { what: 'D-E connection closed', timeout: 10_000 })
    await expect(d.call('swarm/connect', [e.addr()])).to.be.rejectedWith(RpcCallError)
    await e.call('swarm/connect', [d.addr()]).catch(() => {}) // refused on D's side: may fail or close at once
    await waitFor(async () => !(await d.peers()).includes(e.id), { what: 'no D-E connection', timeout: 10_000 })
    expect((await d.call('swarm/filters/rm', [range])).Strings).to.deep.equal([range])
    await c.connect(d, e)
  })

  it('peering: C reconnects to D after `swarm disconnect`', async () => {
    expect(await cc.call('swarm/peering/add', [d.addr()])).to.deep.equal([{ ID: d.id, Status: 'success' }])
    expect(((await cc.call('swarm/peering/ls')).Peers as Array<{ ID: string }>).map(p => p.ID)).to.include(d.id)
    await waitFor(async () => (await cc.peers()).includes(d.id), { what: 'C peers with D', timeout: 30_000 })
    expect((await cc.call('swarm/disconnect', [`/p2p/${d.id}`])).Strings).to.deep.equal([`disconnect ${d.id} success`])
    await waitFor(async () => (await cc.peers()).includes(d.id), { what: 'C reconnects to D', timeout: 60_000, interval: 500 })
  })

  it('connection manager: F (HighWater 3) trims down when five peers connect, keeping its peered peer', async () => {
    const f = await c.tsipfs({ name: 'F', config: { 'Swarm.ConnMgr': { Type: 'basic', LowWater: 1, HighWater: 3, GracePeriod: '1s' }, 'Peering.Peers': [{ ID: a.id, Addrs: [a.addr().split('/p2p/')[0]] }] } })
    await waitFor(async () => (await f.peers()).includes(a.id), { what: 'F peers with A', timeout: 30_000 })
    // all four connections are made (each `swarm connect` succeeds), so F has been above HighWater
    for (const p of [b, cc, d, e]) expect((await p.call('swarm/connect', [f.addr()])).Strings).to.deep.equal([`connect ${f.id} success`])
    const trimmed = await waitFor(async () => { const ps = await f.peers(); return ps.length <= 3 && ps }, { what: 'F trims to HighWater', timeout: 60_000, interval: 1000 })
    expect(trimmed).to.include(a.id)
    // the trimmed peers dial back (their DHTs keep F alive, and once more by hand): F stays at HighWater or
    // below, apart from a moment, and keeps A
    const gone = [b, cc, d, e].filter(p => !trimmed.includes(p.id))
    expect(gone).to.not.have.length(0)
    await new Promise(resolve => setTimeout(resolve, 6000)) // the DHTs tag their closest peers keep-alive every 5 s
    for (const p of gone) await p.call('swarm/connect', [f.addr()]).catch(() => {})
    let above = 0
    for (let i = 0; i < 20; i++) {
      const ps = await f.peers()
      if (ps.length > 3) above++
      expect(ps).to.include(a.id)
      await new Promise(resolve => setTimeout(resolve, 250))
    }
    expect(above).to.be.at.most(2)
  })
})
