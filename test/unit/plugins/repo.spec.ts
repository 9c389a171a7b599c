import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import fsSync, { promises as fs } from 'node:fs'
import sinon from 'sinon'
import os from 'node:os'
import path from 'node:path'
import { CID } from 'multiformats/cid'
import * as dagPb from '@ipld/dag-pb'
import { sha256 } from 'multiformats/hashes/sha2'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { pinPlugin } from '../../../plugins/pin/index.js'
import { repoPlugin } from '../../../plugins/repo/index.js'
import { refsPlugin } from '../../../plugins/refs/index.js'
import { repoGc } from '../../../plugins/repo/gc.js'
import { repoStat } from '../../../plugins/repo/stat.js'
import { repoVerify } from '../../../plugins/repo/verify.js'
import { repoVersion } from '../../../plugins/repo/version.js'
import { repoLs } from '../../../plugins/repo/ls.js'
import { statsRepo } from '../../../plugins/repo/stats-repo.js'
import { refsLocal } from '../../../plugins/refs/local.js'
import { goJson } from '../../../server/respond.js'
import { initRepo } from '../../../core/repo/index.js'
import { listKeys, storageOf } from '../../../core/gc/index.js'
import { startPeriodicGc } from '../../../core/gc/periodic.js'
import { FlatfsBlockstore, blockKey, shardOf } from '../../../core/blockstore/flatfs.js'
import { GroupLog } from '../../../core/blockstore/flatfs-log.js'
import { Placer, type PlaceItem } from '../../../core/blockstore/flatfs-placer.js'

use(chaiAsPromised)

const EMPTY_DIR = 'QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn'
/** the empty directory as refs local / repo gc list it (CIDv1 raw of its multihash) */
const EMPTY_DIR_RAW = 'bafkreiczsscdsbs7ffqz55asqdf3smv6klcw3gofszvwlyarci47bgf354'

const textOf = (spec: { text?: (v: any, c: any) => string }, value: unknown, options: Record<string, unknown> = {}): string =>
  (Array.isArray(value) ? value : [value]).map(v => spec.text?.(v, { path: ['repo'], args: [], options: { encoding: 'text', ...options } }) ?? '').join('')
const raw = (cid: string): string => CID.createV1(0x55, CID.parse(cid).multihash).toString()

