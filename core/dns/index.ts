// DNS for DNSLink (Kubo core/node/dns.go + boxo namesys/dns_resolver.go): TXT lookups through the
// resolvers of `DNS.Resolvers` (a DNS-over-HTTPS URL per domain suffix; "." or no match: the system
// resolver, also for "auto" since AutoConf is not used here), answers cached up to `DNS.MaxCacheTTL`.
// DNSLink: `dnslink=/ipfs/...` or `/ipns/...` at `_dnslink.<domain>`.
import { promises as systemDns } from 'node:dns'
import { RecordType } from '@multiformats/dns'
import { dnsOverHttps } from '@multiformats/dns/resolvers'
import type { KuboConfig } from '../config/index.js'
import { parseGoDuration } from '../util/duration.js'

export interface TxtAnswer {
  texts: string[]
  /** seconds, when the answer says */
  ttl?: number
}

export type TxtLookup = (fqdn: string, options?: { signal?: AbortSignal }) => Promise<TxtAnswer>

export interface DnslinkValue {
  /** /ipfs/… or /ipns/… */
  value: string
  ttl?: number
}

export interface DnsResolver {
  /** TXT records of a name (empty when there are none) */
  txt: TxtLookup
  /**
   * The DNSLink of a domain (boxo DNSResolver): one value, or throws boxo's errors
   * (`could not resolve name: DNSLink lookup could not find a TXT record (…)`).
   */
  dnslink: (domain: string, options?: { signal?: AbortSignal }) => Promise<DnslinkValue>
}

export const ERR_RESOLVE_FAILED = 'could not resolve name'
export const ERR_MISSING_DNSLINK = `${ERR_RESOLVE_FAILED}: DNSLink lookup could not find a TXT record (https://docs.ipfs.tech/concepts/dnslink/)`
export const ERR_MULTIPLE_DNSLINK = `${ERR_RESOLVE_FAILED}: DNSLink lookup returned more than one IPFS content path; ask domain owner to remove duplicate TXT records`

export class DnsError extends Error {
  constructor (message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** The DNSLink path in a TXT record's text, if it is one. */
export function parseDnslinkTxt (text: string): string | undefined {
  const t = text.trim()
  if (!t.startsWith('dnslink=')) return undefined
  const value = t.slice('dnslink='.length).trim()
  return /^\/(ipfs|ipns)\/[^/]+/.test(value) ? value : undefined
}

/**
 * Go's net isDomainName, which its resolver (Kubo's system DNS) asks before any query: a name it refuses is "no such
 * host" (not found) at once, where c-ares fails (EBADNAME) or asks (a backslash). Letters, digits, '_' and '-', labels of
 * 1-63, 253 bytes (254 with the root dot), not all digits.
 */
export function isGoDomainName (s: string): boolean {
  if (s === '.') return true
  const l = s.length
  if (l === 0 || l > 254 || (l === 254 && s[l - 1] !== '.')) return false
  let last = '.'
  let nonNumeric = false
  let partlen = 0
  for (const c of s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_') { nonNumeric = true; partlen++ } else if (c >= '0' && c <= '9') partlen++
    else if (c === '-') {
      if (last === '.') return false
      partlen++
      nonNumeric = true
    } else if (c === '.') {
      if (last === '.' || last === '-' || partlen > 63 || partlen === 0) return false
      partlen = 0
    } else return false
    last = c
  }
  return last !== '-' && partlen <= 63 && nonNumeric
}

async function systemTxt (fqdn: string): Promise<TxtAnswer> {
  if (!isGoDomainName(fqdn)) return { texts: [] }
  try {
    return { texts: (await systemDns.resolveTxt(fqdn)).map(chunks => chunks.join('')) }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENODATA' || code === 'ENOTFOUND' || code === 'ENONAME') return { texts: [] }
    throw err
  }
}

function dohTxt (url: string): TxtLookup {
  const query = dnsOverHttps(url)
  return async (fqdn, options) => {
    const res = await query(fqdn, { types: [RecordType.TXT], signal: options?.signal })
    const answers = (res.Answer ?? []).filter(a => a.type === RecordType.TXT)
    // dns-packet gives TXT data as the quoted strings joined; unquote each chunk
    const texts = answers.map(a => unquoteTxt(a.data))
    const ttl = answers.length > 0 ? Math.min(...answers.map(a => a.TTL)) : undefined
    return { texts, ttl }
  }
}

/** A TXT answer's text: `"a" "b"` → `ab` (text without quotes as is; character strings as dns-packet gives them, joined). */
export function unquoteTxt (data: unknown): string {
  if (Array.isArray(data)) return data.map(d => typeof d === 'string' ? d : Buffer.from(d as Uint8Array).toString('utf8')).join('')
  if (data instanceof Uint8Array) return Buffer.from(data).toString('utf8')
  if (typeof data !== 'string') return ''
  const parts = data.match(/"((?:[^"\\]|\\.)*)"/g)
  if (parts == null) return data
  return parts.map(p => p.slice(1, -1).replace(/\\(.)/g, '$1')).join('')
}

