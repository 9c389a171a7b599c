// ipfs add --nocopy / --fscache and ipfs filestore ls|verify|dups on an on-disk repo with real
// files next to it (Kubo's FileManager root is the repo folder's parent): t0270/t0271 behaviour,
// Kubo's record format and key layout, error texts, output shapes and text.
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
import { filestorePlugin } from '../../../plugins/filestore/index.js'
import { filestoreLs } from '../../../plugins/filestore/ls.js'
import { filestoreVerify } from '../../../plugins/filestore/verify.js'
import { filestoreDups } from '../../../plugins/filestore/dups.js'
import type { FilestoreListOutput } from '../../../plugins/filestore/output.js'
import { decodeDataObj, encodeDataObj, ERR_FILESTORE_NOT_ENABLED } from '../../../core/filestore/index.js'
import { initRepo } from '../../../core/repo/index.js'
import type { FileEntry, TextCall } from '../../../registry/types.js'

use(chaiAsPromised)

const random = (n: number, seed: string): Buffer =>
  createCipheriv('chacha20', createHash('sha256').update(seed).digest(), Buffer.alloc(16)).update(Buffer.alloc(n))

const NOCOPY_DISABLED = 'either the filestore or the urlstore must be enabled to use nocopy, see: https://github.com/ipfs/kubo/blob/master/docs/experimental-features.md#ipfs-filestore'

