import { expect } from 'chai'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import * as dagPb from '@ipld/dag-pb'
import * as dagCbor from '@ipld/dag-cbor'
import * as dagJson from '@ipld/dag-json'
import { Key } from 'interface-datastore'
import { MemoryDatastore } from 'datastore-core/memory'
import { MemoryBlockstore } from 'blockstore-core/memory'
import { LevelDatastore } from 'datastore-level'
import { FlatfsBlockstore } from '../../../core/blockstore/flatfs.js'
import { NodeBlockstore } from '../../../core/blockstore/index.js'
import { createPins, encodePinRecord, emptyDirCid, type PinEntry, type Pins } from '../../../core/pins/index.js'
import { initRepo } from '../../../core/repo/index.js'
import { rejects } from '../../helpers/assert.js'

const text = (s: string): Uint8Array => new TextEncoder().encode(s)
const b64u = (bytes: Uint8Array): string => 'u' + Buffer.from(bytes).toString('base64url')

async function keysUnder (ds: { queryKeys: MemoryDatastore['queryKeys'] }, prefix: string): Promise<string[]> {
  const out: string[] = []
  for await (const k of ds.queryKeys({ prefix })) out.push(k.toString())
  return out.sort()
}

async function all<T> (it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

/** A small DAG: root (dag-pb) -> [leafA (raw), js (dag-json) -> [leafA], mid (dag-cbor) -> [leafB (raw)]] */
async function buildDag (bs: NodeBlockstore, tag = ''): Promise<Record<'root' | 'leafA' | 'leafB' | 'mid' | 'js', CID>> {
  const put = async (code: number, bytes: Uint8Array): Promise<CID> => {
    const cid = CID.createV1(code, await sha256.digest(bytes))
    await bs.put(cid, bytes)
    return cid
  }
  const leafA = await put(0x55, text(`leaf A${tag}`))
  const leafB = await put(0x55, text(`leaf B${tag}`))
  const mid = await put(0x71, dagCbor.encode({ child: leafB, list: [1, 2] }))
  const js = await put(0x0129, dagJson.encode({ again: leafA }))
  const root = await put(0x70, dagPb.encode({ Links: [{ Hash: leafA, Name: 'a' }, { Hash: js, Name: 'j' }, { Hash: mid, Name: 'm' }] }))
  return { root, leafA, leafB, mid, js }
}

describe('pins', () => {
  let ds: MemoryDatastore
  let bs: NodeBlockstore
  let pins: Pins

  beforeEach(() => {
    ds = new MemoryDatastore()
    bs = new NodeBlockstore(new MemoryBlockstore())
    pins = createPins({ datastore: ds, blockstore: bs })
  })

  it('ls gives indirect pins while the walk goes on, in walk order (a 1M-entry HAMT held every CID first; issue 15)', async () => {
    // a chain root -> n1 -> ... -> n400: each node is read only once its parent was
    let child: CID | undefined
    const chain: CID[] = []
    for (let i = 400; i >= 0; i--) {
      const bytes = dagPb.encode({ Data: text(`n${i}`), Links: child == null ? [] : [{ Hash: child, Name: 'next' }] })
      child = CID.createV0(await sha256.digest(bytes))
      await bs.put(child, bytes)
      chain.unshift(child)
    }
    await pins.pinRecursive(chain[0])
    let reads = 0
    const get = bs.get.bind(bs)
    bs.get = ((cid: CID, o?: unknown) => { reads++; return get(cid, o as never) }) as typeof bs.get
    const it = pins.ls({ type: 'indirect' })[Symbol.asyncIterator]()
    const first = await it.next()
    expect(first.value.cid.toString()).to.equal(chain[1].toString())
    expect(reads).to.be.lessThan(100)
    const rest = await all({ [Symbol.asyncIterator]: () => it })
    expect([first.value, ...rest].map(p => p.cid.toString())).to.deep.equal(chain.slice(1).map(c => c.toString()))
    // a name filter lists no indirect pin; a consumer that stops early ends the walk
    expect(await all(pins.ls({ type: 'all', name: 'x' }))).to.deep.equal([])
    const early = pins.ls({ type: 'all' })[Symbol.asyncIterator]()
    await early.next()
    await early.next()
    await early.return?.(undefined)
  })

  it('writes Kubo\'s records and index keys (behaviour.md §12)', async () => {
    const empty = await emptyDirCid()
    await bs.put(empty, Uint8Array.of(0x0a, 0x02, 0x08, 0x01))
    await pins.pinRecursive(empty, { name: 'foo' })
    const recs = await keysUnder(ds, '/pins/pin/')
    expect(recs).to.have.length(1)
    const id = recs[0].slice('/pins/pin/'.length)
    expect(id).to.match(/^[0-9a-f]{32}$/)
    const rkey = await keysUnder(ds, '/pins/index/cidRindex/')
    expect(rkey).to.deep.equal([`/pins/index/cidRindex/${b64u(empty.bytes)}/${b64u(text(id))}`])
    expect(rkey[0]).to.match(/^\/pins\/index\/cidRindex\/uEiBZlIQ5/)
    expect(await keysUnder(ds, '/pins/index/nameIndex/')).to.deep.equal([`/pins/index/nameIndex/${b64u(text('foo'))}/${b64u(text(id))}`])
    expect((await ds.get(new Key(rkey[0]))).length).to.equal(0)
    // {cid: bytes, mode: 0, name: "foo"} as refmt writes it: keys cid, mode, name
    const value = await ds.get(new Key(recs[0]))
    expect(Buffer.from(value).toString('hex')).to.equal('a363636964' + '5822' + Buffer.from(empty.bytes).toString('hex') + '646d6f646500646e616d6563666f6f')
    expect(dagCbor.decode(value)).to.deep.equal({ cid: empty.bytes, mode: 0, name: 'foo' })
  })

  it('stores direct pins under cidDindex with mode 1 and no name key when unnamed', async () => {
    const cid = CID.createV1(0x55, await sha256.digest(text('direct')))
    await bs.put(cid, text('direct'))
    await pins.pinDirect(cid)
    const [rec] = await keysUnder(ds, '/pins/pin/')
    expect(dagCbor.decode(await ds.get(new Key(rec)))).to.deep.equal({ cid: cid.bytes, mode: 1 })
    expect(await keysUnder(ds, '/pins/index/cidDindex/')).to.have.length(1)
    expect(await keysUnder(ds, '/pins/index/nameIndex/')).to.deep.equal([])
    expect(await pins.isPinned(cid)).to.deep.equal({ pinned: true, type: 'direct' })
  })

  it('walks dag-pb, dag-cbor, dag-json and raw links; indirect pins name their root', async () => {
    const d = await buildDag(bs)
    await pins.pinRecursive(d.root)
    expect(await pins.isPinned(d.root)).to.deep.equal({ pinned: true, type: 'recursive' })
    for (const c of [d.leafA, d.leafB, d.mid, d.js]) {
      const s = await pins.isPinned(c)
      expect(s.pinned && s.type).to.equal('indirect')
      expect(s.pinned && s.via?.equals(d.root)).to.equal(true)
    }
    const other = CID.createV1(0x55, await sha256.digest(text('unrelated')))
    expect(await pins.isPinned(other)).to.deep.equal({ pinned: false })
    const checked = await pins.checkPinned([other, d.leafB, d.root])
    expect(checked.map(s => s.pinned ? s.type : 'no')).to.deep.equal(['no', 'indirect', 'recursive'])
  })

  it('refuses a recursive pin of an incomplete DAG', async () => {
    const d = await buildDag(bs)
    await bs.delete(d.leafB)
    await rejects(pins.pinRecursive(d.root), /ipld: could not find/)
    expect(await pins.isPinned(d.root)).to.deep.equal({ pinned: false })
    // block put --pin does not walk
    await pins.pinRecursive(d.root, { walk: false })
    expect(await pins.isPinned(d.root)).to.deep.equal({ pinned: true, type: 'recursive' })
  })

  it('reports progress while walking', async () => {
    const d = await buildDag(bs)
    let last = 0
    await pins.pinRecursive(d.root, { onProgress: (n) => { last = n } })
    expect(last).to.equal(5)
  })

  it('unpins with Kubo\'s errors', async () => {
    const d = await buildDag(bs)
    await pins.pinRecursive(d.root)
    await rejects(pins.unpin(d.root, { recursive: false }), `${d.root.toString()} is pinned recursively`)
    await rejects(pins.unpin(d.leafA), 'not pinned or pinned indirectly')
    await rejects(pins.pinDirect(d.root), `${d.root.toString()} already pinned recursively`)
    await pins.pinDirect(d.leafA)
    await pins.unpin(d.leafA, { recursive: false })
    await pins.unpin(d.root)
    expect(await pins.isPinned(d.root)).to.deep.equal({ pinned: false })
    expect(await keysUnder(ds, '/pins/')).to.deep.equal([])
  })

  it('re-pins with a new name, and a recursive pin replaces a direct one', async () => {
    const d = await buildDag(bs)
    await pins.pinDirect(d.root, { name: 'first' })
    await pins.pinRecursive(d.root, { name: 'second' })
    await pins.pinRecursive(d.root, { name: 'third' })
    expect(await all(pins.ls({ type: 'recursive' }))).to.deep.equal([{ cid: d.root, type: 'recursive', name: 'third' }])
    expect(await all(pins.directKeys())).to.deep.equal([])
    expect(await keysUnder(ds, '/pins/pin/')).to.have.length(1)
    expect(await keysUnder(ds, '/pins/index/nameIndex/')).to.have.length(1)
  })

  it('lists recursive, then direct, then indirect pins, each once', async () => {
    const d = await buildDag(bs)
    const e = await buildDag(bs, ' (2)')
    await pins.pinRecursive(d.root, { name: 'dee' })
    await pins.pinRecursive(e.root)
    await pins.pinDirect(d.leafA, { name: 'direct-a' })
    const listed = await all(pins.ls())
    const summary = (l: PinEntry[]): string[] => l.map(p => `${p.type}:${p.cid.toString()}`)
    const roots = [d.root, e.root].sort((a, b) => b64u(a.bytes) < b64u(b.bytes) ? -1 : 1)
    expect(summary(listed.slice(0, 3))).to.deep.equal([...roots.map(r => `recursive:${r.toString()}`), `direct:${d.leafA.toString()}`])
    const indirect = listed.slice(3)
    expect(indirect.every(p => p.type === 'indirect' && p.name === '')).to.equal(true)
    expect(indirect.map(p => p.cid.toString()).sort()).to.deep.equal([d.leafB, d.mid, d.js, e.leafA, e.leafB, e.mid, e.js].map(String).sort())
    const onlyIndirect = await all(pins.ls({ type: 'indirect' }))
    expect(onlyIndirect.map(p => p.cid.toString()).sort()).to.deep.equal(indirect.map(p => p.cid.toString()).sort())
    // name filter: substring of names; indirect pins have none
    expect(summary(await all(pins.ls({ name: 'dee' })))).to.deep.equal([`recursive:${d.root.toString()}`])
    expect(summary(await all(pins.ls({ type: 'direct', name: 'direct' })))).to.deep.equal([`direct:${d.leafA.toString()}`])
    expect((await all(pins.recursiveKeys())).map(String)).to.deep.equal(roots.map(String))
    expect(await pins.nameOf(d.root, 'recursive')).to.equal('dee')
    expect(await pins.nameOf(e.root, 'recursive')).to.equal('')
    expect(await pins.nameOf(e.root, 'direct')).to.equal(undefined)
  })

  it('updates a recursive pin', async () => {
    const d = await buildDag(bs)
    const e = await buildDag(bs, ' (2)')
    await rejects(pins.update(d.root, e.root), "'from' cid was not recursively pinned already")
    await pins.pinRecursive(d.root, { name: 'keep' })
    await pins.pinRecursive(e.root)
    await rejects(pins.update(d.root, e.root), "'to' cid was already recursively pinned")
    await pins.unpin(e.root)
    await pins.update(d.root, e.root)
    expect(await all(pins.ls({ type: 'recursive' }))).to.deep.equal([{ cid: e.root, type: 'recursive', name: 'keep' }])
    await pins.update(e.root, d.root, { unpin: false })
    expect((await all(pins.recursiveKeys())).length).to.equal(2)
    // the new DAG must be present where it differs
    const f = await buildDag(bs, ' (3)')
    await bs.delete(f.leafB)
    await rejects(pins.update(d.root, f.root), /ipld: could not find/)
  })

  it('rebuilds the indexes when Kubo left the dirty flag set', async () => {
    const d = await buildDag(bs)
    // a record whose index write never happened, and a stale index without a record
    await ds.put(new Key('/pins/pin/0123456789abcdef0123456789abcdef'), encodePinRecord(d.root, 0, 'found'))
    await ds.put(new Key(`/pins/index/cidDindex/${b64u(d.leafA.bytes)}/${b64u(text('ffffffffffffffffffffffffffffffff'))}`), new Uint8Array(0))
    await ds.put(new Key('/pins/state/dirty'), Uint8Array.of(1))
    const fresh = createPins({ datastore: ds, blockstore: bs })
    expect(await fresh.isPinned(d.root)).to.deep.equal({ pinned: true, type: 'recursive' })
    expect(await all(fresh.directKeys())).to.deep.equal([])
    expect([...await ds.get(new Key('/pins/state/dirty'))]).to.deep.equal([0])
    expect(await keysUnder(ds, '/pins/index/nameIndex/')).to.have.length(1)
  })
})

describe('pins on disk', () => {
  let dir: string

  beforeEach(async () => { dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-pins-')) })
  afterEach(async () => { await fs.rm(dir, { recursive: true, force: true }) })

  const open = async (): Promise<{ pins: Pins, bs: NodeBlockstore, close: () => Promise<void> }> => {
    const level = new LevelDatastore(path.join(dir, 'datastore'))
    await level.open()
    const flatfs = new FlatfsBlockstore(path.join(dir, 'blocks'))
    await flatfs.open()
    const bs = new NodeBlockstore(flatfs)
    return { pins: createPins({ datastore: level, blockstore: bs }), bs, close: async () => { await level.close(); await flatfs.close() } }
  }

  it('keeps pins across restarts', async () => {
    const a = await open()
    const d = await buildDag(a.bs)
    await a.pins.pinRecursive(d.root, { name: 'durable' })
    await a.pins.pinDirect(d.leafB)
    await a.close()

    const b = await open()
    expect(await b.pins.isPinned(d.root)).to.deep.equal({ pinned: true, type: 'recursive' })
    expect(await b.pins.isPinned(d.leafB)).to.deep.equal({ pinned: true, type: 'direct' })
    expect(await all(b.pins.ls({ type: 'recursive' }))).to.deep.equal([{ cid: d.root, type: 'recursive', name: 'durable' }])
    await b.pins.unpin(d.root)
    await b.close()

    const c = await open()
    expect(await c.pins.isPinned(d.root)).to.deep.equal({ pinned: false })
    const s = await c.pins.isPinned(d.leafB)
    expect(s).to.deep.equal({ pinned: true, type: 'direct' })
    await c.close()
  })

  it('init pins the empty directory recursively', async () => {
    const repo = path.join(dir, 'repo')
    await initRepo(repo)
    const file = path.join(repo, 'blocks', 'X3', 'CIQFTFEEHEDF6KLBT32BFAGLXEZL4UWFNWM4LFTLMXQBCERZ6CMLX3Y.data')
    expect(await fs.readFile(file)).to.deep.equal(Buffer.from([0x0a, 0x02, 0x08, 0x01]))
    const level = new LevelDatastore(path.join(repo, 'datastore'))
    await level.open()
    try {
      const keys = await keysUnder(level, '/pins/index/cidRindex/')
      expect(keys).to.have.length(1)
      expect(keys[0]).to.match(/^\/pins\/index\/cidRindex\/uEiBZlIQ5/)
      const pins = createPins({ datastore: level, blockstore: new NodeBlockstore(new FlatfsBlockstore(path.join(repo, 'blocks'))) })
      expect((await all(pins.ls())).map(p => `${p.cid.toString()} ${p.type}`)).to.deep.equal(['QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn recursive'])
    } finally {
      await level.close()
    }
  })
})