const normalise = (name: string): string => name.toLowerCase().replace(/\.$/, '')

/** DNS.Resolvers: the resolver for the longest matching suffix ("." matches everything). */
export function resolverTable (config: KuboConfig): Array<{ suffix: string, lookup: TxtLookup }> {
  const raw = ((config.DNS as Record<string, unknown> | undefined)?.Resolvers ?? {}) as Record<string, unknown>
  const table: Array<{ suffix: string, lookup: TxtLookup }> = []
  for (const [suffix, url] of Object.entries(raw)) {
    if (typeof url !== 'string' || url === '' || url === 'auto') continue
    if (!/^https?:\/\//.test(url)) throw new DnsError(`invalid DNS resolver URL for ${suffix}: ${url}`)
    table.push({ suffix: suffix === '.' ? '' : normalise(suffix), lookup: dohTxt(url) })
  }
  return table.sort((a, b) => b.suffix.length - a.suffix.length)
}

function maxCacheTtl (config: KuboConfig): number {
  const v = (config.DNS as Record<string, unknown> | undefined)?.MaxCacheTTL
  if (typeof v !== 'string' || v === '') return Infinity
  try { return Number(parseGoDuration(v)) / 1e9 } catch { return Infinity }
}

const CACHE_SIZE = 1024
/** answers without a TTL (the system resolver gives none) are kept this long */
const DEFAULT_TTL = 60

export interface DnsInit {
  config: KuboConfig
  /** replaces DNS entirely (tests) */
  lookup?: TxtLookup
}

export function createDnsResolver ({ config, lookup }: DnsInit): DnsResolver {
  const table = resolverTable(config)
  const cap = maxCacheTtl(config)
  const cache = new Map<string, { until: number, answer: TxtAnswer }>()
  const pick = (fqdn: string): TxtLookup => {
    if (lookup != null) return lookup
    const n = normalise(fqdn)
    for (const { suffix, lookup } of table) {
      if (suffix === '' || n === suffix || n.endsWith('.' + suffix)) return lookup
    }
    return systemTxt
  }
  const txt: TxtLookup = async (fqdn, options) => {
    const name = normalise(fqdn)
    const hit = cache.get(name)
    if (hit != null && hit.until > Date.now()) return hit.answer
    const answer = await pick(name)(name, options)
    const ttl = Math.min(answer.ttl ?? DEFAULT_TTL, cap)
    if (ttl > 0) {
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string)
      cache.set(name, { until: Date.now() + ttl * 1000, answer })
    }
    return answer
  }
  return {
    txt,
    dnslink: async (domain, options) => {
      const answer = await txt(`_dnslink.${normalise(domain)}`, options)
      const values = answer.texts.map(parseDnslinkTxt).filter((v): v is string => v != null)
      if (values.length === 0) throw new DnsError(ERR_MISSING_DNSLINK)
      if (values.length > 1) throw new DnsError(ERR_MULTIPLE_DNSLINK)
      return { value: values[0], ttl: answer.ttl != null ? Math.min(answer.ttl, cap) : undefined }
    }
  }
}
