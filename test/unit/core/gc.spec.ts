// core/gc: mark-and-sweep rules, the GC lock, and a stress test of concurrent adds, pins, unpins,
// pin updates, dag imports and GCs on an on-disk repo, after which every pinned DAG must be whole.
import { expect } from 'chai'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import * as dagPb from '@ipld/dag-pb'
import * as dagCbor from '@ipld/dag-cbor'
import { MemoryDatastore } from 'datastore-core/memory'
import { MemoryBlockstore } from 'blockstore-core/memory'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { NodeBlockstore, getBlock } from '../../../core/blockstore/index.js'
import { FlatfsBlockstore } from '../../../core/blockstore/flatfs.js'
import { createPins, walkDag, type Pins } from '../../../core/pins/index.js'
import { collectGc, listKeys, runGc, type GcEvent } from '../../../core/gc/index.js'
import { RwLock } from '../../../core/util/rwlock.js'
import { initRepo } from '../../../core/repo/index.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { catPlugin } from '../../../plugins/cat/index.js'
import { dagPlugin } from '../../../plugins/dag/index.js'
import { pinPlugin } from '../../../plugins/pin/index.js'
import { repoPlugin } from '../../../plugins/repo/index.js'
import { carSection, carV1Header } from '../../../plugins/dag/car.js'

