// The GET_VALUE answer of our DHT servers (what every uncached `name resolve` of a peer asks each of the K closest
// peers), in place of js kad-dht's GetValueHandler.handle: the same answer (the record held while fresh, else
// deleted; the node named by the key when it is a peer's multihash the peer store knows; the routing table's closest
// peers with their peer-store addresses; /pk/ and empty keys go to kad-dht's own handler) without its per-request
// costs, ~1/3 of an answering peer's CPU (5 nodes, perf): a thrown and caught error when the key is no multihash (an
// /ipns/ key never is), an async multiformats sha256, a base32 key built a character at a time, and the record
// deserialized and serialized again (the bytes held are sent as they are: kad-dht stored them with serialize()).
import { createHash } from 'node:crypto'
import { Key, type Datastore } from 'interface-datastore'
import { Libp2pRecord } from '@libp2p/record'
import { peerIdFromMultihash } from '@libp2p/peer-id'
import * as Digest from 'multiformats/hashes/digest'
import type { PeerId, PeerInfo, PeerStore } from '@libp2p/interface'
import { base32LowerOf } from '../util/base32.js'

/** js kad-dht PROVIDERS_VALIDITY: a record received longer ago is not answered (and is deleted) */
export const RECORD_VALIDITY_MS = 48 * 60 * 60 * 1000

interface GetValueMessage { type: unknown, key?: Uint8Array, clusterLevel?: number }

interface GetValueResponse {
  type: unknown
  key: Uint8Array
  clusterLevel?: number
  closer: Array<{ id: Uint8Array, multiaddrs: Uint8Array[] }>
  providers: never[]
  record?: Uint8Array
}

/** the parts of js kad-dht's GetValueHandler instance used here */
interface GetValueHandler {
  handle: (peer: PeerId, msg: GetValueMessage) => Promise<unknown>
  peerStore: PeerStore
  datastore: Datastore
  /** `${datastorePrefix}/record` */
  datastorePrefix: string
}

interface KadDhtInternals {
  rpc?: { handlers?: Record<string, GetValueHandler | undefined> }
  routingTable?: { closestPeers: (kadId: Uint8Array) => PeerId[] }
}

const PK = Buffer.from('/pk/')

/** a varint at `pos`: [value, next position], or undefined when truncated */
function readVarint (b: Uint8Array, pos: number): [number, number] | undefined {
  let n = 0
  let mul = 1
  for (let i = pos; i < b.length && i < pos + 9; i++) {
    n += (b[i] & 0x7f) * mul
    if (b[i] < 0x80) return [n, i + 1]
    mul *= 128
  }
  return undefined
}

/** the key is a whole multihash (code, length, digest of that length): what Digest.decode accepts */
export function isMultihash (key: Uint8Array): boolean {
  const code = readVarint(key, 0)
  const size = code != null ? readVarint(key, code[1]) : undefined
  return size != null && size[1] + size[0] === key.length
}

/** Replaces the GET_VALUE handler of a js kad-dht instance (in place, before it starts); returns it. */
export function leanGetValue<T extends object> (dht: T): T {
  const internals = dht as KadDhtInternals
  const handler = internals.rpc?.handlers?.GET_VALUE
  const table = internals.routingTable
  if (handler == null || table == null || typeof handler.handle !== 'function') return dht
  const original = handler.handle.bind(handler)

  const localRecord = async (key: Uint8Array): Promise<Uint8Array | undefined> => {
    const dsKey = new Key(`${handler.datastorePrefix}/${base32LowerOf(key)}`, false)
    let raw: Uint8Array
    try {
      raw = await handler.datastore.get(dsKey)
    } catch (err) {
      if ((err as Error).name === 'NotFoundError') return undefined
      throw err
    }
    const record = Libp2pRecord.deserialize(raw)
    if (record.timeReceived == null || Date.now() - record.timeReceived.getTime() > RECORD_VALIDITY_MS) {
      await handler.datastore.delete(dsKey)
      return undefined
    }
    return raw
  }

  // kad-dht's getClosestPeersOffline
  const closerPeers = async (key: Uint8Array): Promise<PeerInfo[]> => {
    const out: PeerInfo[] = []
    if (isMultihash(key)) {
      try {
        const peer = await handler.peerStore.get(peerIdFromMultihash(Digest.decode(key)))
        out.push({ id: peer.id, multiaddrs: peer.addresses.map(a => a.multiaddr) })
      } catch {}
    }
    for (const id of table.closestPeers(createHash('sha256').update(key).digest())) {
      try {
        out.push(await handler.peerStore.getInfo(id))
      } catch (err) {
        if ((err as Error).name !== 'NotFoundError') throw err
      }
    }
    return out
  }

  handler.handle = async (peer, msg) => {
    const key = msg.key
    if (key == null || key.length === 0 || (key.length >= 4 && PK.equals(key.subarray(0, 4)))) return await original(peer, msg)
    const [record, closer] = await Promise.all([localRecord(key), closerPeers(key)])
    const response: GetValueResponse = {
      type: msg.type,
      key,
      clusterLevel: msg.clusterLevel,
      closer: closer.map(p => ({ id: p.id.toMultihash().bytes, multiaddrs: p.multiaddrs.map(ma => ma.bytes) })),
      providers: []
    }
    if (record != null) response.record = record
    return response
  }
  return dht
}
