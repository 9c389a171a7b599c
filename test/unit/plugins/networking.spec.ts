// bitswap, routing, provide, stats and dht query through the registry on three real online nodes on
// loopback (A - B - C: A and C are not connected; C finds A through the LAN DHT and fetches by bitswap),
// plus offline behaviour and the text encoders against Kubo's output.
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { createOnlineTestNode, createTestNode, filesOf, renderText, type TestNode } from '../../helpers/node.js'
import { waitFor } from '../../helpers/wait.js'
import { blockPlugin } from '../../../plugins/block/index.js'
import { pinPlugin } from '../../../plugins/pin/index.js'
import { filesPlugin } from '../../../plugins/files/index.js'
import { bitswapPlugin } from '../../../plugins/bitswap/index.js'
import { routingPlugin } from '../../../plugins/routing/index.js'
import { providePlugin } from '../../../plugins/provide/index.js'
import { statsPlugin } from '../../../plugins/stats/index.js'
import { dhtPlugin } from '../../../plugins/dht/index.js'
import { removedPlugin } from '../../../plugins/removed/index.js'
import { hashByName } from '../../../core/hashes.js'
import { emptyStats } from '../../../core/provider/stats.js'
import { provideStatText } from '../../../plugins/provide/text.js'
import { routingGet } from '../../../plugins/routing/get.js'
import { renderValue } from '../../../server/cli.js'
import type { CommandSpec } from '../../../registry/types.js'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { createIPNSRecord, marshalIPNSRecord } from 'ipns'

use(chaiAsPromised)

const plugins = (): ReturnType<typeof blockPlugin>[] => [blockPlugin(), pinPlugin(), filesPlugin(), bitswapPlugin(), routingPlugin(), providePlugin(), statsPlugin(), dhtPlugin(), removedPlugin()]

const onlineNode = async (): Promise<TestNode> => await createOnlineTestNode({ plugins: plugins() })

function missingCid (): CID {
  return CID.createV1(raw.code, hashByName('sha2-256')!.digest(crypto.getRandomValues(new Uint8Array(32))))
}

const idOf = (n: TestNode): string => n.container.cradle.libp2p!.peerId.toString()
const lanSize = (n: TestNode): number => (n.container.cradle.libp2p!.services as any).lanDHT.routingTable.size