async function all<T> (it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

async function put (bs: NodeBlockstore, code: number, bytes: Uint8Array, v0 = false): Promise<CID> {
  const digest = await sha256.digest(bytes)
  const cid = v0 ? CID.createV0(digest) : CID.createV1(code, digest)
  await bs.put(cid, bytes)
  return cid
}

const rawOf = (c: CID): string => CID.createV1(0x55, c.multihash).toString()

describe('core/gc', function () {
  this.timeout(120_000)

  describe('runGc', () => {
    let bs: NodeBlockstore
    let pins: Pins
    let lock: RwLock
    beforeEach(() => {
      bs = new NodeBlockstore(new MemoryBlockstore())
      pins = createPins({ datastore: new MemoryDatastore(), blockstore: bs })
      lock = new RwLock()
    })
    const gc = async (roots?: CID[]): Promise<GcEvent[]> => await all(runGc({ blockstore: bs, pins, gcLock: lock, roots: roots != null ? async () => roots : undefined }))

    it('keeps recursive DAGs (any codec, CIDv0 or v1 of the same block), direct pins and extra roots', async () => {
      const leaf = await put(bs, 0x55, Buffer.from('leaf'))
      const cbor = await put(bs, 0x71, dagCbor.encode({ l: leaf }))
      const pbRoot = await put(bs, 0x70, dagPb.encode({ Links: [{ Hash: cbor, Name: 'c' }] }), true)
      const direct = await put(bs, 0x70, dagPb.encode({ Links: [{ Hash: await put(bs, 0x55, Buffer.from('under direct')), Name: 'x' }] }))
      const extra = await put(bs, 0x55, Buffer.from('mfs'))
      const junk = await put(bs, 0x55, Buffer.from('junk'))
      await pins.pinRecursive(pbRoot)
      await pins.pinDirect(direct)
      const events = await gc([extra])
      const removed = events.map(e => e.removed?.toString())
      expect(events.every(e => e.error == null)).to.equal(true)
      expect(removed.sort()).to.deep.equal([rawOf(junk), rawOf(CID.parse(dagPb.decode(await getBlock(bs, direct)).Links[0].Hash.toString()))].sort())
      for (const c of [leaf, cbor, pbRoot, direct, extra]) expect(await bs.has(c), c.toString()).to.equal(true)
      // the store is keyed by multihash: the v1 form of a v0 pin is kept too
      expect(await bs.has(pbRoot.toV1())).to.equal(true)
    })

    it('does not read raw blocks while marking (a missing raw leaf is not an error)', async () => {
      const missing = CID.createV1(0x55, await sha256.digest(Buffer.from('gone')))
      const root = await put(bs, 0x70, dagPb.encode({ Links: [{ Hash: missing, Name: 'm' }] }))
      await pins.pinRecursive(root, { walk: false })
      const junk = await put(bs, 0x55, Buffer.from('junk'))
      expect(await gc()).to.deep.equal([{ removed: CID.parse(rawOf(junk)) }])
    })

    it('treats extra roots as best effort: blocks missing below them are skipped', async () => {
      const missing = CID.createV1(0x70, await sha256.digest(dagPb.encode({ Links: [] })))
      const mfs = await put(bs, 0x71, dagCbor.encode({ m: missing }))
      const junk = await put(bs, 0x55, Buffer.from('junk'))
      expect(await gc([mfs])).to.deep.equal([{ removed: CID.parse(rawOf(junk)) }])
      expect(await bs.has(mfs)).to.equal(true)
    })

    it('aborts before sweeping when a pinned DAG cannot be read', async () => {
      const missing = CID.createV1(0x70, await sha256.digest(dagPb.encode({ Links: [] })))
      const root = await put(bs, 0x71, dagCbor.encode({ m: missing }))
      await pins.pinRecursive(root, { walk: false })
      const junk = await put(bs, 0x55, Buffer.from('junk'))
      const events = await gc()
      const fetchErr = `could not retrieve links for ${missing.toString()}: block was not found locally (offline): ipld: could not find ${missing.toString()}`
      expect(events.map(e => e.error?.message)).to.deep.equal([fetchErr, 'garbage collection aborted: could not retrieve some links'])
      expect(await bs.has(junk)).to.equal(true)
      expect((await collectGc(runGc({ blockstore: bs, pins, gcLock: lock })))?.message).to.equal(`${fetchErr}; garbage collection aborted: could not retrieve some links`)
    })

    it('sweeps a listing block source after the store (Kubo\'s Filestore): unmarked keys go from both, once', async () => {
      // a source as the filestore is: raw keys, listed in key order, deletes that tolerate missing keys
      const held = new Map<string, CID>()
      const deleted: string[] = []
      let failOn: string | undefined
      const source = {
        has: async (c: CID) => held.has(rawOf(c)),
        get: async () => undefined,
        keys: async function * () { yield * [...held.values()].sort((a, b) => a.toString() < b.toString() ? -1 : 1) },
        delete: async (c: CID) => {
          if (rawOf(c) === failOn) throw new Error('disk on fire')
          deleted.push(rawOf(c))
          held.delete(rawOf(c))
        }
      }
      bs.addSource(source)
      const ref = async (text: string): Promise<CID> => {
        const c = CID.createV1(0x55, await sha256.digest(Buffer.from(text)))
        held.set(c.toString(), c)
        return c
      }
      const kept = await ref('kept')
      const gone = await ref('gone')
      const both = await put(bs, 0x55, Buffer.from('both'))
      await ref('both')
      const stored = await put(bs, 0x55, Buffer.from('stored'))
      const root = await put(bs, 0x70, dagPb.encode({ Links: [{ Hash: kept, Name: 'k' }] }))
      await pins.pinRecursive(root, { walk: false })
      const removed = (await gc()).map(e => e.removed?.toString())
      // the store's blocks first (a block held both ways goes from both with them), then the source's
      expect(removed.slice(0, 2).sort()).to.deep.equal([rawOf(both), rawOf(stored)].sort())
      expect(removed.slice(2)).to.deep.equal([rawOf(gone)])
      expect([...held.keys()]).to.deep.equal([rawOf(kept)])
      expect(await bs.has(both)).to.equal(false)
      // a reference that cannot be removed is reported and the sweep goes on
      const stuck = await ref('stuck')
      const other = await ref('other')
      failOn = rawOf(stuck)
      const events = await gc()
      // the source's keys in key order, the failed one reported in its place, then the summary
      const expected = [rawOf(stuck), rawOf(other)].sort().map(k => k === rawOf(stuck) ? `could not remove ${k}: disk on fire` : k)
      expect(events.map(e => e.error?.message ?? e.removed?.toString())).to.deep.equal([...expected, 'garbage collection incomplete: could not delete some blocks'])
      expect(deleted).to.include(rawOf(other))
      expect(held.has(rawOf(stuck))).to.equal(true)
    })

    it('holds the GC lock exclusively: it waits for writers, and new writers wait for it', async () => {
      const junk = await put(bs, 0x55, Buffer.from('junk'))
      const order: string[] = []
      const writer = await lock.shared()
      const run = collectGc(runGc({ blockstore: bs, pins, gcLock: lock })).then(() => order.push('gc done'))
      await new Promise(resolve => setTimeout(resolve, 20))
      expect(await bs.has(junk)).to.equal(true) // still waiting for the writer
      const later = lock.shared().then((release) => { order.push('second writer'); release() })
      order.push('writer done')
      writer()
      await Promise.all([run, later])
      expect(order).to.deep.equal(['writer done', 'gc done', 'second writer'])
      expect(await bs.has(junk)).to.equal(false)
    })

    it('releases the lock when the consumer stops early or the signal aborts', async () => {
      for (let i = 0; i < 5; i++) await put(bs, 0x55, Buffer.from(`junk ${i}`))
      for await (const _ of runGc({ blockstore: bs, pins, gcLock: lock })) break // eslint-disable-line no-unreachable-loop
      const controller = new AbortController()
      controller.abort()
      const err = await collectGc(runGc({ blockstore: bs, pins, gcLock: lock, signal: controller.signal })).catch((e: Error) => e)
      expect(err).to.be.instanceOf(Error)
      const release = await lock.exclusive() // would hang if a run still held it
      release()
    })
  })

  describe('sweep on disk (flatfs): more garbage than deletes in flight, interrupted runs', () => {
    let dir: string
    beforeEach(async () => { dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-gc-sweep-')) })
    afterEach(async () => { await fs.rm(dir, { recursive: true, force: true }) })

    it('never removes a pinned or MFS-reachable block; a stopped or aborted run leaves only garbage removed, the next finishes', async () => {
      const bs = new NodeBlockstore(new FlatfsBlockstore(path.join(dir, 'blocks'), { sync: false }))
      const pins = createPins({ datastore: new MemoryDatastore(), blockstore: bs })
      const lock = new RwLock()
      // pinned and MFS DAGs whose leaves share shard folders with the garbage (700 blocks: more than the 256 deletes in flight)
      const leaves = async (tag: string, n: number): Promise<CID[]> => await Promise.all(Array.from({ length: n }, async (_, i) => await put(bs, 0x55, Buffer.from(`${tag} ${i}`))))
      const pinnedLeaves = await leaves('pinned', 300)
      const pinned = await put(bs, 0x70, dagPb.encode({ Links: pinnedLeaves.map((c, i) => ({ Hash: c, Name: `p${String(i).padStart(4, '0')}` })) }))
      const directLeaf = await put(bs, 0x55, Buffer.from('direct'))
      const mfsLeaves = await leaves('mfs', 100)
      const mfs = await put(bs, 0x70, dagPb.encode({ Links: mfsLeaves.map((c, i) => ({ Hash: c, Name: `m${String(i).padStart(4, '0')}` })) }), true)
      await pins.pinRecursive(pinned)
      await pins.pinDirect(directLeaf)
      const garbage = new Set((await leaves('garbage', 700)).map(rawOf))
      const kept = [pinned, directLeaf, mfs, ...pinnedLeaves, ...mfsLeaves]
      const run = (signal?: AbortSignal): AsyncGenerator<GcEvent> => runGc({ blockstore: bs, pins, gcLock: lock, roots: async () => [mfs], signal })
      const stored = async (): Promise<Set<string>> => new Set((await all(listKeys(bs))).map(c => c.toString()))
      const checkKept = async (): Promise<void> => {
        for (const c of kept) expect(await bs.has(c), c.toString()).to.equal(true)
      }

      // the consumer stops after 100 removals: blocks already being deleted may go too, nothing else
      const first: string[] = []
      for await (const e of run()) {
        expect(e.error).to.equal(undefined)
        first.push(e.removed?.toString() ?? '')
        if (first.length === 100) break
      }
      await checkKept()
      let left = await stored()
      const gone = [...garbage].filter(k => !left.has(k))
      expect(gone.length).to.be.at.least(100)
      expect(gone.length).to.be.below(garbage.size)
      for (const k of first) expect(garbage.has(k), k).to.equal(true)

      // a run aborted part-way: the lock is released, pinned blocks stay
      const controller = new AbortController()
      let seen = 0
      const aborted = await collectGc(run(controller.signal), () => { if (++seen === 50) controller.abort() }).catch((err: Error) => err)
      expect(aborted).to.be.instanceOf(Error)
      await checkKept()

      // the next run removes exactly the garbage still there, and then nothing is left to remove
      left = await stored()
      const remaining = [...garbage].filter(k => left.has(k))
      const removed = (await all(run())).map(e => { expect(e.error).to.equal(undefined); return e.removed?.toString() })
      expect(removed.sort()).to.deep.equal(remaining.sort())
      await checkKept()
      expect([...await stored()].filter(k => garbage.has(k))).to.deep.equal([])
      expect(await all(run())).to.deep.equal([])
    })
  })

  describe('stress: concurrent adds, pins, unpins, updates, dag imports and GCs (on disk)', () => {
    let dir: string
    let node: TestNode
    before(async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-gc-stress-'))
      await initRepo(dir)
      node = await createTestNode({ repoPath: dir, plugins: [addPlugin(), catPlugin(), dagPlugin(), pinPlugin(), repoPlugin()] })
    })
    after(async () => {
      await node.stop()
      await fs.rm(dir, { recursive: true, force: true })
    })

    it('leaves every pinned DAG complete', async () => {
      const cradle = node.container.cradle
      /** roots we know to be pinned recursively, with the file content when it is one */
      const expected = new Map<string, Buffer | undefined>()
      const allowed = /could not find|not recursively pinned|was already recursively pinned|not pinned or pinned indirectly/
      let counter = 0
      let removed = 0
      let gcRuns = 0
      let tolerated = 0
      const unique = (size: number): Buffer => Buffer.concat([Buffer.from(`#${counter++} `), randomBytes(size)])
      const pick = (): string | undefined => {
        const keys = [...expected.keys()]
        if (keys.length === 0) return undefined
        const k = keys[Math.floor(Math.random() * keys.length)]
        expected.delete(k)
        return k
      }
      const tolerate = (err: unknown): void => {
        expect((err as Error).message).to.match(allowed)
        tolerated++
      }
      const add = async (content: Buffer, options: Record<string, unknown> = {}): Promise<string> =>
        (await node.invoke('add', { files: filesOf({ content }), options })).at(-1).Hash

      const ROUNDS = 25
      const adder = async (): Promise<void> => {
        for (let i = 0; i < ROUNDS; i++) {
          const size = [10, 3000, 300_000, 700_000][i % 4]
          const content = unique(size)
          const opts = i % 3 === 0 ? { 'raw-leaves': true, 'cid-version': 1 } : {}
          expected.set(await add(content, opts), content)
        }
      }
      const dirAdder = async (): Promise<void> => {
        for (let i = 0; i < ROUNDS; i++) {
          const rows = await node.invoke('add', { files: filesOf({ path: `d${i}/a`, content: unique(100) }, { path: `d${i}/b`, content: unique(70_000) }) })
          expected.set(rows.at(-1).Hash, undefined)
        }
      }
      const addThenPin = async (): Promise<void> => {
        for (let i = 0; i < ROUNDS; i++) {
          const content = unique(i % 2 === 0 ? 50 : 400_000)
          const cid = await add(content, { pin: false })
          await new Promise(resolve => setImmediate(resolve))
          try {
            await node.invoke('pin/add', { args: [cid] })
            expected.set(cid, content)
          } catch (err) { tolerate(err) } // a GC may run between the two: Kubo allows that
        }
      }
      const unpinner = async (): Promise<void> => {
        for (let i = 0; i < ROUNDS; i++) {
          await new Promise(resolve => setTimeout(resolve, 5))
          const victim = pick()
          if (victim == null) continue
          try { await node.invoke('pin/rm', { args: [victim] }) } catch (err) { tolerate(err) }
        }
      }
      const updater = async (): Promise<void> => {
        for (let i = 0; i < ROUNDS; i++) {
          const from = pick()
          if (from == null) { await new Promise(resolve => setTimeout(resolve, 5)); continue }
          const content = unique(2000)
          const to = await add(content, { pin: false })
          try {
            await node.invoke('pin/update', { args: [from, to] })
            expected.set(to, content)
          } catch (err) { tolerate(err) }
        }
      }
      const importer = async (): Promise<void> => {
        for (let i = 0; i < ROUNDS; i++) {
          // a small DAG, sometimes linking to a DAG pinned elsewhere (shared blocks, not in the CAR)
          const shared = [...expected.keys()][0]
          const leaves: Array<{ cid: CID, bytes: Uint8Array }> = []
          for (let j = 0; j < 3; j++) {
            const bytes = unique(200)
            leaves.push({ cid: CID.createV1(0x55, await sha256.digest(bytes)), bytes })
          }
          const value: Record<string, unknown> = { leaves: leaves.map(l => l.cid) }
          if (shared != null && i % 2 === 0) value.shared = CID.parse(shared)
          const bytes = dagCbor.encode(value)
          const root = CID.createV1(0x71, await sha256.digest(bytes))
          const car = Buffer.concat([carV1Header([root]), ...carSection(root, bytes), ...leaves.flatMap(l => carSection(l.cid, l.bytes))])
          const rows = await node.invoke('dag/import', { files: filesOf({ content: car }) })
          const msg = rows[0].Root.PinErrorMsg as string
          if (msg === '') expected.set(root.toString(), undefined)
          else tolerate(new Error(msg)) // the shared DAG was unpinned and collected meanwhile
        }
      }
      const collector = async (): Promise<void> => {
        for (let i = 0; i < ROUNDS; i++) {
          const rows = await node.invoke('repo/gc')
          removed += rows.length
          gcRuns++
          await new Promise(resolve => setTimeout(resolve, 10))
        }
      }

      await Promise.all([adder(), dirAdder(), addThenPin(), unpinner(), updater(), importer(), collector(), collector()])
      expect(gcRuns).to.equal(2 * ROUNDS)
      expect(removed, 'GC removed unpinned blocks').to.be.greaterThan(0)
      expect(expected.size).to.be.greaterThan(20)

      const check = async (): Promise<void> => {
        for (const [root, content] of expected) {
          const cid = CID.parse(root)
          expect(await cradle.pins.isPinned(cid), root).to.deep.equal({ pinned: true, type: 'recursive' })
          await walkDag(cradle.blockstore, cid) // every block present
          if (content != null) expect(Buffer.compare(await node.invoke('cat', { args: [root] }), content), root).to.equal(0)
        }
        expect(await node.invoke('pin/verify')).to.deep.equal([])
        expect((await node.invoke('repo/verify')).at(-1)).to.deep.equal({ Msg: 'verify complete, all blocks validated.', Progress: 0 })
      }
      await check()
      // one more GC on a quiet node changes nothing that is pinned
      await node.invoke('repo/gc')
      await check()
      // and what is left is exactly what the pins reach
      const reachable = new Set<string>()
      for await (const root of cradle.pins.recursiveKeys()) {
        await walkDag(cradle.blockstore, root, { visit: (c) => { const k = rawOf(c); if (reachable.has(k)) return false; reachable.add(k); return true } })
      }
      for await (const c of cradle.pins.directKeys()) reachable.add(rawOf(c))
      const stored = (await all(listKeys(cradle.blockstore))).map(c => c.toString())
      expect(stored.filter(k => !reachable.has(k))).to.deep.equal([])
      expect(tolerated).to.be.at.least(0)
    })
  })
})
