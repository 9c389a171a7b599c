// The filestore as part of the node's blockstore (boxo Filestore over flatfs + FileManager, as Kubo
// builds it when Experimental.FilestoreEnabled/UrlstoreEnabled is set): refs local and repo stat list
// its references after the stored blocks, repo gc and block rm remove references (never the files),
// repo verify checks the /blocks store only. On-disk repo, real files next to it.
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createCipheriv, createHash } from 'node:crypto'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { catPlugin } from '../../../plugins/cat/index.js'
import { blockPlugin } from '../../../plugins/block/index.js'
import { filesPlugin } from '../../../plugins/files/index.js'
import { filestorePlugin } from '../../../plugins/filestore/index.js'
import { pinPlugin } from '../../../plugins/pin/index.js'
import { refsPlugin } from '../../../plugins/refs/index.js'
import { repoPlugin } from '../../../plugins/repo/index.js'
import type { FilestoreListOutput } from '../../../plugins/filestore/output.js'
import { listKeys } from '../../../core/gc/index.js'
import { initRepo } from '../../../core/repo/index.js'
import type { Filestore } from '../../../core/filestore/index.js'
import type { NodeBlockstore } from '../../../core/blockstore/index.js'
import type { FileEntry } from '../../../registry/types.js'

use(chaiAsPromised)

const random = (n: number, seed: string): Buffer =>
  createCipheriv('chacha20', createHash('sha256').update(seed).digest(), Buffer.alloc(16)).update(Buffer.alloc(n))

/** t0271's file3 leaves (1000000 bytes in 256 KiB chunks) */
const FILE3_LEAVES = 4