describe('networking commands (three in-process nodes)', function () {
  this.timeout(60_000)
  let a: TestNode
  let b: TestNode
  let c: TestNode

  before(async () => {
    [a, b, c] = await Promise.all([onlineNode(), onlineNode(), onlineNode()])
    await a.container.cradle.libp2p!.dial(b.container.cradle.libp2p!.getMultiaddrs()[0])
    await c.container.cradle.libp2p!.dial(b.container.cradle.libp2p!.getMultiaddrs()[0])
    // identify, then the LAN DHT tables fill
    await waitFor(async () => lanSize(a) > 0 && lanSize(b) > 1 && lanSize(c) > 0, { what: 'LAN DHT tables', timeout: 15_000 })
  })

  after(async () => {
    await Promise.all([a, b, c].map(async n => await n?.stop()))
  })

  it('C finds A as a provider through B and fetches the block by bitswap; counters and ledgers move', async () => {
    const data = `hello from A ${Math.random()}`
    const [row] = await a.invoke('block/put', { files: filesOf({ content: data }) })
    const cid: string = row.Key
    expect(a.container.cradle.libp2p!.getConnections(c.container.cradle.libp2p!.peerId)).to.have.length(0)
    // the provider announces new blocks (Provide.Strategy "all") to the LAN DHT
    await waitFor(async () => a.container.cradle.provider!.provided(CID.parse(cid)), { what: 'A provided the block', timeout: 15_000 })
    const events = await c.invoke('routing/findprovs', { args: [cid], options: { 'num-providers': 1 } })
    const provs = events.filter((e: { Type: number }) => e.Type === 4)
    expect(provs).to.have.length(1)
    expect(Object.keys(provs[0])).to.deep.equal(['Extra', 'ID', 'Responses', 'Type'])
    expect(provs[0].ID).to.equal('')
    expect(provs[0].Responses[0].ID).to.equal(idOf(a))
    expect(provs[0].Responses[0].Addrs.length).to.be.greaterThan(0)
    // text: the provider's ID on a line
    expect(await renderText(c, 'routing/findprovs', { args: [cid], options: { 'num-providers': 1 } })).to.equal(`${idOf(a)}\n`)

    const before = await c.invoke('bitswap/stat')
    const got: Buffer = await c.registry.invoke(['block', 'get'], { args: [cid] }, c.container, AbortSignal.timeout(30_000))
    expect(got.toString()).to.equal(data)
    const cs = await c.invoke('bitswap/stat')
    expect(Object.keys(cs)).to.deep.equal(['Wantlist', 'Peers', 'BlocksReceived', 'DataReceived', 'DupBlksReceived', 'DupDataReceived', 'MessagesReceived', 'BlocksSent', 'DataSent'])
    expect(cs.BlocksReceived - before.BlocksReceived).to.equal(1)
    expect(cs.DataReceived - before.DataReceived).to.equal(data.length)
    expect(cs.DupBlksReceived).to.equal(0)
    expect(cs.MessagesReceived).to.be.greaterThan(before.MessagesReceived)
    const as = await a.invoke('stats/bitswap')
    expect(as.BlocksSent).to.equal(1)
    expect(as.DataSent).to.equal(data.length)
    const ledger = await a.invoke('bitswap/ledger', { args: [idOf(c)] })
    expect(ledger).to.deep.equal({ Peer: idOf(c), Value: data.length, Sent: data.length, Recv: 0, Exchanged: 1 })
    expect(await renderText(a, 'bitswap/ledger', { args: [idOf(c)] })).to.equal(`Ledger for ${idOf(c)}\nDebt ratio:\t${data.length}.000000\nExchanges:\t1\nBytes sent:\t${data.length}\nBytes received:\t0\n\n`)
    const cl = await c.invoke('bitswap/ledger', { args: [idOf(a)] })
    expect(cl).to.include({ Sent: 0, Recv: data.length, Exchanged: 1 })
    const text = await renderText(c, 'bitswap/stat')
    expect(text).to.match(/^bitswap status\n\tblocks received: \d+\n\tblocks sent: 0\n\tdata received: \d+\n/)
  })

  it('bitswap wantlist lists what C waits for', async () => {
    const want = missingCid()
    const controller = new AbortController()
    const pending = c.registry.invoke(['block', 'get'], { args: [want.toString()] }, c.container, controller.signal).catch(() => {})
    try {
      // (cancels of earlier wants may still be on their way: wait for exactly this want)
      const only = [{ '/': want.toString() }]
      await waitFor(async () => JSON.stringify((await c.invoke('bitswap/wantlist')).Keys) === JSON.stringify(only), { what: 'C wants it', timeout: 15_000 })
      expect((await c.invoke('bitswap/stat')).Wantlist).to.deep.equal(only)
      expect(await renderText(c, 'bitswap/wantlist')).to.equal(`${want.toString()}\n`)
      // --peer with our own ID is our wantlist; another peer's is what it asked us for
      expect((await c.invoke('bitswap/wantlist', { options: { peer: idOf(c) } })).Keys).to.deep.equal(only)
      expect((await c.invoke('bitswap/wantlist', { options: { peer: idOf(a) } })).Keys).to.deep.equal([])
    } finally {
      controller.abort()
      await pending
    }
  })

  it('routing findpeer finds A from C; its own ID is refused', async () => {
    const events = await c.invoke('routing/findpeer', { args: [idOf(a)] })
    const final = events.find((e: { Type: number }) => e.Type === 2)
    expect(final.ID).to.equal('')
    expect(final.Responses[0].ID).to.equal(idOf(a))
    expect(final.Responses[0].Addrs.length).to.be.greaterThan(0)
    await expect(c.invoke('routing/findpeer', { args: [idOf(c)] })).to.be.rejectedWith('finding your own node in the DHT is currently not supported')
  })

  it('dht query lists the closest peers; stats dht shows the LAN table', async () => {
    const events = await c.invoke('dht/query', { args: [idOf(a)] })
    const finals = events.filter((e: { Type: number }) => e.Type === 2).map((e: { ID: string }) => e.ID)
    expect(finals).to.include(idOf(b))
    const tables = await c.invoke('stats/dht')
    expect(tables.map((t: { Name: string }) => t.Name)).to.deep.equal(['wan', 'lan'])
    const lanPeers = tables[1].Buckets.flatMap((bk: { Peers: Array<{ ID: string }> }) => bk.Peers.map(p => p.ID))
    expect(lanPeers).to.include(idOf(b))
    expect(tables[0].Buckets).to.deep.equal([]) // the WAN DHT ignores loopback peers
    // each bucket's last refresh, from the DHT's refresher (as Kubo's GetTrackedCplsForRefresh)
    const refresher = (c.container.cradle.libp2p!.services as any).lanDHT.routingTableRefresh
    const at = new Date(Date.now() - 60_000)
    refresher.commonPrefixLengthRefreshedAt[0] = at
    const [lan] = await c.invoke('stats/dht', { args: ['lan'] })
    expect(lan.Buckets[0].LastRefresh).to.equal(at.toISOString().replace(/\.\d{3}Z$/, 'Z'))
    await expect(c.invoke('stats/dht', { args: ['foo'] })).to.be.rejectedWith('unknown dht type: foo')
    const text = await renderText(c, 'stats/dht', { args: ['lan'] })
    expect(text).to.match(/^DHT lan \(\d+ peers\):/)
    expect(text).to.include(`@ ${idOf(b)}`)
  })

  it('provide stat reports what was provided; provide clear answers a count', async () => {
    const [stat] = await a.invoke('provide/stat')
    expect(Object.keys(stat)).to.deep.equal(['Sweep', 'Legacy', 'FullRT'])
    expect(stat.Sweep.operations.past.keys_provided).to.be.greaterThan(0)
    expect(stat.Sweep.connectivity.status).to.equal('online')
    expect(await a.invoke('provide/clear')).to.deep.equal([0])
    expect(await a.invoke('provide/clear', { options: { quiet: true } })).to.deep.equal([])
    await expect(a.invoke('routing/reprovide')).to.be.rejectedWith('manual reprovide only available with legacy provider (Provide.DHT.SweepEnabled=false)')
  })

  it('routing provide and provide once announce stored blocks, refuse missing ones', async () => {
    const [row] = await c.invoke('block/put', { files: filesOf({ content: `c's block ${Math.random()}` }) })
    // Kubo 0.40.1 forwards none of the DHT's query events: an empty stream
    expect(await c.invoke('routing/provide', { args: [row.Key] })).to.deep.equal([])
    expect(await c.invoke('routing/provide', { args: [row.Key], options: { verbose: true } })).to.deep.equal([])
    expect(await c.invoke('provide/once', { args: [row.Key] })).to.deep.equal([{ Queued: row.Key }])
    const missing = missingCid().toString()
    await expect(c.invoke('routing/provide', { args: [missing] })).to.be.rejectedWith(`block ${missing} not found locally, cannot provide`)
    await expect(c.invoke('provide/once', { args: [missing] })).to.be.rejectedWith(`block ${missing} not found locally, cannot provide`)
  })

  it('routing put then get: the record back in Kubo\'s wire shape (struct field order), raw bytes in the CLI', async () => {
    const key = await generateKeyPair('Ed25519')
    const record = marshalIPNSRecord(await createIPNSRecord(key, '/ipfs/bafkqaaa', 3, 3_600_000))
    const name = `/ipns/${peerIdFromPrivateKey(key).toString()}`
    await c.invoke('routing/put', { args: [name], files: filesOf({ content: Buffer.from(record) }), options: { 'allow-offline': true } })
    const [event] = await c.invoke('routing/get', { args: [name] })
    expect(Object.keys(event)).to.deep.equal(['ID', 'Type', 'Responses', 'Extra'])
    expect(Buffer.from(event.Extra, 'base64')).to.deep.equal(Buffer.from(record))
    const chunks: Buffer[] = []
    const stdout = { write: (b: Uint8Array) => { chunks.push(Buffer.from(b)); return true } }
    async function * items (): AsyncGenerator<unknown> { yield event }
    await routingGet.cliRender!({ kind: 'ndjson', items: items() }, {} as never, { stdout, stderr: stdout, isTTY: false, cwd: '/' } as never)
    expect(Buffer.concat(chunks)).to.deep.equal(Buffer.from(record))
    // Kubo's CLI --enc=json re-encodes the event with QueryEvent.MarshalJSON: sorted keys, unlike its HTTP answer
    const json = renderValue(routingGet as unknown as CommandSpec, event, { path: ['routing', 'get'], args: [name], options: {} } as never, 'json')
    expect(json).to.equal(`{"Extra":"${event.Extra}","ID":"","Responses":null,"Type":5}\n`)
  })

  it('routing get of an absent record fails with routing: not found; bad keys are refused', async () => {
    await expect(c.invoke('routing/get', { args: [`/ipns/${idOf(a)}`] }, )).to.be.rejectedWith('routing: not found')
    await expect(c.invoke('routing/get', { args: ['/foo/bar'] })).to.be.rejectedWith('invalid key')
  })
})

