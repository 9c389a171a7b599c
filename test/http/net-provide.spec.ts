// Spawned daemons on loopback: two tsipfs nodes that never dial each other, joined through a Kubo node
// (a LAN DHT server, Kubo's `test` profile): C finds A's content with `routing findprovs` and fetches it
// by bitswap; counters and ledgers move on both sides; Provide.Strategy=roots announces roots only;
// --offline requests never fetch; the CLI renders routing/bitswap/provide output.
import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { Cluster, RpcCallError, waitFor, type Peer } from '../helpers/cluster.js'
import { kuboBinary } from '../helpers/kubo.js'
import { runCli } from '../helpers/daemon.js'

type Event = { Extra: string, ID: string, Responses: Array<{ ID: string, Addrs: string[] }> | null, Type: number }

/** providers `p` finds for `cid` within `timeout` (an expired query just ends the list) */
async function providers (p: Peer, cid: string, timeout = '5s'): Promise<string[]> {
  let events: Event[] = []
  try {
    events = await p.call('routing/findprovs', [cid], { 'num-providers': 1, timeout })
  } catch (err) {
    if (!(err instanceof RpcCallError) || !/deadline|timeout|aborted/i.test(err.message)) throw err
  }
  return events.filter(e => e.Type === 4).flatMap(e => (e.Responses ?? []).map(r => r.ID))
}

/** is `p` connected to `id` (undefined while this build has no `swarm peers`) */
async function connected (p: Peer, id: string): Promise<boolean | undefined> {
  try {
    return (await p.peers()).includes(id)
  } catch (err) {
    if (err instanceof RpcCallError && err.status === 404) return undefined
    throw err
  }
}