describe('plugins/filestore', function () {
  this.timeout(60_000)
  let base: string
  let repo: string
  let node: TestNode
  const files: Record<string, Buffer> = {}
  let rows: Array<{ Name: string, Hash: string, Size: string }>
  const text = (options: Record<string, unknown> = {}): TextCall<any> => ({ path: [], args: [], options: { encoding: 'text', ...options } }) as unknown as TextCall<any>

  /** the entries `ipfs add -r somedir` sends, with their absolute paths (as the CLI does) */
  async function * somedir (names = Object.keys(files)): AsyncGenerator<FileEntry> {
    yield { path: 'somedir', type: 'directory' }
    for (const n of names) {
      const abs = path.join(base, 'somedir', n)
      yield { path: `somedir/${n}`, type: 'file', abspath: abs, content: (async function * () { yield await fs.readFile(abs) })() }
    }
  }
  const setExp = async (key: string, value: boolean): Promise<void> => { await node.container.cradle.config.setKey(`Experimental.${key}`, value) }
  const hashOf = (name: string): string => rows.find(r => r.Name === name)?.Hash as string
  const mainCount = async (): Promise<number> => (await (node.container.cradle.blockstore as unknown as { stat: () => Promise<{ count: number }> }).stat()).count

  before(async () => {
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-filestore-'))
    repo = path.join(base, '.ipfs')
    await initRepo(repo)
    node = await createTestNode({ repoPath: repo, plugins: [addPlugin(), catPlugin(), filestorePlugin()] })
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

  it('t0270: --nocopy needs the filestore or the urlstore', async () => {
    await expect(node.invoke('add', { files: somedir(), options: { nocopy: true, recursive: true } })).to.be.rejectedWith(NOCOPY_DISABLED)
    await expect(node.invoke('filestore/ls', {})).to.be.rejectedWith(ERR_FILESTORE_NOT_ENABLED)
    await setExp('UrlstoreEnabled', true)
    await expect(node.invoke('add', { files: somedir(), options: { nocopy: true, recursive: true } })).to.be.rejectedWith('filestore is not enabled')
    await setExp('UrlstoreEnabled', false)
    await setExp('FilestoreEnabled', true)
  })

  it('t0271: a nocopy add has the CIDs of a raw-leaves add and stores only the non-leaf blocks', async () => {
    const before = await mainCount()
    rows = await node.invoke('add', { files: somedir(), options: { nocopy: true, 'raw-leaves': true, recursive: true } })
    // file1 and file2 are single raw leaves: only file3's root and the directory are stored
    expect(await mainCount() - before).to.equal(2)
    const { importFiles, resolveImportSettings } = await import('../../../core/unixfs/index.js')
    const settings = resolveImportSettings({ rawLeaves: true })
    let expected = ''
    const sink = { put: async () => {} }
    const entries = async function * (): AsyncGenerator<FileEntry> {
      yield { path: 'somedir', type: 'directory' }
      for (const [n, b] of Object.entries(files)) yield { path: `somedir/${n}`, type: 'file', content: (async function * () { yield b })() }
    }
    for await (const r of importFiles(entries(), sink, settings)) if (r.path === 'somedir') expected = r.cid.toString()
    expect(hashOf('somedir')).to.equal(expected)
    // the bytes come back from the files
    expect(Buffer.compare(await node.invoke('cat', { args: [hashOf('somedir/file3')] }), files.file3)).to.equal(0)
  })

  it('t0271: filestore ls lists the references (key order, or --file-order), with Kubo\'s text', async () => {
    const byKey = await node.invoke('filestore/ls', {}) as FilestoreListOutput[]
    expect(byKey).to.have.lengthOf(6)
    const inFileOrder = await node.invoke('filestore/ls', { options: { 'file-order': true } }) as FilestoreListOutput[]
    expect(inFileOrder.map(r => [r.FilePath, r.Offset, r.Size])).to.deep.equal([
      ['somedir/file1', 0, 1000],
      ['somedir/file2', 0, 10000],
      ['somedir/file3', 0, 262144],
      ['somedir/file3', 262144, 262144],
      ['somedir/file3', 524288, 262144],
      ['somedir/file3', 786432, 213568]
    ])
    expect(inFileOrder[0]).to.deep.equal({ Status: 0, ErrorMsg: '', Key: { '/': hashOf('somedir/file1') }, FilePath: 'somedir/file1', Offset: 0, Size: 1000 })
    expect(new Set(byKey.map(r => r.Key?.['/']))).to.deep.equal(new Set(inFileOrder.map(r => r.Key?.['/'])))
    expect(filestoreLs.text?.(inFileOrder[0], text())).to.equal(`${hashOf('somedir/file1')}   1000 somedir/file1 0\n`)
    const b32 = filestoreLs.text?.(inFileOrder[0], text({ cidBase: 'base36' }))
    expect(b32?.startsWith(CID.parse(hashOf('somedir/file1')).toString((await import('multiformats/bases/base36')).base36))).to.equal(true)
    // by argument (verified); a bad argument is an ERROR row
    const one = await node.invoke('filestore/ls', { args: [hashOf('somedir/file1'), 'notacid'] }) as FilestoreListOutput[]
    expect(one[0].FilePath).to.equal('somedir/file1')
    expect(one[1]).to.deep.include({ Status: 20, Key: null, ErrorMsg: 'notacid: invalid path "notacid": path does not have enough components' })
    expect(filestoreLs.textStream?.(one[1])).to.equal('stderr')
  })

  it('the index is Kubo\'s: /filestore/<base32 multihash> → DataObj{FilePath, Offset, Size}', async () => {
    const bytes = encodeDataObj({ filePath: 'somedir/file1', offset: 0, size: 1000 })
    expect(Buffer.from(bytes).toString('hex')).to.equal('0a0d' + Buffer.from('somedir/file1').toString('hex') + '1000' + '18e807')
    expect(decodeDataObj(bytes)).to.deep.equal({ filePath: 'somedir/file1', offset: 0, size: 1000 })
    const keys: string[] = []
    for await (const k of node.container.cradle.datastore.queryKeys({ prefix: '/filestore' })) keys.push(k.toString())
    expect(keys).to.have.lengthOf(6)
    for (const k of keys) expect(k).to.match(/^\/filestore\/CIQ[A-Z2-7]+$/)
  })

  it('t0271: verify reports ok, no-file, changed; --remove-bad-blocks drops the bad references', async () => {
    let v = await node.invoke('filestore/verify', {}) as FilestoreListOutput[]
    expect(v.map(r => r.Status)).to.deep.equal([0, 0, 0, 0, 0, 0])
    expect(filestoreVerify.text?.(v[0], text())).to.match(/^ok {6}bafkrei\w+ +\d+ somedir\/file\d \d+\n$/)
    // a moved file
    await fs.rename(path.join(base, 'somedir/file1'), path.join(base, 'somedir/file1.bk'))
    await expect(node.invoke('cat', { args: [hashOf('somedir/file1')] })).to.be.rejectedWith(`open ${path.join(base, 'somedir/file1')}: no such file or directory`)
    v = await node.invoke('filestore/verify', {}) as FilestoreListOutput[]
    const missing = v.find(r => r.FilePath === 'somedir/file1') as FilestoreListOutput
    expect(missing.Status).to.equal(11)
    expect(filestoreVerify.text?.(missing, text())).to.match(/^no-file bafkrei/)
    await fs.rename(path.join(base, 'somedir/file1.bk'), path.join(base, 'somedir/file1'))
    expect(Buffer.compare(await node.invoke('cat', { args: [hashOf('somedir/file1')] }), files.file1)).to.equal(0)
    // a changed file
    const fh = await fs.open(path.join(base, 'somedir/file3'), 'r+')
    await fh.write(Buffer.alloc(1024), 0, 1024, 0)
    await fh.close()
    await expect(node.invoke('cat', { args: [hashOf('somedir/file3')] })).to.be.rejectedWith('data in file did not match. somedir/file3 offset 0')
    v = await node.invoke('filestore/verify', { options: { 'file-order': true } }) as FilestoreListOutput[]
    expect(v.map(r => r.Status)).to.deep.equal([0, 0, 12, 0, 0, 0])
    const removed = await node.invoke('filestore/verify', { options: { 'remove-bad-blocks': true } }) as FilestoreListOutput[]
    const changed = removed.find(r => r.Status === 12) as FilestoreListOutput
    expect(filestoreVerify.text?.(changed, text({ removeBadBlocks: true }))).to.match(/^changed bafkrei\w+ 262144 somedir\/file3 0 remove\n$/)
    expect(filestoreVerify.text?.(removed.find(r => r.Status === 0) as FilestoreListOutput, text({ removeBadBlocks: true }))).to.match(/ keep\n$/)
    v = await node.invoke('filestore/verify', {}) as FilestoreListOutput[]
    expect(v).to.have.lengthOf(5)
    expect(v.every(r => r.Status === 0)).to.equal(true)
    // a reference that is gone: missing
    const gone = await node.invoke('filestore/verify', { args: [changed.Key?.['/'] as string] }) as FilestoreListOutput[]
    expect(gone[0]).to.deep.include({ Status: 30, FilePath: '' })
    expect(filestoreVerify.text?.(gone[0], text())).to.equal(`missing ${changed.Key?.['/'] as string}\n`)
    await fs.writeFile(path.join(base, 'somedir/file3'), files.file3)
  })

  it('t0271: dups lists blocks held both ways', async () => {
    expect(await node.invoke('filestore/dups', {})).to.deep.equal([])
    await node.invoke('add', { files: (async function * (): AsyncGenerator<FileEntry> { yield { path: 'file1', type: 'file', content: (async function * () { yield files.file1 })() } })(), options: { 'raw-leaves': true } })
    const dups = await node.invoke('filestore/dups', {})
    expect(dups).to.deep.equal([{ Ref: hashOf('somedir/file1'), Err: '' }])
    expect(filestoreDups.text?.(dups[0], text())).to.equal(`${hashOf('somedir/file1')}\n`)
  })

  it('t0270: --fscache does not copy data the filestore holds; a plain add does', async () => {
    const before = await mainCount()
    await node.invoke('add', { files: somedir(['file2']), options: { 'raw-leaves': true, recursive: true, fscache: true } })
    expect(await mainCount() - before).to.equal(1) // only the new directory node
    await node.invoke('add', { files: somedir(['file2']), options: { 'raw-leaves': true, recursive: true } })
    expect(await mainCount() - before).to.equal(2)
  })

  it('references must be inside the repo folder\'s parent and need a path', async () => {
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-outside-'))
    try {
      const abs = path.join(outside, 'f')
      await fs.writeFile(abs, 'outside')
      const entries = async function * (): AsyncGenerator<FileEntry> { yield { path: 'f', type: 'file', abspath: abs, content: (async function * () { yield Buffer.from('outside') })() } }
      await expect(node.invoke('add', { files: entries(), options: { nocopy: true } })).to.be.rejectedWith(`cannot add filestore references outside ipfs root (${base})`)
      const noPath = async function * (): AsyncGenerator<FileEntry> { yield { path: 'f', type: 'file', content: (async function * () { yield Buffer.from('x') })() } }
      await expect(node.invoke('add', { files: noPath(), options: { nocopy: true } })).to.be.rejectedWith("missing file path or URL, can't create filestore reference")
    } finally {
      await fs.rm(outside, { recursive: true, force: true })
    }
  })
})
