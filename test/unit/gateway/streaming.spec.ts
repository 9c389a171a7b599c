// Big file bodies through the gateway on a flatfs repo: written straight to the socket in recycled
// buffers (server/gateway/respond.ts writeBody, core/unixfs/buffer-pool). Whole files, ranges,
// multi-range, HEAD and conditional requests; concurrent responses never see each other's bytes; a
// client that goes away stops the reading; a block missing mid-file cuts the connection.
import { expect } from 'chai'
import sinon from 'sinon'
import http from 'node:http'
import net from 'node:net'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CID } from 'multiformats/cid'
import { initRepo } from '../../../core/repo/index.js'
import { blockKey } from '../../../core/blockstore/index.js'
import { blockBuffers } from '../../../core/unixfs/buffer-pool.js'
import { importBytes, pseudoRandom, putBlock } from '../plugins/unixfs-helper.js'
import { startGateway, type TestGateway } from './helpers.js'

describe('gateway: big bodies', function () {
  this.timeout(30_000)
  let dir: string
  let gw: TestGateway
  const a = pseudoRandom(3 * 1024 * 1024 + 4321, 11)
  const b = pseudoRandom(2 * 1024 * 1024 + 17, 12)
  const long = pseudoRandom(24 * 1024 * 1024, 13)
  let A: string
  let B: string
  let LONG: string
  let BROKEN: string

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-gwstream-'))
    await initRepo(dir, { profile: 'test' })
    gw = await startGateway({ repoPath: dir })
    const bs = gw.node.container.cradle.blockstore
    A = await importBytes(bs, a)
    B = await importBytes(bs, b, { cidVersion: 1, rawLeaves: true })
    LONG = await importBytes(bs, long, { cidVersion: 1, rawLeaves: true })
    // a file whose fourth leaf is gone
    const broken = pseudoRandom(2 * 1024 * 1024, 14)
    BROKEN = await importBytes(bs, broken, { cidVersion: 1, rawLeaves: true })
    const leaf = CID.createV1(0x55, await (await import('multiformats/hashes/sha2')).sha256.digest(broken.subarray(3 * 262144, 4 * 262144)))
    await fs.rm(path.join(dir, 'blocks', blockKey(leaf).slice(-3, -1), blockKey(leaf) + '.data'))
  })
  after(async () => {
    await gw.stop()
    await fs.rm(dir, { recursive: true, force: true })
  })
  afterEach(() => { sinon.restore() })

  it('sends whole files, with their length and type', async () => {
    for (const [cid, bytes] of [[A, a], [B, b]] as const) {
      const res = await gw.get(`/ipfs/${cid}`)
      expect(res.status).to.equal(200)
      expect(res.headers['content-length']).to.equal(String(bytes.length))
      expect(res.headers['content-type']).to.equal('application/octet-stream')
      expect(res.headers.etag).to.equal(`"${cid}"`)
      expect(res.body.equals(Buffer.from(bytes))).to.equal(true)
    }
  })

  it('sends ranges across blocks; of several ranges the first alone', async () => {
    const one = await gw.get(`/ipfs/${A}`, { headers: { Range: 'bytes=262000-1000000' } })
    expect(one.status).to.equal(206)
    expect(one.headers['content-range']).to.equal(`bytes 262000-1000000/${a.length}`)
    expect(one.body.equals(Buffer.from(a.subarray(262000, 1000001)))).to.equal(true)
    const tail = await gw.get(`/ipfs/${B}`, { headers: { Range: 'bytes=-300000' } })
    expect(tail.body.equals(Buffer.from(b.subarray(b.length - 300000)))).to.equal(true)
    // several ranges: the first alone, as Kubo
    const multi = await gw.get(`/ipfs/${A}`, { headers: { Range: 'bytes=500000-1499999,0-99999,3000000-' } })
    expect(multi.status).to.equal(206)
    expect(multi.headers['content-range']).to.equal(`bytes 500000-1499999/${a.length}`)
    expect(multi.body.equals(Buffer.from(a.subarray(500000, 1500000)))).to.equal(true)
  })

  it('sniffs the type from the first block in a recycled buffer that then goes out with the body (one read per block)', async () => {
    const reads = sinon.spy(gw.node.container.cradle.blockstore, 'get')
    const takes = sinon.spy(blockBuffers, 'take')
    const res = await gw.get(`/ipfs/${A}`)
    expect(res.headers['content-type']).to.equal('application/octet-stream')
    expect(res.body.equals(Buffer.from(a))).to.equal(true)
    const leaves = reads.getCalls().map(c => String(c.args[0])).filter(c => c !== A)
    // 12 leaves of 256 KiB and one of 4,321 bytes, each read once, all into recycled buffers
    expect(leaves).to.have.length(13)
    expect(new Set(leaves).size).to.equal(13)
    expect(takes.callCount).to.equal(13)
  })

  it('answers HEAD and If-None-Match without a body', async () => {
    const head = await gw.get(`/ipfs/${A}`, { method: 'HEAD' })
    expect(head.status).to.equal(200)
    expect(head.headers['content-length']).to.equal(String(a.length))
    expect(head.body.length).to.equal(0)
    const cached = await gw.get(`/ipfs/${A}`, { headers: { 'If-None-Match': `"${A}"` } })
    expect(cached.status).to.equal(304)
    expect(cached.body.length).to.equal(0)
  })

  it('keeps concurrent responses apart (recycled buffers are reused only once written)', async () => {
    const want = [a, b, a.subarray(1000, 2_000_000), b]
    const results = await Promise.all(Array.from({ length: 24 }, async (_, i) => {
      const k = i % 4
      const res = k === 2
        ? await gw.get(`/ipfs/${A}`, { headers: { Range: 'bytes=1000-1999999' } })
        : await gw.get(`/ipfs/${k === 1 || k === 3 ? B : A}`)
      return res.body.equals(Buffer.from(want[k]))
    }))
    expect(results.every(Boolean)).to.equal(true)
  })

  it('stops reading when the client goes away', async () => {
    const reads = sinon.spy(gw.node.container.cradle.blockstore, 'get')
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${gw.url}/ipfs/${LONG}`, { agent: false }, (res) => {
        res.once('data', () => { req.destroy(); resolve() })
        res.on('error', () => {})
      })
      req.on('error', () => {})
      req.end()
      setTimeout(() => reject(new Error('no data')), 10_000).unref()
    })
    await new Promise(resolve => setTimeout(resolve, 300))
    const after = reads.callCount
    // 96 leaves; the socket buffer and the read-ahead hold a few MiB at most
    expect(after).to.be.below(48)
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(reads.callCount).to.equal(after)
  })

  /** a GET on a raw socket: the status, the body bytes that came, whether they are all the length said */
  const rawGet = async (cid: string): Promise<{ status?: number, bytes: number, complete: boolean }> => await new Promise((resolve) => {
    const socket = net.connect(gw.port, '127.0.0.1', () => {
      socket.write(`GET /ipfs/${cid} HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n\r\n`)
    })
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', () => {})
    socket.on('close', () => {
      const text = Buffer.concat(chunks)
      const end = text.indexOf('\r\n\r\n')
      const head = text.subarray(0, end).toString('latin1')
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1])
      const body = text.length - end - 4
      resolve({ status: Number(head.split(' ')[1]), bytes: body, complete: body === length })
    })
  })

  it('cuts the connection when a block is missing mid-file, answers 404 when it is the first', async () => {
    // keep-alive requested: the server must close the connection itself
    const got = await rawGet(BROKEN)
    expect(got.status).to.equal(200)
    expect(got.complete).to.equal(false)
    expect(got.bytes).to.be.below(2 * 1024 * 1024)
    const range = await gw.get(`/ipfs/${BROKEN}`, { headers: { Range: 'bytes=800000-800009' } })
    expect(range.status).to.equal(404)
    const before = await gw.get(`/ipfs/${BROKEN}`, { headers: { Range: 'bytes=0-9' } })
    expect(before.status).to.equal(206)
  })

  it('cuts the connection when a file has fewer bytes than it claims', async () => {
    const bs = gw.node.container.cradle.blockstore
    const leaves = [pseudoRandom(50_000, 21), pseudoRandom(30_000, 22)]
    const links = await Promise.all(leaves.map(async (l) => ({ Hash: await putBlock(bs, 'raw', l), Tsize: l.length })))
    // blocksizes say 50,000 + 50,000
    const data = Uint8Array.from([0x08, 0x02, 0x18, 0xa0, 0x8d, 0x06, 0x20, 0xd0, 0x86, 0x03, 0x20, 0xd0, 0x86, 0x03])
    const root = await putBlock(bs, 'dag-pb', { Data: data, Links: links })
    const got = await rawGet(root.toString())
    expect(got.status).to.equal(200)
    expect(got.bytes).to.equal(80_000)
    expect(got.complete).to.equal(false)
  })
})
