// /ipns/<name> resolution for the gateway (read only): IPNS records stored in the datastore under
// /ipns/<BASE32(peer ID bytes)> (behaviour.md §12), checked with the `ipns` package, or fetched through
// libp2p routing when online; DNSLink for names that are not keys. Values that are /ipns/ paths are
// followed up to 32 times.
import { Key } from 'interface-datastore'
import type { Datastore } from 'interface-datastore'
import type { Libp2p } from '@libp2p/interface'
import { base32upper } from 'multiformats/bases/base32'
import { base36 } from 'multiformats/bases/base36'
import { base58btc } from 'multiformats/bases/base58'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import type { MultihashDigest } from 'multiformats/hashes/interface'
import { multihashToIPNSRoutingKey, unmarshalIPNSRecord, type IPNSRecord } from 'ipns'
import { ipnsValidator } from 'ipns/validator'
import { multibaseOf } from '../../core/multibase.js'
import type { DnslinkLookup } from './dnslink.js'
import { GatewayError } from './errors.js'

export const LIBP2P_KEY = 0x72
const MAX_DEPTH = 32

/** The multihash of an IPNS key name: a base58 peer ID or a libp2p-key CID (boxo ipns.NameFromString). */
export function parseIpnsName (name: string): MultihashDigest<0x00 | 0x12> | undefined {
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
    return mh.code === 0x00 || mh.code === 0x12 ? mh as MultihashDigest<0x00 | 0x12> : undefined
  } catch {
    return undefined
  }
}

/** The canonical text of a key: CIDv1 libp2p-key in base36. */
export const ipnsNameString = (mh: MultihashDigest): string => CID.createV1(LIBP2P_KEY, mh).toString(base36)

/** The datastore key of a stored record. */
export const ipnsDatastoreKey = (mh: MultihashDigest): Key => new Key('/ipns/' + base32upper.baseEncode(mh.bytes))

export interface IpnsDeps {
  datastore: Datastore
  libp2p: Libp2p | null
  dnslink: DnslinkLookup
  noFetch: boolean
  noDNSLink: boolean
}

/** The raw record for a key: the local datastore first, then the routing system when allowed. */
export async function getIpnsRecord (deps: IpnsDeps, mh: MultihashDigest<0x00 | 0x12>, signal?: AbortSignal): Promise<Uint8Array> {
  try {
    return await deps.datastore.get(ipnsDatastoreKey(mh), { signal })
  } catch (err) {
    if ((err as Error)?.name !== 'NotFoundError') throw err
  }
  if (!deps.noFetch && deps.libp2p != null) {
    try {
      return await deps.libp2p.contentRouting.get(multihashToIPNSRoutingKey(mh), { signal })
    } catch {}
  }
  throw new GatewayError(500, 'could not resolve name')
}

/** A record checked against its name (signature V2, V1/V2 agreement, expiry). */
export async function validIpnsRecord (mh: MultihashDigest<0x00 | 0x12>, raw: Uint8Array): Promise<IPNSRecord> {
  try {
    await ipnsValidator(multihashToIPNSRoutingKey(mh), raw)
    return unmarshalIPNSRecord(raw)
  } catch (err) {
    throw new GatewayError(500, `invalid IPNS record: ${(err as Error).message}`, { cause: err })
  }
}

/** Seconds a record may be cached: its TTL, capped at the time left before it expires. */
export function recordMaxAge (record: IPNSRecord): number | undefined {
  if (record.ttl == null) return undefined
  let seconds = Number(record.ttl / 1_000_000_000n)
  const eol = Date.parse(record.validity)
  if (Number.isFinite(eol)) seconds = Math.min(seconds, Math.floor((eol - Date.now()) / 1000))
  return Math.max(0, seconds)
}

export interface MutableResolution {
  /** the /ipfs/ path the name points to, with the request's sub-path appended */
  path: string
  /** seconds, when the records say */
  ttl?: number
}

const looksLikeDomain = (name: string): boolean => name.includes('.') && /^[a-z0-9.-]+$/i.test(name)

/** Resolve `/ipns/<name>[/rest]` to an /ipfs/ path. */
export async function resolveMutable (deps: IpnsDeps, contentPath: string, signal?: AbortSignal): Promise<MutableResolution> {
  let current = contentPath
  let ttl: number | undefined
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const m = /^\/ipns\/([^/]+)(\/.*)?$/.exec(current)
    if (m == null) return { path: current, ttl }
    const name = m[1]
    const rest = m[2] ?? ''
    let value: string
    const mh = parseIpnsName(name)
    if (mh != null) {
      const record = await validIpnsRecord(mh, await getIpnsRecord(deps, mh, signal))
      value = record.value
      const age = recordMaxAge(record)
      if (age != null) ttl = ttl == null ? age : Math.min(ttl, age)
    } else if (!deps.noDNSLink && looksLikeDomain(name)) {
      const record = await deps.dnslink(name, { signal })
      if (record == null) throw new GatewayError(500, 'could not resolve name')
      value = record.value
      if (record.ttl != null) ttl = ttl == null ? record.ttl : Math.min(ttl, record.ttl)
    } else {
      throw new GatewayError(500, 'could not resolve name')
    }
    if (!/^\/(ipfs|ipns)\/[^/]+/.test(value)) throw new GatewayError(500, `invalid value ${JSON.stringify(value)}`)
    current = value.replace(/\/+$/, '') + rest
  }
  throw new GatewayError(400, 'could not resolve name (recursion limit exceeded)')
}
