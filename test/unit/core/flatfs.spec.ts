import { expect } from 'chai'
import sinon from 'sinon'
import fsSync, { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { identity } from 'multiformats/hashes/identity'
import { MemoryBlockstore } from 'blockstore-core/memory'
import { FlatfsBlockstore, blockKey, shardOf, TEMP_DIR } from '../../../core/blockstore/flatfs.js'
import { NodeBlockstore, getBlock } from '../../../core/blockstore/index.js'
import { SHARD_TEMP_MARK, SHARD_TEMP_PREFIX } from '../../../core/blockstore/flatfs-placer.js'

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'))
const text = (s: string): Uint8Array => new TextEncoder().encode(s)
const v0 = async (bytes: Uint8Array): Promise<CID> => CID.createV0(await sha256.digest(bytes))
const raw = async (bytes: Uint8Array): Promise<CID> => CID.createV1(0x55, await sha256.digest(bytes))

async function rejects (promise: Promise<unknown>, message: string | RegExp): Promise<Error> {
  let error: unknown
  try { await promise } catch (err) { error = err }
  expect(error, 'expected a rejection').to.be.instanceOf(Error)
  if (typeof message === 'string') expect((error as Error).message).to.equal(message)
  else expect((error as Error).message).to.match(message)
  return error as Error
}

describe('flatfs blockstore', () => {
  let dir: string
  let store: FlatfsBlockstore

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-flatfs-'))
    store = new FlatfsBlockstore(path.join(dir, 'blocks'))
    await store.open()
  })

  afterEach(async () => {
    await store.close()
    await fs.rm(dir, { recursive: true, force: true })
  })

  /** temp files in the temp folder and in the shard folders */
  const temps = async (): Promise<string[]> => {
    const root = path.join(dir, 'blocks')
    const found = await fs.readdir(path.join(root, TEMP_DIR))
    for (const shard of (await fs.readdir(root)).filter(n => n.length === 2)) {
      const names = await fs.readdir(path.join(root, shard)).catch(() => [] as string[])
      found.push(...names.filter(n => n.startsWith(SHARD_TEMP_PREFIX)).map(n => `${shard}/${n}`))
    }
    return found
  }

  it('stores blocks at Kubo\'s paths (behaviour.md §12)', async () => {
    const empty = await v0(hex('0a020801'))
    expect(empty.toString()).to.equal('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')
    await store.put(empty, hex('0a020801'))
    await store.settle() // acknowledged once in the group-commit log; in its file soon after
    const file = path.join(dir, 'blocks', 'X3', 'CIQFTFEEHEDF6KLBT32BFAGLXEZL4UWFNWM4LFTLMXQBCERZ6CMLX3Y.data')
    expect(await fs.readFile(file)).to.deep.equal(Buffer.from('0a020801', 'hex'))
    // the `hello world` v0 leaf
    const leaf = await v0(hex('0a110802120b68656c6c6f20776f726c64180b'))
    expect(blockKey(leaf)).to.equal('CIQPQUWH7JRPS4MBP5KNRKANZVR7Z5YJRM6L32NOR3A64REQCPWF3MA')
    expect(shardOf(blockKey(leaf))).to.equal('3M')
    expect(await temps()).to.deep.equal([])
  })

  it('marks a blocks folder it makes TOPDIR (chattr +T), where the filesystem has the flag', async function () {
    const { spawnSync } = await import('node:child_process')
    const flags = (p: string): string | undefined => {
      const r = spawnSync('lsattr', ['-d', p], { encoding: 'utf8' })
      return r.status === 0 ? r.stdout.split(' ')[0] : undefined
    }
    // a folder we make and mark ourselves: lsattr/chattr missing or no such flag here -> nothing to check
    const probe = path.join(dir, 'probe')
    await fs.mkdir(probe)
    spawnSync('chattr', ['+T', probe])
    if (flags(probe)?.includes('T') !== true) this.skip()
    expect(flags(path.join(dir, 'blocks'))).to.include('T')
    // an existing folder is left as it is
    const other = path.join(dir, 'other')
    await fs.mkdir(other)
    const s2 = new FlatfsBlockstore(other)
    await s2.open()
    await s2.close()
    expect(flags(other)).to.not.include('T')
  })

  it('opens (makes its folder) when chattr cannot be started at all: spawn throws (EPERM, ENOMEM)', async () => {
    const cp = await import('node:child_process')
    const { syncBuiltinESMExports } = await import('node:module')
    const execFile = sinon.stub(cp.default, 'execFile').throws(Object.assign(new Error('spawn EPERM'), { code: 'EPERM', syscall: 'spawn' }))
    syncBuiltinESMExports()
    try {
      const s2 = new FlatfsBlockstore(path.join(dir, 'fresh'))
      await s2.open()
      await s2.close()
      expect(execFile.callCount).to.equal(process.platform === 'linux' ? 1 : 0)
    } finally {
      execFile.restore()
      syncBuiltinESMExports()
    }
    expect((await fs.stat(path.join(dir, 'fresh'))).isDirectory()).to.equal(true)
  })

  it('names each block file <shard>/<key>.data, the shard folder looked up by its two characters', async () => {
    // 600 keys (some shard folders met more than once): each path as path.join spells it
    for (let i = 0; i < 600; i++) {
      const cid = await raw(text(`block ${i}`))
      const key = blockKey(cid)
      expect(store.fileOf(cid)).to.equal(path.join(dir, 'blocks', shardOf(key), key + '.data'))
    }
    const cid = await raw(text('block 7'))
    await store.put(cid, text('block 7'))
    await store.settle()
    expect(await store.read(cid)).to.deep.equal(text('block 7'))
    expect(fsSync.existsSync(store.fileOf(cid))).to.equal(true)
  })

  it('keys by multihash: any CID with the same hash finds the block', async () => {
    const bytes = text('same hash')
    const cid = await raw(bytes)
    await store.put(cid, bytes)
    const other = CID.createV1(0x70, cid.multihash)
    expect(await store.has(other)).to.equal(true)
    expect(await getBlock(store, other)).to.deep.equal(bytes)
  })

  it('get yields the block as chunks (interface-blockstore 7)', async () => {
    const bytes = text('chunks')
    const cid = await raw(bytes)
    await store.put(cid, (async function * () { yield bytes.subarray(0, 3); yield bytes.subarray(3) })())
    const chunks: Uint8Array[] = []
    for await (const c of store.get(cid)) chunks.push(c)
    expect(Buffer.concat(chunks).toString()).to.equal('chunks')
  })

  it('never stores identity CIDs (t0046)', async () => {
    const cid = CID.createV1(0x55, identity.digest(text('inline')))
    expect(await store.put(cid, text('inline'))).to.equal(cid)
    expect(await store.has(cid)).to.equal(true)
    expect(await getBlock(store, cid)).to.deep.equal(text('inline'))
    await store.delete(cid)
    expect(await store.has(cid)).to.equal(true)
    const shards = (await fs.readdir(path.join(dir, 'blocks'))).filter(n => n !== TEMP_DIR)
    expect(shards).to.deep.equal([])
  })

  it('fails a missing block with ipld: could not find, and deletes missing blocks quietly', async () => {
    const cid = await v0(text('absent'))
    await rejects(getBlock(store, cid), `ipld: could not find ${cid.toString()}`)
    await store.delete(cid)
    expect(await store.has(cid)).to.equal(false)
  })

  it('leaves no temp file after a failed put (batch writer)', async () => {
    store = new FlatfsBlockstore(path.join(dir, 'blocks'), { log: false })
    const bytes = text('will fail')
    const cid = await raw(bytes)
    // a source that breaks
    await rejects(store.put(cid, (async function * () { yield bytes; throw new Error('source broke') })()), 'source broke')
    expect(await temps()).to.deep.equal([])
    // a rename that fails after the temp file was written and synced
    const rename = sinon.stub(fsSync, 'renameSync').throws(Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' }))
    try {
      await rejects(store.put(cid, bytes), 'EIO: i/o error, rename')
      expect(rename.callCount).to.equal(1)
    } finally {
      rename.restore()
    }
    expect(await temps()).to.deep.equal([])
    expect(await store.has(cid)).to.equal(false)
    // and the next put works
    await store.put(cid, bytes)
    expect(await getBlock(store, cid)).to.deep.equal(bytes)
    // the same with asynchronous calls only
    const asyncStore = new FlatfsBlockstore(path.join(dir, 'blocks'), { syncSmallWrites: false })
    const big = new Uint8Array(100 * 1024).fill(7)
    const bigCid = await raw(big)
    const asyncRename = sinon.stub(fs, 'rename').rejects(Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' }))
    try {
      await rejects(asyncStore.put(bigCid, big), 'EIO: i/o error, rename')
      expect(asyncRename.callCount).to.equal(1)
    } finally {
      asyncRename.restore()
    }
    expect(await temps()).to.deep.equal([])
    expect(await store.has(bigCid)).to.equal(false)
  })

  it('makes a batch\'s new shard folders before its renames: one mkdir per folder, a failed one is tried again', async () => {
    store = new FlatfsBlockstore(path.join(dir, 'blocks'), { log: false })
    await store.open()
    const items = await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const bytes = new Uint8Array(100 * 1024).fill(i)
      return { cid: await raw(bytes), bytes }
    }))
    const failing = sinon.stub(fs, 'mkdir').rejects(Object.assign(new Error('EIO: i/o error, mkdir'), { code: 'EIO' }))
    try {
      await rejects(store.put(items[0].cid, items[0].bytes), 'EIO: i/o error, mkdir')
      expect(failing.callCount).to.equal(1)
    } finally {
      failing.restore()
    }
    expect(await temps()).to.deep.equal([])
    expect(await store.has(items[0].cid)).to.equal(false)
    // concurrent puts (several batches): each folder made once, the failed one again
    const mkdir = sinon.spy(fs, 'mkdir')
    try {
      await Promise.all(items.map(async ({ cid, bytes }) => { await store.put(cid, bytes) }))
    } finally {
      mkdir.restore()
    }
    const shards = new Set(items.map(i => path.join(dir, 'blocks', shardOf(blockKey(i.cid)))))
    expect(mkdir.args.map(a => a[0]).sort()).to.deep.equal([...shards].sort())
    for (const { cid, bytes } of items) expect(await getBlock(store, cid)).to.deep.equal(bytes)
    expect(await temps()).to.deep.equal([])
  })

  it('makes a shard folder durable in the root before a batch that renames into it resolves, when it was already there or its root fsync failed', async () => {
    store = new FlatfsBlockstore(path.join(dir, 'blocks'), { log: false })
    await store.open()
    const root = path.join(dir, 'blocks')
    const block = async (i: number): Promise<{ cid: CID, bytes: Uint8Array }> => {
      const bytes = new Uint8Array(100 * 1024).fill(i)
      return { cid: await raw(bytes), bytes }
    }
    const rootOpens = (spy: sinon.SinonSpy): number => spy.args.filter(a => a[0] === root).length
    // a first put makes the shard-temp mark (and fsyncs the root for it)
    const first = await block(0)
    await store.put(first.cid, first.bytes)
    // a folder another writer made (the log's placer fsyncs the root only at its checkpoint)
    let a = await block(1)
    for (let i = 100; shardOf(blockKey(a.cid)) === shardOf(blockKey(first.cid)); i++) a = await block(i)
    await fs.mkdir(path.join(root, shardOf(blockKey(a.cid))))
    let open = sinon.spy(fsSync, 'openSync')
    try {
      await store.put(a.cid, a.bytes)
    } finally {
      open.restore()
    }
    expect(rootOpens(open), 'root fsynced').to.equal(1)
    // a folder made whose root fsync failed: the put fails, the next one fsyncs the root again
    let b = await block(2)
    for (let i = 3; [a, first].some(x => shardOf(blockKey(b.cid)) === shardOf(blockKey(x.cid))); i++) b = await block(i)
    const real = fsSync.openSync.bind(fsSync)
    const failing = sinon.stub(fsSync, 'openSync').callsFake(((p: fsSync.PathLike, ...rest: unknown[]) => {
      if (p === root) throw Object.assign(new Error('EIO: i/o error, open'), { code: 'EIO' })
      return (real as (...args: unknown[]) => number)(p, ...rest)
    }) as typeof fsSync.openSync)
    try {
      await rejects(store.put(b.cid, b.bytes), 'EIO: i/o error, open')
    } finally {
      failing.restore()
    }
    open = sinon.spy(fsSync, 'openSync')
    try {
      await store.put(b.cid, b.bytes)
    } finally {
      open.restore()
    }
    expect(rootOpens(open), 'root fsynced on the retry').to.equal(1)
    expect(await getBlock(store, b.cid)).to.deep.equal(b.bytes)
  })

  it('removes stale temp files on open', async () => {
    await fs.writeFile(path.join(dir, 'blocks', TEMP_DIR, 'put-crashed'), 'partial')
    const again = new FlatfsBlockstore(path.join(dir, 'blocks'))
    await again.open()
    expect(await temps()).to.deep.equal([])
  })

  for (const sync of [true, false]) {
    it(`writes big blocks through temp files in their shard folders, swept at open after a crash (sync: ${String(sync)})`, async () => {
      const root = path.join(dir, 'blocks')
      const s = new FlatfsBlockstore(root, { sync })
      await s.open()
      const items = await Promise.all(Array.from({ length: 6 }, async (_, i) => {
        const bytes = new Uint8Array(256 * 1024).fill(i + 1)
        return { cid: await raw(bytes), bytes }
      }))
      const rename = sinon.spy(fsSync, 'renameSync')
      try {
        for await (const _ of s.putMany(items)) { /* drained */ }
      } finally {
        rename.restore()
      }
      // each temp file was made in its block's own shard folder, then renamed into place there
      const moves = rename.getCalls().map(c => [String(c.args[0]), String(c.args[1])])
      expect(moves.map(m => m[1]).sort()).to.deep.equal(items.map(i => s.fileOf(i.cid)).sort())
      for (const [from, to] of moves) {
        expect(path.dirname(from)).to.equal(path.dirname(to))
        expect(path.basename(from).startsWith(SHARD_TEMP_PREFIX), from).to.equal(true)
      }
      for (const { cid, bytes } of items) expect(await fs.readFile(s.fileOf(cid))).to.deep.equal(Buffer.from(bytes))
      expect(await temps()).to.deep.equal([])
      expect(fsSync.existsSync(path.join(root, SHARD_TEMP_MARK)), 'marked while shard folders may hold temp files').to.equal(true)
      // a crash leaves a half-written temp file beside the blocks: the next open removes it, keeps the blocks
      const stray = path.join(path.dirname(s.fileOf(items[0].cid)), SHARD_TEMP_PREFIX + 'crashed-0')
      await fs.writeFile(stray, 'partial')
      const again = new FlatfsBlockstore(root, { sync })
      await again.open()
      expect(fsSync.existsSync(stray)).to.equal(false)
      for (const { cid, bytes } of items) expect(await getBlock(again, cid)).to.deep.equal(bytes)
      // written again after the sweep: marked again; a clean close removes the mark
      const more = new Uint8Array(256 * 1024).fill(99)
      await again.put(await raw(more), more)
      expect(fsSync.existsSync(path.join(root, SHARD_TEMP_MARK))).to.equal(true)
      await again.close()
      expect(fsSync.existsSync(path.join(root, SHARD_TEMP_MARK)), 'a clean close').to.equal(false)
      await s.close()
    })
  }

  it('putMany writes batches, in order, skipping duplicates and identity', async () => {
    const small = new FlatfsBlockstore(path.join(dir, 'blocks'), { batchSize: 7 })
    const items = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const bytes = text(`block ${i % 30}`)
      return { cid: await raw(bytes), bytes }
    }))
    const id = CID.createV1(0x55, identity.digest(text('id')))
    const source = [...items.slice(0, 20), { cid: id, bytes: text('id') }, ...items.slice(20)]
    const out: CID[] = []
    for await (const cid of small.putMany(source)) out.push(cid)
    expect(out.map(String)).to.deep.equal(source.map(s => s.cid.toString()))
    for (const { cid, bytes } of items) expect(await getBlock(small, cid)).to.deep.equal(bytes)
    expect((await small.stat()).count).to.equal(30)
    expect(await temps()).to.deep.equal([])
  })

  it('group-commits concurrent puts', async () => {
    const items = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      const bytes = text(`concurrent ${i}`)
      return { cid: await raw(bytes), bytes }
    }))
    await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
    for (const { cid } of items) expect(await store.has(cid)).to.equal(true)
    const stat = await store.stat()
    expect(stat.count).to.equal(200)
    expect(stat.size).to.equal(items.reduce((n, i) => n + i.bytes.length, 0))
  })

  it('changes its generation on every delete (caches of what was read can tell)', async () => {
    const bytes = text('generation')
    const cid = await raw(bytes)
    const g0 = store.generation
    await store.put(cid, bytes)
    expect(store.generation).to.equal(g0)
    await store.delete(cid)
    const g1 = store.generation
    expect(g1).to.be.greaterThan(g0)
    await store.delete(cid) // missing: still a change as far as readers know
    expect(store.generation).to.be.greaterThan(g1)
    expect(new NodeBlockstore(store).generation).to.equal(store.generation)
    expect(new NodeBlockstore(new MemoryBlockstore()).generation).to.equal(undefined)
  })

  it('lists blocks as CIDv1 raw', async () => {
    const bytes = hex('0a020801')
    await store.put(await v0(bytes), bytes)
    const all = []
    for await (const { cid } of store.getAll()) all.push(cid.toString())
    expect(all).to.deep.equal([CID.createV1(0x55, (await v0(bytes)).multihash).toString()])
  })

  it('works without fsync (sync: false)', async () => {
    const nosync = new FlatfsBlockstore(path.join(dir, 'blocks'), { sync: false })
    const bytes = text('no sync')
    const cid = await raw(bytes)
    await nosync.put(cid, bytes)
    expect(await getBlock(nosync, cid)).to.deep.equal(bytes)
  })

  it('without fsync, writes small blocks on its worker thread: each in place once its put resolves, failures reported', async () => {
    const nosync = new FlatfsBlockstore(path.join(dir, 'blocks'), { sync: false })
    await nosync.open()
    const items = await Promise.all(Array.from({ length: 50 }, async (_, i) => { const bytes = text(`worker ${i}`); return { cid: await raw(bytes), bytes } }))
    await Promise.all(items.slice(0, 25).map(async ({ cid, bytes }) => { await nosync.put(cid, bytes) }))
    for await (const _ of nosync.putMany(items.slice(25).map(({ cid, bytes }) => ({ cid, bytes })))) { /* drained */ }
    for (const { cid, bytes } of items) expect(await fs.readFile(nosync.fileOf(cid))).to.deep.equal(Buffer.from(bytes))
    expect(await temps()).to.deep.equal([])
    // a shard folder that cannot be made (a file holds its name): the put fails with the worker's error
    const bytes = text('blocked shard')
    const cid = await raw(bytes)
    await fs.writeFile(path.dirname(nosync.fileOf(cid)), 'not a folder')
    const err = await rejects(nosync.put(cid, bytes), /EEXIST|ENOTDIR/)
    expect((err as NodeJS.ErrnoException).code).to.be.oneOf(['EEXIST', 'ENOTDIR'])
    expect(await temps()).to.deep.equal([])
    const shards = (await fs.readdir(path.join(dir, 'blocks'))).filter(n => n.length === 2)
    for (const shard of shards) {
      const names = await fs.readdir(path.join(dir, 'blocks', shard)).catch(() => [])
      expect(names.filter(n => n.startsWith(SHARD_TEMP_PREFIX)), `temp files left in ${shard}`).to.deep.equal([])
    }
    expect(fsSync.existsSync(path.join(dir, 'blocks', SHARD_TEMP_MARK))).to.equal(true)
    await nosync.close()
    expect(fsSync.existsSync(path.join(dir, 'blocks', SHARD_TEMP_MARK)), 'a clean close').to.equal(false)
  })
})

