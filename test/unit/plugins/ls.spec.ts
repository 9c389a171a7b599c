import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { PassThrough } from 'node:stream'
import { CID } from 'multiformats/cid'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { execute, textCall } from '../../../registry/execute.js'
import type { InvokeInput } from '../../../registry/registry.js'
import { lsPlugin } from '../../../plugins/ls/index.js'
import type { LsOutput } from '../../../plugins/ls/output.js'
import { formatMode, formatModTime, goFileMode, goTimeJson } from '../../../plugins/ls/format.js'
import { importBytes, importEntries, pseudoRandom, putBlock, putDir, putFile } from './unixfs-helper.js'

use(chaiAsPromised)

// t0045's testData without the random-data files: f1, f2, d1/a, d2/a, d2/bad\x7fname.txt
const F1 = 'QmeomffUNfmQy76CQGy9NdmqEnnHU9soCexBnGU3ezPHVH'
const F2 = 'QmNtocSs7MoDkJMc1RkyisCSKvLadujPsfJfSdJ3e1eA1M'
const D1A = 'QmZULkCELmmk5XNfCgTnCyFgAVxBRBXyDHGGMVoLFLiXEN'
const D2A = 'QmaRGe7bVmVaLmxbrMiVNXqW4pRNNp3xq7hFtyRKA3mtJL'
const BAD = 'QmQSLRRd1Lxn6NMsWmmj2g9W3LtSRfmVAVqU3ShneLUrbn'

/** run a command and render it as the CLI would (cliRender, else the text encoder) */
async function cli (node: TestNode, input: InvokeInput): Promise<string> {
  const prepared = node.registry.prepare(['ls'], input)
  const outcome = await execute(prepared, node.container, { signal: new AbortController().signal })
  const stdout = new PassThrough()
  const chunks: Buffer[] = []
  stdout.on('data', (c: Buffer) => chunks.push(c))
  await prepared.command.cliRender?.(outcome, textCall(prepared) as never, { stdout, stderr: new PassThrough(), isTTY: false, cwd: process.cwd() })
  return Buffer.concat(chunks).toString()
}

/** the text encoder (HTTP ?encoding=text), applied to every value */
async function text (node: TestNode, input: InvokeInput): Promise<string> {
  const prepared = node.registry.prepare(['ls'], input)
  const value = await node.invoke('ls', input)
  const values = Array.isArray(value) ? value : [value]
  return values.map(v => prepared.command.text?.(v, textCall(prepared) as never) ?? '').join('')
}

