import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { PassThrough } from 'node:stream'
import { CID } from 'multiformats/cid'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { execute, textCall } from '../../../registry/execute.js'
import type { InvokeInput } from '../../../registry/registry.js'
import { catPlugin } from '../../../plugins/cat/index.js'
import { createResolver, openUnixfs, readFile, type UnixfsFileNode } from '../../../core/resolver/index.js'
import { importBytes, importEntries, putBlock, pseudoRandom } from './unixfs-helper.js'

use(chaiAsPromised)

const HELLO = 'QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH' // "Hello Worlds!\n" (t0040)
const EMPTY = 'QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH'
const EMPTY_RAW = 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku'

async function cat (node: TestNode, args: string[], options: InvokeInput['options'] = {}): Promise<string> {
  return (await node.invoke('cat', { args, options }) as Buffer).toString('utf8')
}

describe('cat plugin', () => {
  let node: TestNode
  before(async () => {
    node = await createTestNode({ plugins: [catPlugin()] })
    const bs = node.container.cradle.blockstore
    expect(await importBytes(bs, 'Hello Worlds!\n')).to.equal(HELLO)
    expect(await importBytes(bs, '')).to.equal(EMPTY)
    expect(await importBytes(bs, '', { cidVersion: 1, rawLeaves: true })).to.equal(EMPTY_RAW)
  })
  after(async () => { await node.stop() })

  it('prints a file by CID and by /ipfs path', async () => {
    expect(await cat(node, [HELLO])).to.equal('Hello Worlds!\n')
    expect(await cat(node, [`/ipfs/${HELLO}`])).to.equal('Hello Worlds!\n')
    expect(await cat(node, [CID.parse(HELLO).toV1().toString()])).to.equal('Hello Worlds!\n')
  })

  it('applies offset and length across all arguments (t0040)', async () => {
    expect(await cat(node, [HELLO], { offset: 10 })).to.equal('ds!\n')
    expect(await cat(node, [HELLO, HELLO], { offset: 10 })).to.equal('ds!\nHello Worlds!\n')
    expect(await cat(node, [HELLO, HELLO], { offset: 16 })).to.equal('llo Worlds!\n')
    expect(await cat(node, [HELLO], { length: 8 })).to.equal('Hello Wo')
    expect(await cat(node, [HELLO, HELLO, HELLO], { offset: 5, length: 15 })).to.equal(' Worlds!\nHello ')
    expect(await cat(node, [HELLO], { length: 14 })).to.equal('Hello Worlds!\n')
    expect(await cat(node, [HELLO], { length: 0 })).to.equal('')
    expect(await cat(node, [HELLO], { length: 100 })).to.equal('Hello Worlds!\n')
  })

  it('coerces offset/length from query strings (-o, -l)', async () => {
    expect((await node.invoke('cat', { args: [HELLO], query: [['o', ['1']], ['l', ['3']]] }) as Buffer).toString()).to.equal('ell')
  })

  it('rejects negative offset and length with Kubo errors', async () => {
    await expect(cat(node, [HELLO], { offset: -102 })).to.be.rejectedWith('cannot specify negative offset')
    await expect(cat(node, [HELLO], { length: -102 })).to.be.rejectedWith('cannot specify negative length')
  })

  it('sets X-Content-Length to the bytes it will send', async () => {
    const run = async (args: string[], options: InvokeInput['options']): Promise<number | undefined> => {
      const outcome = await execute(node.registry.prepare(['cat'], { args, options }), node.container, { signal: new AbortController().signal })
      if (outcome.kind !== 'bytes') throw new Error('expected bytes')
      for await (const _ of outcome.body) { /* drain */ }
      return outcome.length
    }
    expect(await run([HELLO, HELLO, HELLO], { offset: 5, length: 15 })).to.equal(15)
    expect(await run([HELLO, HELLO], { offset: 10 })).to.equal(18)
    expect(await run([HELLO], { length: 0 })).to.equal(0)
  })

  it('prints empty files (dag-pb and raw)', async () => {
    expect(await cat(node, [EMPTY])).to.equal('')
    expect(await cat(node, [EMPTY_RAW])).to.equal('')
  })

  it('refuses directories and reports missing paths', async () => {
    const added = await importEntries(node.container.cradle.blockstore, [{ path: 'dir/testfile.txt', content: 'Plz add me!\n' }])
    const dir = added.get('dir') as string
    await expect(cat(node, [dir])).to.be.rejectedWith('this dag node is a directory')
    expect(await cat(node, [`/ipfs/${dir}/testfile.txt`])).to.equal('Plz add me!\n')
    await expect(cat(node, [`${dir}/nope`])).to.be.rejectedWith(`no link named "nope" under ${dir}`)
    await expect(cat(node, ['somethingNotMultihash'])).to.be.rejectedWith('invalid path "somethingNotMultihash": path does not have enough components')
    // every path is checked before the first byte
    await expect(cat(node, [HELLO, dir])).to.be.rejectedWith('this dag node is a directory')
  })

  it('fails on a missing block with the offline exchange text', async () => {
    const missing = 'QmYmW4HiZhotsoSqnv2o1oSssvkRM8b9RweBoH7ao5nki2'
    await expect(cat(node, [missing])).to.be.rejectedWith(`block was not found locally (offline): ipld: could not find ${missing}`)
  })

  it('follows a dag-cbor link into UnixFS', async () => {
    const holder = await putBlock(node.container.cradle.blockstore, 'dag-cbor', { cats: [CID.parse(HELLO)] })
    expect(await cat(node, [`${holder}/cats/0`])).to.equal('Hello Worlds!\n')
    await expect(cat(node, [holder.toString()])).to.be.rejectedWith('unknown node type')
  })

  it('reads multi-block files, raw leaves and ranges across blocks', async () => {
    const bs = node.container.cradle.blockstore
    const data = pseudoRandom(1024 * 1024 + 12345, 7)
    for (const opts of [{}, { cidVersion: 1 as const, rawLeaves: true }]) {
      const cid = await importBytes(bs, data, opts)
      expect(Buffer.compare(await node.invoke('cat', { args: [cid] }), Buffer.from(data))).to.equal(0)
      const slice = await node.invoke('cat', { args: [cid], options: { offset: 262140, length: 300000 } }) as Buffer
      expect(Buffer.compare(slice, Buffer.from(data.subarray(262140, 562140)))).to.equal(0)
    }
  })

  it('reads only the blocks the range needs', async () => {
    const bs = node.container.cradle.blockstore
    const data = pseudoRandom(5 * 262144, 3)
    const cid = CID.parse(await importBytes(bs, data))
    const fetched: string[] = []
    const counting = createResolver({ blockstore: { get: (c: CID, o?: { signal?: AbortSignal }) => { fetched.push(c.toString()); return bs.get(c, o) } } })
    const root = await openUnixfs(cid, await counting.getBlock(cid), async c => await counting.getBlock(c)) as UnixfsFileNode
    expect(root.size).to.equal(data.length)
    const chunks: Uint8Array[] = []
    for await (const c of readFile(root, async c => await counting.getBlock(c), { offset: 2 * 262144 + 5, length: 10 })) chunks.push(c)
    expect(Buffer.concat(chunks)).to.deep.equal(Buffer.from(data.subarray(2 * 262144 + 5, 2 * 262144 + 15)))
    expect(fetched).to.have.length(2) // the root and the third leaf
  })

  it('prints a symlink as its target', async () => {
    const target = 'files/foo/baz'
    const { UnixFS } = await import('ipfs-unixfs')
    const link = await putBlock(node.container.cradle.blockstore, 'dag-pb', { Data: new UnixFS({ type: 'symlink', data: new TextEncoder().encode(target) }).marshal(), Links: [] }, true)
    expect(await cat(node, [link.toString()])).to.equal(target)
  })

  it('the CLI writes the bytes to stdout', async () => {
    const prepared = node.registry.prepare(['cat'], { args: [HELLO] })
    const outcome = await execute(prepared, node.container, { signal: new AbortController().signal })
    const stdout = new PassThrough()
    const stderr = new PassThrough()
    const chunks: Buffer[] = []
    stdout.on('data', (c: Buffer) => chunks.push(c))
    await prepared.command.cliRender?.(outcome, textCall(prepared) as never, { stdout, stderr, isTTY: false, cwd: process.cwd() })
    expect(Buffer.concat(chunks).toString()).to.equal('Hello Worlds!\n')
  })
})