describe('net: routing, providing and bitswap between spawned daemons', function () {
  this.timeout(180_000)
  let c: Cluster
  let a: Peer
  let roots: Peer
  let b: Peer
  let k: Peer

  before(async function () {
    this.timeout(30 * 60_000) // a fresh machine builds Kubo first
    kuboBinary()
    c = new Cluster({ label: 'net-provide' })
    ;[a, roots, b, k] = await Promise.all([
      c.tsipfs({ name: 'A' }),
      c.tsipfs({ name: 'R', config: { 'Provide.Strategy': 'roots' } }),
      c.tsipfs({ name: 'C' }),
      c.kubo({ name: 'K', config: { 'Routing.Type': 'dhtserver' } })
    ])
    // only the hub dials: A, R and C know nobody but K
    for (const p of [a, roots, b]) await c.connect(k, p)
  })
  after(async () => { await c?.stop() })

  it('C finds A through the DHT and fetches by bitswap without a prior connection; counters move', async () => {
    const data = randomBytes(300 * 1024)
    const cid = await a.add(data)
    // (nobody dials A for C; C's DHT may meet A by itself while it refreshes its table)
    const found = await waitFor(async () => (await providers(b, cid)).includes(a.id), { what: 'C finds A', timeout: 60_000, interval: 1000 })
    expect(found).to.equal(true)
    const events: Event[] = await b.call('routing/findprovs', [cid], { 'num-providers': 1 })
    const prov = events.find(e => e.Type === 4)!
    expect(Object.keys(prov)).to.deep.equal(['Extra', 'ID', 'Responses', 'Type'])
    expect(prov.Responses![0].Addrs.some(x => x.startsWith('/ip4/127.0.0.1/tcp/'))).to.equal(true)

    const before = await b.call('bitswap/stat')
    expect(Buffer.compare(await b.cat(cid), data)).to.equal(0)
    const after = await b.call('bitswap/stat')
    expect(after.BlocksReceived - before.BlocksReceived).to.be.at.least(2)
    expect(after.DataReceived - before.DataReceived).to.be.at.least(data.length)
    const ledger = await a.call('bitswap/ledger', [b.id])
    expect(ledger.Peer).to.equal(b.id)
    expect(ledger.Sent).to.be.at.least(data.length)
    expect(ledger.Exchanged).to.be.at.least(2)
    expect(await connected(b, a.id)).to.not.equal(false)

    // Kubo's partners (bitswap stat Peers, wantlist --peer): peers with wants still open on us; a peer served
    // in full is none; one waiting for a block nobody has is one until its request ends and cancels
    const partners = async (): Promise<string[]> => (await a.call('bitswap/stat', [], { verbose: true })).Peers
    await waitFor(async () => !(await partners()).includes(b.id), { what: 'A drops C from its partners once served', timeout: 10_000 })
    expect((await a.call('bitswap/wantlist', [], { peer: b.id })).Keys ?? []).to.deep.equal([])
    const missing = CID.createV1(raw.code, await sha256.digest(randomBytes(32))).toString()
    const pending = b.call('cat', [missing], { timeout: '6s' }).then(() => null, (err: Error) => err)
    await waitFor(async () => (await partners()).includes(b.id), { what: 'A lists C while C wants a block', timeout: 10_000 })
    expect(((await a.call('bitswap/wantlist', [], { peer: b.id })).Keys ?? []).map((k: { '/': string }) => k['/'])).to.include(missing)
    expect(await pending).to.be.instanceOf(Error)
    await waitFor(async () => !(await partners()).includes(b.id), { what: 'A drops C once its request ended', timeout: 15_000 })

    // the CLI renders the same answers as Kubo's text encoders
    const text = runCli(b.repo!, ['routing', 'findprovs', '-n', '1', cid])
    expect(text.stdout).to.match(new RegExp(`^(${a.id}|${b.id})\\n$`))
    const stat = runCli(a.repo!, ['bitswap', 'stat'])
    expect(stat.stdout).to.match(/^bitswap status\n\tblocks received: \d+\n\tblocks sent: [1-9]\d*\n/)
    const lt = runCli(a.repo!, ['bitswap', 'ledger', b.id])
    expect(lt.stdout).to.match(new RegExp(`^Ledger for ${b.id}\\nDebt ratio:\\t\\d+\\.\\d{6}\\nExchanges:\\t\\d+\\nBytes sent:\\t\\d+\\nBytes received:\\t0\\n\\n$`))
    const ps = runCli(a.repo!, ['provide', 'stat'])
    expect(ps.stdout).to.match(/^Provide queue: +\d+ CIDs, \d+ regions\n/)
    expect(ps.stdout).to.match(/Total CIDs provided: [1-9]/)
  })

  it('Provide.Strategy=roots announces the root of an add, not its leaves', async () => {
    const data = randomBytes(600 * 1024)
    const cid = await roots.add(data)
    const found = await waitFor(async () => (await providers(k, cid)).includes(roots.id), { what: 'K finds R', timeout: 60_000, interval: 1000 })
    expect(found).to.equal(true)
    const leaves: string[] = (await roots.call('refs', [cid], { unique: true })).map((r: { Ref: string }) => r.Ref)
    expect(leaves.length).to.be.at.least(2)
    expect(await providers(k, leaves[0], '3s')).to.not.include(roots.id)
    const [st] = await roots.call('provide/stat')
    expect(st.Sweep.schedule.keys).to.be.at.least(1)
  })

  it('offline requests never fetch: cat, pin add and files cp fail at once; nothing is received', async () => {
    const cid = await a.add(randomBytes(2000))
    await waitFor(async () => (await providers(b, cid)).includes(a.id), { what: 'C finds the new block', timeout: 60_000, interval: 1000 })
    const before = await b.call('bitswap/stat')
    const offline = `block was not found locally (offline): ipld: could not find ${cid}`
    // Kubo 0.40.1's texts for the same three requests
    const expected: Array<[string, string[], string]> = [
      ['cat', [cid], offline],
      ['pin/add', [cid], `pin: ${offline}`],
      ['files/cp', [`/ipfs/${cid}`, '/copy'], `cp: cannot get node from path /ipfs/${cid}: ${offline}`]
    ]
    for (const [cmd, args, text] of expected) {
      const err = await b.call(cmd, args, { offline: true }).then(() => undefined, (e: Error) => e)
      expect(err?.message, cmd).to.equal(text)
    }
    const after = await b.call('bitswap/stat')
    expect(after.BlocksReceived).to.equal(before.BlocksReceived)
    // online, the same pin add fetches
    await b.call('pin/add', [cid], { timeout: '30s' })
    expect((await b.call('bitswap/stat')).BlocksReceived).to.be.greaterThan(before.BlocksReceived)
  })

  it('add --fast-provide-wait announces the root before answering', async () => {
    const out = await a.call('add', [], { 'fast-provide-wait': true, quieter: true }, randomBytes(500))
    const cid = (Array.isArray(out) ? out[out.length - 1] : out).Hash
    expect(await providers(k, cid)).to.include(a.id)
  })
})
