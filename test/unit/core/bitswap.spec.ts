// Block exchange between two real online nodes on loopback (core/bitswap): fetching, waiting until the
// request's signal aborts, announcing new blocks, the per-request offline view, hash checks.
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { blockPlugin } from '../../../plugins/block/index.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'
import { getHasher, multihashOf } from '../../../core/bitswap/index.js'
import { hashByName } from '../../../core/hashes.js'
import { NodeBlockstore, getBlock } from '../../../core/blockstore/index.js'
import { MemoryBlockstore } from 'blockstore-core/memory'

use(chaiAsPromised)

const offlineText = (cid: string): string => `block was not found locally (offline): ipld: could not find ${cid}`

/** A block nobody has: raw CIDv1 of random bytes. */
function missingCid (): CID {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return CID.createV1(raw.code, hashByName('sha2-256')!.digest(bytes))
}

/** A signal that aborts after ms with the RPC server's deadline error. */
function deadline (ms: number): AbortSignal {
  const c = new AbortController()
  setTimeout(() => c.abort(Object.assign(new Error('context deadline exceeded'), { name: 'TimeoutError' })), ms).unref()
  return c.signal
}

async function onlineNode (): Promise<TestNode> {
  const config = defaultConfig(identityOf(await generateIdentity()))
  ;(config.Addresses as Record<string, unknown>).Swarm = ['/ip4/127.0.0.1/tcp/0']
  config.Bootstrap = []
  ;(config.Routing as Record<string, unknown>).DelegatedRouters = []
  return await createTestNode({ plugins: [blockPlugin()], online: true, config })
}

describe('core/bitswap', function () {
  this.timeout(30_000)
  let a: TestNode
  let b: TestNode

  const put = async (node: TestNode, content: string, options: Record<string, unknown> = {}): Promise<string> => {
    const [row] = await node.invoke('block/put', { files: filesOf({ content }), options })
    return row.Key
  }
  const get = async (node: TestNode, cid: string, signal?: AbortSignal, options: Record<string, unknown> = {}): Promise<Buffer> =>
    await node.registry.invoke(['block', 'get'], { args: [cid], options }, node.container, signal)

  before(async () => {
    a = await onlineNode()
    b = await onlineNode()
    const addr = a.container.cradle.libp2p!.getMultiaddrs()[0]
    await b.container.cradle.libp2p!.dial(addr)
  })

  after(async () => {
    await a?.stop()
    await b?.stop()
  })

  it('runs on online nodes, after libp2p', () => {
    expect(a.container.cradle.bitswap).to.not.equal(null)
    expect(a.container.cradle.bitswap!.isStarted()).to.equal(true)
    expect(a.container.cradle.libp2p!.getProtocols()).to.include('/ipfs/bitswap/1.2.0')
  })

  it('block/get on B fetches a block A has, and B keeps it', async () => {
    const cid = await put(a, 'hello from A\n')
    const bytes = await get(b, cid, deadline(10_000))
    expect(bytes.toString()).to.equal('hello from A\n')
    // stored: an offline read on B finds it now
    const again = await get(b, cid, undefined, { offline: true })
    expect(again.toString()).to.equal('hello from A\n')
  })

  it('fetches blocks of other hash functions (getHasher over core/hashes)', async () => {
    const cid = await put(a, 'blake2b on A\n', { mhtype: 'blake2b-256' })
    expect(CID.parse(cid).multihash.code).to.equal(0xb220)
    expect((await get(b, cid, deadline(10_000))).toString()).to.equal('blake2b on A\n')
    const sha3 = await put(a, 'sha3 on A\n', { mhtype: 'sha3-512' })
    expect((await get(b, sha3, deadline(10_000))).toString()).to.equal('sha3 on A\n')
  })

  it('waits for a missing block until the signal aborts, with its reason', async () => {
    const cid = missingCid().toString()
    const start = Date.now()
    await expect(get(b, cid, deadline(400))).to.be.rejectedWith('context deadline exceeded')
    expect(Date.now() - start).to.be.at.least(350)
    // the want is withdrawn once the request gave up
    expect(b.container.cradle.bitswap!.wantlist().map(String)).to.not.include(cid)
  })

  it('is in the wantlist while waiting', async () => {
    const cid = missingCid().toString()
    const c = new AbortController()
    const pending = get(b, cid, c.signal)
    pending.catch(() => {})
    await new Promise(resolve => setTimeout(resolve, 100))
    expect(b.container.cradle.bitswap!.wantlist().map(String)).to.include(cid)
    c.abort(new Error('context canceled'))
    await expect(pending).to.be.rejectedWith('context canceled')
  })

  it('a block A adds later reaches B while B waits (A announces it)', async () => {
    const content = `late block ${Math.random()}\n`
    const bytes = new TextEncoder().encode(content)
    const cid = CID.createV1(raw.code, hashByName('sha2-256')!.digest(bytes)).toString()
    const pending = get(b, cid, deadline(10_000))
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(await put(a, content)).to.equal(cid)
    const putAt = Date.now()
    expect((await pending).toString()).to.equal(content)
    // pushed on put (without the announcement it comes only when B asks again, seconds later)
    expect(Date.now() - putAt).to.be.below(1_000)
  })

  it('a block put locally ends a local wait', async () => {
    const content = `local arrival ${Math.random()}\n`
    const bytes = new TextEncoder().encode(content)
    const cid = CID.createV1(raw.code, hashByName('sha2-256')!.digest(bytes)).toString()
    const pending = get(b, cid, deadline(10_000))
    await new Promise(resolve => setTimeout(resolve, 100))
    await put(b, content)
    expect((await pending).toString()).to.equal(content)
  })

  it('offline=true on a request fails at once with the offline error', async () => {
    const cid = missingCid().toString()
    const start = Date.now()
    await expect(get(b, cid, deadline(5_000), { offline: true })).to.be.rejectedWith(offlineText(cid))
    await expect(get(b, cid, deadline(5_000), { local: true })).to.be.rejectedWith(offlineText(cid))
    expect(Date.now() - start).to.be.below(1_000)
  })

  it('offline=true does not fetch what a peer has', async () => {
    const cid = await put(a, `only on A ${Math.random()}\n`)
    await expect(get(b, cid, deadline(5_000), { offline: true })).to.be.rejectedWith(offlineText(cid))
  })

  it('the offline scope resolves the offline view of the store', async () => {
    const { createRequestScope } = await import('../../../core/container.js')
    const scope = createRequestScope(b.container, { signal: new AbortController().signal, log: () => b.container.cradle.logger, offline: true })
    const store = scope.cradle.blockstore as NodeBlockstore
    expect(store).to.be.instanceOf(NodeBlockstore)
    expect(store).to.not.equal(b.container.cradle.blockstore)
    const cid = missingCid()
    await expect(getBlock(store, cid)).to.be.rejectedWith(offlineText(cid.toString()))
    await expect(scope.cradle.resolver.resolve(`/ipfs/${cid.toString()}/x`)).to.be.rejectedWith(offlineText(cid.toString()))
  })
})