describe('node blockstore', () => {
  it('answers a missing block with Kubo\'s offline text', async () => {
    const bs = new NodeBlockstore(new MemoryBlockstore())
    const cid = await v0(text('nowhere'))
    const err = await rejects(getBlock(bs, cid), `block was not found locally (offline): ipld: could not find ${cid.toString()}`)
    expect(err.name).to.equal('NotFoundError')
  })

  it('uses a fetcher when one is plugged in', async () => {
    const bs = new NodeBlockstore(new MemoryBlockstore())
    const cid = await v0(text('remote'))
    bs.setFetcher(async () => text('remote'))
    expect(await getBlock(bs, cid)).to.deep.equal(text('remote'))
  })

  it('keeps identity CIDs out of any store', async () => {
    const inner = new MemoryBlockstore()
    const bs = new NodeBlockstore(inner)
    const cid = CID.createV1(0x71, identity.digest(hex('a0')))
    await bs.put(cid, hex('a0'))
    expect(await inner.has(cid)).to.equal(false)
    expect(await bs.has(cid)).to.equal(true)
    expect(await getBlock(bs, cid)).to.deep.equal(hex('a0'))
    const out: CID[] = []
    const other = await raw(text('x'))
    for await (const c of bs.putMany([{ cid, bytes: hex('a0') }, { cid: other, bytes: text('x') }])) out.push(c)
    expect(out).to.deep.equal([cid, other])
    expect(await inner.has(cid)).to.equal(false)
    expect(await bs.stat()).to.deep.equal({ count: 1, size: 1 })
  })
})
