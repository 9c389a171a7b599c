import { expect } from 'chai'
import sinon from 'sinon'
import { MemoryDatastore } from 'datastore-core'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { persistentPeerStore } from '@libp2p/peer-store'
import { multiaddr } from '@multiformats/multiaddr'
import type { PeerId, PeerStore } from '@libp2p/interface'
import { cachePeerReads } from '../../../core/libp2p/peerstore-cache.js'

const newId = async (): Promise<PeerId> => peerIdFromPrivateKey(await generateKeyPair('Ed25519'))

/** js-libp2p's own peer store over a memory datastore, with the read cache; `reads` counts datastore gets */
async function store (): Promise<{ peers: PeerStore, reads: sinon.SinonSpy }> {
  const log = Object.assign(() => {}, { trace: () => {}, error: () => {}, enabled: false })
  const datastore = new MemoryDatastore()
  const reads = sinon.spy(datastore, 'get')
  const peers = persistentPeerStore({
    peerId: await newId(),
    datastore,
    events: { safeDispatchEvent: () => true } as any,
    logger: { forComponent: () => log } as any
  })
  cachePeerReads(peers)
  return { peers, reads }
}

const addrs = async (peers: PeerStore, id: PeerId): Promise<string[]> => (await peers.getInfo(id)).multiaddrs.map(String).sort()

describe('core/libp2p: decoded peers kept between peer store reads', () => {
  it('a second read of an unchanged peer does not reach the datastore and gives the same peer', async () => {
    const { peers, reads } = await store()
    const id = await newId()
    await peers.merge(id, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/4001')], protocols: ['/ipfs/lan/kad/1.0.0'] })
    const first = await peers.get(id)
    const n = reads.callCount
    const second = await peers.get(id)
    expect(reads.callCount).to.equal(n)
    expect(second.id.equals(id)).to.equal(true)
    expect(second.protocols).to.deep.equal(['/ipfs/lan/kad/1.0.0'])
    expect(second.addresses.map(a => a.multiaddr.toString())).to.deep.equal(first.addresses.map(a => a.multiaddr.toString()))
  })

  it('a caller changing a peer it read does not change the next read', async () => {
    const { peers } = await store()
    const id = await newId()
    await peers.merge(id, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/4001')], protocols: ['/a'] })
    await peers.get(id)
    const p = await peers.get(id)
    p.protocols.push('/b')
    p.addresses.length = 0
    const again = await peers.get(id)
    expect(again.protocols).to.deep.equal(['/a'])
    expect(again.addresses).to.have.length(1)
  })

  it('every write of the peer is seen by the next read: merge, patch, save, delete', async () => {
    const { peers } = await store()
    const id = await newId()
    await peers.merge(id, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/1')] })
    expect(await addrs(peers, id)).to.deep.equal(['/ip4/127.0.0.1/tcp/1'])
    await peers.merge(id, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/2')] })
    expect(await addrs(peers, id)).to.deep.equal(['/ip4/127.0.0.1/tcp/1', '/ip4/127.0.0.1/tcp/2'])
    await peers.patch(id, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/3')] })
    expect(await addrs(peers, id)).to.deep.equal(['/ip4/127.0.0.1/tcp/3'])
    await peers.save(id, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/4')] })
    expect(await addrs(peers, id)).to.deep.equal(['/ip4/127.0.0.1/tcp/4'])
    await peers.delete(id)
    const err = await peers.get(id).then(() => undefined, (e: Error) => e)
    expect(err?.name).to.equal('NotFoundError')
  })

  it('a read that overlapped a write of the peer is not kept', async () => {
    const { peers, reads } = await store()
    const id = await newId()
    await peers.merge(id, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/1')] })
    const reading = peers.get(id)
    const writing = peers.merge(id, { multiaddrs: [multiaddr('/ip4/127.0.0.1/tcp/2')] })
    await Promise.all([reading, writing])
    const n = reads.callCount
    expect(await addrs(peers, id)).to.deep.equal(['/ip4/127.0.0.1/tcp/1', '/ip4/127.0.0.1/tcp/2'])
    expect(reads.callCount).to.equal(n + 1)
  })

  it('a peer never stored stays not found', async () => {
    const { peers } = await store()
    const err = await peers.get(await newId()).then(() => undefined, (e: Error) => e)
    expect(err?.name).to.equal('NotFoundError')
  })
})