describe('core/bitswap offline node', () => {
  it('a node without libp2p has no exchange and fails at once', async () => {
    const node = await createTestNode({ plugins: [blockPlugin()] })
    try {
      expect(node.container.cradle.bitswap).to.equal(null)
      const cid = missingCid().toString()
      await expect(node.invoke('block/get', { args: [cid] })).to.be.rejectedWith(offlineText(cid))
    } finally {
      await node.stop()
    }
  })
})

describe('core/bitswap hashes', () => {
  it('getHasher digests like core/hashes, with truncation', async () => {
    const data = new TextEncoder().encode('abc')
    for (const name of ['sha2-256', 'blake2b-256', 'sha3-512', 'keccak-256', 'blake3']) {
      const fn = hashByName(name)!
      const hasher = getHasher(fn.code)
      expect((await hasher.digest(data)).bytes).to.deep.equal(fn.digest(data).bytes)
    }
    const sha3 = getHasher(hashByName('sha3-512')!.code)
    expect((await sha3.digest(data, { truncate: 20 })).size).to.equal(20)
    expect(() => getHasher(0x9999)).to.throw('unsupported multihash function 0x9999')
  })

  it('multihashOf gives the multihash (function, length, digest) the client matches wants by', () => {
    const data = new TextEncoder().encode('block')
    const digest = hashByName('sha2-256')!.digest(data)
    expect(Buffer.from(multihashOf(0x12, data, 32)!).equals(digest.bytes)).to.equal(true)
    expect(Buffer.from(multihashOf(0x12, data, 20)!).equals(hashByName('sha2-256')!.digest(data, 20).bytes)).to.equal(true)
    // an identity block holding the digest does not give the sha2-256 multihash
    expect(Buffer.from(multihashOf(0x00, digest.digest, 32)!).equals(digest.bytes)).to.equal(false)
    expect(multihashOf(0x12, data, 64)).to.equal(undefined)
    expect(multihashOf(0x7777, data, 32)).to.equal(undefined)
  })

  it('fetched blocks are written through the node store (announced to the exchange)', async () => {
    const store = new NodeBlockstore(new MemoryBlockstore())
    const announced: string[] = []
    store.setAnnouncer(cid => { announced.push(cid.toString()) })
    const data = new TextEncoder().encode('x')
    const cid = CID.createV1(raw.code, hashByName('sha2-256')!.digest(data))
    await store.put(cid, data)
    for await (const _ of store.putMany([{ cid: missingCid(), bytes: data }])) {} // eslint-disable-line no-empty
    expect(announced).to.have.length(2)
    expect(announced[0]).to.equal(cid.toString())
    // the offline view neither fetches nor announces
    store.setFetcher(async () => data)
    const off = store.offline()
    await off.put(cid, data)
    expect(announced).to.have.length(2)
    const other = missingCid()
    await expect(getBlock(off, other)).to.be.rejectedWith(offlineText(other.toString()))
    expect(await getBlock(store, other)).to.deep.equal(data)
  })
})
