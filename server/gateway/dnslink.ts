// DNSLink lookups (https://dnslink.dev) for the gateway's DNSLink hosts and /ipns/<domain> paths:
// `dnslink=/ipfs/...` or `dnslink=/ipns/...` at _dnslink.<fqdn>, through the node's DNS resolver
// (core/dns: DNS.Resolvers, DNS.MaxCacheTTL), after Kubo's IPFS_NS_MAP (`domain:/ipfs/...,domain2:/ipns/...`,
// read when the app is created; boxo answers these names without any lookup).
//
// Tests can fix the answers instead: createGatewayApp({ dnslink: { 'example.org': '/ipfs/bafy...' } })
// (only the map is used) or createGatewayApp({ dnslink: async (fqdn) => ... }).
import type { DnsResolver } from '../../core/dns/index.js'
import { staticNameMap } from '../../core/namesys/index.js'

export { parseDnslinkTxt } from '../../core/dns/index.js'

export interface DnslinkRecord {
  /** the content path, e.g. /ipfs/bafy.../sub or /ipns/k51... */
  value: string
  /** seconds, when known */
  ttl?: number
}

export type DnslinkLookup = (fqdn: string, options?: { signal?: AbortSignal }) => Promise<DnslinkRecord | undefined>
export type DnslinkInit = DnslinkLookup | Record<string, string>

function fromMap (map: Record<string, string> | Map<string, string>): DnslinkLookup {
  const table = new Map<string, string>()
  for (const [name, value] of map instanceof Map ? map : Object.entries(map)) {
    table.set(name.toLowerCase().replace(/\.$/, ''), value.startsWith('dnslink=') ? value.slice(8) : value)
  }
  return async (fqdn) => {
    const value = table.get(fqdn.toLowerCase().replace(/\.$/, ''))
    return value == null ? undefined : { value }
  }
}

/** The DNSLink lookup of the gateway: a fixed map or function, else IPFS_NS_MAP then DNS. */
export function createDnslinkLookup (init: DnslinkInit | undefined, dns: DnsResolver, env: NodeJS.ProcessEnv = process.env): DnslinkLookup {
  if (typeof init === 'function') return init
  if (init != null) return fromMap(init)
  const local = fromMap(staticNameMap(env))
  return async (fqdn, options) => {
    const fixed = await local(fqdn, options)
    if (fixed != null) return fixed
    try {
      return await dns.dnslink(fqdn, options)
    } catch (err) {
      options?.signal?.throwIfAborted()
      return undefined
    }
  }
}
