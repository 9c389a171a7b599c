import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { PassThrough } from 'node:stream'
import { gunzipSync } from 'node:zlib'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { extract } from 'it-tar'
import type { TarEntryHeader } from 'it-tar'
import { CID } from 'multiformats/cid'
import { UnixFS } from 'ipfs-unixfs'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { execute, textCall, type Outcome } from '../../../registry/execute.js'
import type { InvokeInput } from '../../../registry/registry.js'
import { getPlugin } from '../../../plugins/get/index.js'
import { encodeHeader, tarStream, type TarEntry } from '../../../plugins/get/tar.js'
import { extractTar } from '../../../plugins/get/extract.js'
import { importBytes, importEntries, putBlock, putDir, putFile } from './unixfs-helper.js'

use(chaiAsPromised)

const HELLO = 'QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH' // "Hello Worlds!\n"

interface Untarred { header: TarEntryHeader, body: Buffer }

async function untar (bytes: Uint8Array): Promise<Untarred[]> {
  const out: Untarred[] = []
  for await (const entry of extract()((async function * () { yield bytes })())) {
    const chunks: Uint8Array[] = []
    for await (const c of entry.body) chunks.push(c.slice())
    out.push({ header: entry.header, body: Buffer.concat(chunks) })
  }
  return out
}

async function run (node: TestNode, input: InvokeInput): Promise<{ outcome: Outcome & { kind: 'bytes' }, bytes: Buffer }> {
  const outcome = await execute(node.registry.prepare(['get'], input), node.container, { signal: new AbortController().signal })
  if (outcome.kind !== 'bytes') throw new Error('expected bytes')
  const chunks: Uint8Array[] = []
  for await (const c of outcome.body) chunks.push(c)
  return { outcome, bytes: Buffer.concat(chunks) }
}

async function * once (bytes: Uint8Array): AsyncGenerator<Uint8Array> { yield bytes }

