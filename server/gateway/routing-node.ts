// The node behind the routing API (Kubo's contentRouter over n.Routing): providers, peers and the DHT's
// closest peers from libp2p when online; IPNS records from the datastore (/ipns/<BASE32(name)>, where the
// gateway resolves /ipns/ names) and, online, from the DHT. Kubo's composed router turns routing errors
// into "not found" and ignores failed puts; an empty DHT routing table fails at once (go-libp2p-kad-dht
// ErrLookupFailure) where js kad-dht would wait for a peer, so lookups are skipped then.
import type { Datastore } from 'interface-datastore'
import type { Libp2p, PeerId } from '@libp2p/interface'
import type { Multiaddr } from '@multiformats/multiaddr'
import { peerIdFromMultihash } from '@libp2p/peer-id'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import type { MultihashDigest } from 'multiformats/hashes/interface'
import { multihashToIPNSRoutingKey } from 'ipns'
import { cidBytes, type GoCid } from '../../core/go/cid.js'
import { dhtHasPeers, ipnsDatastoreKey, selectRecord, unmarshalRecordGo, validateRecordWithName } from './ipns.js'
import { addrStrings, RoutingDeadlineError, type DelegatedRouter, type PeerRecord } from './routing.js'

export interface NodeRouterDeps {
  datastore: Datastore
  /** read on each request: null while the node is offline */
  libp2p: () => Libp2p | null
}

/** The parts of the kad-dht service used here (its routing table and provider store are not in its typed interface). */
interface DhtService {
  routingTable: { size: number }
  providers?: { getProviders: (cid: CID, options?: { signal?: AbortSignal }) => Promise<PeerId[]> }
  getClosestPeers: (key: Uint8Array, options?: { signal?: AbortSignal }) => AsyncIterable<{ name: string, peer?: { id: PeerId } }>
}

function dhtOf (libp2p: Libp2p): DhtService | undefined {
  const dht = (libp2p.services as Record<string, unknown> | undefined)?.dht as Partial<DhtService> | undefined
  return dht?.routingTable != null ? dht as DhtService : undefined
}

const canLookup = dhtHasPeers

/** Rethrow the routing deadline (Kubo answers 500 "context deadline exceeded"); other errors mean "not found". */
function deadlineOnly (signal: AbortSignal): void {
  if (signal.aborted && signal.reason instanceof RoutingDeadlineError) throw signal.reason
}

/** A peer record with the addresses routing gave, else those in the peer store (each once). */
async function peerRecord (libp2p: Libp2p, id: PeerId, known: Multiaddr[] = []): Promise<PeerRecord> {
  let addrs = known
  if (addrs.length === 0) {
    try {
      addrs = (await libp2p.peerStore.get(id)).addresses.map(a => a.multiaddr)
    } catch {}
  }
  const strings = addrStrings(addrs)
  return strings.length > 0 ? { ID: id.toString(), Addrs: strings } : { ID: id.toString() }
}

function mhOf (bytes: Uint8Array): MultihashDigest<0x00 | 0x12> {
  return Digest.decode(bytes) as MultihashDigest<0x00 | 0x12>
}

/** A stored record if it is valid for the name. */
async function validRecord (mh: MultihashDigest, raw: Uint8Array | undefined): Promise<Uint8Array | undefined> {
  if (raw == null) return undefined
  try {
    await validateRecordWithName(unmarshalRecordGo(raw), mh)
    return raw
  } catch {
    return undefined
  }
}