describe('plugins/filestore: references in the node\'s blockstore', function () {
  this.timeout(60_000)
  let base: string
  let node: TestNode
  const files: Record<string, Buffer> = {}

  /** `ipfs add -r somedir` entries with their absolute paths (as the CLI sends them) */
  async function * somedir (names = Object.keys(files)): AsyncGenerator<FileEntry> {
    yield { path: 'somedir', type: 'directory' }
    for (const n of names) {
      const abs = path.join(base, 'somedir', n)
      yield { path: `somedir/${n}`, type: 'file', abspath: abs, content: (async function * () { yield await fs.readFile(abs) })() }
    }
  }
  const addNocopy = async (options: Record<string, unknown> = {}): Promise<Map<string, string>> => {
    const rows = await node.invoke('add', { files: somedir(), options: { nocopy: true, 'raw-leaves': true, recursive: true, ...options } }) as Array<{ Name: string, Hash: string }>
    return new Map(rows.map(r => [r.Name, r.Hash]))
  }
  const filestore = (): Filestore => node.container.cradle.filestore
  const refKeys = async (): Promise<string[]> => (await node.invoke('filestore/ls', {}) as FilestoreListOutput[]).map(r => r.Key?.['/'] as string)
  const mainKeys = async (): Promise<string[]> => {
    const out: string[] = []
    for await (const k of listKeys(node.container.cradle.blockstore)) out.push(k.toString())
    return out
  }
  const refsLocal = async (): Promise<string[]> => (await node.invoke('refs/local', {}) as Array<{ Ref: string }>).map(r => r.Ref)
  const gc = async (): Promise<string[]> => (await node.invoke('repo/gc', {}) as Array<{ Key: { '/': string } }>).map(r => r.Key['/'])
  const numObjects = async (): Promise<number> => (await node.invoke('repo/stat', {})).NumObjects
  const setExp = async (key: string, value: boolean): Promise<void> => { await node.container.cradle.config.setKey(`Experimental.${key}`, value) }
  const filesIntact = async (): Promise<void> => {
    for (const [n, b] of Object.entries(files)) expect(Buffer.compare(await fs.readFile(path.join(base, 'somedir', n)), b)).to.equal(0, n)
  }

  before(async () => {
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-fsbs-'))
    const repo = path.join(base, '.ipfs')
    await initRepo(repo)
    node = await createTestNode({
      repoPath: repo,
      plugins: [addPlugin(), catPlugin(), blockPlugin(), filesPlugin(), filestorePlugin(), pinPlugin(), refsPlugin(), repoPlugin()]
    })
    await setExp('FilestoreEnabled', true)
    await fs.mkdir(path.join(base, 'somedir'))
    files.file1 = random(1000, '1')
    files.file2 = random(10000, '2')
    files.file3 = random(1000000, '3')
    for (const [n, b] of Object.entries(files)) await fs.writeFile(path.join(base, 'somedir', n), b)
  })
  after(async () => {
    await node.stop()
    await fs.rm(base, { recursive: true, force: true })
  })
  afterEach(async () => {
    // back to an empty filestore, the files as written
    await setExp('FilestoreEnabled', true)
    await setExp('UrlstoreEnabled', false)
    const pins = node.container.cradle.pins
    for (const list of [pins.recursiveKeys(), pins.directKeys()]) {
      for await (const r of list) {
        if (r.toString() !== 'QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn') await node.invoke('pin/rm', { args: [r.toString()] })
      }
    }
    await node.invoke('files/rm', { args: ['/kept'], options: { recursive: true, force: true } }).catch(() => {})
    await gc()
    expect(await refKeys()).to.deep.equal([])
    for (const [n, b] of Object.entries(files)) await fs.writeFile(path.join(base, 'somedir', n), b)
  })

  it('refs local lists the stored blocks, then the references in key order (CIDv1 raw)', async () => {
    const before = await refsLocal()
    const added = await addNocopy()
    const refs = await refKeys()
    expect(refs).to.have.lengthOf(2 + FILE3_LEAVES)
    expect(refs).to.include(added.get('somedir/file1'))
    const listed = await refsLocal()
    const main = await mainKeys()
    expect(listed).to.deep.equal([...main, ...refs])
    expect(listed.length - before.length).to.equal(2 + 2 + FILE3_LEAVES) // + somedir and file3 roots
    // text: one CID a line
    const { refsLocal: spec } = await import('../../../plugins/refs/local.js')
    expect(spec.text?.({ Ref: refs[0], Err: '' }, { path: ['refs', 'local'], args: [], options: {} } as any)).to.equal(`${refs[0]}\n`)
  })

  it('repo stat counts the references in NumObjects; RepoSize does not count the files', async () => {
    const before = await node.invoke('repo/stat', {})
    await addNocopy()
    const after = await node.invoke('repo/stat', {})
    expect(after.NumObjects - before.NumObjects).to.equal(2 + 2 + FILE3_LEAVES)
    expect(after.NumObjects).to.equal((await refsLocal()).length)
    // t0270: the repo stays well below the data's size
    expect(after.RepoSize - before.RepoSize).to.be.lessThan(100_000)
    const sizeOnly = await node.invoke('repo/stat', { options: { 'size-only': true } })
    expect(sizeOnly.NumObjects).to.equal(0)
  })

  it('pinned references survive repo gc; unpinned ones are removed and streamed, the files untouched', async () => {
    const added = await addNocopy()
    const root = added.get('somedir') as string
    const refs = await refKeys()
    const removedPinned = await gc()
    for (const r of refs) expect(removedPinned).to.not.include(r)
    expect(await refKeys()).to.deep.equal(refs)
    expect(Buffer.compare(await node.invoke('cat', { args: [added.get('somedir/file3') as string] }), files.file3)).to.equal(0)

    const mainBefore = await mainKeys()
    await node.invoke('pin/rm', { args: [root] })
    const removed = await gc()
    // the stored blocks first (somedir and file3 roots), then the references in key order
    const rawOf = (c: string): string => CID.createV1(0x55, CID.parse(c).multihash).toString()
    expect(new Set(removed.slice(0, 2))).to.deep.equal(new Set([rawOf(root), rawOf(added.get('somedir/file3') as string)]))
    expect(removed.slice(2)).to.deep.equal(refs)
    expect(await refKeys()).to.deep.equal([])
    expect(await mainKeys()).to.have.lengthOf(mainBefore.length - 2)
    expect(await refsLocal()).to.not.include(refs[0])
    expect(await node.container.cradle.blockstore.has(CID.parse(added.get('somedir/file1') as string))).to.equal(false)
    await filesIntact()
    // text output as Kubo's
    const { repoGc } = await import('../../../plugins/repo/gc.js')
    expect(repoGc.text?.({ Key: { '/': refs[0] } }, { path: ['repo', 'gc'], args: [], options: {} } as any)).to.equal(`removed ${refs[0]}\n`)
  })

  it('references reachable from MFS or a direct pin are kept by repo gc', async () => {
    const added = await addNocopy({ pin: false })
    await node.invoke('files/cp', { args: [`/ipfs/${added.get('somedir/file3') as string}`, '/kept'] })
    await node.invoke('pin/add', { args: [added.get('somedir/file1') as string], options: { recursive: false } })
    const removed = await gc()
    const left = await refKeys()
    expect(left).to.have.lengthOf(1 + FILE3_LEAVES)
    expect(left).to.include(added.get('somedir/file1'))
    expect(removed).to.include(added.get('somedir/file2'))
    for (const k of left) expect(removed).to.not.include(k)
    expect(Buffer.compare(await node.invoke('files/read', { args: ['/kept'] }), files.file3)).to.equal(0)
  })

  it('a block held both ways: listed twice by refs local and repo stat, gone from both with one gc entry', async () => {
    const added = await addNocopy({ pin: false })
    const file1 = added.get('somedir/file1') as string
    await node.invoke('block/put', { files: (async function * (): AsyncGenerator<FileEntry> { yield { path: '', type: 'file', content: (async function * () { yield files.file1 })() } })(), options: { format: 'raw', 'cid-codec': 'raw' } })
    expect(await node.invoke('filestore/dups', {})).to.deep.equal([{ Ref: file1, Err: '' }])
    const listed = await refsLocal()
    expect(listed.filter(r => r === file1)).to.have.lengthOf(2)
    expect(await numObjects()).to.equal(listed.length)
    const removed = await gc()
    expect(removed.filter(r => r === file1)).to.have.lengthOf(1)
    expect(await node.container.cradle.blockstore.has(CID.parse(file1))).to.equal(false)
    expect(await refKeys()).to.deep.equal([])
  })

  it('while neither store is enabled the references are not the node\'s: not listed, not collected', async () => {
    await addNocopy({ pin: false })
    const refs = await refKeys()
    const objects = await numObjects()
    await setExp('FilestoreEnabled', false)
    expect(await refsLocal()).to.not.include(refs[0])
    expect(await numObjects()).to.equal(objects - refs.length)
    const removed = await gc()
    expect(removed).to.not.include(refs[0])
    await setExp('FilestoreEnabled', true)
    expect(await refKeys()).to.deep.equal(refs)
  })

  it('repo gc removes urlstore references too (t0272: garbage collect file1 from the urlstore)', async () => {
    await setExp('UrlstoreEnabled', true)
    const cid = CID.parse('bafkreihlljddclccvh7zvctdmeqgpnvmw3jponnfapm4r6o7tamektsz5a')
    await filestore().putRefs([{ cid, ref: filestore().refFor('http://127.0.0.1:1/ipfs/QmY7HZ3cPJPxzjMZeixDtbvEk8eyExVFDR189Dpavcoqyg', 0, 2222) }])
    expect(await refsLocal()).to.include(cid.toString())
    expect(await gc()).to.include(cid.toString())
    expect(await filestore().getRef(cid)).to.equal(undefined)
  })

  it('block rm removes a reference (not the file), with the pin checks of any block', async () => {
    const added = await addNocopy()
    const root = added.get('somedir') as string
    const file2 = added.get('somedir/file2') as string
    // block stat / get read the file
    expect(await node.invoke('block/stat', { args: [file2] })).to.deep.equal({ Key: file2, Size: 10000 })
    expect(Buffer.compare(await node.invoke('block/get', { args: [file2] }), files.file2)).to.equal(0)
    expect(await node.invoke('block/rm', { args: [file2] })).to.deep.equal([{ Hash: file2, Error: `pinned via ${root}` }])
    expect(await refKeys()).to.include(file2)
    await node.invoke('pin/rm', { args: [root] })
    const store = node.container.cradle.blockstore as NodeBlockstore
    const generation = store.generation
    expect(generation).to.be.a('number')
    expect(await node.invoke('block/rm', { args: [file2] })).to.deep.equal([{ Hash: file2 }])
    // a cache of reads (the gateway's) sees the removal
    expect(store.generation).to.not.equal(generation)
    expect(await refKeys()).to.not.include(file2)
    expect((await node.invoke('filestore/ls', { args: [file2] }))[0]).to.deep.include({ Status: 30, ErrorMsg: `ipld: could not find ${file2}` })
    await filesIntact()
    expect(await node.invoke('block/rm', { args: [file2] })).to.deep.equal([{ Hash: file2, Error: `ipld: could not find ${file2}` }])
    expect(await node.invoke('block/rm', { args: [file2], options: { force: true } })).to.deep.equal([{ Hash: file2 }])
    await expect(node.invoke('block/stat', { args: [file2] })).to.be.rejectedWith(`block was not found locally (offline): ipld: could not find ${file2}`)
  })

  it('block stat/get of a reference whose file changed fail with the filestore\'s error', async () => {
    const added = await addNocopy()
    const fh = await fs.open(path.join(base, 'somedir/file3'), 'r+')
    await fh.write(Buffer.alloc(1024), 0, 1024, 0)
    await fh.close()
    const first = (await node.invoke('filestore/ls', { options: { 'file-order': true } }) as FilestoreListOutput[])
      .find(r => r.FilePath === 'somedir/file3' && r.Offset === 0)?.Key?.['/'] as string
    await expect(node.invoke('block/stat', { args: [first] })).to.be.rejectedWith('data in file did not match. somedir/file3 offset 0')
    await expect(node.invoke('block/get', { args: [first] })).to.be.rejectedWith('data in file did not match. somedir/file3 offset 0')
    expect(added.size).to.equal(4)
  })

  it('repo verify checks the /blocks store only (Kubo: a blockstore over the repo datastore), not the references', async () => {
    await addNocopy()
    await fs.rm(path.join(base, 'somedir/file1'))
    const rows = await node.invoke('repo/verify', {}) as Array<{ Msg: string, Progress: number }>
    expect(rows.at(-1)).to.deep.equal({ Msg: 'verify complete, all blocks validated.', Progress: 0 })
    expect(rows.filter(r => r.Msg === '')).to.have.lengthOf((await mainKeys()).length)
  })

  it('filestore verify --remove-bad-blocks of a missing reference reports it and goes on', async () => {
    const missing = 'bafkreihed5ipyj3uenaem5zroilgdrhp4lvs7c2r6ldgcd7is66xj6izmi'
    const rows = await node.invoke('filestore/verify', { args: [missing], options: { 'remove-bad-blocks': true } }) as FilestoreListOutput[]
    expect(rows).to.deep.equal([{ Status: 30, ErrorMsg: `ipld: could not find ${missing}`, Key: { '/': missing }, FilePath: '', Offset: 0, Size: 0 }])
  })
})
