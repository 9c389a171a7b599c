// core/unixfs/reader.ts (file bytes by range, with read-ahead) and core/unixfs/buffer-pool.ts.
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import sinon from 'sinon'
import * as dagPb from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import { MemoryBlockstore } from 'blockstore-core/memory'
import { fixedSize } from 'ipfs-unixfs-importer/chunker'
import { balanced, trickle } from 'ipfs-unixfs-importer/layout'
import { openUnixfs, type UnixfsFileNode } from '../../../core/resolver/index.js'
import { getBlock } from '../../../core/blockstore/index.js'
import { readUnixfsFile, type BlockGetter, type FileReadOptions } from '../../../core/unixfs/reader.js'
import { BufferPool } from '../../../core/unixfs/buffer-pool.js'
import { importBytes, pseudoRandom, putBlock, unixfsData } from '../plugins/unixfs-helper.js'

use(chaiAsPromised)

async function collect (it: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const c of it) parts.push(c)
  return Buffer.concat(parts)
}

describe('unixfs file reader', () => {
  const bs = new MemoryBlockstore()
  const get: BlockGetter = async (cid) => await getBlock(bs, cid)
  const open = async (cid: CID | string): Promise<UnixfsFileNode> => {
    const c = typeof cid === 'string' ? CID.parse(cid) : cid
    return await openUnixfs(c, await get(c), get) as UnixfsFileNode
  }
  const read = async (cid: CID | string, options: FileReadOptions = {}, getter = get): Promise<Buffer> =>
    await collect(readUnixfsFile((await open(cid)).root, getter, options))

  // 10,007 bytes in 100-byte chunks: 101 leaves, three levels with 4 links per node
  const data = pseudoRandom(10_007, 5)
  const layouts = {
    'balanced, dag-pb leaves': { chunker: fixedSize({ chunkSize: 100 }), layout: balanced({ maxChildrenPerNode: 4 }) },
    'balanced, raw leaves': { chunker: fixedSize({ chunkSize: 100 }), layout: balanced({ maxChildrenPerNode: 4 }), rawLeaves: true, cidVersion: 1 as const },
    trickle: { chunker: fixedSize({ chunkSize: 100 }), layout: trickle({ maxChildrenPerNode: 4, layerRepeat: 2 }) }
  }
  const ranges: Array<[number, number | undefined]> = [
    [0, undefined], [0, 1], [99, 2], [100, 100], [150, 1000], [5000, undefined], [10_006, 1], [10_006, 100],
    [10_007, undefined], [20_000, 5], [0, 0], [3, 10_004], [4321, 2345]
  ]

  for (const [name, options] of Object.entries(layouts)) {
    it(`reads every range of a multi-level file (${name})`, async () => {
      const cid = await importBytes(bs, data, options)
      expect((await open(cid)).size).to.equal(data.length)
      for (const [offset, length] of ranges) {
        const want = Buffer.from(data.subarray(offset, length === undefined ? undefined : offset + length))
        const got = await read(cid, { offset, length })
        expect(got.equals(want), `offset ${offset} length ${String(length)}`).to.equal(true)
        // a small read-ahead budget changes nothing but the fetch order
        expect((await read(cid, { offset, length, readAhead: 1, maxAhead: 1 })).equals(want)).to.equal(true)
      }
    })
  }

  it('fetches only the blocks a range needs', async () => {
    const cid = await importBytes(bs, data, layouts['balanced, raw leaves'])
    const fetched: string[] = []
    const counting: BlockGetter = async (c) => { fetched.push(c.toString()); return await get(c) }
    const got = await read(cid, { offset: 4321, length: 150 }, counting)
    expect(got.equals(Buffer.from(data.subarray(4321, 4471)))).to.equal(true)
    // leaves 43 and 44 and the internal nodes above them (101 leaves, 4 links per node: leaf 43 is
    // the last under its parent, 44 the first under the next; both under the same two above)
    const leaves = fetched.filter(c => c.startsWith('bafk'))
    expect(leaves).to.have.length(2)
    expect(fetched.length).to.equal(6)
  })

  it('reads ahead within its budget, and no further than the consumer pulls', async () => {
    const big = pseudoRandom(64 * 1024, 9)
    const cid = await importBytes(bs, big, { chunker: fixedSize({ chunkSize: 1024 }), layout: balanced({ maxChildrenPerNode: 1024 }), rawLeaves: true, cidVersion: 1 })
    const root = await open(cid)
    const requested: string[] = []
    const counting: BlockGetter = async (c) => { requested.push(c.toString()); return await get(c) }
    const it = readUnixfsFile(root.root, counting, { readAhead: 4096, maxAhead: 16 })[Symbol.asyncIterator]()
    await it.next()
    // the block read plus 3 more: 4 KiB of 1 KiB leaves
    expect(requested).to.have.length(4)
    await it.next()
    expect(requested).to.have.length(5)
    await it.return(undefined)
    const capped: string[] = []
    const it2 = readUnixfsFile(root.root, async (c) => { capped.push(c.toString()); return await get(c) }, { readAhead: 1 << 20, maxAhead: 6 })[Symbol.asyncIterator]()
    await it2.next()
    expect(capped).to.have.length(6)
    await it2.return(undefined)
  })

  it('widens the read-ahead while blocks come from the network (networkReads moves), not otherwise', async () => {
    const big = pseudoRandom(64 * 1024, 9)
    const cid = await importBytes(bs, big, { chunker: fixedSize({ chunkSize: 1024 }), layout: balanced({ maxChildrenPerNode: 1024 }), rawLeaves: true, cidVersion: 1 })
    const root = await open(cid)
    let network = 0
    const requested: string[] = []
    const remote: BlockGetter = async (c) => { requested.push(c.toString()); network++; return await get(c) }
    const it = readUnixfsFile(root.root, remote, { readAhead: 4096, maxAhead: 16, networkReads: () => network })[Symbol.asyncIterator]()
    for (let i = 0; i < 4; i++) await it.next()
    // 4 KiB doubled at each read that found new network fetches: far more than the local window's 4 + 3
    expect(requested.length).to.be.above(16)
    await it.return(undefined)
    const local: string[] = []
    const it2 = readUnixfsFile(root.root, async (c) => { local.push(c.toString()); return await get(c) }, { readAhead: 4096, maxAhead: 16, networkReads: () => 0 })[Symbol.asyncIterator]()
    for (let i = 0; i < 4; i++) await it2.next()
    expect(local).to.have.length(7)
    await it2.return(undefined)
  })

  it('reads nodes without blocksizes (positions found while reading)', async () => {
    const leaves = [pseudoRandom(300, 1), pseudoRandom(200, 2), pseudoRandom(500, 3)]
    const cids = await Promise.all(leaves.map(async l => await putBlock(bs, 'raw', l)))
    // an inner node with its own data and no blocksizes, under a root without blocksizes either
    const innerData = pseudoRandom(50, 4)
    const inner = await putBlock(bs, 'dag-pb', { Data: unixfsData({ type: 2, data: innerData }), Links: cids.slice(1).map(c => ({ Hash: c, Tsize: 0 })) })
    const root = await putBlock(bs, 'dag-pb', { Data: unixfsData({ type: 2, filesize: 1050 }), Links: [{ Hash: cids[0], Tsize: 0 }, { Hash: inner, Tsize: 0 }] })
    const all = Buffer.concat([leaves[0], innerData, leaves[1], leaves[2]])
    for (const [offset, length] of [[0, undefined], [250, 100], [340, 20], [600, 450], [1049, 1], [1050, 3]] as Array<[number, number | undefined]>) {
      const want = all.subarray(offset, length === undefined ? undefined : offset + length)
      expect((await read(root, { offset, length })).equals(want), `offset ${offset}`).to.equal(true)
    }
  })

  it('fails on a child of another UnixFS type, as boxo does', async () => {
    const dir = await putBlock(bs, 'dag-pb', { Data: unixfsData({ type: 1 }), Links: [] })
    const root = await putBlock(bs, 'dag-pb', { Data: unixfsData({ type: 2, filesize: 10 }), Links: [{ Hash: dir, Tsize: 2 }] })
    await expect(read(root)).to.be.rejectedWith('found Directory node in unexpected place')
    const cbor = await putBlock(bs, 'dag-cbor', { a: 1 })
    const root2 = await putBlock(bs, 'dag-pb', { Data: unixfsData({ type: 2, filesize: 10 }), Links: [{ Hash: cbor, Tsize: 2 }] })
    await expect(read(root2)).to.be.rejectedWith('unknown node type')
  })

  it('with a pool: leaf chunks may be released, blocks whose links are in use may not', async () => {
    const pool = new BufferPool()
    const cid = await importBytes(bs, data, layouts['balanced, dag-pb leaves'])
    const root = await open(cid)
    const internals = new Set<string>()
    const pooled: BlockGetter = async (c) => {
      const bytes = await get(c)
      if (dagPb.decode(bytes).Links.length > 0) internals.add(c.toString())
      // as flatfs does with an allocator
      const buf = pool.take(Math.max(bytes.length, 64 * 1024)).subarray(0, bytes.length)
      buf.set(bytes)
      return buf
    }
    let n = 0
    const parts: Buffer[] = []
    for await (const chunk of readUnixfsFile(root.root, pooled, { pool })) {
      expect(pool.owns(chunk)).to.equal(true)
      parts.push(Buffer.from(chunk))
      pool.release(chunk)
      n++
    }
    expect(n).to.equal(101)
    expect(internals.size).to.be.above(1)
    expect(Buffer.concat(parts).equals(Buffer.from(data))).to.equal(true)
    // the leaves came back; the internal nodes were forgotten (never reused under the reader)
    expect(pool.held).to.be.above(0)
  })
})