describe('get plugin', () => {
  let node: TestNode
  let tmp: string
  let dir: string
  let dirSize: number
  const mtime = { secs: 1592217000, nsecs: 250000000 }
  before(async () => {
    node = await createTestNode({ plugins: [getPlugin()] })
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-get-'))
    const bs = node.container.cradle.blockstore
    expect(await importBytes(bs, 'Hello Worlds!\n')).to.equal(HELLO)
    // dir/{a.txt (0600, mtime), sub/{b.txt}, link -> a.txt}
    const a = await putFile(bs, 'aaa\n', { mode: 0o600, mtime })
    const b = await putFile(bs, 'bbb\n')
    const sub = await putDir(bs, [{ name: 'b.txt', ...b }], { mode: 0o700 })
    const linkBlock = { Data: new UnixFS({ type: 'symlink', data: new TextEncoder().encode('a.txt') }).marshal(), Links: [] }
    const link = await putBlock(bs, 'dag-pb', linkBlock, true)
    const root = await putDir(bs, [{ name: 'a.txt', ...a }, { name: 'sub', ...sub }, { name: 'link', cid: link, size: 9 }])
    dir = root.cid.toString()
    dirSize = root.size
  })
  after(async () => {
    await node.stop()
    await fs.rm(tmp, { recursive: true, force: true })
  })

  it('sends a file as a tar entry named after the CID', async () => {
    const { outcome, bytes } = await run(node, { args: [HELLO] })
    expect(outcome.contentType).to.equal('application/x-tar')
    expect(outcome.length).to.equal(14)
    const entries = await untar(bytes)
    expect(entries).to.have.length(1)
    expect(entries[0].header).to.include({ name: HELLO, type: 'file', mode: 0o644, size: 14 })
    expect(entries[0].body.toString()).to.equal('Hello Worlds!\n')
    const v1 = CID.parse(HELLO).toV1().toString()
    expect((await untar((await run(node, { args: [v1] })).bytes))[0].header.name).to.equal(v1)
  })

  it('sends a directory with modes, mtimes and symlinks', async () => {
    const { outcome, bytes } = await run(node, { args: [dir] })
    expect(outcome.length).to.equal(dirSize)
    const entries = await untar(bytes)
    expect(entries.map(e => [e.header.name, e.header.type])).to.deep.equal([
      [dir, 'directory'], [`${dir}/a.txt`, 'file'], [`${dir}/link`, 'symlink'], [`${dir}/sub`, 'directory'], [`${dir}/sub/b.txt`, 'file']
    ])
    expect(entries[0].header.mode).to.equal(0o755)
    expect(entries[1].header.mode).to.equal(0o600)
    expect(entries[1].body.toString()).to.equal('aaa\n')
    // without --archive tar is the transport: PAX keeps the nanoseconds
    expect(entries[1].header.pax?.mtime).to.equal('1592217000.25')
    expect(entries[2].header).to.include({ linkname: 'a.txt', mode: 0o777 })
    expect(entries[3].header.mode).to.equal(0o700)
    expect(entries[4].body.toString()).to.equal('bbb\n')
    // --archive: USTAR, mtimes rounded to the second
    const archived = await untar((await run(node, { args: [dir], options: { archive: true } })).bytes)
    expect(archived[1].header.pax).to.equal(undefined)
    expect(archived[1].header.mtime.getTime()).to.equal(1592217000 * 1000)
  })

  it('names a sub-path after its last element', async () => {
    const entries = await untar((await run(node, { args: [`/ipfs/${dir}/sub/b.txt`] })).bytes)
    expect(entries.map(e => e.header.name)).to.deep.equal(['b.txt'])
  })

  it('gets paths with "+" (interface-ipfs-core)', async () => {
    const p = 'tmp/c++files/ti,c64x+mega++mod-pic.txt'
    const added = await importEntries(node.container.cradle.blockstore, [{ path: p, content: p }])
    const cid = 'QmPkmARcqjo5fqK1V1o8cFsuaXxWYsnwCNLJUYS4KeZyff'
    expect(added.get('tmp')).to.equal(cid)
    const entries = await untar((await run(node, { args: [cid] })).bytes)
    expect(entries.map(e => e.header.name)).to.deep.equal([cid, `${cid}/c++files`, `${cid}/c++files/ti,c64x+mega++mod-pic.txt`])
  })

  it('gzips: a file as is, a tar with --archive; refuses a bare directory', async () => {
    const file = await run(node, { args: [HELLO], options: { compress: true, 'compression-level': 5 } })
    expect(file.outcome.contentType).to.equal('application/gzip')
    expect(gunzipSync(file.bytes).toString()).to.equal('Hello Worlds!\n')
    const tgz = await run(node, { args: [dir], options: { archive: true, compress: true } })
    expect((await untar(gunzipSync(tgz.bytes))).map(e => e.header.name)).to.include(`${dir}/sub/b.txt`)
    await expect(run(node, { args: [dir], options: { compress: true } })).to.be.rejectedWith('file is not regular')
    await expect(run(node, { args: [HELLO], options: { compress: true, 'compression-level': 10 } })).to.be.rejectedWith('compression level must be between 1 and 9')
    // a level without --compress does nothing (getCompressOptions)
    expect((await run(node, { args: [HELLO], query: [['l', ['5']]] })).outcome.contentType).to.equal('application/x-tar')
  })

  it('walks HAMT directories', async () => {
    const files = []
    for (let i = 0; i < 50; i++) files.push({ path: `h/f${i}`, content: `${i}\n` })
    const added = await importEntries(node.container.cradle.blockstore, files, { shardSplitThresholdBytes: 1 })
    const entries = await untar((await run(node, { args: [added.get('h') as string] })).bytes)
    expect(entries).to.have.length(51)
    expect(entries.find(e => e.header.name.endsWith('/f42'))?.body.toString()).to.equal('42\n')
  })

  describe('CLI (PostRun)', () => {
    async function cli (input: InvokeInput, cwd: string): Promise<string> {
      const prepared = node.registry.prepare(['get'], input)
      const outcome = await execute(prepared, node.container, { signal: new AbortController().signal })
      const stdout = new PassThrough()
      const chunks: Buffer[] = []
      stdout.on('data', (c: Buffer) => chunks.push(c))
      await prepared.command.cliRender?.(outcome, textCall(prepared) as never, { stdout, stderr: new PassThrough(), isTTY: false, cwd })
      return Buffer.concat(chunks).toString()
    }

    it('extracts into the CID by default, keeping modes, mtimes and symlinks', async () => {
      const cwd = await fs.mkdtemp(path.join(tmp, 'x-'))
      expect(await cli({ args: [dir] }, cwd)).to.equal(`Saving file(s) to ${dir}\n`)
      const out = path.join(cwd, dir)
      expect(await fs.readFile(path.join(out, 'a.txt'), 'utf8')).to.equal('aaa\n')
      expect(await fs.readFile(path.join(out, 'sub', 'b.txt'), 'utf8')).to.equal('bbb\n')
      expect(await fs.readlink(path.join(out, 'link'))).to.equal('a.txt')
      const st = await fs.stat(path.join(out, 'a.txt'))
      expect(st.mode & 0o777).to.equal(0o600)
      expect(Math.round(st.mtimeMs)).to.equal(1592217000250)
      expect((await fs.stat(path.join(out, 'sub'))).mode & 0o777).to.equal(0o700)
    })

    it('extracts a file to -o, or into an existing directory', async () => {
      const cwd = await fs.mkdtemp(path.join(tmp, 'x-'))
      expect(await cli({ args: [HELLO], options: { output: 'hello.txt' } }, cwd)).to.equal('Saving file(s) to hello.txt\n')
      expect(await fs.readFile(path.join(cwd, 'hello.txt'), 'utf8')).to.equal('Hello Worlds!\n')
      await fs.mkdir(path.join(cwd, 'into'))
      await cli({ args: [HELLO], options: { output: 'into' } }, cwd)
      expect(await fs.readFile(path.join(cwd, 'into', HELLO), 'utf8')).to.equal('Hello Worlds!\n')
    })

    it('saves archives with .tar / .gz names', async () => {
      const cwd = await fs.mkdtemp(path.join(tmp, 'x-'))
      expect(await cli({ args: [dir], options: { archive: true } }, cwd)).to.equal(`Saving archive to ${dir}.tar\n`)
      expect((await untar(await fs.readFile(path.join(cwd, `${dir}.tar`)))).length).to.equal(5)
      expect(await cli({ args: [dir], options: { archive: true, compress: true, output: 'out' } }, cwd)).to.equal('Saving archive to out.tar.gz\n')
      expect((await untar(gunzipSync(await fs.readFile(path.join(cwd, 'out.tar.gz'))))).length).to.equal(5)
      expect(await cli({ args: [HELLO], options: { compress: true, output: 'h' } }, cwd)).to.equal('Saving archive to h.gz\n')
      expect(gunzipSync(await fs.readFile(path.join(cwd, 'h.gz'))).toString()).to.equal('Hello Worlds!\n')
    })

    it('refuses entries that would leave the output folder', async () => {
      const entry = (name: string, type: 'file' | 'directory' | 'symlink', extra: Partial<TarEntry['header']> = {}): TarEntry => ({
        header: { name, type, mode: 0o644, size: type === 'file' ? 1 : 0, mtime: { secs: 0, nsecs: 0 }, ...extra },
        body: type === 'file' ? once(Uint8Array.of(0x78)) : undefined
      })
      const tarOf = async (entries: TarEntry[]): Promise<Uint8Array> => {
        const chunks: Uint8Array[] = []
        for await (const c of tarStream((async function * () { yield * entries })(), { pax: false })) chunks.push(c)
        return Buffer.concat(chunks)
      }
      const cwd = await fs.mkdtemp(path.join(tmp, 'x-'))
      const extractTo = async (entries: TarEntry[]): Promise<void> => await extractTar(once(await tarOf(entries)), { path: 'out', cwd })
      await expect(extractTo([entry('r', 'directory'), entry('r/../evil', 'file')])).to.be.rejectedWith('"r/../evil" : path contains ".."')
      await expect(extractTo([entry('r', 'directory'), entry('other/x', 'file')])).to.be.rejectedWith('contains more than one root or the root directory is not the first entry : tar has invalid root')
      await expect(extractTo([entry('r', 'directory'), entry('r/l', 'symlink', { linkname: tmp }), entry('r/l/x', 'file')])).to.be.rejectedWith('cannot traverse symlinks')
      await expect(extractTo([entry('a/b', 'file')])).to.be.rejectedWith('root name contains multiple components : "a/b" : tar has invalid root')
      await expect(extractTo([entry('f', 'file'), entry('f/x', 'file')])).to.be.rejectedWith('the root was not a directory and the tar has multiple entries: tar has invalid root')
      await expect(fs.access(path.join(cwd, 'evil'))).to.be.rejected
      await expect(fs.access(path.join(tmp, 'x'))).to.be.rejected
    })
  })

  describe('tar writer (Go archive/tar choices)', () => {
    it('writes USTAR headers Go would write', () => {
      const [h] = encodeHeader({ name: 'a.txt', type: 'file', mode: 0o644, size: 11, mtime: { secs: 1592217000, nsecs: 0 } }, false)
      expect(h).to.have.length(512)
      const field = (off: number, len: number): string => Buffer.from(h.subarray(off, off + len)).toString('latin1')
      expect(field(0, 6)).to.equal('a.txt\0')
      expect(field(100, 8)).to.equal('0000644\0')
      expect(field(124, 12)).to.equal('00000000013\0')
      expect(field(136, 12)).to.equal(`${(1592217000).toString(8).padStart(11, '0')}\0`)
      expect(field(156, 1)).to.equal('0')
      expect(field(257, 8)).to.equal('ustar\u000000')
      expect(field(148, 8)).to.match(/^[0-7]{6}\0 $/)
    })

    it('splits long names into prefix/name and falls back to PAX', async () => {
      const long = 'd'.repeat(90) + '/' + 'e'.repeat(90)
      const huge = 'x'.repeat(120)
      const target = 't'.repeat(150)
      const entries: TarEntry[] = [
        { header: { name: long, type: 'directory', mode: 0o755, size: 0, mtime: { secs: 1, nsecs: 0 } } },
        { header: { name: `${long}/${huge}`, type: 'symlink', mode: 0o777, size: 0, mtime: { secs: 1, nsecs: 0 }, linkname: target } },
        { header: { name: 'ünïcode', type: 'file', mode: 0o644, size: 2, mtime: { secs: 1, nsecs: 0 } }, body: once(Uint8Array.of(1, 2)) }
      ]
      const one = encodeHeader(entries[0].header, false)
      expect(one).to.have.length(1) // fits USTAR with a prefix
      const chunks: Uint8Array[] = []
      for await (const c of tarStream((async function * () { yield * entries })(), { pax: false })) chunks.push(c)
      const back = await untar(Buffer.concat(chunks))
      expect(back.map(e => e.header.name)).to.deep.equal([long, `${long}/${huge}`, 'ünïcode'])
      expect(back[1].header.linkname).to.equal(target)
      expect([...back[2].body]).to.deep.equal([1, 2])
    })
  })
})
