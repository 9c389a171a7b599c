// IPNS names: parsing (boxo ipns.NameFromString), their text forms, routing and datastore keys.
import { Key } from 'interface-datastore'
import { base32upper } from 'multiformats/bases/base32'
import { base36 } from 'multiformats/bases/base36'
import { base58btc } from 'multiformats/bases/base58'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import type { MultihashDigest } from 'multiformats/hashes/interface'
import { multihashToIPNSRoutingKey } from 'ipns'
import { multibaseOf } from '../multibase.js'

export const LIBP2P_KEY = 0x72

export type NameHash = MultihashDigest<0x00 | 0x12>

/** The multihash of an IPNS key name: a base58 peer ID or a libp2p-key CID (any multibase). */
export function parseIpnsName (name: string): NameHash | undefined {
  try {
    let mh: MultihashDigest
    if (name.startsWith('Qm') || name.startsWith('1')) {
      mh = Digest.decode(base58btc.baseDecode(name))
    } else {
      const base = multibaseOf(name)
      if (base == null) return undefined
      const cid = CID.decode(base.decoder.decode(name))
      if (cid.code !== LIBP2P_KEY) return undefined
      mh = cid.multihash
    }
    return mh.code === 0x00 || mh.code === 0x12 ? mh as NameHash : undefined
  } catch {
    return undefined
  }
}

/** A CIDv1 that is not libp2p-key but holds a key's hash (boxo's hint to use libp2p-key). */
export function wrongCodecName (name: string): string | undefined {
  try {
    const base = multibaseOf(name)
    if (base == null) return undefined
    const cid = CID.decode(base.decoder.decode(name))
    if (cid.version !== 1 || cid.code === LIBP2P_KEY) return undefined
    return CID.createV1(LIBP2P_KEY, cid.multihash).toString(base36)
  } catch {
    return undefined
  }
}

/** The canonical text of a key: CIDv1 libp2p-key in base36 (boxo ipns.Name.String). */
export const ipnsNameString = (mh: MultihashDigest): string => CID.createV1(LIBP2P_KEY, mh).toString(base36)

/** Kubo's publisher datastore key: /ipns/<BASE32(peer ID bytes)> (boxo namesys.IpnsDsKey). */
export const ipnsDatastoreKey = (mh: MultihashDigest): Key => new Key('/ipns/' + base32upper.baseEncode(mh.bytes))

/** The DHT / pubsub routing key: "/ipns/" + the multihash bytes. */
export const ipnsRoutingKey = (mh: MultihashDigest): Uint8Array => multihashToIPNSRoutingKey(mh as NameHash)

/**
 * Where Kubo's value store keeps the record it routes (boxo offline router, go-libp2p-kad-dht): /<BASE32(routing key)>
 * (go-ipfs-ds-help NewKeyFromBinary), the value a libp2p Record {key, value}. Kubo's `name resolve` reads this key.
 */
export const ipnsValueStoreKey = (mh: MultihashDigest): Key => new Key('/' + base32upper.baseEncode(ipnsRoutingKey(mh)))

/** go-libp2p-pubsub-router's topic for a routing key: /record/<base64url(key)> (no padding). */
export const ipnsPubsubTopic = (mh: MultihashDigest): string => '/record/' + Buffer.from(ipnsRoutingKey(mh)).toString('base64url')

/** The multihash named by a pubsub topic, if it is an IPNS one. */
export function nameOfTopic (topic: string): NameHash | undefined {
  if (!topic.startsWith('/record/')) return undefined
  const key = Buffer.from(topic.slice('/record/'.length), 'base64url')
  const prefix = Buffer.from('/ipns/')
  if (key.length <= prefix.length || !key.subarray(0, prefix.length).equals(prefix)) return undefined
  try {
    const mh = Digest.decode(key.subarray(prefix.length))
    return mh.code === 0x00 || mh.code === 0x12 ? mh as NameHash : undefined
  } catch {
    return undefined
  }
}
