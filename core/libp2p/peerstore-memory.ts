// The datastore libp2p sees: the repo's datastore, except the peer store's keys (@libp2p/peer-store keeps each
// peer at /peers/<peer ID>), which live in memory. Kubo's peerstore is in memory too (pstoremem): nothing learnt
// about peers survives a restart, and the merge libp2p does on every identify, DHT answer and incoming stream
// costs no LevelDB get/put. Everything else (DHT records, provider records, pubsub seqnos) stays persisted.
import { BaseDatastore, MemoryDatastore } from 'datastore-core'
import { type Key, type Datastore, type KeyQuery, type Pair, type Query } from 'interface-datastore'
import type { AbortOptions } from '@libp2p/interface'

/** the namespace @libp2p/peer-store writes under (its NAMESPACE_COMMON) */
export const PEERS = '/peers'

function inPeers (key: Key): boolean {
  const s = key.toString()
  return s === PEERS || s.startsWith(PEERS + '/')
}

/** where a query prefix (a string prefix of the keys) points: only the peers, never the peers, or both */
function scope (prefix: string | undefined): 'peers' | 'rest' | 'both' {
  if (prefix == null || prefix === '') return 'both'
  if (prefix.startsWith(PEERS + '/')) return 'peers'
  return (PEERS + '/').startsWith(prefix) ? 'both' : 'rest'
}

export class PeerStoreInMemory extends BaseDatastore {
  readonly peers = new MemoryDatastore()
  constructor (private readonly backing: Datastore) { super() }

  private pick (key: Key): Datastore { return inPeers(key) ? this.peers : this.backing }

  override put (key: Key, val: Uint8Array, options?: AbortOptions): Key | Promise<Key> { return this.pick(key).put(key, val, options) }
  override get (key: Key, options?: AbortOptions): Uint8Array | Promise<Uint8Array> { return this.pick(key).get(key, options) }
  override has (key: Key, options?: AbortOptions): boolean | Promise<boolean> { return this.pick(key).has(key, options) }
  override delete (key: Key, options?: AbortOptions): void | Promise<void> { return this.pick(key).delete(key, options) }

  override query (q: Query, options?: AbortOptions): Generator<Pair> | AsyncGenerator<Pair> {
    const s = scope(q.prefix)
    if (s === 'peers') return this.peers.query(q, options) as AsyncGenerator<Pair>
    if (s === 'rest') return this.backing.query(q, options) as AsyncGenerator<Pair>
    return super.query(q, options)
  }

  override queryKeys (q: KeyQuery, options?: AbortOptions): Generator<Key> | AsyncGenerator<Key> {
    const s = scope(q.prefix)
    if (s === 'peers') return this.peers.queryKeys(q, options) as AsyncGenerator<Key>
    if (s === 'rest') return this.backing.queryKeys(q, options) as AsyncGenerator<Key>
    return super.queryKeys(q, options)
  }

  /** a query spanning both: the backing store's entries (minus any /peers/ left by an earlier build), then the peers */
  override async * _all (q: Query, options?: AbortOptions): AsyncGenerator<Pair> {
    for await (const pair of this.backing.query({ prefix: q.prefix }, options)) {
      if (!inPeers(pair.key)) yield pair
    }
    yield * this.peers.query({ prefix: q.prefix }, options)
  }

  override async * _allKeys (q: KeyQuery, options?: AbortOptions): AsyncGenerator<Key> {
    for await (const key of this.backing.queryKeys({ prefix: q.prefix }, options)) {
      if (!inPeers(key)) yield key
    }
    yield * this.peers.queryKeys({ prefix: q.prefix }, options)
  }
}
