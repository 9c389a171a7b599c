// `cat` over the RPC API on a flatfs repo: file blocks are read into recycled buffers
// (core/unixfs/buffer-pool) and given back once the response wrote them (server/respond.ts pump).
// Whole files and offset/length, concurrent responses that never see each other's bytes, a block
// missing mid-file (X-Stream-Error trailer), and a client that goes away.
import { expect } from 'chai'
import sinon from 'sinon'
import http from 'node:http'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { initRepo } from '../../../core/repo/index.js'
import { blockKey, FlatfsBlockstore, NodeBlockstore } from '../../../core/blockstore/index.js'
import { blockBuffers } from '../../../core/unixfs/buffer-pool.js'
import { startRpcServer, type RpcServer } from '../../helpers/rpc-server.js'
import { catPlugin } from '../../../plugins/cat/index.js'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { rpc } from '../../helpers/rpc.js'
import { importBytes, pseudoRandom } from './unixfs-helper.js'

describe('cat over HTTP (flatfs, recycled buffers)', function () {
  this.timeout(30_000)
  let dir: string
  let node: TestNode
  let server: RpcServer
  let base: string
  const a = pseudoRandom(3 * 1024 * 1024 + 999, 31)
  const b = pseudoRandom(2 * 1024 * 1024 + 5, 32)
  const long = pseudoRandom(24 * 1024 * 1024, 33)
  const broken = pseudoRandom(2 * 1024 * 1024, 34)
  let A: string
  let B: string
  let LONG: string
  let BROKEN: string
  let MISSING: CID

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-cathttp-'))
    await initRepo(dir, { profile: 'test' })
    node = await createTestNode({ plugins: [catPlugin()], repoPath: dir })
    const bs = node.container.cradle.blockstore
    A = await importBytes(bs, a)
    B = await importBytes(bs, b, { cidVersion: 1, rawLeaves: true })
    LONG = await importBytes(bs, long, { cidVersion: 1, rawLeaves: true })
    BROKEN = await importBytes(bs, broken, { cidVersion: 1, rawLeaves: true })
    MISSING = CID.createV1(0x55, await sha256.digest(broken.subarray(5 * 262144, 6 * 262144)))
    await fs.rm(path.join(dir, 'blocks', blockKey(MISSING).slice(-3, -1), blockKey(MISSING) + '.data'))
    server = await startRpcServer(node.container)
    base = server.base
  })
  after(async () => {
    await server.close()
    await node.stop()
    await fs.rm(dir, { recursive: true, force: true })
  })
  afterEach(() => { sinon.restore() })

  it('reads the leaves into recycled buffers that the response gives back', async () => {
    const store = node.container.cradle.blockstore as NodeBlockstore
    expect(store.inner).to.be.instanceOf(FlatfsBlockstore)
    const reads = sinon.spy(store, 'read')
    const taken = new Set<ArrayBufferLike>()
    const take = sinon.stub(blockBuffers, 'take').callsFake((n: number) => {
      const buf = take.wrappedMethod.call(blockBuffers, n)
      if (blockBuffers.owns(buf)) taken.add(buf.buffer)
      return buf
    })
    const release = sinon.spy(blockBuffers, 'release')
    const r = await rpc(base, `/api/v0/cat?arg=${B}`)
    expect(r.bytes.equals(Buffer.from(b))).to.equal(true)
    // 9 leaves, read with an allocator from the pool
    const pooled = reads.getCalls().filter(c => typeof c.args[1]?.alloc === 'function')
    expect(pooled).to.have.length(9)
    // the 8 full leaves came from the pool (the 5-byte one is too small to pool) and went back
    expect(taken.size).to.be.within(1, 8)
    for (let i = 0; i < 50 && release.callCount < 8; i++) await new Promise(resolve => setTimeout(resolve, 10))
    expect(release.callCount).to.be.at.least(8)
    expect(new Set(release.getCalls().map(c => c.args[0].buffer))).to.deep.equal(taken)
    expect(blockBuffers.held).to.be.above(0)
  })

  it('sends whole files and offset/length slices', async () => {
    for (const [cid, bytes] of [[A, a], [B, b]] as const) {
      const r = await rpc(base, `/api/v0/cat?arg=${cid}`)
      expect(r.status).to.equal(200)
      expect(r.headers['x-content-length']).to.equal(String(bytes.length))
      expect(r.bytes.equals(Buffer.from(bytes))).to.equal(true)
      expect(r.trailers['x-stream-error']).to.equal(undefined)
    }
    const slice = await rpc(base, `/api/v0/cat?arg=${A}&offset=262000&length=1000000`)
    expect(slice.headers['x-content-length']).to.equal('1000000')
    expect(slice.bytes.equals(Buffer.from(a.subarray(262000, 1262000)))).to.equal(true)
    const two = await rpc(base, `/api/v0/cat?arg=${B}&arg=${A}&offset=${b.length - 10}&length=300000`)
    expect(two.bytes.equals(Buffer.concat([b.subarray(b.length - 10), a.subarray(0, 299990)]))).to.equal(true)
  })

  it('keeps concurrent responses apart (buffers are reused only once written)', async () => {
    const results = await Promise.all(Array.from({ length: 16 }, async (_, i) => {
      const [cid, bytes] = i % 2 === 0 ? [A, a] : [B, b]
      const r = await rpc(base, `/api/v0/cat?arg=${cid}`)
      return r.bytes.equals(Buffer.from(bytes))
    }))
    expect(results.every(Boolean)).to.equal(true)
  })

  it('reports a block missing mid-file in the X-Stream-Error trailer', async () => {
    const r = await rpc(base, `/api/v0/cat?arg=${BROKEN}`)
    expect(r.status).to.equal(200)
    expect(r.bytes.length).to.be.at.most(5 * 262144)
    expect(r.bytes.equals(Buffer.from(broken.subarray(0, r.bytes.length)))).to.equal(true)
    expect(r.trailers['x-stream-error']).to.equal(`block was not found locally (offline): ipld: could not find ${MISSING.toString()}`)
    // a range before the missing block is whole
    const head = await rpc(base, `/api/v0/cat?arg=${BROKEN}&length=${5 * 262144}`)
    expect(head.bytes.equals(Buffer.from(broken.subarray(0, 5 * 262144)))).to.equal(true)
    expect(head.trailers['x-stream-error']).to.equal(undefined)
  })

  it('stops reading when the client goes away', async () => {
    const reads = sinon.spy(node.container.cradle.blockstore as NodeBlockstore, 'read')
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${base}/api/v0/cat?arg=${LONG}`, { method: 'POST', agent: false }, (res) => {
        res.once('data', () => { req.destroy(); resolve() })
        res.on('error', () => {})
      })
      req.on('error', () => {})
      req.end()
      setTimeout(() => reject(new Error('no data')), 10_000).unref()
    })
    await new Promise(resolve => setTimeout(resolve, 300))
    const after = reads.callCount
    // 96 leaves; the socket, PUMP_AHEAD and the read-ahead hold under 10 MiB
    expect(after).to.be.below(48)
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(reads.callCount).to.equal(after)
  })
})