describe('ls plugin', () => {
  let node: TestNode
  let root: string
  let d1: string
  let d2: string
  before(async () => {
    node = await createTestNode({ plugins: [lsPlugin()] })
    const added = await importEntries(node.container.cradle.blockstore, [
      { path: 'testData/f1', content: 'test\n' },
      { path: 'testData/f2', content: 'data\n' },
      { path: 'testData/d1/a', content: 'hello\n' },
      { path: 'testData/d2/a', content: 'world\n' },
      { path: 'testData/d2/bad\x7fname.txt', content: 'badname\n' }
    ])
    expect([added.get('testData/f1'), added.get('testData/f2'), added.get('testData/d1/a'), added.get('testData/d2/a'), added.get('testData/d2/bad\x7fname.txt')])
      .to.deep.equal([F1, F2, D1A, D2A, BAD])
    root = added.get('testData') as string
    d1 = added.get('testData/d1') as string
    d2 = added.get('testData/d2') as string
  })
  after(async () => { await node.stop() })

  it('returns LsOutput with Kubo fields, sorted by name', async () => {
    const out: LsOutput = await node.invoke('ls', { args: [root] })
    expect(out.Objects).to.have.length(1)
    expect(out.Objects[0].Hash).to.equal(root)
    const links = out.Objects[0].Links
    expect(links.map(l => l.Name)).to.deep.equal(['d1', 'd2', 'f1', 'f2'])
    expect(Object.keys(links[0])).to.deep.equal(['Name', 'Hash', 'Size', 'Type', 'Target', 'Mode', 'ModTime'])
    expect(links[0]).to.deep.equal({ Name: 'd1', Hash: d1, Size: 0, Type: 1, Target: '', Mode: 0, ModTime: '0001-01-01T00:00:00Z' })
    expect(links[2]).to.deep.include({ Name: 'f1', Hash: F1, Size: 5, Type: 2 })
  })

  it('prints t0045 tables: several directories, --size=false, --headers', async () => {
    const args = [root, d2, d1]
    expect(await cli(node, { args })).to.equal(
      `${root}:\n` +
      `${d1} - d1/\n` +
      `${d2} - d2/\n` +
      `${F1} 5 f1\n` +
      `${F2} 5 f2\n` +
      '\n' +
      `${d2}:\n` +
      `${D2A} 6 a\n` +
      `${BAD} 8 bad\\x7fname.txt\n` +
      '\n' +
      `${d1}:\n` +
      `${D1A} 6 a\n`)
    expect(await cli(node, { args: [d2], options: { size: false } })).to.equal(`${D2A} a\n${BAD} bad\\x7fname.txt\n`)
    expect(await cli(node, { args: [d2], options: { headers: true } })).to.equal(
      'Hash                                           Size Name\n' +
      `${D2A} 6    a\n` +
      `${BAD} 8    bad\\x7fname.txt\n`)
    // the HTTP text encoder renders the same for a single value
    expect(await text(node, { args })).to.equal(await cli(node, { args }))
  })

  it('streams one link per value (t0045 --stream)', async () => {
    const out: LsOutput[] = await node.invoke('ls', { args: [root, d2], options: { stream: true } })
    expect(out).to.have.length(6)
    expect(out[0]).to.deep.include({ Objects: [{ Hash: root, Links: [out[0].Objects[0].Links[0]] }] })
    expect(out.map(o => o.Objects[0].Links[0].Name)).to.deep.equal(['d1', 'd2', 'f1', 'f2', 'a', 'bad\x7fname.txt'])
    expect(await cli(node, { args: [root, d2], options: { stream: true, headers: true } })).to.equal(
      `${root}:\n` +
      'Hash                                           Size      Name\n' +
      `${d1} -         d1/\n` +
      `${d2} -         d2/\n` +
      `${F1} 5         f1\n` +
      `${F2} 5         f2\n` +
      '\n' +
      `${d2}:\n` +
      'Hash                                           Size      Name\n' +
      `${D2A} 6         a\n` +
      `${BAD} 8         bad\\x7fname.txt\n`)
    // over HTTP the text stream has no headers and no breaks
    expect(await text(node, { args: [root, d2], options: { stream: true } })).to.equal(
      `${d1} -         d1/\n${d2} -         d2/\n${F1} 5         f1\n${F2} 5         f2\n${D2A} 6         a\n${BAD} 8         bad\\x7fname.txt\n`)
  })

  it('lists raw leaves with their size (t0045 raw leaves)', async () => {
    const added = await importEntries(node.container.cradle.blockstore, [{ path: 'somedir/foo', content: 'bar\n' }], { rawLeaves: true })
    expect(added.get('somedir')).to.equal('QmThNTdtKaVoCVrYmM5EBS6U3S5vfKFue2TxbxxAxRcKKE')
    expect(await cli(node, { args: ['QmThNTdtKaVoCVrYmM5EBS6U3S5vfKFue2TxbxxAxRcKKE'] })).to.equal('bafkreid5qzpjlgzem2iyzgddv7fjilipxcoxzgwazgn27q3usucn5wlxga 4 foo\n')
    expect(await cli(node, { args: ['QmThNTdtKaVoCVrYmM5EBS6U3S5vfKFue2TxbxxAxRcKKE'], options: { size: true } })).to.equal('bafkreid5qzpjlgzem2iyzgddv7fjilipxcoxzgwazgn27q3usucn5wlxga 4 foo\n')
  })

  it('lists the chunks of a multi-block file (t0045 ls object)', async () => {
    const file = await importBytes(node.container.cradle.blockstore, pseudoRandom(500000, 2))
    const out: LsOutput = await node.invoke('ls', { args: [file] })
    const links = out.Objects[0].Links
    expect(links.map(l => [l.Name, l.Size, l.Type])).to.deep.equal([['', 262144, 2], ['', 237856, 2]])
    expect(await cli(node, { args: [file] })).to.equal(`${links[0].Hash} 262144 \n${links[1].Hash} 237856 \n`)
    // a single-block file has no links
    expect((await node.invoke('ls', { args: [F1] }) as LsOutput).Objects).to.deep.equal([{ Hash: F1, Links: [] }])
  })

  it('lists HAMT entries like the same basic directory (t0260)', async function () {
    this.timeout(60000)
    const files = []
    for (let i = 1; i <= 2000; i++) files.push({ path: `testdata/file${i}`, content: `${i}\n` })
    const sharded = await importEntries(node.container.cradle.blockstore, files, { shardSplitThresholdBytes: 1 })
    const unsharded = await importEntries(node.container.cradle.blockstore, files, { shardSplitThresholdBytes: 1e9 })
    expect(sharded.get('testdata')).to.equal('QmSCJD1KYLhVVHqBK3YyXuoEqHt7vggyJhzoFYbT8v1XYL')
    expect(unsharded.get('testdata')).to.equal('QmavrTrQG4VhoJmantURAYuw3bowq3E2WcvP36NRQDAC1N')
    const a: LsOutput = await node.invoke('ls', { args: ['QmSCJD1KYLhVVHqBK3YyXuoEqHt7vggyJhzoFYbT8v1XYL'] })
    const b: LsOutput = await node.invoke('ls', { args: ['QmavrTrQG4VhoJmantURAYuw3bowq3E2WcvP36NRQDAC1N'] })
    expect(a.Objects[0].Links).to.have.length(2000)
    expect(a.Objects[0].Links).to.deep.equal(b.Objects[0].Links)
    expect(a.Objects[0].Links.find(l => l.Name === 'file100')?.Hash).to.equal('QmZ3RfWk1u5LEGYLHA633B5TNJy3Du27K6Fny9wcxpowGS')
  })

  it('shows mode and mtime with --long (ls_test.go)', async () => {
    const bs = node.container.cradle.blockstore
    const mtime = { secs: Date.UTC(2020, 5, 15, 10, 30) / 1000 }
    const readableF = await putFile(bs, 'hello', { mode: 0o644, mtime })
    const exeF = await putFile(bs, '#!/bin/sh\necho hi', { mode: 0o755, mtime })
    const subD = await putDir(bs, [], { mode: 0o755 })
    const metaD = await putDir(bs, [{ name: 'readable.txt', ...readableF }, { name: 'executable.sh', ...exeF }, { name: 'sub', ...subD }])
    const dir = metaD.cid.toString()
    const out: LsOutput = await node.invoke('ls', { args: [dir] })
    const [exe, readable, sub] = out.Objects[0].Links
    expect(exe).to.deep.include({ Name: 'executable.sh', Mode: 0o755, ModTime: '2020-06-15T10:30:00Z' })
    expect(readable).to.deep.include({ Mode: 0o644 })
    expect(sub).to.deep.include({ Name: 'sub', Type: 1, Mode: 2 ** 31 + 0o755, ModTime: '0001-01-01T00:00:00Z' })
    const lines = (await cli(node, { args: [dir], options: { long: true } })).split('\n')
    expect(lines[0]).to.equal(`-rwxr-xr-x ${exe.Hash} 17 Jun 15  2020 executable.sh`)
    expect(lines[1]).to.equal(`-rw-r--r-- ${readable.Hash} 5  Jun 15  2020 readable.txt`)
    expect(lines[2]).to.equal(`drwxr-xr-x ${sub.Hash} -  -            sub/`)
    const headers = (await cli(node, { args: [dir], options: { long: true, headers: true, size: false } })).split('\n')[0]
    expect(headers.split(/ +/)).to.deep.equal(['Mode', 'Hash', 'ModTime', 'Name'])
    expect((await cli(node, { args: [F1], options: { long: true } }))).to.equal('')
  })

  it('reports symlinks with their target (Type 4)', async () => {
    const bs = node.container.cradle.blockstore
    const { UnixFS } = await import('ipfs-unixfs')
    const target = 'files/foo/baz'
    const link = await putBlock(bs, 'dag-pb', { Data: new UnixFS({ type: 'symlink', data: new TextEncoder().encode(target) }).marshal(), Links: [] }, true)
    const d = await putDir(bs, [{ name: 'baz', cid: link, size: 21 }])
    const out: LsOutput = await node.invoke('ls', { args: [d.cid.toString()] })
    expect(out.Objects[0].Links).to.deep.equal([{ Name: 'baz', Hash: link.toString(), Size: target.length, Type: 4, Target: target, Mode: 0, ModTime: '0001-01-01T00:00:00Z' }])
    expect(await cli(node, { args: [d.cid.toString()] })).to.equal(`${link} 13 baz\n`)
  })

  it('formats modes and times as Go does', () => {
    expect(formatMode(goFileMode(0o4755, 'file'))).to.equal('-rwsr-xr-x')
    expect(formatMode(goFileMode(0o1644, 'dir'))).to.equal('drw-r--r-T')
    expect(formatMode(goFileMode(0o2777, 'symlink'))).to.equal('lrwxrwsrwx')
    expect(goFileMode(0, 'dir')).to.equal(0)
    expect(goTimeJson({ secs: 1592217000, nsecs: 500000000 })).to.equal('2020-06-15T10:30:00.5Z')
    expect(goTimeJson({ secs: 1592217000, nsecs: 123 })).to.equal('2020-06-15T10:30:00.000000123Z')
    expect(goTimeJson(undefined)).to.equal('0001-01-01T00:00:00Z')
    const now = new Date(Date.UTC(2024, 0, 20, 12))
    expect(formatModTime('2023-12-25T08:05:00Z', now)).to.equal('Dec 25 08:05')
    expect(formatModTime('2023-01-02T08:05:00Z', now)).to.equal('Jan 02  2023')
    expect(formatModTime('0001-01-01T00:00:00Z', now)).to.equal('-')
  })

  it('does not read children with --resolve-type=false --size=false (t0045, t0260)', async () => {
    const added = await importEntries(node.container.cradle.blockstore, [
      { path: 'adir/file1', content: pseudoRandom(1000, 11) },
      { path: 'adir/file2', content: pseudoRandom(1000, 12) }
    ])
    const dir = added.get('adir') as string
    await node.container.cradle.blockstore.delete(CID.parse(added.get('adir/file1') as string))
    await expect(node.invoke('ls', { args: [dir] })).to.be.rejectedWith('block was not found locally (offline): ipld: could not find')
    await expect(node.invoke('ls', { args: [dir], options: { 'resolve-type': true, size: false } })).to.be.rejected
    const out: LsOutput = await node.invoke('ls', { args: [dir], options: { 'resolve-type': false, size: false } })
    expect(out.Objects[0].Links.map(l => [l.Name, l.Type, l.Size])).to.deep.equal([['file1', 0, 0], ['file2', 0, 0]])
  })

  it('reports bad paths with Kubo errors', async () => {
    await expect(node.invoke('ls', { args: ['surelynotavalidhashheh?'] })).to.be.rejectedWith('invalid path "surelynotavalidhashheh?": path does not have enough components')
    await expect(node.invoke('ls', { args: [`${root}/nope`] })).to.be.rejectedWith(`no link named "nope" under ${root}`)
  })

  it('lists a directory added as CIDv0 through its CIDv1', async () => {
    const out: LsOutput = await node.invoke('ls', { args: [CID.parse(d2).toV1().toString()] })
    expect(out.Objects[0].Links.map(l => l.Hash)).to.deep.equal([D2A, BAD])
  })
})
