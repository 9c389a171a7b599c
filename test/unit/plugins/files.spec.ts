// ipfs files (MFS) through the registry with real in-memory (and on-disk) stores: Kubo's t0250
// vectors (root, directory and file CIDs after a scripted session, for CIDv0, raw leaves, CIDv1,
// a CIDv1 and a blake2b-256 root), the HAMT switch both ways, interface-ipfs-core's shard vectors,
// flush=false semantics, error strings, output shapes and text, concurrency, persistence, GC roots,
// and `add --to-files`.
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createCipheriv, createHash } from 'node:crypto'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { filesPlugin } from '../../../plugins/files/index.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { repoPlugin } from '../../../plugins/repo/index.js'
import { filesLs } from '../../../plugins/files/ls.js'
import { filesStat, goFileModeString, humanizeBytes } from '../../../plugins/files/stat.js'
import { filesRm } from '../../../plugins/files/rm.js'
import { filesFlush } from '../../../plugins/files/flush.js'
import type { FilesLsOutput, FilesStatOutput } from '../../../plugins/files/output.js'
import { FILES_ROOT_KEY } from '../../../core/mfs/index.js'
import { initRepo } from '../../../core/repo/index.js'
import { execute } from '../../../registry/execute.js'
import type { TextCall } from '../../../registry/types.js'

use(chaiAsPromised)

/** deterministic bytes (behaviour.md §1.3: ChaCha20 keystream keyed by sha256(seed)) */
const random = (n: number, seed: string): Buffer =>
  createCipheriv('chacha20', createHash('sha256').update(seed).digest(), Buffer.alloc(16)).update(Buffer.alloc(n))

interface Session {
  node: TestNode
  inv: (cmd: string, args: string[], options?: Record<string, unknown>) => Promise<any>
  write: (p: string, content: string | Uint8Array, options?: Record<string, unknown>) => Promise<void>
  add: (content: string | Uint8Array, options?: Record<string, unknown>) => Promise<string>
  hash: (p: string) => Promise<string>
  read: (p: string, options?: Record<string, unknown>) => Promise<string>
}

