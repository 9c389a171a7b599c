// DNSLink lookups (https://dnslink.dev): TXT records `dnslink=/ipfs/...` or `dnslink=/ipns/...` at
// _dnslink.<fqdn> (then at <fqdn> itself, the legacy location).
//
// For tests and local setups the answers can be fixed instead of asking DNS:
//   - createGatewayApp({ dnslink: { 'example.org': '/ipfs/bafy...' } })  (a map; only the map is used), or
//   - createGatewayApp({ dnslink: async (fqdn) => ... })                 (any lookup function), or
//   - the environment variable TSIPFS_DNSLINK, read when the app is created: a JSON object
//     {"example.org": "/ipfs/bafy..."} or the path of a file holding one. Names not in it go to DNS.
import { promises as dns } from 'node:dns'
import { readFileSync } from 'node:fs'

export interface DnslinkRecord {
  /** the content path, e.g. /ipfs/bafy.../sub or /ipns/k51... */
  value: string
  /** seconds, when known */
  ttl?: number
}

export type DnslinkLookup = (fqdn: string, options?: { signal?: AbortSignal }) => Promise<DnslinkRecord | undefined>
export type DnslinkInit = DnslinkLookup | Record<string, string>

const CACHE_MS = 60_000
const NEGATIVE_CACHE_MS = 10_000
const CACHE_SIZE = 1024

/** The DNSLink value in a TXT record's text, if it is one. */
export function parseDnslinkTxt (text: string): string | undefined {
  const t = text.trim()
  if (!t.startsWith('dnslink=')) return undefined
  const value = t.slice('dnslink='.length).trim()
  return /^\/(ipfs|ipns)\/[^/]+/.test(value) ? value : undefined
}

function fromMap (map: Record<string, string>): DnslinkLookup {
  const table = new Map<string, string>()
  for (const [name, value] of Object.entries(map)) {
    table.set(name.toLowerCase().replace(/\.$/, ''), value.startsWith('dnslink=') ? value.slice(8) : value)
  }
  return async (fqdn) => {
    const value = table.get(fqdn.toLowerCase().replace(/\.$/, ''))
    return value == null ? undefined : { value }
  }
}

async function txt (name: string): Promise<string[]> {
  try {
    return (await dns.resolveTxt(name)).map(chunks => chunks.join(''))
  } catch {
    return []
  }
}

/** DNS lookups with a small cache. */
function fromDns (): DnslinkLookup {
  const cache = new Map<string, { until: number, record?: DnslinkRecord }>()
  return async (fqdn) => {
    const name = fqdn.toLowerCase().replace(/\.$/, '')
    const hit = cache.get(name)
    if (hit != null && hit.until > Date.now()) return hit.record
    let values = (await txt(`_dnslink.${name}`)).map(parseDnslinkTxt).filter((v): v is string => v != null)
    if (values.length === 0) values = (await txt(name)).map(parseDnslinkTxt).filter((v): v is string => v != null)
    const record = values.length > 0 ? { value: values.sort()[0] } : undefined
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string)
    cache.set(name, { until: Date.now() + (record != null ? CACHE_MS : NEGATIVE_CACHE_MS), record })
    return record
  }
}

/** The map in TSIPFS_DNSLINK (inline JSON or a file name), if set. */
export function dnslinkFromEnv (env: NodeJS.ProcessEnv = process.env): Record<string, string> | undefined {
  const v = env.TSIPFS_DNSLINK
  if (v == null || v.trim() === '') return undefined
  const text = /^\s*[{[]/.test(v) ? v : readFileSync(v, 'utf8')
  const parsed = JSON.parse(text) as unknown
  if (parsed == null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('TSIPFS_DNSLINK must be a JSON object of name → /ipfs/... or /ipns/... path')
  return parsed as Record<string, string>
}

export function createDnslinkLookup (init?: DnslinkInit): DnslinkLookup {
  if (typeof init === 'function') return init
  if (init != null) return fromMap(init)
  const dnsLookup = fromDns()
  const env = dnslinkFromEnv()
  if (env == null) return dnsLookup
  const local = fromMap(env)
  return async (fqdn, options) => await local(fqdn, options) ?? await dnsLookup(fqdn, options)
}
