// libp2p's peer store lives in memory (as Kubo's pstoremem); the rest of what libp2p keeps stays in the repo datastore.
import { expect } from 'chai'
import { MemoryDatastore } from 'datastore-core'
import { Key } from 'interface-datastore'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { multiaddr } from '@multiformats/multiaddr'
import type { Libp2p } from '@libp2p/interface'
import { createNode } from '../../../server/node.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import type { KuboConfig } from '../../../core/config/index.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'
import { PeerStoreInMemory } from '../../../core/libp2p/peerstore-memory.js'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { LevelDatastore } from 'datastore-level'
import { createCoreContainer } from '../../../core/container.js'
import { Registry } from '../../../registry/registry.js'
import { initRepo } from '../../../core/repo/index.js'
import { dropStalePeers } from '../../../core/repo/stale-peers.js'

async function all<T> (it: AsyncIterable<T> | Iterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s)
const keysOf = async (it: AsyncIterable<Key> | Iterable<Key>): Promise<string[]> => (await all(it)).map(k => k.toString()).sort()

describe('core/libp2p: the peer store in memory', function () {
  this.timeout(30_000)

  it('routes /peers/… to memory and every other key to the backing datastore', async () => {
    const backing = new MemoryDatastore()
    const ds = new PeerStoreInMemory(backing)
    await ds.put(new Key('/peers/a'), bytes('peer'))
    await ds.put(new Key('/dht/record/x'), bytes('record'))
    await ds.put(new Key('/peersx/b'), bytes('not a peer'))
    expect(await backing.has(new Key('/peers/a'))).to.equal(false)
    expect(await ds.peers.has(new Key('/peers/a'))).to.equal(true)
    expect(await backing.has(new Key('/dht/record/x'))).to.equal(true)
    expect(await backing.has(new Key('/peersx/b'))).to.equal(true)
    expect(new TextDecoder().decode(await ds.get(new Key('/peers/a')))).to.equal('peer')
    expect(await ds.has(new Key('/dht/record/x'))).to.equal(true)
    await ds.delete(new Key('/dht/record/x'))
    expect(await backing.has(new Key('/dht/record/x'))).to.equal(false)
    const b = ds.batch()
    b.put(new Key('/peers/c'), bytes('c'))
    b.put(new Key('/providers/y'), bytes('y'))
    await b.commit()
    expect(await ds.peers.has(new Key('/peers/c'))).to.equal(true)
    expect(await backing.has(new Key('/providers/y'))).to.equal(true)
  })

  it('queries: /peers from memory only (ignoring peers an earlier build persisted), the rest from the backing store', async () => {
    const backing = new MemoryDatastore()
    await backing.put(new Key('/peers/stale'), bytes('left by an earlier build'))
    const ds = new PeerStoreInMemory(backing)
    await ds.put(new Key('/peers/a'), bytes('a'))
    await ds.put(new Key('/dht/record/x'), bytes('x'))
    expect(await keysOf(ds.queryKeys({ prefix: '/peers/' }))).to.deep.equal(['/peers/a'])
    expect((await all(ds.query({ prefix: '/peers/' }))).map(p => p.key.toString())).to.deep.equal(['/peers/a'])
    expect(await keysOf(ds.queryKeys({ prefix: '/dht' }))).to.deep.equal(['/dht/record/x'])
    expect(await keysOf(ds.queryKeys({}))).to.deep.equal(['/dht/record/x', '/peers/a'])
    expect(await keysOf(ds.queryKeys({ prefix: '/peer' }))).to.deep.equal(['/peers/a'])
    await ds.put(new Key('/peersx/b'), bytes('b'))
    expect(await keysOf(ds.queryKeys({ prefix: '/peers' }))).to.deep.equal(['/peers/a', '/peersx/b'])
    expect(await keysOf(ds.queryKeys({ prefix: '/peers/' }))).to.deep.equal(['/peers/a'])
    expect((await all(ds.query({ filters: [p => p.key.toString().startsWith('/peers/')] }))).map(p => p.key.toString())).to.deep.equal(['/peers/a'])
  })

  it("the node's libp2p keeps peers out of the repo datastore (nothing of them outlives the daemon)", async () => {
    const c = defaultConfig(identityOf(await generateIdentity())) as Record<string, any>
    c.Addresses.Swarm = ['/ip4/127.0.0.1/tcp/0']
    c.Bootstrap = []
    const node = await createNode({ online: true, plugins: [], noExternalPlugins: true, config: c as KuboConfig })
    const repo = node.container.cradle.datastore
    const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
    try {
      const libp2p = node.container.cradle.libp2p as unknown as Libp2p
      await libp2p.peerStore.merge(other, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/4321')] })
      expect((await libp2p.peerStore.get(other)).addresses.map(a => a.multiaddr.toString())).to.deep.equal(['/ip4/127.0.0.1/tcp/4321'])
      expect(await keysOf(repo.queryKeys({ prefix: '/peers' }))).to.deep.equal([])
      // what else libp2p stores goes through to the repo datastore
      await (libp2p as any).components.datastore.put(new Key('/dht/record/probe'), bytes('r'))
      expect(await repo.has(new Key('/dht/record/probe'))).to.equal(true)
    } finally {
      await node.stop()
    }
  })

  describe('peers an earlier build persisted in the repo', () => {
    let dir: string
    beforeEach(async () => { dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-stale-peers-')) })
    afterEach(async () => { await fs.rm(dir, { recursive: true, force: true }) })

    it('are removed when the repo datastore opens; every other key stays', async () => {
      await initRepo(dir)
      const level = new LevelDatastore(path.join(dir, 'datastore'))
      await level.open()
      for (let i = 0; i < 1205; i++) await level.put(new Key(`/peers/addrs/p${i}`), bytes('stale'))
      await level.put(new Key('/peersx/keep'), bytes('not a peer'))
      await level.put(new Key('/dht/record/keep'), bytes('record'))
      const before = await keysOf(level.queryKeys({}))
      await level.close()

      const core = await createCoreContainer({ repoPath: dir, registry: new Registry() })
      try {
        const repo = core.container.cradle.datastore
        expect(await keysOf(repo.queryKeys({ prefix: '/peers/' }))).to.deep.equal([])
        const after = await keysOf(repo.queryKeys({}))
        expect(after).to.include.members(['/peersx/keep', '/dht/record/keep'])
        expect(after).to.deep.equal(before.filter(k => !k.startsWith('/peers/')))
      } finally {
        await core.close()
      }
    })

    it('an open without any costs no deletion', async () => {
      const ds = new MemoryDatastore()
      await ds.put(new Key('/peersx/keep'), bytes('x'))
      expect(await dropStalePeers(ds)).to.equal(0)
      await ds.put(new Key('/peers/a'), bytes('a'))
      expect(await dropStalePeers(ds)).to.equal(1)
      expect(await keysOf(ds.queryKeys({}))).to.deep.equal(['/peersx/keep'])
    })
  })
})