describe('networking commands offline', function () {
  this.timeout(20_000)
  let n: TestNode
  before(async () => { n = await createTestNode({ plugins: plugins() }) })
  after(async () => { await n?.stop() })

  it('answer as Kubo does on an offline node', async () => {
    const online = "this command must be run in online mode. Try running 'ipfs daemon' first"
    await expect(n.invoke('bitswap/stat')).to.be.rejectedWith(`unable to run offline: ${online}`)
    await expect(n.invoke('bitswap/wantlist')).to.be.rejectedWith(online)
    await expect(n.invoke('routing/findprovs', { args: [missingCid().toString()] })).to.be.rejectedWith(online)
    await expect(n.invoke('provide/stat')).to.be.rejectedWith(online)
    expect(await n.invoke('provide/clear')).to.deep.equal([])
    await expect(n.invoke('dht/query', { args: ['12D3KooWEgdyNhEdMDVMtrbJ5b8RtgFiuYteSjTAZUDUxvotixCv'] })).to.be.rejectedWith('routing service is not a DHT')
    await expect(n.invoke('routing/put', { args: ['/ipns/12D3KooWEgdyNhEdMDVMtrbJ5b8RtgFiuYteSjTAZUDUxvotixCv'], files: filesOf({ content: 'x' }) })).to.be.rejectedWith("can't put while offline: pass `--allow-offline` to override")
    await expect(n.invoke('dht/findprovs')).to.be.rejectedWith("removed, use 'ipfs routing' instead")
  })

  it('with --offline, pin add and files cp never fetch, even with an exchange plugged in', async () => {
    const store = n.container.cradle.blockstore as import('../../../core/blockstore/index.js').NodeBlockstore
    const asked: string[] = []
    store.setFetcher(async (cid) => { asked.push(cid.toString()); throw new Error('fetched') })
    try {
      const cid = missingCid().toString()
      await expect(n.invoke('pin/add', { args: [cid], options: { offline: true } })).to.be.rejectedWith(`block was not found locally (offline): ipld: could not find ${cid}`)
      await expect(n.invoke('files/cp', { args: [`/ipfs/${cid}`, '/x'], options: { offline: true } })).to.be.rejectedWith('block was not found locally (offline)')
      expect(asked).to.deep.equal([])
      // online, the same requests go to the exchange (the check above can fail)
      await expect(n.invoke('pin/add', { args: [cid] })).to.be.rejected
      expect(asked).to.include(cid)
    } finally {
      store.setFetcher(undefined)
    }
  })
})

