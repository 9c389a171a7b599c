// swarm, ping and stats bw through the registry on an offline node (Kubo's offline errors, argument
// errors, text encoders) and on two in-process online nodes (connect, peers, filters, ping, bandwidth).
import { expect } from 'chai'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { swarmPlugin } from '../../../plugins/swarm/index.js'
import { pingPlugin } from '../../../plugins/ping/index.js'
import { statsPlugin } from '../../../plugins/stats/index.js'
import { idPlugin } from '../../../plugins/id/index.js'
import { swarmPeers } from '../../../plugins/swarm/peers.js'
import { swarmAddrs } from '../../../plugins/swarm/addrs.js'
import { swarmAddrsAutonat } from '../../../plugins/swarm/autonat.js'
import { swarmResources } from '../../../plugins/swarm/resources.js'
import { pingPing } from '../../../plugins/ping/ping.js'
import { statsBw, printStats } from '../../../plugins/stats/bw.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'

const ERR_OFFLINE = "this action must be run in online mode, try running 'ipfs daemon' first"
const ERR_NOT_ONLINE = "this command must be run in online mode. Try running 'ipfs daemon' first"
const PEER = '12D3KooWQ3iqi3w58mDVUB7beFy6tuwX4WuxCvoBCZEzLnDANb2u'
const plugins = (): any[] => [swarmPlugin(), pingPlugin(), statsPlugin(), idPlugin()]

async function all<T> (v: AsyncIterable<T> | T): Promise<T[]> {
  if (Array.isArray(v)) return v
  if (v != null && typeof (v as AsyncIterable<T>)[Symbol.asyncIterator] === 'function') {
    const out: T[] = []
    for await (const x of v as AsyncIterable<T>) out.push(x)
    return out
  }
  return [v as T]
}
const call = (t: TestNode, path: string, input: Record<string, unknown> = {}): Promise<any[]> => t.invoke(path, input).then(all)
const text = (spec: { text?: (v: any, c: any) => string }, value: unknown, options: Record<string, unknown> = {}): string =>
  spec.text?.(value, { path: [], args: [], options }) ?? ''