async function session (imports: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<Session> {
  const node = await createTestNode({ plugins: [filesPlugin(), addPlugin()] })
  // before MFS is first used: the same as a restart with this config
  for (const [k, v] of Object.entries(imports)) await node.container.cradle.config.setKey(`Import.${k}`, v as never)
  for (const [k, v] of Object.entries(extra)) await node.container.cradle.config.setKey(k, v as never)
  const inv = async (cmd: string, args: string[], options: Record<string, unknown> = {}): Promise<any> =>
    await node.invoke(`files/${cmd}`, { args, options })
  return {
    node,
    inv,
    write: async (p, content, options = {}) => { await node.invoke('files/write', { args: [p], files: filesOf({ content }), options }) },
    add: async (content, options = {}) => {
      const rows = await node.invoke('add', { files: filesOf({ content }), options: { quiet: true, ...options } })
      return rows[rows.length - 1].Hash
    },
    hash: async (p) => (await inv('stat', [p])).Hash,
    read: async (p, options = {}) => (await inv('read', [p], options)).toString()
  }
}

/** stream a command's ndjson items until it fails: [items, error] */
async function collect (node: TestNode, p: string, input: Parameters<TestNode['registry']['prepare']>[1]): Promise<[unknown[], Error | undefined]> {
  const outcome = await execute(node.registry.prepare(p.split('/'), input), node.container, { signal: new AbortController().signal })
  const items: unknown[] = []
  if (outcome.kind !== 'ndjson') throw new Error('not ndjson')
  try {
    for await (const item of outcome.items) items.push(item)
  } catch (err) {
    return [items, err as Error]
  }
  return [items, undefined]
}

describe('plugins/files', function () {
  this.timeout(60_000)

  describe("t0250: Kubo's files API session", () => {
    interface Want { root: string, cats: string, file: string, trunc: string }
    /** test_files_api: the steps that change MFS, and the hashes it checks */
    async function filesApi (s: Session, files: { f1: string, f2: string, f3: string }, args: Record<string, unknown>, rawLeaves: boolean, want: Want): Promise<void> {
      const w = async (p: string, content: string, o: Record<string, unknown> = {}): Promise<void> => await s.write(p, content, { ...args, ...(rawLeaves ? { 'raw-leaves': true } : {}), ...o })
      await s.inv('mkdir', ['/cats'], args)
      expect((await s.inv('ls', [])).Entries.map((e: any) => e.Name)).to.deep.equal(['cats'])
      await expect(s.inv('mkdir', ['/'], args)).to.be.rejectedWith("cannot create directory '/': Already exists")
      await s.inv('cp', [`/ipfs/${files.f1}`, '/cats/file1'])
      const long = await s.node.invoke('files/ls', { args: ['/cats'], options: { long: true } }) as FilesLsOutput
      expect(long.Entries).to.deep.equal([{ Name: 'file1', Type: 0, Size: 4, Hash: files.f1 }])
      await s.inv('cp', [`/ipfs/${files.f2}`, '/file2'])
      await s.inv('mkdir', ['/cats/this/is/a/dir'], { ...args, parents: true })
      await s.inv('cp', [`/ipfs/${files.f3}`, '/cats/this/is/a/dir/file3'])
      await s.inv('cp', [`/ipfs/${files.f3}`, '/cats/some/other/dir/file3'], { parents: true })
      expect(await s.read('/cats/some/other/dir/file3')).to.equal('baz\n')
      await s.inv('rm', ['/cats/some'], { recursive: true })
      await s.inv('rm', ['/cats/this/is/a/dir/file3'])
      await s.inv('rm', ['/cats/this/is/a/dir'], { recursive: true })
      await s.inv('rm', ['/file2'])
      expect(await s.read('/cats/file1', { offset: 1 })).to.equal('oo\n')
      expect(await s.read('/cats/file1', { count: 2 })).to.equal('fo')
      expect(await s.read('/cats/file1', { count: 0 })).to.equal('')
      await w('/cats/ipfs', 'ipfs rocks\n', { create: true })
      await w('/cats/ipfs', 'is super cool\n', { offset: 5 })
      expect(await s.read('/cats/ipfs')).to.equal('ipfs is super cool\n')
      expect(await s.hash('/cats/ipfs')).to.equal(want.file)
      await expect(w('/cats/ipfs', 'x', { offset: -1 })).to.be.rejectedWith('cannot have negative write offset')
      expect(await s.hash('/cats/ipfs')).to.equal(want.file)
      await w('/fun', 'foobar\n', { create: true })
      await w('/fun', 'blah\n', { offset: 50 })
      expect(await s.read('/fun')).to.equal('foobar\n' + '\0'.repeat(43) + 'blah\n')
      await s.inv('rm', ['/fun'])
      await expect(w('/cats', 'x')).to.be.rejectedWith('/cats was not a file')
      await expect(w('/cats/bar/', 'x')).to.be.rejectedWith('file does not exist')
      // --flush=false: nothing reaches the root until something looks at it
      await w('/cats/walrus', 'testing\n', { flush: false, create: true })
      expect(await s.hash('/')).to.equal(want.root)
      expect(await s.hash('/cats')).to.equal(want.cats)
      await s.inv('flush', ['/'])
      await s.inv('mv', ['/cats/this/is', '/cats/'])
      await s.inv('mv', ['/cats/is', '/'])
      await s.inv('mv', ['/is', '/cats'])
      expect((await s.inv('ls', ['/cats'])).Entries.map((e: any) => e.Name)).to.deep.equal(['file1', 'ipfs', 'is', 'this', 'walrus'])
      await s.inv('rm', ['/cats'], { recursive: true })
      await w('/cats', 'some content\n', { create: true })
      await w('/cats', 'fish\n', { truncate: true })
      expect(await s.read('/cats')).to.equal('fish\n')
      expect(await s.hash('/cats')).to.equal(want.trunc)
      await s.inv('rm', ['/cats'])
      expect((await s.inv('ls', ['/'])).Entries).to.equal(null)
    }

    async function run (imports: Record<string, unknown>, addArgs: Record<string, unknown>, args: Record<string, unknown>, rawLeaves: boolean, want: Want): Promise<void> {
      const s = await session(imports)
      try {
        const files = { f1: await s.add('foo\n', addArgs), f2: await s.add('bar\n', addArgs), f3: await s.add('baz\n', addArgs) }
        await filesApi(s, files, args, rawLeaves, want)
      } finally {
        await s.node.stop()
      }
    }

    it('CIDv0, dag-pb leaves', async () => {
      await run({}, {}, {}, false, {
        root: 'QmcwKfTMCT7AaeiD92hWjnZn9b6eh9NxnhfSzN5x2vnDpt',
        cats: 'Qma88m8ErTGkZHbBWGqy1C7VmEmX8wwNDWNpGyCaNmEgwC',
        file: 'QmQdQt9qooenjeaNhiKHF3hBvmNteB4MQBtgu3jxgf9c7i',
        trunc: 'QmPVnT9gocPbqzN4G6SMp8vAPyzcjDbUJrNdKgzQquuDg4'
      })
    })
    it('raw-leaves files copied in, operations without raw leaves', async () => {
      await run({}, { 'raw-leaves': true }, {}, false, {
        root: 'QmTpKiKcAj4sbeesN6vrs5w3QeVmd4QmGpxRL81hHut4dZ',
        cats: 'QmPhPkmtUGGi8ySPHoPu1qbfryLJKKq1GYxpgLyyCruvGe',
        file: 'QmQdQt9qooenjeaNhiKHF3hBvmNteB4MQBtgu3jxgf9c7i',
        trunc: 'QmPVnT9gocPbqzN4G6SMp8vAPyzcjDbUJrNdKgzQquuDg4'
      })
    })
    it('--raw-leaves (single-block files collapse to raw blocks)', async () => {
      await run({}, { 'raw-leaves': true }, {}, true, {
        root: 'QmTHzLiSouBHVTssS8xRzmfWGAvTGhPEjtPdB6pWMQdxJX',
        cats: 'QmPJkzbCoBuL379TbHgwF1YbVHnKgiDa5bjqYhe6Lovdms',
        file: 'bafybeibkrazpbejqh3qun7xfnsl7yofl74o4jwhxebpmtrcpavebokuqtm',
        trunc: 'bafybeigwhb3q36yrm37jv5fo2ap6r6eyohckqrxmlejrenex4xlnuxiy3e'
      })
    })
    it('--cid-version=1 for mkdir and write', async () => {
      await run({}, { 'raw-leaves': true }, { 'cid-version': 1 }, false, {
        root: 'QmTLdTaZNj8Mvq1cgYup59ZFJFv1KxptouFSZUZKeq7X3z',
        cats: 'bafybeihsqinttigpskqqj63wgalrny3lifvqv5ml7igrirdhlcf73l3wvm',
        file: 'bafybeibkrazpbejqh3qun7xfnsl7yofl74o4jwhxebpmtrcpavebokuqtm',
        trunc: 'bafybeigwhb3q36yrm37jv5fo2ap6r6eyohckqrxmlejrenex4xlnuxiy3e'
      })
    })
    it('Import.CidVersion=1 root', async () => {
      await run({ CidVersion: 1 }, { 'raw-leaves': true, 'cid-version': 0 }, {}, false, {
        root: 'bafybeickjecu37qv6ue54ofk3n4rpm4g4abuofz7yc4qn4skffy263kkou',
        cats: 'bafybeihsqinttigpskqqj63wgalrny3lifvqv5ml7igrirdhlcf73l3wvm',
        file: 'bafybeibkrazpbejqh3qun7xfnsl7yofl74o4jwhxebpmtrcpavebokuqtm',
        trunc: 'bafybeigwhb3q36yrm37jv5fo2ap6r6eyohckqrxmlejrenex4xlnuxiy3e'
      })
    })
    it('Import.HashFunction=blake2b-256 root', async () => {
      await run({ CidVersion: 1, HashFunction: 'blake2b-256' }, { 'raw-leaves': true, 'cid-version': 0, hash: 'sha2-256' }, {}, false, {
        root: 'bafykbzaceaebvwrjdw5rfhqqh5miaq3g42yybnrw3kxxxx43ggyttm6xn2zek',
        cats: 'bafykbzaceaqvpxs3dfl7su6744jgyvifbusow2tfixdy646chasdwyz2boagc',
        file: 'bafykbzaceca45w2i3o3q3ctqsezdv5koakz7sxsw37ygqjg4w54m2bshzevxy',
        trunc: 'bafykbzaceadeu7onzmlq7v33ytjpmo37rsqk2q6mzeqf5at55j32zxbcdbwig'
      })
    })

    const roots: Array<[string, Record<string, unknown>, string]> = [
      ['default', {}, 'QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn'],
      ['Import.CidVersion=1', { CidVersion: 1 }, 'bafybeiczsscdsbs7ffqz55asqdf3smv6klcw3gofszvwlyarci47bgf354'],
      ['Import.HashFunction=blake2b-256', { CidVersion: 1, HashFunction: 'blake2b-256' }, 'bafykbzacebugfutjir6qie7apo5shpry32ruwfi762uytd5g3u2gk7tpscndq']
    ]
    for (const [label, imports, want] of roots) {
      it(`empty root: ${label}`, async () => {
        const s = await session(imports)
        try {
          expect(await s.hash('/')).to.equal(want)
          const st = await s.inv('stat', ['/']) as FilesStatOutput
          expect(st).to.deep.equal({ Hash: want, Size: 0, CumulativeSize: 4, Blocks: 0, Type: 'directory' })
        } finally {
          await s.node.stop()
        }
      })
    }

    it('chcid refuses the root and changes a subdirectory', async () => {
      const s = await session()
      try {
        await expect(s.inv('chcid', ['/'], { 'cid-version': 1 })).to.be.rejectedWith("cannot change CID format of the MFS root; use 'ipfs config Import.CidVersion' and 'ipfs config Import.HashFunction' instead")
        await s.inv('mkdir', ['/chcid-test'])
        await s.inv('chcid', ['/chcid-test'], { hash: 'blake2b-256' })
        const c = CID.parse(await s.hash('/chcid-test'))
        expect([c.version, c.multihash.code]).to.deep.equal([1, 0xb220])
        await s.write('/f', 'x', { create: true })
        await expect(s.inv('chcid', ['/f'], { 'cid-version': 1 })).to.be.rejectedWith('can only update directories')
        await expect(s.inv('chcid', ['/chcid-test'], { hash: 'nope' })).to.be.rejectedWith('unrecognized hash function: "nope"')
        await expect(s.inv('chcid', ['/chcid-test'], { 'cid-version': 2 })).to.be.rejectedWith('unknown CID version: 2')
      } finally {
        await s.node.stop()
      }
    })
  })

  describe('HAMT sharding', () => {
    for (const [label, args, want] of [
      ['cidv0', {}, 'QmPkwLJTYZRGPJ8Lazr9qPdrLmswPtUjaDbEpmR9jEh1se'],
      ['cidv1 root', { 'cid-version': 1 }, 'bafybeibu4i76qi26jhpgskqhivuactsvdsia44swpi7eaw45r7c3c3lhs4']
    ] as const) {
      it(`t0250: 100 files under a 1B threshold (${label})`, async () => {
        const s = await session({ UnixFSHAMTDirectorySizeThreshold: '1B' })
        try {
          await s.inv('mkdir', ['/foo'], args)
          for (let i = 100; i >= 1; i--) await s.write(`/foo/file${i}`, `${i}\n`, { create: true })
          const names = (await s.inv('ls', ['/foo'])).Entries.map((e: any) => e.Name) as string[]
          expect(names).to.have.lengthOf(100)
          // listing order is the shard's, not sorted (the text encoder sorts unless -U)
          const sorted = [...names].sort()
          expect(names).to.not.deep.equal(sorted)
          const text = filesLs.text?.({ Entries: names.map(n => ({ Name: n, Type: 0, Size: 0, Hash: '' })) }, { path: [], args: [], options: { encoding: 'text' } } as unknown as TextCall<any>)
          expect(text).to.equal(sorted.map(n => n + '\n').join(''))
          expect(await s.read('/foo/file65')).to.equal('65\n')
          expect(await s.hash('/foo')).to.equal(want)
          await s.inv('rm', ['/foo'], { recursive: true })
        } finally {
          await s.node.stop()
        }
      })
    }

    it('files ls of a copied HAMT of several levels lists every entry once, in shard (hash) order, and the shards stay as they were', async () => {
      const s = await session({ UnixFSHAMTDirectorySizeThreshold: '1B', UnixFSHAMTDirectoryMaxFanout: 8 })
      try {
        const names = Array.from({ length: 300 }, (_, i) => `e${i}`)
        const rows = await s.node.invoke('add', { files: filesOf(...names.map(n => ({ path: `d/${n}`, content: n }))), options: { quiet: true } })
        const root = rows[rows.length - 1].Hash as string
        await s.inv('cp', [`/ipfs/${root}`, '/d'])
        const { murmur364 } = await import('@multiformats/murmur3')
        const hashOf = (n: string): string => Buffer.from((murmur364.digest(Buffer.from(n)) as { digest: Uint8Array }).digest).toString('hex')
        const expected = [...names].sort((a, b) => hashOf(a) < hashOf(b) ? -1 : 1)
        for (let pass = 0; pass < 2; pass++) {
          // listing keeps no shard it read: the second pass reads them again
          expect((await s.inv('ls', ['/d'], { U: true })).Entries.map((e: any) => e.Name)).to.deep.equal(expected)
        }
        expect(await s.hash('/d')).to.equal(root)
        // a changed shard is listed from memory, the others from their blocks
        await s.write('/d/new-entry', 'n', { create: true })
        const withNew = [...expected, 'new-entry'].sort((a, b) => hashOf(a) < hashOf(b) ? -1 : 1)
        expect((await s.inv('ls', ['/d'], { U: true })).Entries.map((e: any) => e.Name)).to.deep.equal(withNew)
        await s.inv('rm', ['/d/new-entry'])
        expect(await s.hash('/d')).to.equal(root)
      } finally {
        await s.node.stop()
      }
    })

    it('t0250: a 5960-entry HAMT becomes basic after 5 removals and the same HAMT again after re-adding them', async () => {
      const s = await session()
      try {
        const entries = []
        for (let i = 1; i <= 5960; i++) entries.push({ path: `big_dir/file${String(i).padStart(6, '0')}`, content: `${i}\n` })
        const rows = await s.node.invoke('add', { files: filesOf(...entries), options: { recursive: true } })
        const big = rows[rows.length - 1].Hash as string
        expect(big).to.equal('QmWfjnRWRvdvYezQWnfbvrvY7JjrpevsE9cato1x76UqGr')
        await s.inv('cp', [`/ipfs/${big}`, '/big_dir'])
        for (let i = 1; i <= 5; i++) await s.inv('rm', [`/big_dir/file${String(i).padStart(6, '0')}`])
        expect(await s.hash('/big_dir')).to.equal('QmbVxi5zDdzytrjdufUejM92JsWj8wGVmukk6tiPce3p1m')
        for (let i = 1; i <= 5; i++) {
          const name = `file${String(i).padStart(6, '0')}`
          await s.inv('cp', [`/ipfs/${big}/${name}`, `/big_dir/${name}`])
        }
        expect(await s.hash('/big_dir')).to.equal(big)
      } finally {
        await s.node.stop()
      }
    })

    /** interface-ipfs-core createTwoShards: the same files with and without the last one */
    async function twoShards (s: Session, count: number): Promise<{ dir: string, next: { path: string, content: Uint8Array }, all: string, some: string }> {
      const dir = `/sharded-dir-${count}`
      const files = []
      for (let i = 0; i < count; i++) files.push({ path: `${dir.slice(1)}/file-${i}`, content: Uint8Array.from([0, 1, 2, 3, 4, i & 255]) })
      const all = await s.node.invoke('add', { files: filesOf(...files), options: { recursive: true, pin: false } })
      const some = await s.node.invoke('add', { files: filesOf(...files.slice(0, -1)), options: { recursive: true, pin: false } })
      return { dir, next: files[files.length - 1], all: all[all.length - 1].Hash, some: some[some.length - 1].Hash }
    }

    for (const [count, want] of [[75, 'QmbLw9uCrQaFgweMskqMrsVKTwwakSg94GuMT3zht1P7CQ'], [100, 'QmcGTKoaZeMxVenyxnkP2riibE8vSEPobkN1oxvcEZpBW5'], [82, 'QmXeJ4ercHcxdiX7Vxm1Hit9AwsTNXcwCw5Ad32yW2HdHR']] as const) {
      it(`interface-ipfs-core: writing into a copied shard gives the importer's CID (${count} files)`, async () => {
        const s = await session({ UnixFSHAMTDirectorySizeThreshold: '1B' })
        try {
          const t = await twoShards(s, count)
          await s.inv('cp', [`/ipfs/${t.some}`, t.dir])
          await s.write(`/${t.next.path}`, t.next.content, { create: true })
          expect(await s.hash(t.dir)).to.equal(want)
        } finally {
          await s.node.stop()
        }
      })
    }

    for (const count of [1001, 31, 139]) {
      it(`interface-ipfs-core: removing from a copied shard gives the importer's CID (${count} files, subshards collapse)`, async () => {
        const s = await session({ UnixFSHAMTDirectorySizeThreshold: '1B' })
        try {
          const t = await twoShards(s, count)
          await s.inv('cp', [`/ipfs/${t.all}`, t.dir])
          await s.inv('rm', [`/${t.next.path}`])
          expect(await s.hash(t.dir)).to.equal(t.some)
        } finally {
          await s.node.stop()
        }
      })
    }

    it('files_test.go: a HAMT under a 1KiB block-estimated threshold reverts to basic after removals', async () => {
      const s = await session({ UnixFSHAMTDirectorySizeThreshold: '1KiB', UnixFSHAMTDirectorySizeEstimation: 'block' })
      const type = async (p: string): Promise<number> => {
        const block = await s.node.container.cradle.blockstore.get(CID.parse(await s.hash(p)))
        const chunks: Uint8Array[] = []
        for await (const c of block) chunks.push(c)
        const { decode } = await import('@ipld/dag-pb')
        return (decode(Buffer.concat(chunks)).Data as Uint8Array)[1]
      }
      try {
        await s.inv('mkdir', ['/testdir'])
        for (let i = 0; i < 25; i++) await s.write(`/testdir/file${String(i).padStart(2, '0')}`, 'x', { create: true })
        expect(await type('/testdir')).to.equal(5)
        for (let i = 0; i < 20; i++) await s.inv('rm', [`/testdir/file${String(i).padStart(2, '0')}`])
        expect(await type('/testdir')).to.equal(1)
        // the root itself shards too
        for (let i = 0; i < 25; i++) await s.write(`/file${String(i).padStart(2, '0')}`, 'x', { create: true })
        expect(await type('/')).to.equal(5)
      } finally {
        await s.node.stop()
      }
    })

    it('Import.UnixFSDirectoryMaxLinks and UnixFSHAMTDirectoryMaxFanout shape MFS directories', async () => {
      const s = await session({ UnixFSDirectoryMaxLinks: 5, UnixFSHAMTDirectoryMaxFanout: 64, UnixFSHAMTDirectorySizeEstimation: 'disabled' })
      try {
        await s.inv('mkdir', ['/testdir'])
        for (let i = 0; i < 6; i++) await s.write(`/testdir/file${i}.txt`, 'x', { create: true })
        const st = await s.inv('stat', ['/testdir']) as FilesStatOutput
        const block = Buffer.concat(await (async () => { const o: Uint8Array[] = []; for await (const c of s.node.container.cradle.blockstore.get(CID.parse(st.Hash))) o.push(c); return o })())
        const { decode } = await import('@ipld/dag-pb')
        const { decodeUnixfsData } = await import('../../../core/resolver/unixfs.js')
        const fsd = decodeUnixfsData(decode(block).Data)
        expect([fsd.type, fsd.fanout]).to.deep.equal([5, 64])
      } finally {
        await s.node.stop()
      }
    })
  })

  describe('files write', () => {
    let s: Session
    before(async () => { s = await session() })
    after(async () => { await s.node.stop() })

    it('interface-ipfs-core: "Hello world" is Qmetpc7… (a trickle root over one leaf)', async () => {
      await s.write('/hello-world', 'Hello world', { create: true })
      const ls = await s.inv('ls', ['/'], { long: true }) as FilesLsOutput
      expect(ls.Entries).to.deep.include({ Name: 'hello-world', Type: 0, Size: 11, Hash: 'Qmetpc7cZmN25Wcc6R27cGCAvCDqCS5GjHG4v7xABEfpmJ' })
    })

    it('interface-ipfs-core: stat sizes of a small and a large file', async () => {
      await s.write('/stat/small', random(13, 'small'), { create: true, parents: true })
      expect(await s.inv('stat', ['/stat/small'])).to.include({ Size: 13, CumulativeSize: 71, Blocks: 1, Type: 'file' })
      await s.write('/stat/large', random(490668, 'large'), { create: true })
      expect(await s.inv('stat', ['/stat/large'])).to.include({ Size: 490668, CumulativeSize: 490800, Blocks: 2, Type: 'file' })
    })

    it('files_test.go: a single-block CIDv1 raw-leaves write has `ipfs add`\'s CID', async () => {
      await s.write('/v1.txt', 'hello world', { create: true, 'cid-version': 1, 'raw-leaves': true })
      expect(await s.hash('/v1.txt')).to.equal('bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e')
    })

    it("files_test.go: with the same chunker a write has `add --trickle`'s CID", async () => {
      const data = Buffer.alloc(2048)
      for (let i = 0; i < data.length; i++) data[i] = i % 256
      const s2 = await session({ CidVersion: 1, UnixFSRawLeaves: true, UnixFSChunker: 'size-512' })
      try {
        await s2.write('/test.bin', data, { create: true })
        const added = await s2.add(data, { chunker: 'size-512', trickle: true })
        expect(await s2.hash('/test.bin')).to.equal(added)
      } finally {
        await s2.node.stop()
      }
    })

    it('streams a multi-MiB file (several 2 MiB buffer syncs) and reads it back', async () => {
      const data = random(5 * 1024 * 1024 + 123, 'big')
      async function * pieces (): AsyncGenerator<Uint8Array> {
        for (let i = 0; i < data.length; i += 65536) yield data.subarray(i, i + 65536)
      }
      await s.node.invoke('files/write', { args: ['/big.bin'], files: (async function * () { yield { path: '', type: 'file' as const, content: pieces() } })(), options: { create: true } })
      const st = await s.inv('stat', ['/big.bin']) as FilesStatOutput
      expect(st.Size).to.equal(data.length)
      expect(Buffer.compare(await s.inv('read', ['/big.bin']), data)).to.equal(0)
      const part = await s.inv('read', ['/big.bin'], { offset: 3 * 1024 * 1024 - 5, count: 10 }) as Buffer
      expect(Buffer.compare(part, data.subarray(3 * 1024 * 1024 - 5, 3 * 1024 * 1024 + 5))).to.equal(0)
      // overwrite across leaves, then append
      const patch = random(300_000, 'patch')
      await s.write('/big.bin', patch, { offset: 1_000_000 })
      const expected = Buffer.from(data)
      patch.copy(expected, 1_000_000)
      expect(Buffer.compare(await s.inv('read', ['/big.bin']), expected)).to.equal(0)
    })

    it('--count limits the bytes written; 0 makes an empty file', async () => {
      await s.write('/counted', 'hello world', { create: true, count: 2 })
      expect(await s.read('/counted')).to.equal('he')
      await s.write('/zero', 'foo', { create: true, count: 0 })
      const ls = await s.inv('ls', ['/zero'], { long: true }) as FilesLsOutput
      expect(ls.Entries?.[0]).to.include({ Name: 'zero', Size: 0 })
    })

    it('overwrites the start without truncating, pads a new file, extends past the end', async () => {
      await s.write('/ow', 'hello world', { create: true })
      await s.write('/ow', 'HEL')
      expect(await s.read('/ow')).to.equal('HELlo world')
      await s.write('/pad', 'abc', { create: true, offset: 4 })
      expect(await s.read('/pad')).to.equal('\0\0\0\0abc')
      await s.write('/pad', 'Z', { offset: 9 })
      expect(await s.read('/pad')).to.equal('\0\0\0\0abc\0\0Z')
    })

    it('--raw-leaves gives raw leaves; --cid-version/--hash set a new file\'s CID format', async () => {
      await s.write('/rl', random(600_000, 'rl'), { create: true, 'raw-leaves': true })
      const { decode } = await import('@ipld/dag-pb')
      const block = Buffer.concat(await (async () => { const o: Uint8Array[] = []; for await (const c of s.node.container.cradle.blockstore.get(CID.parse(await s.hash('/rl')))) o.push(c); return o })())
      expect(decode(block).Links.map(l => l.Hash.code)).to.deep.equal([0x55, 0x55, 0x55])
      await s.write('/h512', 'abc', { create: true, 'cid-version': 1, hash: 'sha2-512' })
      expect(CID.parse(await s.hash('/h512')).multihash.code).to.equal(0x13)
    })

    it('errors', async () => {
      await expect(s.write('foo', 'x', { create: true })).to.be.rejectedWith('paths must start with a leading slash')
      await expect(s.write('', 'x', { create: true })).to.be.rejectedWith('paths must not be empty')
      await expect(s.write('/nope', 'x')).to.be.rejectedWith('file does not exist')
      await expect(s.write('/missing-dir/f', 'x', { create: true })).to.be.rejectedWith('file does not exist')
      await s.write('/plain', 'x', { create: true })
      await expect(s.write('/plain/other', 'x', { create: true })).to.be.rejectedWith('cannot access plain/other: Not a directory')
      await expect(s.write('/plain', 'x', { count: -1 })).to.be.rejectedWith('cannot have negative byte count')
      await expect(s.write('/plain', 'x', { hash: 'nope' })).to.be.rejectedWith('unrecognized hash function: "nope"')
      await expect(s.write('/plain', 'x', { 'cid-version': 3 })).to.be.rejectedWith('unknown CID version: 3')
      await expect(s.write('/md5', 'x', { create: true, hash: 'md5' })).to.be.rejectedWith('potentially insecure hash functions not allowed')
    })

    it('concurrent writes to different files in one directory all land', async () => {
      const names = Array.from({ length: 10 }, (_, i) => `source-file-${i}.txt`)
      await Promise.all(names.map(async (n, i) => await s.write(`/concurrent/${n}`, random(100, n), { create: true, parents: true })))
      const ls = await s.inv('ls', ['/concurrent']) as FilesLsOutput
      expect(ls.Entries?.map(e => e.Name)).to.deep.equal(names)
      for (const n of names) expect(Buffer.compare(await s.inv('read', [`/concurrent/${n}`]), random(100, n))).to.equal(0)
    })

    it('concurrent writers of one file are serialised (no lost update)', async () => {
      await s.write('/shared', 'aaaaaaaaaa', { create: true })
      await Promise.all([
        s.write('/shared', 'BB', { offset: 0 }),
        s.write('/shared', 'CC', { offset: 4 }),
        s.write('/shared', 'DD', { offset: 8 })
      ])
      expect(await s.read('/shared')).to.equal('BBaaCCaaDD')
    })
  })

  describe('flush semantics', () => {
    it('--flush=false keeps changes in memory; files flush persists the root', async () => {
      const s = await session()
      try {
        const ds = s.node.container.cradle.datastore
        const pointer = async (): Promise<string | undefined> => {
          try { return CID.decode(await ds.get(FILES_ROOT_KEY)).toString() } catch { return undefined }
        }
        await s.inv('mkdir', ['/a'])
        const persisted = await pointer()
        expect(persisted).to.be.a('string')
        await s.inv('mkdir', ['/b'], { flush: false })
        await s.write('/a/f', 'x', { create: true, flush: false })
        expect(await pointer()).to.equal(persisted)
        // lookups see the change; stat computes the new root without persisting it
        expect((await s.inv('ls', ['/'])).Entries.map((e: any) => e.Name)).to.deep.equal(['a', 'b'])
        const now = await s.hash('/')
        expect(now).to.not.equal(persisted)
        expect(await pointer()).to.equal(persisted)
        const flushed = await s.inv('flush', []) as { Cid: string }
        expect(flushed.Cid).to.equal(now)
        expect(await pointer()).to.equal(now)
        expect(filesFlush.text?.(flushed, {} as never)).to.equal(`&{${now}}\n`)
      } finally {
        await s.node.stop()
      }
    })

    it('Internal.MFSNoFlushLimit: the limit, its error, and resets by --flush=true and files flush', async () => {
      const s = await session({}, { 'Internal.MFSNoFlushLimit': 3 })
      try {
        const msg = "reached limit of 3 unflushed MFS operations. To resolve: 1) run 'ipfs files flush' to persist changes, 2) use --flush=true (default), or 3) increase Internal.MFSNoFlushLimit in config"
        for (let i = 1; i <= 3; i++) await s.inv('mkdir', [`/dir${i}`], { flush: false })
        await expect(s.inv('mkdir', ['/dir4'], { flush: false })).to.be.rejectedWith(msg)
        await s.inv('mkdir', ['/dir5'], { flush: true })
        for (let i = 6; i <= 8; i++) await s.inv('mkdir', [`/dir${i}`], { flush: false })
        await expect(s.write('/w', 'x', { create: true, flush: false })).to.be.rejectedWith(msg)
        await s.inv('flush', [])
        await s.inv('cp', ['/dir1', '/dir1-copy'], { flush: false })
        await s.inv('mv', ['/dir1-copy', '/dir1-moved'], { flush: false })
        await s.inv('mkdir', ['/dir9'], { flush: false })
        await expect(s.inv('mkdir', ['/dir10'], { flush: false })).to.be.rejectedWith(msg)
      } finally {
        await s.node.stop()
      }
    })

    it('files rm refuses --flush=false', async () => {
      const s = await session()
      try {
        await s.inv('mkdir', ['/test-dir'])
        await expect(s.node.invoke('files/rm', { args: ['/test-dir'], options: { recursive: true, flush: false } }))
          .to.be.rejectedWith('files rm always flushes for safety. The --flush flag cannot be set to false for this command')
        expect((await s.inv('ls', ['/'])).Entries.map((e: any) => e.Name)).to.deep.equal(['test-dir'])
      } finally {
        await s.node.stop()
      }
    })

    it('stopping the node writes unflushed changes; a restart reads them back (on-disk repo)', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-mfs-'))
      try {
        await initRepo(dir)
        let node = await createTestNode({ repoPath: dir, plugins: [filesPlugin()] })
        await node.invoke('files/write', { args: ['/kept.txt'], files: filesOf({ content: 'hello' }), options: { create: true } })
        await node.invoke('files/mkdir', { args: ['/unflushed'], options: { flush: false } })
        const root = (await node.invoke('files/stat', { args: ['/'] })).Hash
        await node.stop()
        node = await createTestNode({ repoPath: dir, plugins: [filesPlugin()] })
        try {
          expect((await node.invoke('files/stat', { args: ['/'] })).Hash).to.equal(root)
          expect((await node.invoke('files/read', { args: ['/kept.txt'] })).toString()).to.equal('hello')
          expect((await node.invoke('files/ls', { args: ['/'] })).Entries.map((e: any) => e.Name)).to.deep.equal(['kept.txt', 'unflushed'])
        } finally {
          await node.stop()
        }
      } finally {
        await fs.rm(dir, { recursive: true, force: true })
      }
    })

    it('GC roots: the registered provider gives the root with unflushed changes, its blocks stored', async () => {
      const s = await session()
      try {
        await s.write('/g', 'gc me not', { create: true, flush: false })
        const [root] = await s.node.container.cradle.gcRoots.collect()
        expect(root.toString()).to.equal(await s.hash('/'))
        expect(await s.node.container.cradle.blockstore.has(root)).to.equal(true)
      } finally {
        await s.node.stop()
      }
    })
    it('repo gc keeps what MFS holds, flushed or not, and collects what it dropped', async () => {
      const node = await createTestNode({ plugins: [filesPlugin(), repoPlugin()] })
      try {
        const write = async (p: string, content: string | Uint8Array, options: Record<string, unknown> = {}): Promise<void> =>
          await node.invoke('files/write', { args: [p], files: filesOf({ content }), options: { create: true, ...options } })
        await write('/kept', 'kept data')
        await write('/unflushed', random(600_000, 'unflushed'), { flush: false })
        await write('/gone', 'garbage')
        const gone = (await node.invoke('files/stat', { args: ['/gone'] })).Hash as string
        await node.invoke('files/rm', { args: ['/gone'] })
        const removed = (await node.invoke('repo/gc', {})) as Array<{ Key?: { '/': string } }>
        expect(removed.map(r => r.Key?.['/'])).to.include(CID.createV1(0x55, CID.parse(gone).multihash).toString())
        expect((await node.invoke('files/read', { args: ['/kept'] })).toString()).to.equal('kept data')
        expect(Buffer.compare(await node.invoke('files/read', { args: ['/unflushed'] }), random(600_000, 'unflushed'))).to.equal(0)
      } finally {
        await node.stop()
      }
    })
  })

  describe('commands and errors', () => {
    let s: Session
    before(async () => { s = await session() })
    after(async () => { await s.node.stop() })

    it('mkdir', async () => {
      await expect(s.inv('mkdir', ['/'])).to.be.rejectedWith("cannot create directory '/': Already exists")
      await s.inv('mkdir', ['/'], { parents: true })
      await expect(s.inv('mkdir', ['rel'])).to.be.rejectedWith('paths must start with a leading slash')
      await expect(s.inv('mkdir', ['/x/y'])).to.be.rejectedWith('file does not exist')
      await s.inv('mkdir', ['/x'])
      await expect(s.inv('mkdir', ['/x'])).to.be.rejectedWith('file already exists')
      await s.inv('mkdir', ['/x'], { parents: true })
      await s.write('/x/file', 'f', { create: true })
      await expect(s.inv('mkdir', ['/x/file/sub'], { parents: true })).to.be.rejectedWith('x was not a directory')
      await s.inv('mkdir', ['/v1/v0'], { parents: true, 'cid-version': 1 })
      expect(CID.parse(await s.hash('/v1')).version).to.equal(1)
      await s.inv('mkdir', ['/v1/v0/deep'], { 'cid-version': 0 })
      expect(CID.parse(await s.hash('/v1/v0/deep')).version).to.equal(0)
      expect(await s.inv('stat', ['/x/file'])).to.include({ Type: 'file', Size: 1 })
    })

    it('cp', async () => {
      const cid = await s.add('copy me\n')
      await expect(s.inv('cp', ['/ipfs/QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nz', '/nope'])).to.be.rejectedWith('cp: cannot get node from path')
      await expect(s.inv('cp', ['/no-such', '/nope'])).to.be.rejectedWith('cp: cannot get node from path /no-such: file does not exist')
      await s.inv('cp', [`/ipfs/${cid}`, '/copied'])
      expect(await s.hash('/copied')).to.equal(cid)
      await expect(s.inv('cp', [`/ipfs/${cid}`, '/copied'])).to.be.rejectedWith('cp: cannot put node in path /copied: directory already has entry by that name')
      await expect(s.inv('cp', [`/ipfs/${cid}`, '/a/b/c'])).to.be.rejectedWith('cp: cannot put node in path /a/b/c: file does not exist')
      await s.inv('cp', [`/ipfs/${cid}`, '/a/b/c'], { parents: true })
      expect(await s.read('/a/b/c')).to.equal('copy me\n')
      await s.inv('cp', ['/copied', '/a/'])
      expect(await s.read('/a/copied')).to.equal('copy me\n')
      // --force replaces a file, not a directory
      const other = await s.add('other\n')
      await s.inv('cp', [`/ipfs/${other}`, '/copied'], { force: true })
      expect(await s.read('/copied')).to.equal('other\n')
      await expect(s.inv('cp', [`/ipfs/${other}`, '/a'], { force: true })).to.be.rejectedWith('cp: cannot unlink existing file: not a file: /a')
      // sources must be UnixFS
      const { CID: C } = await import('multiformats/cid')
      const dagCbor = await import('@ipld/dag-cbor')
      const { sha256 } = await import('multiformats/hashes/sha2')
      const bytes = dagCbor.encode({ hello: 'world' })
      const cbor = C.createV1(dagCbor.code, await sha256.digest(bytes))
      await s.node.container.cradle.blockstore.put(cbor, bytes)
      await expect(s.inv('cp', [`/ipfs/${cbor.toString()}`, '/cbor'])).to.be.rejectedWith('cp: source must be a valid UnixFS (dag-pb or raw codec)')
      // ipfs:// URIs are content paths
      await s.inv('cp', [`ipfs://${cid}`, '/uri'])
      expect(await s.read('/uri')).to.equal('copy me\n')
    })

    it('mv', async () => {
      await s.inv('mkdir', ['/mv/src/inner'], { parents: true })
      await s.write('/mv/src/file', 'f', { create: true })
      await s.inv('mv', ['/mv/src/file', '/mv/moved'])
      expect(await s.read('/mv/moved')).to.equal('f')
      await expect(s.inv('stat', ['/mv/src/file'])).to.be.rejectedWith('file does not exist')
      await s.inv('mkdir', ['/mv/dst'])
      await s.inv('mv', ['/mv/src', '/mv/dst'])
      expect((await s.inv('ls', ['/mv/dst/src'])).Entries.map((e: any) => e.Name)).to.deep.equal(['inner'])
      await expect(s.inv('mv', ['/mv/none', '/mv/x'])).to.be.rejectedWith('file does not exist')
      await expect(s.inv('mv', ['/mv/moved', '/mv/nodir/x'])).to.be.rejectedWith('file does not exist')
      await expect(s.inv('mv', ['/mv/moved', '/mv/moved/x'])).to.be.rejectedWith('/mv/moved/ is not a directory')
    })

    it('rm emits each failure, then fails', async () => {
      await s.write('/rm/a', 'a', { create: true, parents: true })
      await s.inv('mkdir', ['/rm/d'])
      const [items, err] = await collect(s.node, 'files/rm', { args: ['/rm/a', '/rm/missing', '/rm/d', 'rel', '/'] })
      expect(items).to.deep.equal([
        '/rm/missing: file does not exist',
        '/rm/d: path is a directory, use -r to remove directories',
        'rel is not a valid path: paths must start with a leading slash',
        '/: cannot delete root'
      ])
      expect(err?.message).to.equal("can't remove some files")
      expect(filesRm.text?.(items[0] as string, {} as never)).to.equal('/rm/missing: file does not exist\n')
      await expect(s.inv('stat', ['/rm/a'])).to.be.rejectedWith('file does not exist')
      // --force: missing paths are fine, directories go without -r
      expect(await s.inv('rm', ['/rm/d', '/rm/missing', '/deeply/missing'], { force: true })).to.deep.equal([])
      expect((await s.inv('ls', ['/rm'])).Entries).to.equal(null)
      const [, ok] = await collect(s.node, 'files/rm', { args: ['/rm'], options: { recursive: true } })
      expect(ok).to.equal(undefined)
    })

    it('read', async () => {
      await s.write('/r/file', 'foo\n', { create: true, parents: true })
      expect(await s.read('/r/file', { offset: 2 })).to.equal('o\n')
      expect(await s.read('/r/file', { count: 200 })).to.equal('foo\n')
      await expect(s.read('/r/file', { offset: -3 })).to.be.rejectedWith('cannot specify negative offset')
      await expect(s.read('/r/file', { offset: 5 })).to.be.rejectedWith('offset was past end of file (5 > 4)')
      await expect(s.read('/r/file', { count: -1 })).to.be.rejectedWith("cannot specify negative 'count'")
      await expect(s.read('/r')).to.be.rejectedWith('/r was not a file')
      await expect(s.read('/r/none')).to.be.rejectedWith('/r/none: file does not exist')
    })

    it('ls shapes and text', async () => {
      await s.inv('mkdir', ['/ls/sub'], { parents: true })
      const cid = await s.add('foo\n')
      await s.inv('cp', [`/ipfs/${cid}`, '/ls/file1'])
      const short = await s.inv('ls', ['/ls']) as FilesLsOutput
      expect(short).to.deep.equal({ Entries: [{ Name: 'file1', Type: 0, Size: 0, Hash: '' }, { Name: 'sub', Type: 0, Size: 0, Hash: '' }] })
      const long = await s.inv('ls', ['/ls'], { long: true }) as FilesLsOutput
      const subHash = await s.hash('/ls/sub')
      expect(long.Entries).to.deep.equal([{ Name: 'file1', Type: 0, Size: 4, Hash: cid }, { Name: 'sub', Type: 1, Size: 0, Hash: subHash }])
      const call = (options: Record<string, unknown>): TextCall<any> => ({ path: [], args: [], options: { encoding: 'text', ...options } }) as unknown as TextCall<any>
      expect(filesLs.text?.(long, call({ long: true }))).to.equal(`file1\t${cid}\t4\nsub/\t${subHash}\t0\n`)
      expect(filesLs.text?.(short, call({}))).to.equal('file1\nsub\n')
      // a file: its name, and --cid-base applies
      const one = await s.node.invoke('files/ls', { args: ['/ls/file1'], options: { long: true, 'cid-base': 'base32' } }) as FilesLsOutput
      expect(one.Entries).to.deep.equal([{ Name: 'file1', Type: 0, Size: 4, Hash: CID.parse(cid).toV1().toString() }])
      expect(await s.inv('ls', ['/ls/file1'])).to.deep.equal({ Entries: [{ Name: 'file1', Type: 0, Size: 0, Hash: '' }] })
      await expect(s.inv('ls', ['/ls/none'])).to.be.rejectedWith('file does not exist')
      await expect(s.inv('ls', [''])).to.be.rejectedWith('paths must not be empty')
      await expect(s.inv('ls', ['not-valid'])).to.be.rejectedWith('paths must start with a leading slash')
    })

    it('stat: format tokens, --hash/--size, conflicts, content paths, --with-local', async () => {
      const cid = await s.add('foo\n')
      await s.inv('cp', [`/ipfs/${cid}`, '/st'])
      const st = await s.inv('stat', ['/st']) as FilesStatOutput
      expect(st).to.deep.equal({ Hash: cid, Size: 4, CumulativeSize: 12, Blocks: 0, Type: 'file' })
      const call = (options: Record<string, unknown>): TextCall<any> => ({ path: [], args: [], options: { format: '<hash>\nSize: <size>\nCumulativeSize: <cumulsize>\nChildBlocks: <childs>\nType: <type>\nMode: <mode> (<mode-octal>)\nMtime: <mtime>', ...options } }) as unknown as TextCall<any>
      expect(filesStat.text?.(st, call({}))).to.equal(`${cid}\nSize: 4\nCumulativeSize: 12\nChildBlocks: 0\nType: file\nMode: not set (not set)\nMtime: not set\n`)
      expect(filesStat.text?.(st, call({ hash: true }))).to.equal(`${cid}\n`)
      expect(filesStat.text?.(st, call({ size: true }))).to.equal('12\n')
      expect(filesStat.text?.(st, call({ format: '<type> <childs> <mtime-secs>' }))).to.equal('file 0 not set\n')
      const err = s.inv('stat', ['/st'], { hash: true, size: true })
      await expect(err).to.be.rejectedWith('invalid parameters: format was set by multiple options. Only one format option is allowed')
      expect(await err.catch((e: Error) => e.name)).to.equal('InvalidArgumentError')
      await expect(s.inv('stat', ['not-valid'])).to.be.rejectedWith('paths must start with a leading slash')
      await expect(s.inv('stat', ['/i-do-not-exist'])).to.be.rejectedWith('file does not exist')
      // outside MFS, and the locality of a DAG
      const rows = await s.node.invoke('add', { files: filesOf({ path: 'd/a', content: 'cats\n' }, { path: 'd/b', content: 'dogs\n' }), options: { recursive: true } })
      const dir = rows[rows.length - 1].Hash as string
      const local = await s.inv('stat', [`/ipfs/${dir}`], { 'with-local': true }) as FilesStatOutput
      expect(local).to.include({ Hash: dir, Type: 'directory', Blocks: 2, WithLocality: true, Local: true, SizeLocal: local.CumulativeSize })
      expect(filesStat.text?.(local, call({ hash: true }))).to.equal(`${dir}\nLocal: ${local.CumulativeSize} B of ${local.CumulativeSize} B (100.00%)\n`)
      expect(await s.inv('stat', [`ipfs://${dir}`])).to.include({ Hash: dir })
    })

    it('chmod and touch: Mode and Mtime in stat', async () => {
      await s.write('/meta/f', 'x', { create: true, parents: true })
      await s.node.invoke('files/chmod', { args: ['0644', '/meta/f'] })
      await s.node.invoke('files/touch', { args: ['/meta/f'], options: { mtime: 5 } })
      const f = await s.inv('stat', ['/meta/f']) as FilesStatOutput
      expect(f).to.include({ Mode: '0644', Mtime: 5 })
      expect(Object.keys(f)).to.deep.equal(['Hash', 'Size', 'CumulativeSize', 'Blocks', 'Type', 'Mtime', 'Mode'])
      const call = { path: [], args: [], options: { format: '<mode> <mode-octal> <mtime> <mtime-secs> <mtime-nsecs>' } } as unknown as TextCall<any>
      expect(filesStat.text?.(f, call)).to.equal('-rw-r--r-- 0644 1 Jan 1970, 00:00:05 UTC 5 0\n')
      expect(await s.read('/meta/f')).to.equal('x')
      await s.node.invoke('files/chmod', { args: ['755', '/meta'] })
      const d = await s.inv('stat', ['/meta']) as FilesStatOutput
      expect(d.Mode).to.equal('20000000755')
      expect(filesStat.text?.(d, call).startsWith('drwxr-xr-x 0755 not set')).to.equal(true)
      await s.node.invoke('files/touch', { args: ['/meta/f'], options: { mtime: 7, 'mtime-nsecs': 5 } })
      expect(await s.inv('stat', ['/meta/f'])).to.include({ Mtime: 7, MtimeNsecs: 5 })
      await expect(s.node.invoke('files/chmod', { args: ['u+x', '/meta/f'] })).to.be.rejectedWith('strconv.ParseInt: parsing "u+x": invalid syntax')
      await expect(s.node.invoke('files/chmod', { args: ['0644', '/meta/none'] })).to.be.rejectedWith('file does not exist')
      expect(goFileModeString(2 ** 27 + 0o777).toLowerCase()).to.equal('lrwxrwxrwx')
      expect(humanizeBytes(1234567)).to.equal('1.2 MB')
    })

    it('flush of a missing path fails', async () => {
      await expect(s.inv('flush', ['/i-do-not-exist'])).to.be.rejectedWith('file does not exist')
    })

    it('chroot: needs --confirm, checks the new root, resets MFS', async () => {
      await expect(s.node.invoke('files/chroot', { args: [] })).to.be.rejectedWith('this is a potentially destructive operation; pass --confirm to proceed')
      await expect(s.node.invoke('files/chroot', { args: ['bafybeibdxtd5thfoitjmnfhxhywokebwdmwnuqgkzjjdjhwjz7qh77777a'], options: { confirm: true } }))
        .to.be.rejectedWith('does not exist locally')
      const file = await s.add('hello world')
      await expect(s.node.invoke('files/chroot', { args: [file], options: { confirm: true } })).to.be.rejectedWith('new root must be a directory, got File')
      await s.inv('mkdir', ['/keep'])
      const keep = await s.hash('/')
      const out = await s.node.invoke('files/chroot', { args: [], options: { confirm: true } })
      expect(out.Message).to.match(/^MFS root changed from Qm\w+ to QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn\nThe old root Qm\w+ will be garbage collected unless pinned\.\n$/)
      expect((await s.inv('ls', ['/'])).Entries).to.equal(null)
      await s.node.invoke('files/chroot', { args: [keep], options: { confirm: true } })
      expect((await s.inv('ls', ['/'])).Entries.map((e: any) => e.Name)).to.include('keep')
    })

    it('is registered as Kubo declares it', () => {
      const reg = s.node.registry
      expect(reg.node(['files', 'chroot'])?.command?.http).to.equal(false)
      for (const p of ['chmod', 'touch', 'chroot']) expect(reg.node(['files', p])?.command?.status).to.equal('experimental')
      expect(reg.optionTable(['files', 'write']).get('f')?.canonical).to.equal('flush')
    })
  })

  describe('add --to-files', () => {
    let s: Session
    before(async () => { s = await session() })
    after(async () => { await s.node.stop() })

    const add = async (options: Record<string, unknown>, ...entries: Array<{ path: string, content: string }>): Promise<any[]> =>
      await s.node.invoke('add', { files: filesOf(...entries), options })

    it('t0040: links the added file into MFS', async () => {
      const rows = await add({ 'to-files': '/ipfs-add-to-files' }, { path: 'mfs.txt', content: 'Hello MFS!\n' })
      expect(rows).to.deep.equal([{ Name: 'mfs.txt', Hash: 'QmVT8bL3sGBA2TwvX8JPhrv5CYZL8LLLfW7mxkUjPZsgBr', Size: '19' }])
      expect(await s.read('/ipfs-add-to-files')).to.equal('Hello MFS!\n')
      await add({ 'to-files': '/' }, { path: 'mfs.txt', content: 'Hello MFS!\n' })
      expect(await s.read('/mfs.txt')).to.equal('Hello MFS!\n')
    })

    it('t0040: several entries need a directory destination', async () => {
      await expect(add({ 'to-files': '/mfspath0' }, { path: 'mfs1.txt', content: 'file1\n' }, { path: 'mfs2.txt', content: 'file2\n' }))
        .to.be.rejectedWith('to-files: MFS destination is a file: only one entry can be copied to "/mfspath0"')
      await s.write('/mfsfile1', 'test\n', { create: true })
      await expect(add({ 'to-files': '/mfsfile1' }, { path: 'mfs1.txt', content: 'file1\n' }))
        .to.be.rejectedWith('to-files: cannot put node in path "/mfsfile1": directory already has entry by that name')
      await expect(add({ 'to-files': '/mfsfile1/' }, { path: 'mfs1.txt', content: 'file1\n' }))
        .to.be.rejectedWith('to-files: MFS destination "/mfsfile1/" is not a directory')
      await expect(add({ 'to-files': '/nodir/' }, { path: 'mfs1.txt', content: 'file1\n' }))
        .to.be.rejectedWith('to-files: MFS destination directory "/nodir/" does not exist: file does not exist')
      await expect(add({ 'to-files': 'rel' }, { path: 'mfs1.txt', content: 'file1\n' }))
        .to.be.rejectedWith('to-files: paths must start with a leading slash')
      await expect(add({ 'to-files': '/x' }, { path: '', content: 'anonymous\n' })).to.be.rejectedWith('to-files: cannot add unnamed files to MFS')
      await s.inv('mkdir', ['/mfsdir2'])
      const rows = await add({ 'to-files': '/mfsdir2/', 'cid-version': 1 }, { path: 'mfs1.txt', content: 'file1\n' }, { path: 'mfs2.txt', content: 'file2\n' })
      expect(rows.map(r => r.Hash)).to.deep.equal(['bafkreihm3rktn5z33luic3youqdsn326toaq3ekesmdvsa53sbrd3f5r3a', 'bafkreidh5zkhr2vnwa2luwmuj24xo6l3jhfgvkgtk5cyp43oxs7owzpxby'])
      expect((await s.inv('ls', ['/mfsdir2'])).Entries.map((e: any) => e.Name)).to.deep.equal(['mfs1.txt', 'mfs2.txt'])
    })

    it('t0040: a directory goes in as one entry', async () => {
      await s.inv('mkdir', ['/mfs/subdir4'], { parents: true })
      const rows = await add({ 'to-files': '/mfs/subdir4/', 'cid-version': 1, recursive: true }, { path: 'test/mfs1.txt', content: 'file1\n' }, { path: 'test/mfs2.txt', content: 'file2\n' })
      expect(rows.at(-1)).to.include({ Name: 'test', Hash: 'bafybeic7xwqwovt4g4bax6d3udp6222i63vj2rblpbim7uy2uw4a5gahha' })
      expect((await s.inv('ls', ['/mfs/subdir4'])).Entries.map((e: any) => e.Name)).to.deep.equal(['test'])
      await s.inv('mkdir', ['/mfs/subdir3'])
      await expect(add({ 'to-files': '/mfs/subdir3', recursive: true }, { path: 'test/mfs1.txt', content: 'file1\n' }))
        .to.be.rejectedWith('cannot put node in path "/mfs/subdir3": directory already has entry by that name')
    })

    it('files_test.go: follows the Import config', async () => {
      const s2 = await session({ CidVersion: 1, UnixFSRawLeaves: true })
      try {
        const rows = await s2.node.invoke('add', { files: filesOf({ path: 'test.txt', content: 'hello world' }), options: { 'to-files': '/added.txt', quieter: true } })
        expect(await s2.hash('/added.txt')).to.equal(rows.at(-1).Hash).and.to.equal('bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e')
      } finally {
        await s2.node.stop()
      }
    })
  })
})
