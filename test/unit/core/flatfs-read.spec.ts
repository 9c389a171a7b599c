// The read side of the flatfs blockstore: reads in place or in the thread pool (and the switch between
// them when reads in place hit the disk), reads into a caller's buffer, and NodeBlockstore.read.
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import sinon from 'sinon'
import fsSync, { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { identity } from 'multiformats/hashes/identity'
import { MemoryBlockstore } from 'blockstore-core/memory'
import { FlatfsBlockstore } from '../../../core/blockstore/flatfs.js'
import { NodeBlockstore, getBlock } from '../../../core/blockstore/index.js'
import { BufferPool } from '../../../core/unixfs/buffer-pool.js'
import { pseudoRandom } from '../plugins/unixfs-helper.js'

use(chaiAsPromised)

const raw = async (bytes: Uint8Array): Promise<CID> => CID.createV1(0x55, await sha256.digest(bytes))

describe('flatfs blockstore reads', () => {
  let dir: string
  const small = pseudoRandom(100, 1)
  const big = pseudoRandom(300_000, 2)
  let smallCid: CID
  let bigCid: CID
  let missing: CID

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-flatfs-read-'))
    const store = new FlatfsBlockstore(path.join(dir, 'blocks'), { sync: false })
    await store.open()
    smallCid = await raw(small)
    bigCid = await raw(big)
    missing = await raw(pseudoRandom(10, 3))
    await store.put(smallCid, small)
    await store.put(bigCid, big)
    await store.close()
  })
  after(async () => { await fs.rm(dir, { recursive: true, force: true }) })
  afterEach(() => { sinon.restore() })

  for (const readInPlace of [true, false]) {
    it(`reads blocks ${readInPlace ? 'in place' : 'in the thread pool'}, the same bytes through get and read`, async () => {
      const store = new FlatfsBlockstore(path.join(dir, 'blocks'), { readInPlace })
      const readSync = sinon.spy(fsSync, 'readSync')
      const readAsync = sinon.spy(fsSync, 'read')
      expect(Buffer.from(await store.read(bigCid)).equals(Buffer.from(big))).to.equal(true)
      expect(Buffer.from(await store.read(smallCid)).equals(Buffer.from(small))).to.equal(true)
      expect(Buffer.from(await getBlock(store, bigCid)).equals(Buffer.from(big))).to.equal(true)
      expect(readSync.called).to.equal(readInPlace)
      expect(readAsync.called).to.equal(!readInPlace)
      await expect(store.read(missing)).to.be.rejectedWith(`ipld: could not find ${missing.toString()}`)
      const id = CID.createV1(0x55, identity.digest(Uint8Array.of(1, 2, 3)))
      expect(await store.read(id)).to.deep.equal(Uint8Array.of(1, 2, 3))
      expect(await store.has(bigCid)).to.equal(true)
      expect(await store.has(missing)).to.equal(false)
    })
  }

  it('reads into the buffer the caller allocates', async () => {
    const store = new FlatfsBlockstore(path.join(dir, 'blocks'))
    const pool = new BufferPool()
    const bytes = await store.read(bigCid, (n) => pool.take(n))
    expect(pool.owns(bytes)).to.equal(true)
    expect(Buffer.from(bytes).equals(Buffer.from(big))).to.equal(true)
    const node = new NodeBlockstore(store)
    const again = await node.read(bigCid, { alloc: (n) => pool.take(n) })
    expect(pool.owns(again)).to.equal(true)
    expect(again.buffer).to.not.equal(bytes.buffer)
  })

  it('moves reads to the thread pool for a while when reads in place hit the disk', async () => {
    const store = new FlatfsBlockstore(path.join(dir, 'blocks'))
    let now = 1000
    let diskReads = process.resourceUsage().fsRead
    sinon.stub(performance, 'now').callsFake(() => now)
    const usage = process.resourceUsage()
    sinon.stub(process, 'resourceUsage').callsFake(() => ({ ...usage, fsRead: diskReads }))
    const readSync = sinon.spy(fsSync, 'readSync')
    const readAsync = sinon.spy(fsSync, 'read')
    // a slow read without disk input (the process was preempted): stays in place
    readSync.restore()
    const slow = sinon.stub(fsSync, 'readSync').callsFake((...args: Parameters<typeof fsSync.readSync>) => { now += 5; return slow.wrappedMethod.apply(fsSync, args) })
    await store.read(bigCid)
    await store.read(bigCid)
    expect(slow.callCount).to.equal(2)
    expect(readAsync.called).to.equal(false)
    // a slow read while the process read from the disk: the next ones go to the thread pool
    diskReads += 100
    await store.read(bigCid)
    expect(slow.callCount).to.equal(3)
    expect(Buffer.from(await store.read(bigCid)).equals(Buffer.from(big))).to.equal(true)
    expect(slow.callCount).to.equal(3)
    expect(readAsync.callCount).to.equal(1)
    // a second later, in place again
    now += 1001
    expect(Buffer.from(await store.read(bigCid)).equals(Buffer.from(big))).to.equal(true)
    expect(slow.callCount).to.equal(4)
  })
})

describe('node blockstore read', () => {
  it('reads the store, then its sources, then the network, with Kubo\'s offline text', async () => {
    const mem = new MemoryBlockstore()
    const a = pseudoRandom(10, 1)
    const b = pseudoRandom(10, 2)
    const c = pseudoRandom(10, 3)
    const [ca, cb, cc] = await Promise.all([a, b, c].map(raw))
    await mem.put(ca, a)
    const node = new NodeBlockstore(mem)
    node.addSource({ has: async (cid) => cid.equals(cb), get: async (cid) => cid.equals(cb) ? b : undefined })
    expect(await node.read(ca)).to.deep.equal(a)
    expect(await node.read(cb)).to.deep.equal(b)
    await expect(node.read(cc)).to.be.rejectedWith(`block was not found locally (offline): ipld: could not find ${cc.toString()}`)
    node.setFetcher(async (cid) => { expect(cid.equals(cc)).to.equal(true); return c })
    expect(await node.read(cc)).to.deep.equal(c)
    expect(await getBlock(node, cc)).to.deep.equal(c)
    await expect(node.offline().read(cc)).to.be.rejectedWith('block was not found locally (offline)')
  })
})
