// /ipns/<name> resolution for the gateway (read only) through the node's name system (core/namesys):
// IPNS keys from the local records and, unless Gateway.NoFetch, the routing systems (DHT, pubsub);
// DNSLink names through the gateway's DNSLink lookup (DNS.Resolvers, IPFS_NS_MAP). Values that are
// /ipns/ paths are followed up to 32 times.
import type { Libp2p } from '@libp2p/interface'
import { unmarshalIPNSRecord, type IPNSRecord } from 'ipns'
import { ipnsValidator } from 'ipns/validator'
import type { NameSystem } from '../../core/namesys/index.js'
import { ipnsRoutingKey, isDnsName, parseIpnsName, recordTtlMs, type NameHash } from '../../core/namesys/index.js'
import { wrongCodecName } from '../../core/namesys/name.js'
import { ERR_MISSING_DNSLINK } from '../../core/dns/index.js'
import type { DnslinkLookup } from './dnslink.js'
import { GatewayError } from './errors.js'

export { LIBP2P_KEY, ipnsDatastoreKey, ipnsNameString, parseIpnsName } from '../../core/namesys/name.js'
export * from '../../core/namesys/record.js'

const MAX_DEPTH = 32

export interface IpnsDeps {
  nameSystem: NameSystem
  dnslink: DnslinkLookup
  noFetch: boolean
  noDNSLink: boolean
}

/**
 * Can a DHT lookup run now? go-libp2p-kad-dht fails at once with an empty routing table where js
 * kad-dht waits for a peer, so lookups are skipped then.
 */
export function dhtHasPeers (libp2p: Libp2p): boolean {
  const dht = (libp2p.services as Record<string, unknown> | undefined)?.dht as { routingTable?: { size: number } } | undefined
  return dht?.routingTable != null && dht.routingTable.size > 0
}

/** The raw record for a key: the local one, then the routing systems unless NoFetch. */
export async function getIpnsRecord (deps: IpnsDeps, mh: NameHash, signal?: AbortSignal): Promise<Uint8Array> {
  try {
    return await deps.nameSystem.getRecord(mh, { offline: deps.noFetch, signal })
  } catch (err) {
    signal?.throwIfAborted()
    throw new GatewayError(500, 'could not resolve name', { cause: err })
  }
}

/** A record checked against its name (signature V2, V1/V2 agreement, expiry). */
export async function validIpnsRecord (mh: NameHash, raw: Uint8Array): Promise<IPNSRecord> {
  try {
    await ipnsValidator(ipnsRoutingKey(mh), raw)
    return unmarshalIPNSRecord(raw)
  } catch (err) {
    throw new GatewayError(500, `invalid IPNS record: ${(err as Error).message}`, { cause: err })
  }
}

/** Seconds a record may be cached: its TTL, capped at the time left before it expires. */
export function recordMaxAge (record: IPNSRecord): number | undefined {
  if (record.ttl == null) return undefined
  return Math.floor(recordTtlMs(record) / 1000)
}

export interface MutableResolution {
  /** the /ipfs/ path the name points to, with the request's sub-path appended */
  path: string
  /** seconds, when the records say */
  ttl?: number
}

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
    } else if (isDnsName(name)) {
      // boxo's namesys, as Kubo 0.40.1's gateway: any miekg/dns domain name goes to DNSLink (its FQDN in the error)
      if (deps.noDNSLink) throw new GatewayError(500, 'could not resolve name')
      const record = await deps.dnslink(name, { signal })
      if (record == null) throw new GatewayError(500, `DNSLink lookup for ${JSON.stringify(name.replace(/\.$/, '') + '.')} failed: ${ERR_MISSING_DNSLINK}`)
      value = record.value
      if (record.ttl != null) ttl = ttl == null ? record.ttl : Math.min(ttl, record.ttl)
    } else {
      const fixed = wrongCodecName(name)
      throw new GatewayError(500, fixed != null ? `peer ID represented as CIDv1 require libp2p-key multicodec: retry with /ipns/${fixed}` : `cannot resolve: ${JSON.stringify('/ipns/' + name)}`)
    }
    if (!/^\/(ipfs|ipns)\/[^/]+/.test(value)) throw new GatewayError(500, `invalid value ${JSON.stringify(value)}`)
    current = value.replace(/\/+$/, '') + rest
  }
  throw new GatewayError(400, 'could not resolve name (recursion limit exceeded)')
}
