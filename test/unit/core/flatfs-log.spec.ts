// flatfs's group-commit log (core/blockstore/flatfs-log.ts): durable small blocks are acknowledged
// once in the log, written into place in the background, replayed after a crash. A "crash" here is a
// copy of the blocks folder taken while the store runs (what the disk held), with the block files the
// log covers removed or damaged (what a power cut may do to files written without fsync).
import { expect } from 'chai'
import sinon from 'sinon'
import fsSync, { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import * as Digest from 'multiformats/hashes/digest'
import { FlatfsBlockstore, LOG_FILES, blockKey, shardOf } from '../../../core/blockstore/flatfs.js'
import { parseLog, type GroupLog } from '../../../core/blockstore/flatfs-log.js'
import { Placer, SHARD_TEMP_MARK, SHARD_TEMP_PREFIX, type PlaceItem } from '../../../core/blockstore/flatfs-placer.js'
import { getBlock } from '../../../core/blockstore/index.js'

const text = (s: string): Uint8Array => new TextEncoder().encode(s)
const raw = async (bytes: Uint8Array): Promise<CID> => CID.createV1(0x55, await sha256.digest(bytes))
const blocks = async (n: number, tag: string, size = 0): Promise<Array<{ cid: CID, bytes: Uint8Array }>> =>
  await Promise.all(Array.from({ length: n }, async (_, i) => {
    const bytes = size > 0 ? Buffer.alloc(size, `${tag} ${i} `) : text(`${tag} ${i}`)
    return { cid: await raw(bytes), bytes }
  }))

/** no idle checkpoint during a spec: a crash copy taken after settle() must still find the log (a slow run took it after the 1 s one) */
const NO_IDLE = { logIdleMs: 3_600_000 }

describe('flatfs group-commit log', () => {
  let dir: string
  let store: FlatfsBlockstore

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-flatfs-log-'))
    store = new FlatfsBlockstore(path.join(dir, 'blocks'), NO_IDLE)
    await store.open()
  })

  afterEach(async () => {
    sinon.restore()
    await store.close()
    await fs.rm(dir, { recursive: true, force: true })
  })

  const fileOf = (root: string, cid: CID): string => path.join(root, shardOf(blockKey(cid)), blockKey(cid) + '.data')
  const logsIn = async (root: string): Promise<string[]> => (await fs.readdir(root)).filter(n => LOG_FILES.includes(n))

  /** What the disk held at this moment, with the block files of `lost` gone (never fsynced). */
  async function crashCopy (lost: CID[] = []): Promise<string> {
    const copy = path.join(dir, `crash-${Math.random().toString(36).slice(2)}`)
    await fs.cp(path.join(dir, 'blocks'), copy, { recursive: true })
    for (const cid of lost) await fs.rm(fileOf(copy, cid), { force: true })
    return copy
  }

  async function reopen (root: string): Promise<FlatfsBlockstore> {
    const s = new FlatfsBlockstore(root)
    await s.open()
    return s
  }

  /** Hold the background writes (the placer worker's requests) until release(): the blocks stay in the log and the index only. */
  function holdPlacement (): { release: () => void, held: () => number } {
    const real = Placer.prototype.place
    const waiting: Array<() => void> = []
    let open = false
    sinon.stub(Placer.prototype, 'place').callsFake(async function (this: Placer, items: PlaceItem[]) {
      if (!open) await new Promise<void>(resolve => waiting.push(resolve))
      return await real.call(this, items)
    })
    return { release: () => { open = true; for (const w of waiting.splice(0)) w() }, held: () => waiting.length }
  }

  it('acknowledges puts from the log, reads them before they are in place, and lists them once they are', async () => {
    const items = await blocks(20, 'pending')
    const hold = holdPlacement()
    await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
    await new Promise(resolve => setTimeout(resolve, 5))
    expect(hold.held(), 'writes into place held').to.be.greaterThan(0)
    for (const { cid, bytes } of items) {
      expect(fsSync.existsSync(fileOf(path.join(dir, 'blocks'), cid)), 'not in place yet').to.equal(false)
      expect(await store.has(cid)).to.equal(true)
      expect(await getBlock(store, cid)).to.deep.equal(bytes)
    }
    // a listing waits for the blocks to be in place
    let listed = false
    const listing = (async () => { const out: string[] = []; for await (const c of store.cids()) out.push(c.toString()); listed = true; return out })()
    await new Promise(resolve => setTimeout(resolve, 20))
    expect(listed, 'the listing waits').to.equal(false)
    hold.release()
    expect((await listing).sort()).to.deep.equal(items.map(i => CID.createV1(0x55, i.cid.multihash).toString()).sort())
    for (const { cid, bytes } of items) expect(await fs.readFile(fileOf(path.join(dir, 'blocks'), cid))).to.deep.equal(Buffer.from(bytes))
  })

  it('replays acknowledged blocks after a crash, ignoring a truncated or garbage tail', async () => {
    const items = await blocks(30, 'replay')
    await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
    await store.settle()
    const [name] = await logsIn(path.join(dir, 'blocks'))
    expect(name, 'the active log').to.be.a('string')

    // the files were never fsynced: gone after the power cut; the log brings them back
    const lost = await crashCopy(items.map(i => i.cid))
    // garbage after the last record (a torn write of a round that was never acknowledged)
    const log = await fs.readFile(path.join(lost, name))
    const records = parseLog(log)
    expect(records.length).to.equal(30)
    const end = 16 + records.reduce((n, r) => n + 20 + r.mh.length + r.bytes.length, 0)
    log.fill(0xa5, end, end + 4096)
    await fs.writeFile(path.join(lost, name), log)
    // and a damaged block file (written, not synced)
    await fs.writeFile(fileOf(lost, items[0].cid), 'torn')
    const again = await reopen(lost)
    for (const { cid, bytes } of items) expect(await fs.readFile(fileOf(lost, cid))).to.deep.equal(Buffer.from(bytes))
    expect(await logsIn(lost), 'replayed logs are removed').to.deep.equal([])
    expect((await again.stat()).count).to.equal(30)

    // a record cut short: it and what follows are not applied, what precedes is
    const cut = await crashCopy(items.map(i => i.cid))
    await fs.truncate(path.join(cut, name), end - 5)
    await reopen(cut)
    for (const { cid } of items.slice(0, 29)) expect(fsSync.existsSync(fileOf(cut, cid))).to.equal(true)
    expect(fsSync.existsSync(fileOf(cut, items[29].cid))).to.equal(false)
  })

  it('stops at a record whose checksum does not match, and replays idempotently', async () => {
    const items = await blocks(10, 'checksum')
    for (const { cid, bytes } of items) await store.put(cid, bytes)
    await store.settle()
    const [name] = await logsIn(path.join(dir, 'blocks'))
    const copy = await crashCopy(items.map(i => i.cid))
    const log = await fs.readFile(path.join(copy, name))
    // flip one byte of the 6th record's data
    const recs = parseLog(log)
    const at = 16 + recs.slice(0, 5).reduce((n, r) => n + 20 + r.mh.length + r.bytes.length, 0) + 20 + recs[5].mh.length
    log[at] ^= 0xff
    await fs.writeFile(path.join(copy, name), log)
    const saved = Buffer.from(log)
    await reopen(copy)
    const present = items.map(i => fsSync.existsSync(fileOf(copy, i.cid)))
    expect(present).to.deep.equal([true, true, true, true, true, false, false, false, false, false])
    // the same log again (a crash during the replay): the same result
    await fs.writeFile(path.join(copy, name), saved)
    const twice = await reopen(copy)
    expect(items.map(i => fsSync.existsSync(fileOf(copy, i.cid)))).to.deep.equal(present)
    for (const { cid, bytes } of items.slice(0, 5)) expect(await getBlock(twice, cid)).to.deep.equal(bytes)
    expect(await logsIn(copy)).to.deep.equal([])
  })

  it('orders deletes after the puts they follow (a replay never brings a removed block back)', async () => {
    const [a, b, c] = await blocks(3, 'delete')
    const hold = holdPlacement()
    await store.put(a.cid, a.bytes)
    await store.put(b.cid, b.bytes)
    // removed while its write into place is still pending: waits for it, then removes it
    const removing = store.delete(a.cid)
    await new Promise(resolve => setTimeout(resolve, 10))
    hold.release()
    await removing
    expect(await store.has(a.cid)).to.equal(false)
    // removed and put again: present
    await store.delete(b.cid)
    await store.put(b.cid, b.bytes)
    await store.put(c.cid, c.bytes)
    await store.delete(c.cid)
    await store.settle()
    expect(await store.has(b.cid)).to.equal(true)
    expect(await store.has(c.cid)).to.equal(false)
    const copy = await crashCopy([a.cid, b.cid, c.cid])
    const again = await reopen(copy)
    expect(await again.has(a.cid)).to.equal(false)
    expect(await again.has(b.cid)).to.equal(true)
    expect(await again.has(c.cid)).to.equal(false)
  })

  it('a put acknowledged after a delete of the same block keeps it, when the delete arrived while another round was being written', async () => {
    const [x, y] = await blocks(2, 'swept')
    await store.put(x.cid, x.bytes) // durable, in the log: its removal is logged
    const log = (store as unknown as { log: GroupLog }).log
    const real = fsSync.fdatasync
    const held: Array<() => void> = []
    let open = false
    sinon.stub(fsSync, 'fdatasync').callsFake(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      if (open) { real(fd, cb); return }
      held.push(() => { real(fd, cb) })
    }) as typeof fsSync.fdatasync)
    // a round of puts starts; the removal is queued while that round is still being prepared
    const putY = log.put(blockKey(y.cid), y.cid.multihash.bytes, y.bytes)
    const removeX = store.delete(x.cid)
    while (held.length === 0) await new Promise(resolve => setTimeout(resolve, 2))
    // put again after the removal was asked for (the first round's fdatasync still runs)
    const putX = store.put(x.cid, x.bytes)
    await new Promise(resolve => setTimeout(resolve, 20))
    open = true
    for (const h of held.splice(0)) h()
    await Promise.all([putY, removeX, putX])
    await store.settle()
    expect(await store.has(x.cid), 'put after its removal').to.equal(true)
    expect(fsSync.existsSync(fileOf(path.join(dir, 'blocks'), x.cid)), 'in place').to.equal(true)
    expect(await store.has(y.cid)).to.equal(true)
  })

  it('takes turns between two logs, checkpointing the full one, and replays both in order', async () => {
    store = new FlatfsBlockstore(path.join(dir, 'blocks'), { ...NO_IDLE, logSize: 70 * 1024 })
    await store.open()
    const items = await blocks(200, 'turns', 1024)
    for (let i = 0; i < items.length; i += 10) {
      await Promise.all(items.slice(i, i + 10).map(async ({ cid, bytes }) => await store.put(cid, bytes)))
    }
    await store.settle()
    expect((await logsIn(path.join(dir, 'blocks'))).sort()).to.deep.equal([...LOG_FILES].sort())
    const [x] = await blocks(1, 'turns-del', 1024)
    await store.put(x.cid, x.bytes)
    await store.delete(x.cid)
    // what the logs still hold comes back; blocks of checkpointed logs are in place already
    const copy = await crashCopy()
    for (const n of LOG_FILES) {
      for (const r of parseLog(await fs.readFile(path.join(copy, n)))) {
        if (r.op === 'put') await fs.rm(fileOf(copy, CID.createV1(0x55, Digest.decode(r.mh))), { force: true })
      }
    }
    const again = await reopen(copy)
    for (const { cid, bytes } of items) expect(await getBlock(again, cid)).to.deep.equal(bytes)
    expect(await again.has(x.cid)).to.equal(false)
    expect((await again.stat()).count).to.equal(200)
  })

  it('acknowledges a round only once every earlier round is durable; a failed fdatasync fails the rounds written meanwhile', async () => {
    const [a, b, c] = await blocks(3, 'chain')
    const real = fsSync.fdatasync
    const held: Array<() => void> = []
    let calls = 0
    sinon.stub(fsSync, 'fdatasync').callsFake(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      // the first round's fdatasync fails (EIO), once the second round's has succeeded
      if (calls++ === 0) { held.push(() => { cb(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })) }); return }
      real(fd, cb)
    }) as typeof fsSync.fdatasync)
    const first = store.put(a.cid, a.bytes).then(() => 'ok', (err: Error) => err.message)
    while (held.length === 0) await new Promise(resolve => setTimeout(resolve, 2))
    // written while the first round's fdatasync runs: its own succeeds, but it waits for the first one's
    const second = store.put(b.cid, b.bytes).then(() => 'ok', (err: Error) => err.message)
    while (calls < 2) await new Promise(resolve => setTimeout(resolve, 2))
    await new Promise(resolve => setTimeout(resolve, 20))
    held[0]()
    expect(await first).to.match(/EIO/)
    expect(await second, 'not acknowledged after an earlier round failed').to.match(/EIO/)
    // the log goes on from where the failed round began
    await store.put(c.cid, c.bytes)
    const [name] = await logsIn(path.join(dir, 'blocks'))
    const records = parseLog(await fs.readFile(path.join(dir, 'blocks', name)))
    expect(Buffer.from(records[0].mh).equals(Buffer.from(c.cid.multihash.bytes)), 'the first record').to.equal(true)
    const copy = await crashCopy([c.cid])
    const again = await reopen(copy)
    expect(await getBlock(again, c.cid)).to.deep.equal(c.bytes)
  })

  it('a failed round leaves no records behind the next one: a crash after it does not replay the removals that failed', async () => {
    const [x, y, z] = await blocks(3, 'rewind')
    for (const b of [x, y, z]) await store.put(b.cid, b.bytes)
    const real = fsSync.fdatasync
    let calls = 0
    sinon.stub(fsSync, 'fdatasync').callsFake(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      if (calls++ === 0) { cb(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })); return }
      real(fd, cb)
    }) as typeof fsSync.fdatasync)
    // one round removing x and y fails: both stay
    const failed = await Promise.allSettled([store.delete(x.cid), store.delete(y.cid)])
    expect(failed.map(r => r.status)).to.deep.equal(['rejected', 'rejected'])
    // the next round is written where it began (a record of the same size as the first one it held)
    await store.delete(z.cid)
    const again = await reopen(await crashCopy())
    expect(await again.has(x.cid)).to.equal(true)
    expect(await again.has(y.cid), 'its removal failed').to.equal(true)
    expect(await again.has(z.cid)).to.equal(false)
  })

  it('writes a block again at the checkpoint when its background write failed (replacing what that write left)', async () => {
    const [a] = await blocks(1, 'retry')
    const real = Placer.prototype.place
    let failures = 0
    // the worker reports the block's write failed (e.g. EIO), part of the file left at its name
    sinon.stub(Placer.prototype, 'place').callsFake(async function (this: Placer, items: PlaceItem[]) {
      if (failures++ === 0) {
        await fs.mkdir(items[0].dir, { recursive: true })
        await fs.writeFile(items[0].file, 'to')
        return items.map((_, i) => i)
      }
      return await real.call(this, items)
    })
    await store.put(a.cid, a.bytes)
    await store.settle()
    expect(failures).to.equal(1)
    expect(await getBlock(store, a.cid), 'still served from the log').to.deep.equal(a.bytes)
    await store.close()
    expect(await fs.readFile(fileOf(path.join(dir, 'blocks'), a.cid))).to.deep.equal(Buffer.from(a.bytes))
    expect(await fs.readdir(path.join(dir, 'blocks', '.temp'))).to.deep.equal([])
  })

  it('a block removed after its background write failed stays removed (the checkpoint does not write it again)', async () => {
    const [a] = await blocks(1, 'retry-removed')
    sinon.stub(Placer.prototype, 'place').callsFake(async function (this: Placer, items: PlaceItem[]) {
      return items.map((_, i) => i) // every write into place fails (e.g. EIO)
    })
    await store.put(a.cid, a.bytes)
    await store.settle()
    await store.delete(a.cid)
    expect(await store.has(a.cid)).to.equal(false)
    sinon.restore()
    await store.close() // checkpoints
    expect(await store.has(a.cid), 'removed').to.equal(false)
    expect(fsSync.existsSync(fileOf(path.join(dir, 'blocks'), a.cid)), 'no file').to.equal(false)
  })

  it('a checkpoint retried after a failed sync writes the log\'s blocks into place again (the failed writeback may have lost them)', async () => {
    const [a] = await blocks(1, 'cp-retry')
    await store.put(a.cid, a.bytes)
    await store.settle()
    const file = fileOf(path.join(dir, 'blocks'), a.cid)
    sinon.stub(Placer.prototype, 'sync').rejects(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }))
    let failed: unknown
    await store.close().catch((err) => { failed = err })
    expect(String(failed)).to.match(/EIO/)
    sinon.restore()
    // what the failed writeback lost (the page cache no longer has it either)
    await fs.writeFile(file, '')
    await store.close()
    expect(await fs.readFile(file)).to.deep.equal(Buffer.from(a.bytes))
    expect(await logsIn(path.join(dir, 'blocks'))).to.deep.equal([])
  })

  describe('a checkpoint whose sync -f cannot run', () => {
    /** a `sync` that fails as coreutils does when syncfs(2) returns `errno` */
    async function fakeSync (message: string): Promise<string> {
      const file = path.join(dir, `sync-${Math.random().toString(36).slice(2)}`)
      await fs.writeFile(file, `#!/bin/sh\necho "sync: error syncing '$2': ${message}" >&2\nexit 1\n`, { mode: 0o755 })
      return file
    }

    for (const [errno, message] of [['EPERM', 'Operation not permitted'], ['ENOSYS', 'Function not implemented'], ['ENOENT', 'No such file or directory']]) {
      it(`fsyncs each placed file and its folder instead when syncfs fails with ${errno}`, async () => {
        await store.close()
        store = new FlatfsBlockstore(path.join(dir, 'blocks'), { ...NO_IDLE, logSyncCommand: await fakeSync(message) })
        await store.open()
        const items = await blocks(80, `syncfs-${errno}`)
        await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
        const sync = sinon.spy(Placer.prototype, 'sync')
        await store.close()
        expect(sync.callCount).to.equal(1)
        const [, files, dirs] = sync.firstCall.args
        expect(files).to.have.length(80)
        expect(dirs.length).to.be.greaterThan(0)
        for (const { cid, bytes } of items) expect(await fs.readFile(fileOf(path.join(dir, 'blocks'), cid))).to.deep.equal(Buffer.from(bytes))
        expect(await logsIn(path.join(dir, 'blocks'))).to.deep.equal([])
      })
    }

    it('a sync -f that cannot be spawned (no such command) takes the same way', async () => {
      await store.close()
      store = new FlatfsBlockstore(path.join(dir, 'blocks'), { ...NO_IDLE, logSyncCommand: path.join(dir, 'no-such-sync') })
      await store.open()
      const items = await blocks(70, 'syncfs-missing')
      await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
      const sync = sinon.spy(Placer.prototype, 'sync')
      await store.close()
      expect(sync.callCount).to.equal(1)
      expect(await logsIn(path.join(dir, 'blocks'))).to.deep.equal([])
    })

    it('a writeback error (EIO) still fails the checkpoint', async () => {
      await store.close()
      store = new FlatfsBlockstore(path.join(dir, 'blocks'), { ...NO_IDLE, logSyncCommand: await fakeSync('Input/output error') })
      await store.open()
      const items = await blocks(70, 'syncfs-eio')
      await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
      let failed: unknown
      await store.close().catch((err) => { failed = err })
      expect(String(failed)).to.match(/Input\/output error/)
      store = new FlatfsBlockstore(path.join(dir, 'blocks'), NO_IDLE)
      await store.open()
    })
  })

  it('writes a logged block through a temp file: no file under its name while its bytes are written (a kill then leaves none for Kubo)', async () => {
    // in place on this thread, so that its writes can be watched
    const placer = new Placer(() => { throw new Error('no worker here') })
    const [a] = await blocks(1, 'no partial', 4096)
    const file = fileOf(path.join(dir, 'blocks'), a.cid)
    const seen: boolean[] = []
    const real = fsSync.writeSync
    sinon.stub(fsSync, 'writeSync').callsFake(function (...args: any[]) {
      seen.push(fsSync.existsSync(file))
      return (real as (...a: any[]) => number).apply(fsSync, args)
    })
    const failed = await placer.place([{ file, dir: path.dirname(file), bytes: a.bytes }])
    sinon.restore()
    await placer.stop()
    expect(failed).to.deep.equal([])
    expect(seen.length, 'bytes written').to.be.greaterThan(0)
    expect(seen, 'a file under the block\'s name while its bytes were written').to.not.include(true)
    expect(await fs.readFile(file)).to.deep.equal(Buffer.from(a.bytes))
  })

  it('writes logged blocks into place through temp files in their shard folders; after a crash, a block file left partial is rewritten and stray shard temps are swept', async () => {
    const root = path.join(dir, 'blocks')
    const items = await blocks(3, 'shard-temps')
    await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
    await store.settle()
    expect(fsSync.existsSync(path.join(root, SHARD_TEMP_MARK)), 'marked while shard folders may hold temp files').to.equal(true)
    const shardOfItem = (r: string): string => path.join(r, shardOf(blockKey(items[0].cid)))
    expect((await fs.readdir(shardOfItem(root))).filter(n => !n.endsWith('.data')), 'no temp file left once in place').to.deep.equal([])
    for (const { cid, bytes } of items) expect(await fs.readFile(fileOf(root, cid))).to.deep.equal(Buffer.from(bytes))
    // a crash that left block files partial (another writer's, or a power cut before the checkpoint) and temp files
    const copy = await crashCopy()
    await fs.writeFile(fileOf(copy, items[0].cid), '')
    await fs.writeFile(fileOf(copy, items[1].cid), Buffer.from(items[1].bytes).subarray(0, 3))
    const stray = path.join(shardOfItem(copy), SHARD_TEMP_PREFIX + 'crashed-0')
    const other = path.join(shardOfItem(copy), '.not-ours')
    await fs.writeFile(stray, 'partial')
    await fs.writeFile(other, 'kept')
    await fs.writeFile(path.join(copy, SHARD_TEMP_MARK), '')
    const again = await reopen(copy)
    try {
      for (const { cid, bytes } of items) expect(await fs.readFile(fileOf(copy, cid)), 'whole again').to.deep.equal(Buffer.from(bytes))
      expect(fsSync.existsSync(stray), 'swept at open').to.equal(false)
      expect(fsSync.existsSync(other), 'only our temp files go').to.equal(true)
      expect(fsSync.existsSync(path.join(copy, SHARD_TEMP_MARK)), 'the mark goes with them').to.equal(false)
      for (const { cid, bytes } of items) expect(await getBlock(again, cid)).to.deep.equal(bytes)
      let listed = 0
      for await (const _ of again.cids()) listed++
      expect(listed).to.equal(items.length)
    } finally {
      await again.close()
    }
    await store.close()
    expect(fsSync.existsSync(path.join(root, SHARD_TEMP_MARK)), 'a clean close leaves no mark (the next open walks nothing)').to.equal(false)
  })

  it('checkpoints the active log once no put came for the idle time (logIdleMs)', async () => {
    await store.close()
    store = new FlatfsBlockstore(path.join(dir, 'blocks'), { logIdleMs: 50, logSize: 256 * 1024 })
    await store.open()
    const items = await blocks(3, 'idle')
    await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
    await store.settle()
    const root = path.join(dir, 'blocks')
    const records = async (): Promise<number> => {
      let n = 0
      for (const name of await logsIn(root)) n += parseLog(await fs.readFile(path.join(root, name))).length
      return n
    }
    expect(await records(), 'logged first').to.equal(3)
    for (let i = 0; i < 250 && await records() > 0; i++) await new Promise(resolve => setTimeout(resolve, 20))
    expect(await records(), 'checkpointed: no record left').to.equal(0)
    for (const { cid, bytes } of items) expect(await fs.readFile(fileOf(root, cid))).to.deep.equal(Buffer.from(bytes))
  })

  it('leaves no log after a clean close; the store stays usable', async () => {
    const items = await blocks(50, 'close')
    await Promise.all(items.map(async ({ cid, bytes }) => await store.put(cid, bytes)))
    expect(await logsIn(path.join(dir, 'blocks'))).to.include(LOG_FILES[0])
    await store.close()
    expect(await logsIn(path.join(dir, 'blocks'))).to.deep.equal([])
    for (const { cid, bytes } of items) expect(await fs.readFile(fileOf(path.join(dir, 'blocks'), cid))).to.deep.equal(Buffer.from(bytes))
    const [more] = await blocks(1, 'after close')
    await store.put(more.cid, more.bytes)
    expect(await getBlock(store, more.cid)).to.deep.equal(more.bytes)
  })

  it('is not used without fsync (sync: false) nor for large blocks', async () => {
    const nosync = new FlatfsBlockstore(path.join(dir, 'nosync'), { sync: false })
    await nosync.open()
    const [a] = await blocks(1, 'plain')
    await nosync.put(a.cid, a.bytes)
    expect(await logsIn(path.join(dir, 'nosync'))).to.deep.equal([])
    const [big] = await blocks(1, 'large', 100 * 1024)
    await store.put(big.cid, big.bytes)
    expect(await logsIn(path.join(dir, 'blocks'))).to.deep.equal([])
    expect(await fs.readFile(fileOf(path.join(dir, 'blocks'), big.cid))).to.deep.equal(Buffer.from(big.bytes))
  })
})