export function createNodeRouter (deps: NodeRouterDeps): DelegatedRouter {
  const localRecord = async (mh: MultihashDigest<0x00 | 0x12>, signal: AbortSignal): Promise<Uint8Array | undefined> => {
    try {
      return await validRecord(mh, await deps.datastore.get(ipnsDatastoreKey(mh), { signal }))
    } catch {
      return undefined
    }
  }

  return {
    async * findProviders (cid: GoCid, limit: number, signal: AbortSignal) {
      const libp2p = deps.libp2p()
      // offline: Kubo's offline router finds no providers
      if (libp2p == null) return
      const key = CID.decode(cidBytes(cid))
      if (!canLookup(libp2p)) {
        // only the providers this node knows of (kad-dht keeps them in its provider store)
        const store = dhtOf(libp2p)?.providers
        let ids: PeerId[] = []
        try { ids = await store?.getProviders(key, { signal }) ?? [] } catch {}
        for (const id of limit > 0 ? ids.slice(0, limit) : ids) yield await peerRecord(libp2p, id)
        return
      }
      let n = 0
      try {
        for await (const p of libp2p.contentRouting.findProviders(key, { signal })) {
          yield await peerRecord(libp2p, p.id, p.multiaddrs)
          if (limit > 0 && ++n >= limit) return
        }
      } catch {
        // the lookup ended (deadline, no more peers): what was found stands
      }
    },

    async findPeer (peerMultihash: Uint8Array, signal: AbortSignal) {
      const libp2p = deps.libp2p()
      if (libp2p == null) return undefined
      let id: PeerId
      try {
        id = peerIdFromMultihash(Digest.decode(peerMultihash))
      } catch {
        return undefined
      }
      if (!canLookup(libp2p)) {
        // go-libp2p-kad-dht FindLocal: only a connected peer is known without a lookup
        if (libp2p.getConnections(id).length === 0) return undefined
        return await peerRecord(libp2p, id)
      }
      try {
        const info = await libp2p.peerRouting.findPeer(id, { signal })
        return await peerRecord(libp2p, info.id, info.multiaddrs)
      } catch {
        deadlineOnly(signal)
        return undefined
      }
    },

    async getIpns (nameMultihash: Uint8Array, signal: AbortSignal) {
      const mh = mhOf(nameMultihash)
      const local = await localRecord(mh, signal)
      const libp2p = deps.libp2p()
      if (libp2p == null || !canLookup(libp2p)) return local
      let remote: Uint8Array | undefined
      try {
        remote = await validRecord(mh, await libp2p.contentRouting.get(multihashToIPNSRoutingKey(mh), { signal }))
      } catch {
        deadlineOnly(signal)
      }
      if (local == null || remote == null) return local ?? remote
      return selectRecord(mh, local, remote) === 0 ? local : remote
    },

    async putIpns (nameMultihash: Uint8Array, record: Uint8Array, signal: AbortSignal) {
      const mh = mhOf(nameMultihash)
      // keep the better record (boxo's offline router refuses to replace a newer one; Kubo ignores that error)
      const old = await localRecord(mh, signal)
      if (old == null || (Buffer.compare(old, record) !== 0 && selectRecord(mh, record, old) === 0)) {
        await deps.datastore.put(ipnsDatastoreKey(mh), record, { signal })
      }
      const libp2p = deps.libp2p()
      if (libp2p == null || !canLookup(libp2p)) return
      try {
        await libp2p.contentRouting.put(multihashToIPNSRoutingKey(mh), record, { signal })
      } catch {}
    },

    async getClosestPeers (keyMultihash: Uint8Array, signal: AbortSignal) {
      const libp2p = deps.libp2p()
      const dht = libp2p != null ? dhtOf(libp2p) : undefined
      if (libp2p == null || dht == null) throw new Error('GetClosestPeers not supported: DHT is not available')
      if (dht.routingTable.size === 0) throw new Error('failed to find any peer in table')
      const out: PeerRecord[] = []
      try {
        // the DHT's own query: libp2p's peer routing drops peers it cannot look up again
        for await (const event of dht.getClosestPeers(keyMultihash, { signal })) {
          if (event.name !== 'FINAL_PEER' || event.peer == null) continue
          // addresses from the peer store, as Kubo's
          const rec = await peerRecord(libp2p, event.peer.id)
          // Kubo lists every peer with its (possibly empty) address list
          out.push({ ID: rec.ID, Addrs: rec.Addrs ?? [] })
        }
      } catch (err) {
        if (signal.aborted) throw new Error('context deadline exceeded')
        throw err
      }
      return out
    }
  }
}
