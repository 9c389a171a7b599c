// The add pipeline's block memory: leaves framed in place around their chunk, and the chunk buffers
// of blocks written to flatfs freed as soon as the write is done (plugins/add/sink.ts,
// core/unixfs/pb.ts allocChunk/releaseChunk). Other stores keep the bytes they are given.
import { expect } from 'chai'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { MemoryBlockstore } from 'blockstore-core/memory'
import type { CID } from 'multiformats/cid'
import { BatchSink } from '../../../plugins/add/sink.js'
import { FlatfsBlockstore } from '../../../core/blockstore/flatfs.js'
import { NodeBlockstore } from '../../../core/blockstore/index.js'
import { allocChunk, cidBuilder, DataType, DAG_PB, encodeDataBlock, RAW, recycledChunkBytes, releaseChunk } from '../../../core/unixfs/pb.js'
import { hashByName } from '../../../core/hashes.js'
import { initRepo } from '../../../core/repo/index.js'
import { createTestNode } from '../../helpers/node.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { catPlugin } from '../../../plugins/cat/index.js'
import { chachaBytes } from '../core/unixfs-helpers.js'

/** a store's answer to get(), whole */
async function whole (v: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Buffer> {
  if (v instanceof Uint8Array) return Buffer.from(v)
  const parts: Uint8Array[] = []
  for await (const p of v) parts.push(p)
  return Buffer.concat(parts)
}

const build = cidBuilder({ cidVersion: 0, hash: hashByName('sha2-256')! })

/** n blocks: raw chunks and dag-pb leaves framed around chunks, each with a copy of its bytes */
function blocks (n: number): Array<{ cid: CID, bytes: Uint8Array, copy: Buffer }> {
  const out = []
  for (let i = 0; i < n; i++) {
    const chunk = allocChunk(70_000)
    chunk.set(chachaBytes(`sink-${i}`, 70_000))
    const bytes = i % 2 === 0 ? chunk : encodeDataBlock({ type: DataType.File, data: chunk, fileSize: chunk.length })
    out.push({ cid: build(bytes, i % 2 === 0 ? RAW : DAG_PB), bytes, copy: Buffer.from(bytes) })
  }
  return out
}

describe('add: block memory', function () {
  this.timeout(30_000)
  let dir: string
  beforeEach(async () => { dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-sink-')) })
  afterEach(async () => { await fs.rm(dir, { recursive: true, force: true }) })

  it('blocks written to flatfs are stored whole, then their chunk buffers are freed', async () => {
    const flatfs = new FlatfsBlockstore(path.join(dir, 'blocks'))
    await flatfs.open()
    try {
      const store = new NodeBlockstore(flatfs)
      const sink = new BatchSink({ blockstore: store, maxNodes: 3 })
      const list = blocks(8)
      for (const b of list) await sink.put(b.cid, b.bytes)
      await sink.flush()
      expect(sink.written).to.equal(8)
      for (const b of list) {
        expect(b.bytes.byteLength).to.equal(0) // released: the view is empty now
        expect(Buffer.from(await flatfs.read(b.cid)).equals(b.copy)).to.equal(true)
      }
    } finally {
      await flatfs.close()
    }
  })

  it('a released chunk buffer is reused by the next chunk of its size, its old views left empty', () => {
    const first = allocChunk(300_000)
    first.fill(7)
    const before = recycledChunkBytes()
    expect(releaseChunk(first)).to.equal(true)
    expect(first.byteLength).to.equal(0)
    expect(recycledChunkBytes()).to.be.greaterThan(before)
    const second = allocChunk(300_000)
    expect(recycledChunkBytes()).to.equal(before)
    expect(second.byteLength).to.equal(300_000)
    expect(second[0]).to.equal(7) // the same memory, not a new allocation
    expect(releaseChunk(first)).to.equal(false) // released once
    expect(releaseChunk(second)).to.equal(true)
    expect(releaseChunk(Buffer.alloc(300_000))).to.equal(false) // not a chunk
  })

  it('a store that keeps references (memory) keeps the bytes; other buffers are never freed', async () => {
    const memory = new MemoryBlockstore()
    const sink = new BatchSink({ blockstore: new NodeBlockstore(memory), maxNodes: 3 })
    const list = blocks(5)
    for (const b of list) await sink.put(b.cid, b.bytes)
    await sink.flush()
    for (const b of list) {
      expect(Buffer.from(b.bytes).equals(b.copy)).to.equal(true)
      expect((await whole(memory.get(b.cid))).equals(b.copy)).to.equal(true)
    }
    const flatfs = new FlatfsBlockstore(path.join(dir, 'blocks'))
    await flatfs.open()
    try {
      const plain = Buffer.from(chachaBytes('plain', 5000))
      const cid = build(plain, RAW)
      const sink2 = new BatchSink({ blockstore: flatfs })
      await sink2.put(cid, plain)
      await sink2.flush()
      expect(plain.byteLength).to.equal(5000)
    } finally {
      await flatfs.close()
    }
  })

  it('add then cat on a repo (flatfs): multi-chunk files, dag-pb and raw leaves, come back whole', async () => {
    const repo = path.join(dir, 'repo')
    await initRepo(repo, { profile: 'test' })
    const node = await createTestNode({ repoPath: repo, plugins: [addPlugin(), catPlugin()] })
    try {
      const data = chachaBytes('add-cat', 1_000_000)
      for (const options of [{}, { 'raw-leaves': true, 'cid-version': 1 }]) {
        // content arriving in 64 KiB pieces, as from a socket: full chunks are assembled (allocChunk)
        async function * pieces (): AsyncGenerator<Uint8Array> {
          for (let i = 0; i < data.length; i += 65536) yield data.slice(i, i + 65536)
        }
        async function * files (): AsyncGenerator<import('../../../registry/types.js').FileEntry> {
          yield { path: 'f', type: 'file', content: pieces() }
        }
        const out = await node.invoke('add', { files: files(), options: { ...options, progress: false } })
        const hash = out[out.length - 1].Hash as string
        const back = await node.invoke('cat', { args: [hash] })
        expect(Buffer.from(back).equals(Buffer.from(data))).to.equal(true)
      }
    } finally {
      await node.stop()
    }
  })
})