describe('plugins/repo', function () {
  this.timeout(60_000)
  let node: TestNode

  const addText = async (content: string, options: Record<string, unknown> = {}): Promise<string> =>
    (await node.invoke('add', { files: filesOf({ content }), options })).at(-1).Hash
  const has = async (cid: string): Promise<boolean> => await node.container.cradle.blockstore.has(CID.parse(cid))
  const blockKeys = async (n: TestNode = node): Promise<string[]> => {
    const out: string[] = []
    for await (const k of listKeys(n.container.cradle.blockstore)) out.push(k.toString())
    return out.sort()
  }

  before(async () => { node = await createTestNode({ plugins: [addPlugin(), pinPlugin(), repoPlugin(), refsPlugin()] }) })
  after(async () => { await node.stop() })

  describe('repo gc (t0080)', () => {
    it('keeps a pinned file, removes it once unpinned, and prints `removed <cid>`', async () => {
      const hash = await addText('some text\n')
      const first = await node.invoke('repo/gc')
      expect(first.map((r: any) => r.Key['/'])).to.not.include(raw(hash))
      expect(await has(hash)).to.equal(true)
      await node.invoke('pin/rm', { args: [hash] })
      const rows = await node.invoke('repo/gc')
      expect(rows).to.deep.equal([{ Key: { '/': raw(hash) } }])
      expect(textOf(repoGc, rows)).to.equal(`removed ${raw(hash)}\n`)
      expect(textOf(repoGc, rows, { quiet: true })).to.equal(`${raw(hash)}\n`)
      expect(textOf(repoGc, rows, { silent: true })).to.equal('')
      expect(await has(hash)).to.equal(false)
    })

    it('fully reverses an add of a multi-block file', async () => {
      await node.invoke('repo/gc')
      const before = await blockKeys()
      const big = Buffer.alloc(1_000_000)
      for (let i = 0; i < big.length; i++) big[i] = (i * 7919) % 251
      const hash = (await node.invoke('add', { files: filesOf({ content: big }) })).at(-1).Hash
      expect((await blockKeys()).length).to.be.greaterThan(before.length + 3)
      await node.invoke('pin/rm', { args: [hash] })
      await node.invoke('repo/gc')
      expect(await blockKeys()).to.deep.equal(before)
    })

    it('--silent sends nothing', async () => {
      const hash = await addText('should be empty\n')
      await node.invoke('pin/rm', { args: [hash] })
      expect(await node.invoke('repo/gc', { options: { silent: true } })).to.deep.equal([])
      expect(await has(hash)).to.equal(false)
    })

    it('keeps blocks under direct pins and indirect ones, and the empty directory', async () => {
      const direct = await addText('direct one\n', { pin: false })
      await node.invoke('pin/add', { args: [direct], options: { recursive: false } })
      const rows = await node.invoke('add', { files: filesOf({ path: 'x/a', content: 'indirect a\n' }, { path: 'x/b', content: 'indirect b\n' }) })
      await node.invoke('repo/gc')
      for (const r of rows) expect(await has(r.Hash), r.Name).to.equal(true)
      expect(await has(direct)).to.equal(true)
      expect(await has(EMPTY_DIR)).to.equal(true)
    })

    it('keeps what a gcRoots provider (MFS) reaches, ignoring blocks missing below it', async () => {
      const added = (await node.invoke('add', { files: filesOf({ content: 'mfs file\n' }), options: { pin: false } })).at(-1)
      const kept: string = added.Hash
      // Kubo's adder also stores its MFS root {<cid>: file}, unpinned and not reached: the first gc removes it
      const adderRoot = dagPb.encode({ Data: Uint8Array.of(8, 1), Links: [{ Hash: CID.parse(kept), Name: kept, Tsize: Number(added.Size) }] })
      const adderRootCid = CID.createV0(await sha256.digest(adderRoot))
      expect(await has(adderRootCid.toString())).to.equal(true)
      const missing = CID.createV0(await sha256.digest(Buffer.from('never stored')))
      const block = dagPb.encode({ Data: Uint8Array.of(8, 1), Links: [{ Hash: CID.parse(kept), Name: 'f' }, { Hash: missing, Name: 'gone' }] })
      const root = CID.createV0(await sha256.digest(block))
      await node.container.cradle.blockstore.put(root, block)
      const remove = node.container.cradle.gcRoots.add('test-mfs', () => [root])
      try {
        expect(await node.invoke('repo/gc')).to.deep.equal([{ Key: { '/': raw(adderRootCid.toString()) } }])
        expect(await has(kept)).to.equal(true)
        expect(await has(root.toString())).to.equal(true)
      } finally {
        remove()
      }
      const rows = await node.invoke('repo/gc')
      expect(rows.map((r: any) => r.Key['/']).sort()).to.deep.equal([raw(kept), raw(root.toString())].sort())
    })

    it('aborts without deleting when a pinned DAG is incomplete', async () => {
      const rows = await node.invoke('add', { files: filesOf({ path: 'y/a', content: 'gc a\n' }, { path: 'y/b', content: 'gc b\n' }) })
      const child = rows.find((r: any) => r.Name === 'y/a').Hash
      const root = rows.at(-1).Hash
      const junk = await addText('junk\n', { pin: false })
      await storageOf(node.container.cradle.blockstore).delete(CID.parse(child))
      try {
        const fetchErr = `could not retrieve links for ${child}: block was not found locally (offline): ipld: could not find ${child}`
        await expect(node.invoke('repo/gc')).to.be.rejectedWith(`${fetchErr}; garbage collection aborted: could not retrieve some links`)
        expect(await has(junk)).to.equal(true)
        // --stream-errors: error rows, then the command fails
        const input = { options: { 'stream-errors': true } }
        const outcome = await node.registry.invoke(['repo', 'gc'], input, node.container).catch((e: Error) => e)
        expect(outcome).to.be.instanceOf(Error)
        expect((outcome as Error).message).to.equal('encountered errors during gc run')
        const streamed: any[] = []
        const prepared = node.registry.prepare(['repo', 'gc'], input)
        const { execute } = await import('../../../registry/execute.js')
        const out = await execute(prepared, node.container, { signal: new AbortController().signal })
        try { for await (const r of (out as any).items) streamed.push(r) } catch {}
        expect(streamed).to.deep.equal([
          { Key: null, Error: fetchErr },
          { Key: null, Error: 'garbage collection aborted: could not retrieve some links' }
        ])
        expect(textOf(repoGc, streamed[0])).to.equal(`Error: ${fetchErr}\n`)
        expect(goJson(streamed[0])).to.equal(`{"Key":null,"Error":${JSON.stringify(fetchErr)}}\n`)
      } finally {
        await node.invoke('pin/rm', { args: [root] })
        await node.invoke('repo/gc')
      }
    })
  })

  describe('repo stat / stats repo', () => {
    it('reports the in-memory repo', async () => {
      const stat = await node.invoke('repo/stat')
      expect(Object.keys(stat)).to.deep.equal(['RepoSize', 'StorageMax', 'NumObjects', 'RepoPath', 'Version'])
      expect(stat.StorageMax).to.equal(10_000_000_000)
      expect(stat.Version).to.equal('fs-repo@18')
      expect(stat.NumObjects).to.equal((await blockKeys()).length)
      expect(stat.RepoSize).to.be.greaterThan(0)
      expect(await node.invoke('stats/repo')).to.deep.equal(stat)
      expect(statsRepo.run).to.equal(repoStat.run)
      const text = textOf(repoStat, { RepoSize: 1234, StorageMax: 10_000_000_000, NumObjects: 5, RepoPath: '/r', Version: 'fs-repo@18' })
      expect(text).to.equal('NumObjects: 5\nRepoSize:   1234\nStorageMax: 10000000000\nRepoPath:   /r\nVersion:    fs-repo@18\n')
      const human = textOf(repoStat, { RepoSize: 1234, StorageMax: 10_000_000_000, NumObjects: 5, RepoPath: '/r', Version: 'fs-repo@18' }, { human: true })
      expect(human).to.equal('NumObjects: 5\nRepoSize:   1.2 kB\nStorageMax: 10 GB\nRepoPath:   /r\nVersion:    fs-repo@18\n')
    })

    it('--size-only: RepoSize and StorageMax only', async () => {
      const stat = await node.invoke('repo/stat', { options: { 'size-only': true } })
      expect(stat).to.deep.include({ NumObjects: 0, RepoPath: '', Version: '' })
      expect(textOf(repoStat, stat, { sizeOnly: true })).to.match(/^RepoSize:   \d+\nStorageMax: 10000000000\n$/)
    })

    it('without Datastore.StorageMax: math.MaxUint64, exactly', async () => {
      const cfg = node.container.cradle.config
      const before = cfg.getKey('Datastore.StorageMax')
      await cfg.setKey('Datastore.StorageMax', '')
      try {
        const stat = await node.invoke('repo/stat')
        expect(goJson(stat)).to.match(/"StorageMax":18446744073709551615,/)
        expect(textOf(repoStat, stat)).to.match(/\nStorageMax: 18446744073709551615\n/)
        // read back over HTTP, the number is a float; the text stays exact
        expect(textOf(repoStat, JSON.parse(goJson(stat)))).to.match(/\nStorageMax: 18446744073709551615\n/)
        expect(textOf(repoStat, stat, { human: true })).to.match(/\nStorageMax: 18 EB\n/)
      } finally {
        await cfg.setKey('Datastore.StorageMax', before as string)
      }
    })

    it('counts the blocks and bytes of an on-disk repo', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-repo-stat-'))
      await initRepo(dir)
      const disk = await createTestNode({ repoPath: dir, plugins: [addPlugin(), repoPlugin()] })
      try {
        await disk.invoke('add', { files: filesOf({ content: 'on disk\n' }) })
        const stat = await disk.invoke('repo/stat')
        const files = (await fs.readdir(path.join(dir, 'blocks'), { recursive: true })).filter(f => String(f).endsWith('.data'))
        expect(stat.NumObjects).to.equal(files.length)
        // MFS's empty root, the file, and the adder's MFS root {<cid>: file} (Kubo 0.40.1 counts 3 too)
        expect(stat.NumObjects).to.equal(3)
        expect(stat.RepoPath).to.equal(dir)
        expect(stat.RepoSize).to.be.greaterThan(4096) // folders count, as du
      } finally {
        await disk.stop()
        await fs.rm(dir, { recursive: true, force: true })
      }
    })
  })

  describe('repo verify', () => {
    let v: TestNode
    beforeEach(async () => { v = await createTestNode({ plugins: [addPlugin(), repoPlugin()] }) })
    afterEach(async () => { await v.stop() })

    it('validates a healthy repo', async () => {
      await v.invoke('add', { files: filesOf({ content: 'healthy\n' }) })
      const rows = await v.invoke('repo/verify')
      // the empty MFS root, the file and the adder's MFS root {<cid>: file}
      expect(rows).to.deep.equal([{ Msg: '', Progress: 1 }, { Msg: '', Progress: 2 }, { Msg: '', Progress: 3 }, { Msg: 'verify complete, all blocks validated.', Progress: 0 }])
      expect(textOf(repoVerify, rows)).to.equal('1 blocks processed.\r2 blocks processed.\r3 blocks processed.\rverify complete, all blocks validated.\n')
    })

    it('finds a corrupt block and fails with the summary; --drop removes it', async () => {
      const hash = (await v.invoke('add', { files: filesOf({ content: 'test content' }) })).at(-1).Hash
      const cid = CID.parse(hash)
      await storageOf(v.container.cradle.blockstore).put(cid, Buffer.from('corrupted data'))
      const msg = `block ${raw(hash)} was corrupt (block in storage has different hash than requested)`
      await expect(v.invoke('repo/verify')).to.be.rejectedWith('verify complete, 1 blocks corrupt')
      expect(textOf(repoVerify, { Msg: msg, Progress: 0 })).to.equal(msg + '\n')
      const rows = await v.invoke('repo/verify', { options: { drop: true } })
      expect(rows).to.deep.include({ Msg: `${msg}, removed`, Progress: 0 })
      expect(rows.at(-1)).to.deep.equal({ Msg: 'verify complete, 1 blocks corrupt, 1 removed', Progress: 0 })
      expect(await v.container.cradle.blockstore.has(cid)).to.equal(false)
      expect((await v.invoke('repo/verify')).at(-1).Msg).to.equal('verify complete, all blocks validated.')
    })

    it('reads a block the group-commit log holds from the log while its file is being written (flatfs)', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-repo-verify-'))
      await initRepo(dir)
      const disk = await createTestNode({ repoPath: dir, plugins: [addPlugin(), repoPlugin()] })
      let release = (): void => {}
      try {
        const store = storageOf(disk.container.cradle.blockstore)
        expect(store).to.be.instanceOf(FlatfsBlockstore)
        // a put acknowledged after the listing waited for the placements: the placer has created its file at the
        // block's name and written part of it (placeBlockFile writes in place)
        const bytes = Buffer.alloc(2048, 'verify while placing ')
        const cid = CID.createV1(0x55, await sha256.digest(bytes))
        const file = path.join(dir, 'blocks', shardOf(blockKey(cid)), blockKey(cid) + '.data')
        const real = Placer.prototype.place
        let started = (): void => {}
        const writing = new Promise<void>(resolve => { started = resolve })
        sinon.stub(Placer.prototype, 'place').callsFake(async function (this: Placer, items: PlaceItem[]) {
          if (!items.some(i => i.file === file)) return await real.call(this, items)
          await fs.mkdir(path.dirname(file), { recursive: true })
          await fs.writeFile(file, bytes.subarray(0, 100))
          started()
          await new Promise<void>(resolve => { release = resolve })
          await fs.rm(file)
          return await real.call(this, items)
        })
        sinon.stub(GroupLog.prototype, 'settle').resolves()
        await store.put(cid, bytes)
        await writing
        // (read from the file: 'corrupt', and --drop would remove the acknowledged block)
        const rows = await disk.invoke('repo/verify')
        expect(rows.at(-1).Msg).to.equal('verify complete, all blocks validated.')
        expect(await store.has(cid)).to.equal(true)
        release()
        sinon.restore()
        await (store as FlatfsBlockstore).settle()
        expect(fsSync.readFileSync(file)).to.deep.equal(bytes)
      } finally {
        release()
        sinon.restore()
        await disk.stop()
        await fs.rm(dir, { recursive: true, force: true })
      }
    })

    it('--heal needs the network; heal-timeout is checked first', async () => {
      await expect(v.invoke('repo/verify', { options: { heal: true } })).to.be.rejectedWith("this command must be run in online mode. Try running 'ipfs daemon' first")
      await expect(v.invoke('repo/verify', { options: { heal: true, 'heal-timeout': 'soon' } })).to.be.rejectedWith('invalid heal-timeout: time: invalid duration "soon"')
      await expect(v.invoke('repo/verify', { options: { 'heal-timeout': '-1s' } })).to.be.rejectedWith('heal-timeout must be >= 0')
    })
  })

  describe('repo version, repo ls, repo migrate', () => {
    it('repo version', async () => {
      const out = await node.invoke('repo/version')
      expect(out).to.deep.equal({ Version: '18' })
      expect(textOf(repoVersion, out)).to.equal('ipfs repo version fs-repo@18\n')
      expect(textOf(repoVersion, out, { quiet: true })).to.equal('fs-repo@18\n')
    })

    it('repo ls is refs local under a second path', async () => {
      expect(repoLs.run).to.equal(refsLocal.run)
      expect(repoLs.path).to.deep.equal(['repo', 'ls'])
      const rows = await node.invoke('repo/ls')
      expect(rows).to.deep.equal(await node.invoke('refs/local'))
      expect(rows).to.deep.include({ Ref: EMPTY_DIR_RAW, Err: '' })
    })

    it('repo migrate: no migrations for repo 18', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-migrate-'))
      try {
        await initRepo(dir)
        expect(await node.invoke('repo/migrate', { options: { 'repo-dir': dir } })).to.deep.equal([{ Message: 'Repository is already at version 18.\n' }])
        await expect(node.invoke('repo/migrate', { options: { 'repo-dir': dir, to: 17 } })).to.be.rejectedWith('downgrade from version 18 to 17 requires --allow-downgrade flag')
        await expect(node.invoke('repo/migrate', { options: { 'repo-dir': path.join(dir, 'nope') } })).to.be.rejectedWith(/^could not get current repo version: stat .*nope: no such file or directory$/)
      } finally {
        await fs.rm(dir, { recursive: true, force: true })
      }
      expect(node.registry.httpAllowed(['repo', 'migrate'])).to.equal(false)
    })

    it('repo migrate: 17 → 18 moves Provider/Reprovider to Provide (Kubo\'s lines), --allow-downgrade puts the old config back', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-migrate-'))
      try {
        await initRepo(dir)
        const cfgFile = path.join(dir, 'config')
        const cfg = JSON.parse(await fs.readFile(cfgFile, 'utf8'))
        delete cfg.Provide
        cfg.Reprovider = { Strategy: 'pinned', Interval: '6h' }
        const old = JSON.stringify(cfg, null, 2)
        await fs.writeFile(cfgFile, old)
        await fs.writeFile(path.join(dir, 'version'), '17')
        const out = (await node.invoke('repo/migrate', { options: { 'repo-dir': dir } }) as Array<{ Message: string }>).map(m => m.Message).join('')
        expect(out).to.include('Running embedded migration fs-repo-17-to-18...\n')
        expect(out).to.include('  Migrated Reprovider.Strategy="pinned" to Provide.Strategy="pinned"\n  Migrated Reprovider.Interval="6h" to Provide.DHT.Interval="6h"\n')
        expect(out.endsWith('Repository successfully migrated to version 18.\n')).to.equal(true)
        const now = JSON.parse(await fs.readFile(cfgFile, 'utf8'))
        expect(now.Provide).to.deep.equal({ Strategy: 'pinned', DHT: { Interval: '6h' } })
        expect(now).to.not.have.property('Reprovider')
        await node.invoke('repo/migrate', { options: { 'repo-dir': dir, to: 17, 'allow-downgrade': true } })
        expect(await fs.readFile(cfgFile, 'utf8')).to.equal(old)
        expect((await fs.readFile(path.join(dir, 'version'), 'utf8')).trim()).to.equal('17')
        await expect(node.invoke('repo/migrate', { options: { 'repo-dir': dir, to: 15, 'allow-downgrade': true } })).to.be.rejectedWith('no embedded migrations found for version 17 to 15')
      } finally {
        await fs.rm(dir, { recursive: true, force: true })
      }
    })
  })

  describe('periodic GC (daemon --enable-gc)', () => {
    it('collects when the repo exceeds the watermark, not below it', async () => {
      const p = await createTestNode({ plugins: [addPlugin(), pinPlugin(), repoPlugin()] })
      const cradle = p.container.cradle
      try {
        const hash = (await p.invoke('add', { files: filesOf({ content: 'periodic\n' }), options: { pin: false } })).at(-1).Hash
        // 10GB, 90%: nothing to do
        let gc = await startPeriodicGc(cradle)
        expect(gc.period).to.equal(3_600_000)
        expect(gc.threshold).to.equal(9_000_000_000)
        expect(await gc.check()).to.equal(false)
        expect(await cradle.blockstore.has(CID.parse(hash))).to.equal(true)
        await gc.stop()
        // a 10-byte limit: over the watermark, collect
        await cradle.config.setKey('Datastore.StorageMax', '10B')
        await cradle.config.setKey('Datastore.GCPeriod', '50ms')
        gc = await startPeriodicGc(cradle)
        expect(gc.period).to.equal(50)
        const deadline = Date.now() + 5000
        while (await cradle.blockstore.has(CID.parse(hash)) && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 20))
        await gc.stop()
        expect(await cradle.blockstore.has(CID.parse(hash))).to.equal(false)
        expect(await cradle.blockstore.has(CID.parse(EMPTY_DIR))).to.equal(true)
      } finally {
        await p.stop()
      }
    })

    it('fills in the defaults and rejects a bad period', async () => {
      const p = await createTestNode({ plugins: [repoPlugin()] })
      const cfg = p.container.cradle.config
      try {
        await cfg.setKey('Datastore.StorageMax', '')
        await cfg.setKey('Datastore.StorageGCWatermark', 0)
        await cfg.setKey('Datastore.GCPeriod', '0')
        const gc = await startPeriodicGc(p.container.cradle)
        expect(gc.period).to.equal(0)
        expect(cfg.getKey('Datastore.StorageMax')).to.equal('10GB')
        expect(cfg.getKey('Datastore.StorageGCWatermark')).to.equal(90)
        await gc.stop()
        await cfg.setKey('Datastore.GCPeriod', 'often')
        await expect(startPeriodicGc(p.container.cradle)).to.be.rejectedWith('time: invalid duration "often"')
      } finally {
        await p.stop()
      }
    })
  })
})
