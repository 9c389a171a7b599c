// The swarm on spawned daemons (loopback): peering keeps a peer connected after `swarm disconnect`,
// the connection manager trims above HighWater but never a peered peer, `stats bw` moves with a
// transfer, `swarm resources` counts connections; and against Kubo: connect both ways over TCP and
// QUIC, identify AgentVersion both ways, ping both ways, the same JSON shapes from both.
import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { Cluster, waitFor, type Peer } from '../helpers/cluster.js'
import { kuboBinary } from '../helpers/kubo.js'
import { runCli } from '../helpers/daemon.js'

const connected = async (a: Peer, b: Peer): Promise<boolean> => (await a.peers()).includes(b.id)
const keys = (o: object): string[] => Object.keys(o)

describe('swarm: spawned tsipfs daemons', function () {
  this.timeout(120_000)
  let c: Cluster
  let a: Peer
  let b: Peer
  let d: Peer

  before(async () => {
    c = new Cluster({ label: 'swarm' })
    a = await c.tsipfs({ name: 'a' })
    b = await c.tsipfs({ name: 'b' })
    // a connection manager that trims hard and fast
    d = await c.tsipfs({ name: 'd', config: { 'Swarm.ConnMgr': { Type: 'basic', LowWater: 1, HighWater: 2, GracePeriod: '0s' } } })
  })
  after(async () => { await c?.stop() })

  it('swarm connect over TCP and QUIC; peers shows the transport address; the CLI renders Kubo\'s lines', async () => {
    await a.connect(b, 'quic')
    const peers = (await a.call('swarm/peers')).Peers
    expect(peers).to.have.length(1)
    expect(peers[0].Addr).to.match(/\/udp\/\d+\/quic-v1$/)
    await a.call('swarm/disconnect', [b.addr('quic')])
    await a.connect(b, 'tcp')
    const out = runCli(a.repo as string, ['swarm', 'peers', '--direction'])
    // Kubo's line per connection; b's DHT may have dialed a back meanwhile (a second line, TCP or QUIC)
    expect(out.stdout).to.match(/\n$/)
    const lines = out.stdout.slice(0, -1).split('\n')
    for (const line of lines) expect(line).to.match(new RegExp(`^/ip4/127\\.0\\.0\\.1/(tcp/\\d+|udp/\\d+/quic-v1)/p2p/${b.id} (outbound|inbound)$`))
    // connect reuses a connection b may have opened meanwhile, so the TCP line may say inbound
    expect(lines.filter(l => new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/\\d+/p2p/${b.id} (outbound|inbound)$`).test(l)), `a TCP connection to b, in:\n${out.stdout}`).to.have.length.at.least(1)
    const local = runCli(a.repo as string, ['swarm', 'addrs', 'local', '--id'])
    expect(local.stdout.trim().split('\n').every(l => l.endsWith(`/p2p/${a.id}`))).to.equal(true)
  })

  it('peering: a peered peer comes back after swarm disconnect', async () => {
    const add = await a.call('swarm/peering/add', [b.addr('tcp')])
    expect(add).to.deep.equal([{ ID: b.id, Status: 'success' }])
    expect((await a.call('swarm/peering/ls')).Peers).to.deep.equal([{ ID: b.id, Addrs: [b.addr('tcp').replace(`/p2p/${b.id}`, '')] }])
    await waitFor(async () => await connected(a, b), { what: 'a connected to b', timeout: 10_000 })
    const gone = await a.call('swarm/disconnect', [`/p2p/${b.id}`])
    expect(gone).to.deep.equal({ Strings: [`disconnect ${b.id} success`] })
    await waitFor(async () => await connected(a, b), { what: 'peering reconnects a to b', timeout: 20_000, interval: 250 })
    expect(await a.call('swarm/peering/rm', [b.id])).to.deep.equal([{ ID: b.id, Status: 'success' }])
    expect((await a.call('swarm/peering/ls')).Peers).to.deep.equal([])
  })

  it('the connection manager trims above HighWater, never the peered peer', async () => {
    await d.call('swarm/peering/add', [a.addr('tcp')])
    await waitFor(async () => await connected(d, a), { what: 'd peered with a', timeout: 10_000 })
    const extra = [b, await c.tsipfs({ name: 'e' }), await c.tsipfs({ name: 'f' })]
    // d may close a connection while it is still opening: that is the trimming at work
    for (const p of extra) await p.connect(d).catch(() => {})
    // HighWater 2: within a couple of seconds d is back at or below HighWater, and a is among those left
    const left = await waitFor(async () => { const p = await d.peers(); return p.length <= 2 ? p : false }, { what: 'd trims to HighWater', timeout: 10_000, interval: 200 })
    expect(left).to.include(a.id)
    // trimmed peers may dial d again (their DHTs know it) and be trimmed again; the peered peer stays throughout
    for (const end = Date.now() + 5_000; Date.now() < end;) {
      expect(await d.peers(), 'the peered peer is never trimmed').to.include(a.id)
      await new Promise(resolve => setTimeout(resolve, 200))
    }
  })

  it('stats bw moves with a transfer: totals, per peer, per protocol', async () => {
    const before = await b.call('stats/bw')
    const cid = await a.add(randomBytes(600 * 1024))
    await b.connect(a)
    const data = await b.cat(cid)
    expect(data.length).to.equal(600 * 1024)
    const [after] = await b.call('stats/bw') as any[]
    const [perPeer] = await b.call('stats/bw', [], { peer: a.id }) as any[]
    const [perProto] = await b.call('stats/bw', [], { proto: '/ipfs/bitswap/1.2.0' }) as any[]
    expect(keys(after)).to.deep.equal(['TotalIn', 'TotalOut', 'RateIn', 'RateOut'])
    expect(after.TotalIn - before[0].TotalIn).to.be.at.least(600 * 1024)
    expect(perPeer.TotalIn).to.be.at.least(600 * 1024)
    expect(perProto.TotalIn).to.be.at.least(600 * 1024)
    // the rate follows within a tick or two
    await waitFor(async () => ((await b.call('stats/bw')) as any[])[0].RateIn > 0, { what: 'RateIn > 0', timeout: 5000, interval: 300 })
    const text = runCli(b.repo as string, ['stats', 'bw'])
    expect(text.stdout).to.match(/^Bandwidth\nTotalIn: [\d.]+ [kMG]?B\nTotalOut: [\d.]+ [kMG]?B\nRateIn: [\d.]+ [kMG]?B\/s\nRateOut: [\d.]+ [kMG]?B\/s\n$/)
  })

  it('swarm resources: Kubo\'s scopes with live connection counts', async () => {
    const r = await a.call('swarm/resources')
    expect(keys(r)).to.include.members(['System', 'Transient', 'Services', 'Protocols'])
    expect(keys(r.System)).to.deep.equal(['Memory', 'MemoryUsage', 'FD', 'FDUsage', 'Conns', 'ConnsUsage', 'ConnsInbound', 'ConnsInboundUsage', 'ConnsOutbound', 'ConnsOutboundUsage', 'Streams', 'StreamsUsage', 'StreamsInbound', 'StreamsInboundUsage', 'StreamsOutbound', 'StreamsOutboundUsage'])
    expect(r.System.Conns).to.equal('unlimited')
    expect(typeof r.System.Memory).to.equal('string')
    const peers = (await a.call('swarm/peers')).Peers as Array<{ Peer: string }>
    expect(r.System.ConnsUsage).to.equal(peers.length)
    expect(keys(r.Peers).sort()).to.deep.equal([...new Set(peers.map(p => p.Peer))].sort())
    expect(keys(r.Services)).to.deep.equal(['libp2p.autonat', 'libp2p.holepunch', 'libp2p.identify', 'libp2p.ping', 'libp2p.relay/v2'])
    expect(r.Protocols['/ipfs/id/1.0.0'].FD).to.equal('blockAll')
  })
})

describe('swarm: tsipfs and Kubo', function () {
  this.timeout(120_000)
  let c: Cluster
  let t: Peer
  let k: Peer

  before(async function () {
    this.timeout(30 * 60_000) // a fresh machine builds Kubo first
    kuboBinary()
    c = new Cluster({ label: 'swarm-kubo' })
    t = await c.tsipfs({ name: 'tsipfs' })
    k = await c.kubo({ name: 'kubo' })
  })
  after(async () => { await c?.stop() })

  for (const transport of ['tcp', 'quic'] as const) {
    it(`tsipfs dials Kubo over ${transport}; identify gives each the other's AgentVersion`, async () => {
      const over = transport === 'quic' ? /\/quic-v1$/ : /\/tcp\/\d+$/
      // Kubo may have dialled tsipfs meanwhile by the DHT (over TCP): `swarm connect` then keeps that connection,
      // as Kubo's does. Drop it and dial again until the connection is one over the transport dialled.
      await waitFor(async () => {
        expect(await t.call('swarm/connect', [k.addr(transport)])).to.deep.equal({ Strings: [`connect ${k.id} success`] })
        const ours = (await t.call('swarm/peers', [], { verbose: true })).Peers.find((p: { Peer: string }) => p.Peer === k.id)
        if (over.test(ours?.Addr ?? '')) return true
        await t.call('swarm/disconnect', [`/p2p/${k.id}`]).catch(() => {})
        return false
      }, { what: `a ${transport} connection from tsipfs to Kubo`, timeout: 30_000, interval: 200 })
      expect(await t.agentOf(k.id)).to.match(/^kubo\/0\.40\.1/)
      await waitFor(async () => /^tsipfs\//.test(await k.agentOf(t.id) ?? ''), { what: 'Kubo identifies tsipfs', timeout: 10_000 })
      await t.call('swarm/disconnect', [`/p2p/${k.id}`])
    })

    it(`Kubo dials tsipfs over ${transport}; the same swarm peers fields from both`, async () => {
      // a tsipfs node listening on that transport only, so Kubo cannot pick another
      const only = await c.tsipfs({ name: `only-${transport}`, config: { 'Addresses.Swarm': [transport === 'tcp' ? '/ip4/127.0.0.1/tcp/0' : '/ip4/127.0.0.1/udp/0/quic-v1'] } })
      expect(await k.call('swarm/connect', [only.addrs[0]])).to.deep.equal({ Strings: [`connect ${only.id} success`] })
      const theirs = (await k.call('swarm/peers', [], { verbose: true })).Peers.find((p: { Peer: string }) => p.Peer === only.id)
      expect(theirs.Addr).to.match(transport === 'quic' ? /\/quic-v1$/ : /\/tcp\/\d+$/)
      await waitFor(async () => /^tsipfs\//.test(await k.agentOf(only.id) ?? ''), { what: 'Kubo identifies tsipfs', timeout: 10_000 })
      const ours = await waitFor(async () => (await only.call('swarm/peers', [], { verbose: true })).Peers?.find((p: { Peer: string, Identify: { AgentVersion: string } }) => p.Peer === k.id && p.Identify.AgentVersion !== ''), { what: 'tsipfs identifies Kubo', timeout: 10_000 })
      expect(keys(ours)).to.deep.equal(keys(theirs))
      expect(ours.Direction).to.equal(1)
      expect(ours.Identify.AgentVersion).to.match(/^kubo\//)
      expect(keys(ours.Identify)).to.deep.equal(keys(theirs.Identify))
    })
  }

  it('ping both ways: Kubo\'s lines from both', async () => {
    await t.connect(k)
    const ours = await t.call('ping', [k.id], { count: 2 }) as Array<{ Success: boolean, Time: number, Text: string }>
    const theirs = await k.call('ping', [t.id], { count: 2 }) as Array<{ Success: boolean, Time: number, Text: string }>
    for (const lines of [ours, theirs]) {
      expect(lines).to.have.length(4)
      expect(lines[0].Text).to.match(/^PING 12D3KooW\w+\.$/)
      expect(lines.slice(1, 3).every(l => l.Success && l.Time > 0 && l.Text === '')).to.equal(true)
      expect(lines[3].Text).to.match(/^Average latency: \d+\.\d\dms$/)
    }
  })

  it('stats bw counts Kubo\'s traffic; the same JSON keys as Kubo', async () => {
    const [ours] = await t.call('stats/bw', [], { peer: k.id }) as any[]
    const [theirs] = await k.call('stats/bw', [], { peer: t.id }) as any[]
    expect(keys(ours)).to.deep.equal(keys(theirs))
    expect(ours.TotalIn).to.be.above(0)
    expect(ours.TotalOut).to.be.above(0)
  })
})