describe('buffer pool', () => {
  it('hands a released buffer out again, for any size of its capacity', () => {
    const pool = new BufferPool()
    const a = pool.take(262158)
    expect(a.length).to.equal(262158)
    expect(pool.owns(a)).to.equal(true)
    pool.release(a.subarray(14, 100))
    expect(pool.owns(a)).to.equal(false)
    const b = pool.take(262150)
    expect(b.buffer).to.equal(a.buffer)
    expect(b.length).to.equal(262150)
    // another capacity: a new buffer
    expect(pool.take(100_000).buffer).to.not.equal(a.buffer)
  })

  it('ignores small buffers, foreign buffers, forgotten ones and second releases', () => {
    const pool = new BufferPool()
    const small = pool.take(1000)
    expect(pool.owns(small)).to.equal(false)
    pool.release(small)
    pool.release(Buffer.alloc(300_000))
    expect(pool.held).to.equal(0)
    const kept = pool.take(300_000)
    pool.forget(kept)
    pool.release(kept)
    expect(pool.held).to.equal(0)
    const once = pool.take(300_000)
    pool.release(once)
    pool.release(once)
    expect(pool.held).to.equal(once.buffer.byteLength)
    const again1 = pool.take(300_000)
    const again2 = pool.take(300_000)
    expect(again1.buffer).to.equal(once.buffer)
    expect(again2.buffer).to.not.equal(once.buffer)
  })

  it('drops its free buffers once idle', () => {
    const clock = sinon.useFakeTimers({ now: 1_000_000, toFake: ['Date', 'setTimeout', 'clearTimeout'] })
    try {
      const pool = new BufferPool()
      pool.release(pool.take(300_000))
      expect(pool.held).to.be.above(0)
      clock.tick(6_000)
      pool.release(pool.take(300_000))
      clock.tick(6_000)
      // taken 6 s ago: kept
      expect(pool.held).to.be.above(0)
      clock.tick(5_000)
      expect(pool.held).to.equal(0)
    } finally {
      clock.restore()
    }
  })

  it('keeps at most maxBytes free', () => {
    const pool = new BufferPool(1024 * 1024)
    const bufs = Array.from({ length: 8 }, () => pool.take(256 * 1024))
    for (const b of bufs) pool.release(b)
    expect(pool.held).to.equal(1024 * 1024)
  })
})