describe('provide stat text', () => {
  it('renders the brief summary as Kubo 0.40.1 does', () => {
    const s = emptyStats()
    s.schedule.keys = 2
    expect(provideStatText({ Sweep: s, Legacy: null, FullRT: false }, {})).to.equal(
      'Status:              offline\n' +
      'Provide queue:       0 CIDs, 0 regions\n' +
      'Reprovide queue:     0 regions\n' +
      'CIDs scheduled:      2\n' +
      'Regions scheduled:   N/A\n' +
      'Avg record holders:  N/A\n' +
      'Ongoing provides:    0 CIDs, 0 regions\n' +
      'Ongoing reprovides:  0 CIDs, 0 regions\n' +
      'Total CIDs provided: 0\n')
    expect(provideStatText({ Sweep: s, Legacy: null, FullRT: false }, { queues: true })).to.equal('Provide queue:   0 CIDs, 0 regions\nReprovide queue: 0 regions\n')
    expect(() => provideStatText({ Sweep: s, Legacy: null, FullRT: false }, { compact: true })).to.throw('--compact requires --all flag')
  })

  it('renders --all sections with headings', () => {
    const s = emptyStats()
    s.schedule.keys = 2
    s.timing.reprovides_interval = 22 * 3600e9
    const text = provideStatText({ Sweep: s, Legacy: null, FullRT: false }, { all: true })
    expect(text).to.include('Connectivity:\n  Status: offline\n\nQueues:\n  Provide queue:   0 CIDs, 0 regions\n  Reprovide queue: 0 regions\n\nSchedule:\n  CIDs scheduled:        2\n')
    expect(text).to.include('  Reprovide interval:  22h0m0s\n')
    expect(text).to.include('Workers:\n  Active workers: 0 / 16 (max)\n  Free workers:   13\n    Workers stats: Periodic  Burst\n    Active:        0         0\n    Dedicated:     2         1\n    Available:     15        14\n    Queued:        0         0\n  Max connections/worker: 20\n')
    expect(text.endsWith('Max connections/worker: 20\n')).to.equal(true)
  })
})