describe('swarm, ping, stats bw plugins', function () {
  this.timeout(30_000)

  describe('offline node', () => {
    let node: TestNode
    before(async () => { node = await createTestNode({ plugins: plugins() }) })
    after(async () => { await node?.stop() })

    it("CoreAPI commands answer Kubo's ErrOffline; node commands ErrNotOnline", async () => {
      for (const p of ['swarm/peers', 'swarm/addrs', 'swarm/addrs/local', 'swarm/addrs/listen']) {
        expect((await rejection(call(node, p))).message, p).to.equal(ERR_OFFLINE)
      }
      for (const p of ['swarm/filters', 'swarm/peering/ls', 'swarm/addrs/autonat']) {
        expect((await rejection(call(node, p))).message, p).to.equal(ERR_NOT_ONLINE)
      }
      expect((await rejection(call(node, 'swarm/connect', { args: [`/ip4/127.0.0.1/tcp/1/p2p/${PEER}`] }))).message).to.equal(`connect ${PEER} failure: ${ERR_OFFLINE}`)
      expect(await call(node, 'swarm/disconnect', { args: [`/ip4/127.0.0.1/tcp/1/p2p/${PEER}`] })).to.deep.equal([{ Strings: [`disconnect ${PEER} failure: ${ERR_OFFLINE}`] }])
      expect((await rejection(call(node, 'swarm/resources'))).message).to.equal('missing ResourceMgr: make sure the daemon is running with Swarm.ResourceMgr.Enabled')
      expect((await rejection(call(node, 'ping', { args: [PEER] }))).message).to.equal(ERR_NOT_ONLINE)
      const bw = await rejection(call(node, 'stats/bw'))
      expect(bw.message).to.equal(`unable to run offline: ${ERR_NOT_ONLINE}`)
      expect(bw).to.have.property('code', 1)
    })

    it("argument errors as Kubo's", async () => {
      expect((await rejection(call(node, 'swarm/connect', { args: ['foo'] }))).message).to.equal('failed to parse multiaddr "foo": must begin with /')
      expect((await rejection(call(node, 'swarm/connect', { args: ['/ip4/127.0.0.1/tcp/1'] }))).message).to.equal('found no ipfs peers at /ip4/127.0.0.1/tcp/1')
      expect((await rejection(call(node, 'swarm/peering/add', { args: ['/ip4/127.0.0.1/tcp/1'] }))).message).to.equal('invalid p2p multiaddr')
    })
  })

  describe('text encoders', () => {
    it('swarm peers: addr/p2p/peer, latency, direction, streams', () => {
      const out = {
        Peers: [{ Addr: '/ip4/127.0.0.1/tcp/4001', Peer: PEER, Latency: '1.5ms', Direction: 2, Streams: [{ Protocol: '/ipfs/kad/1.0.0' }, { Protocol: '' }], Identify: {} }]
      }
      expect(text(swarmPeers, out)).to.equal(`/ip4/127.0.0.1/tcp/4001/p2p/${PEER} 1.5ms outbound\n  /ipfs/kad/1.0.0\n  <no protocol name>\n`)
      expect(text(swarmPeers, { Peers: null })).to.equal('')
    })

    it('swarm addrs: sorted peers with counts and tab-indented addresses', () => {
      expect(text(swarmAddrs, { Addrs: { b: ['/ip4/1.2.3.4/tcp/1'], a: ['/x', '/y'] } })).to.equal('a (2)\n\t/x\n\t/y\nb (1)\n\t/ip4/1.2.3.4/tcp/1\n')
    })

    it('swarm addrs autonat: Kubo\'s layout', () => {
      expect(text(swarmAddrsAutonat, { reachability: 'Unknown' })).to.equal('AutoNAT V2 Status:\n  Reachability: Unknown\n\nPer-Address Reachability:\n  (no address reachability data available)\n')
      expect(text(swarmAddrsAutonat, { reachability: 'Public', reachable: ['/ip4/1.2.3.4/tcp/1'] })).to.equal('AutoNAT V2 Status:\n  Reachability: Public\n\nPer-Address Reachability:\n  Reachable:\n    /ip4/1.2.3.4/tcp/1\n')
    })

    it('swarm resources: the table leaves unlimited limits out', () => {
      const scope = { Memory: '1000', MemoryUsage: 0, FD: 10, FDUsage: 1, Conns: 'unlimited', ConnsUsage: 1, ConnsInbound: 'blockAll', ConnsInboundUsage: 0, ConnsOutbound: 'unlimited', ConnsOutboundUsage: 0, Streams: 'unlimited', StreamsUsage: 0, StreamsInbound: 'unlimited', StreamsInboundUsage: 0, StreamsOutbound: 'unlimited', StreamsOutboundUsage: 0 }
      const t = text(swarmResources, { System: scope, Transient: scope, Services: {}, Protocols: {} })
      const rows = t.split('\n').filter(Boolean).map(l => l.split(/\t+/).filter(Boolean))
      expect(rows[0]).to.deep.equal(['Scope', 'Limit Name', 'Limit Value', 'Limit Usage Amount', 'Limit Usage Percent'])
      expect(rows.slice(1, 4)).to.deep.equal([['system', 'Memory', '1000', '0', '0%'], ['system', 'FD', '10', '1', '10.0%'], ['system', 'ConnsInbound', 'blockAll', '0', 'n/a']])
    })

    it('swarm resources: the table names scopes svc:/proto:/peer: and leaves "default" limits out', () => {
      const scope = { Memory: '1000', MemoryUsage: 0, FD: 'blockAll', FDUsage: 0, Conns: 'blockAll', ConnsUsage: 0, ConnsInbound: 'blockAll', ConnsInboundUsage: 0, ConnsOutbound: 'blockAll', ConnsOutboundUsage: 0, Streams: 8, StreamsUsage: 2, StreamsInbound: 4, StreamsInboundUsage: 1, StreamsOutbound: 4, StreamsOutboundUsage: 1 }
      const unset = Object.fromEntries(Object.entries(scope).map(([k, v]) => [k, k.endsWith('Usage') ? v : 'default']))
      const t = text(swarmResources, { System: unset, Transient: unset, Services: { 'libp2p.ping': scope }, Protocols: { '/ipfs/kad/1.0.0': unset }, Peers: { p1: unset } })
      const rows = t.split('\n').filter(Boolean).map(l => l.split(/\t+/).filter(Boolean))
      expect(rows.slice(1).map(r => r[0])).to.deep.equal(Array(8).fill('svc:libp2p.ping'))
      expect(rows[6]).to.deep.equal(['svc:libp2p.ping', 'Streams', '8', '2', '25.0%'])
    })

    it('ping: pongs in ms with two decimals, texts as they are', () => {
      expect(text(pingPing, { Success: true, Time: 1_234_567, Text: '' })).to.equal('Pong received: time=1.23 ms\n')
      expect(text(pingPing, { Success: true, Time: 0, Text: 'Average latency: 1.23ms' })).to.equal('Average latency: 1.23ms\n')
      expect(text(pingPing, { Success: false, Time: 0, Text: '' })).to.equal('Pong failed\n')
    })

    it('stats bw: humanized totals and rates; one line per poll', () => {
      expect(printStats({ TotalIn: 1606, TotalOut: 5, RateIn: 12.9, RateOut: 0 })).to.equal('Bandwidth\nTotalIn: 1.6 kB\nTotalOut: 5 B\nRateIn: 12 B/s\nRateOut: 0 B/s\n')
      expect(text(statsBw, { TotalIn: 1606, TotalOut: 5, RateIn: 12.9, RateOut: 0 }, { poll: true })).to.equal('     5 B      1.6 kB        12 B/s       0 B/s      \r'.replace('     5 B      1.6 kB        12 B/s       0 B/s', '     5 B      1.6 kB         0 B/s      12 B/s'))
    })
  })

  describe('two online nodes', () => {
    let a: TestNode
    let b: TestNode
    const config = async (): Promise<ReturnType<typeof defaultConfig>> => {
      const cfg = defaultConfig(identityOf(await generateIdentity())) as any
      cfg.Addresses.Swarm = ['/ip4/127.0.0.1/tcp/0']
      cfg.Bootstrap = []
      cfg.Routing.DelegatedRouters = []
      cfg.Discovery.MDNS.Enabled = false
      return cfg
    }
    before(async () => {
      a = await createTestNode({ plugins: plugins(), online: true, config: await config() })
      b = await createTestNode({ plugins: plugins(), online: true, config: await config() })
    })
    after(async () => {
      await a?.stop()
      await b?.stop()
    })

    it('connect, peers (verbose), ping, stats bw per peer and protocol, disconnect', async () => {
      const [bid] = await call(b, 'id')
      const addr = bid.Addresses[0]
      expect(await call(a, 'swarm/connect', { args: [addr] })).to.deep.equal([{ Strings: [`connect ${bid.ID as string} success`] }])
      const [peers] = await call(a, 'swarm/peers', { options: { verbose: true } })
      expect(peers.Peers).to.have.length(1)
      expect(peers.Peers[0]).to.include({ Peer: bid.ID, Direction: 2 })
      expect(addr).to.equal(`${peers.Peers[0].Addr as string}/p2p/${bid.ID as string}`)
      expect(peers.Peers[0].Identify.ID).to.equal(bid.ID)
      const pings = await call(a, 'ping', { args: [bid.ID], options: { count: 2 } })
      expect(pings[0]).to.deep.equal({ Success: true, Time: 0, Text: `PING ${bid.ID as string}.` })
      expect(pings.slice(1, 3).every(p => p.Success === true && p.Time > 0 && p.Text === '')).to.equal(true)
      expect(pings[3].Text).to.match(/^Average latency: \d+\.\d\dms$/)
      const [lat] = await call(a, 'swarm/peers', { options: { latency: true } })
      expect(lat.Peers[0].Latency).to.match(/^[\d.]+(µs|ms|s)$/)
      const [total] = await call(a, 'stats/bw')
      const [perPeer] = await call(a, 'stats/bw', { options: { peer: bid.ID } })
      const [perProto] = await call(a, 'stats/bw', { options: { proto: '/ipfs/ping/1.0.0' } })
      expect(perProto.TotalOut).to.be.at.least(64)
      expect(perProto.TotalIn).to.be.at.least(64)
      expect(perPeer.TotalOut).to.be.at.least(perProto.TotalOut)
      expect(total.TotalOut).to.be.at.least(perPeer.TotalOut)
      expect((await rejection(call(a, 'stats/bw', { options: { peer: bid.ID, proto: '/x' } }))).message).to.equal('please only specify peer OR protocol')
      expect(await call(a, 'swarm/disconnect', { args: [addr] })).to.deep.equal([{ Strings: [`disconnect ${bid.ID as string} success`] }])
      expect((await call(a, 'swarm/peers'))[0].Peers).to.equal(null)
      expect(await call(a, 'swarm/disconnect', { args: [`/p2p/${bid.ID as string}`] })).to.deep.equal([{ Strings: [`disconnect ${bid.ID as string} failure: not connected`] }])
    })

    it('filters: a filtered range is refused both ways, and allowed again after rm', async () => {
      const [bid] = await call(b, 'id')
      const addr = bid.Addresses[0]
      expect(await call(a, 'swarm/filters/add', { args: ['/ip4/127.0.0.0/ipcidr/8'] })).to.deep.equal([{ Strings: ['/ip4/127.0.0.0/ipcidr/8'] }])
      expect(await call(a, 'swarm/filters')).to.deep.equal([{ Strings: ['/ip4/127.0.0.0/ipcidr/8'] }])
      expect(a.container.cradle.config.get().Swarm).to.have.deep.property('AddrFilters', ['/ip4/127.0.0.0/ipcidr/8'])
      expect((await rejection(call(a, 'swarm/connect', { args: [addr] }))).message).to.match(new RegExp(`^connect ${bid.ID as string} failure: `))
      const [aid] = await call(a, 'id')
      await rejection(call(b, 'swarm/connect', { args: [aid.Addresses[0]] }))
      expect((await call(a, 'swarm/peers'))[0].Peers).to.equal(null)
      expect(await call(a, 'swarm/filters/rm', { args: ['/ip4/127.0.0.0/ipcidr/8'] })).to.deep.equal([{ Strings: ['/ip4/127.0.0.0/ipcidr/8'] }])
      expect(await call(a, 'swarm/filters')).to.deep.equal([{ Strings: null }])
      expect((await rejection(call(a, 'swarm/filters/add', { args: ['foo'] }))).message).to.equal('invalid multiaddr-filter format')
      await call(a, 'swarm/connect', { args: [addr] })
      expect((await call(a, 'swarm/peers'))[0].Peers).to.have.length(1)
    })
  })
})
