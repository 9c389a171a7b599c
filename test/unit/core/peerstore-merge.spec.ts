import { expect } from 'chai'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import type { Peer, PeerId, PeerStore } from '@libp2p/interface'
import { fastProtocolMerge } from '../../../core/libp2p/peerstore-merge.js'

/** a peer store over a map: merge adds protocols, patch replaces them; counts the calls that reach it */
function fakeStore (): { store: PeerStore, calls: string[] } {
  const records = new Map<string, Peer>()
  const calls: string[] = []
  const record = (id: PeerId): Peer => records.get(id.toString()) ?? { id, protocols: [], addresses: [], metadata: new Map(), tags: new Map() } as unknown as Peer
  const store = {
    merge: async (id: PeerId, data: { protocols?: string[] }) => {
      calls.push('merge')
      const r = record(id)
      const next = { ...r, protocols: [...new Set([...r.protocols, ...(data.protocols ?? [])])] }
      records.set(id.toString(), next)
      return next
    },
    patch: async (id: PeerId, data: { protocols?: string[] }) => {
      calls.push('patch')
      const next = { ...record(id), protocols: data.protocols ?? [] }
      records.set(id.toString(), next)
      return next
    },
    save: async (id: PeerId) => { calls.push('save'); return record(id) },
    delete: async (id: PeerId) => { calls.push('delete'); records.delete(id.toString()) },
    consumePeerRecord: async () => { calls.push('consume'); return true }
  }
  return { store: store as unknown as PeerStore, calls }
}

describe('core/libp2p: protocol merges on incoming streams', () => {
  it('a protocol the record already holds does not reach the store again; the record is returned', async () => {
    const { store, calls } = fakeStore()
    fastProtocolMerge(store)
    const id = peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
    const first = await store.merge(id, { protocols: ['/ipfs/bitswap/1.2.0'] })
    const again = await store.merge(id, { protocols: ['/ipfs/bitswap/1.2.0'] })
    expect(calls).to.deep.equal(['merge'])
    expect(again).to.equal(first)
    expect(again.protocols).to.deep.equal(['/ipfs/bitswap/1.2.0'])
  })

  it('a new protocol, other data, or any other write of the peer goes to the store', async () => {
    const { store, calls } = fakeStore()
    fastProtocolMerge(store)
    const id = peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
    const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519'))
    await store.merge(id, { protocols: ['/a'] })
    await store.merge(id, { protocols: ['/b'] })
    await store.merge(id, { protocols: ['/a'], metadata: { x: new Uint8Array(1) } })
    await store.patch(id, { protocols: [] })
    const after = await store.merge(id, { protocols: ['/a'] })
    expect(after.protocols).to.deep.equal(['/a'])
    await store.merge(other, { protocols: ['/a'] })
    await store.delete(id)
    await store.merge(id, { protocols: ['/a'] })
    expect(calls).to.deep.equal(['merge', 'merge', 'merge', 'patch', 'merge', 'merge', 'delete', 'merge'])
  })
})
