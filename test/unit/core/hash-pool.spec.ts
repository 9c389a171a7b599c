// SHA-256 of import blocks on a worker thread (core/unixfs/hash-pool.ts, pb.ts cidBuilder().offThread):
// the same digests and CIDs as in place, the block's memory moved there and back.
import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { sha256OffThread, warmHashPool, OFF_THREAD_MIN } from '../../../core/unixfs/hash-pool.js'
import { allocChunk, cidBuilder, DAG_PB, RAW } from '../../../core/unixfs/pb.js'
import { importFiles, resolveImportSettings } from '../../../core/unixfs/importer.js'
import { hashByName } from '../../../core/hashes.js'
import { chachaBytes } from './unixfs-helpers.js'

describe('unixfs: hashing on a worker thread', function () {
  this.timeout(30_000)
  before(async () => { await warmHashPool() })

  it('digests a block there; its old views are detached, the returned one holds the same bytes', async () => {
    const data = chachaBytes('pool', 300_000)
    const chunk = allocChunk(data.length)
    chunk.set(data)
    const job = sha256OffThread(chunk)
    expect(job).to.not.equal(undefined)
    expect(chunk.byteLength).to.equal(0) // moved to the worker
    const { digest, bytes } = await job!
    expect(Buffer.from(digest).equals(createHash('sha256').update(data).digest())).to.equal(true)
    expect(Buffer.from(bytes).equals(Buffer.from(data))).to.equal(true)
    expect(sha256OffThread(new Uint8Array(OFF_THREAD_MIN - 1))).to.equal(undefined) // small: in place
  })

  it('an idle worker does not keep the process alive (a CLI add exits once done)', () => {
    const pool = fileURLToPath(new URL('../../../core/unixfs/hash-pool.js', import.meta.url))
    const pb = fileURLToPath(new URL('../../../core/unixfs/pb.js', import.meta.url))
    const script = `const { warmHashPool, sha256OffThread } = await import(${JSON.stringify(pool)})
      const { allocChunk } = await import(${JSON.stringify(pb)})
      await warmHashPool()
      const r = await sha256OffThread(allocChunk(100000))
      console.log(r.digest.length)`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 })
    expect(r.stderr).to.equal('')
    expect(r.status).to.equal(0)
    expect(r.stdout.trim()).to.equal('32')
  })

  it('cidBuilder().offThread gives the CIDs of the in-place builder, for chunk buffers only', async () => {
    const build = cidBuilder({ cidVersion: 0, hash: hashByName('sha2-256')! })
    const data = chachaBytes('cid', 262_144)
    for (const codec of [RAW, DAG_PB]) {
      const chunk = allocChunk(data.length)
      chunk.set(data)
      const want = build(data, codec)
      const got = await build.offThread!(chunk, codec)
      expect(got.cid.equals(want)).to.equal(true)
      expect(chunk.byteLength).to.equal(0)
      // not a chunk buffer: hashed in place, the bytes untouched
      const plain = Buffer.from(data)
      const inPlace = await build.offThread!(plain, codec)
      expect(inPlace.cid.equals(want)).to.equal(true)
      expect(inPlace.bytes).to.equal(plain)
    }
    expect(cidBuilder({ cidVersion: 1, hash: hashByName('blake2b-256')! }).offThread).to.equal(undefined)
  })

  it('a file in socket-sized pieces (chunks assembled, hashed by the worker) gets the DAG it gets in one piece (hashed in place)', async () => {
    const data = chachaBytes('import', 3 * 262_144 + 12_345)
    const run = async (piece: number, rawLeaves: boolean): Promise<{ root: string, puts: string[] }> => {
      const puts: string[] = []
      async function * pieces (): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < data.length; i += piece) yield data.slice(i, i + piece)
      }
      async function * entries (): AsyncGenerator<{ path: string, type: 'file', content: AsyncIterable<Uint8Array> }> {
        yield { path: 'f', type: 'file', content: pieces() }
      }
      const settings = resolveImportSettings(rawLeaves ? { cidVersion: 1, rawLeaves: true } : {}, {})
      let root = ''
      const sink = {
        put: async (cid: import('multiformats/cid').CID, bytes: Uint8Array) => {
          expect(bytes.byteLength).to.be.greaterThan(0)
          expect(createHash('sha256').update(bytes).digest().equals(Buffer.from(cid.multihash.digest))).to.equal(true)
          puts.push(cid.toString())
        }
      }
      for await (const row of importFiles(entries(), sink, settings)) root = row.cid.toString()
      return { root, puts }
    }
    for (const raw of [false, true]) {
      const a = await run(65_536, raw)
      const b = await run(data.length, raw)
      expect(a.root).to.equal(b.root)
      // the same blocks (a short last leaf, hashed in place, may be stored before the leaves on the worker)
      expect([...a.puts].sort()).to.deep.equal([...b.puts].sort())
      // 4 leaves, the file's root and Kubo's adder MFS root {<cid>: file} (62deb82)
      expect(a.puts).to.have.length(6)
    }
  })

  it('a worker that became ready and never got a job exits once idle too (one small add must not leave an isolate for good)', () => {
    const pool = fileURLToPath(new URL('../../../core/unixfs/hash-pool.js', import.meta.url))
    // ready, no job (a one-leaf add hashes its leaf in place while the worker starts); then idle
    const script = `const { warmHashPool, hashWorkerCount } = await import(${JSON.stringify(pool)})
      await warmHashPool()
      const before = hashWorkerCount()
      const keep = setInterval(() => {}, 1000)
      const until = Date.now() + 20000
      while (hashWorkerCount() > 0 && Date.now() < until) await new Promise(r => setTimeout(r, 100))
      clearInterval(keep)
      console.log(before, hashWorkerCount())`
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 25_000 })
    expect(r.stderr).to.equal('')
    const [before, after] = r.stdout.trim().split(' ').map(Number)
    expect(before).to.be.greaterThan(0)
    expect(after).to.equal(0)
  })
})
