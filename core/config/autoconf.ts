// The "auto" placeholders (Kubo config/autoconf.go, boxo autoconf): expanded from the AutoConf
// document. No autoconf cache is kept, so the offline fallback (boxo autoconf/fallbacks.go) is used,
// as Kubo does when its cache is empty.
import { FALLBACK_BOOTSTRAP, type Json, type KuboConfig } from './defaults.js'
import { setOwn } from '../util/own.js'

export const AUTO_PLACEHOLDER = 'auto'
export const DEFAULT_AUTOCONF_URL = 'https://conf.ipfs-mainnet.org/autoconf.json'

const AMINO_DHT = 'AminoDHT'
const IPNI = 'IPNI'
const PROVIDERS = '/routing/v1/providers'
const PEERS = '/routing/v1/peers'
const IPNS = '/routing/v1/ipns'

interface Endpoint { systems: string[], read: string[], write: string[] }

/** boxo GetMainnetFallbackConfig, the parts Kubo reads. */
const FALLBACK = {
  nativeBootstrap: { [AMINO_DHT]: FALLBACK_BOOTSTRAP } as Record<string, string[]>,
  dnsResolvers: { 'eth.': ['https://dns.eth.limo/dns-query', 'https://dns.eth.link/dns-query'] } as Record<string, string[]>,
  endpoints: {
    'https://cid.contact': { systems: [IPNI], read: [PROVIDERS], write: [] },
    'https://delegated-ipfs.dev': { systems: [AMINO_DHT, IPNI], read: [PROVIDERS, PEERS, IPNS], write: [IPNS] },
    'https://example.com': { systems: ['Example'], read: ['/example/v0/read'], write: ['/example/v0/write'] }
  } as Record<string, Endpoint>
}
type AutoConf = typeof FALLBACK

const section = (cfg: KuboConfig, name: string): Record<string, Json> => {
  const v = cfg[name]
  return v != null && typeof v === 'object' && !Array.isArray(v) ? v : {}
}
const strings = (v: Json | undefined): string[] | null => Array.isArray(v) ? v.map(x => String(x)) : null

/** null when AutoConf.Enabled is false (default true). */
function autoConfOf (cfg: KuboConfig): AutoConf | null {
  return section(cfg, 'AutoConf').Enabled === false ? null : FALLBACK
}

function nativeSystems (cfg: KuboConfig): string[] {
  const type = section(cfg, 'Routing').Type
  const routingType = typeof type === 'string' ? type : 'auto'
  return ['dht', 'dhtclient', 'dhtserver', 'auto', 'autoclient'].includes(routingType) ? [AMINO_DHT] : []
}

/** Kubo's expandAutoConfSlice: the first "auto" becomes the autoconf list, later ones vanish. */
function expandSlice (source: string[] | null, data: string[] | null): string[] | null {
  let out: string[] | null = null
  let expanded = false
  for (const item of source ?? []) {
    if (item === AUTO_PLACEHOLDER) {
      if (data != null && !expanded) {
        out = [...(out ?? []), ...data]
        expanded = true
      }
    } else {
      out = [...(out ?? []), item]
    }
  }
  return out
}

/** Config.BootstrapWithAutoConf; null (Go nil) when nothing is left. */
export function bootstrapWithAutoConf (cfg: KuboConfig): string[] | null {
  const ac = autoConfOf(cfg)
  let data: string[] | null = null
  if (ac != null) {
    for (const system of nativeSystems(cfg)) {
      for (const peer of ac.nativeBootstrap[system] ?? []) {
        data ??= []
        if (!data.includes(peer)) data.push(peer)
      }
    }
  }
  return expandSlice(strings(cfg.Bootstrap), data)
}

/** Config.DNSResolversWithAutoConf (Kubo picks one resolver at random; this takes the first). */
export function dnsResolversWithAutoConf (cfg: KuboConfig): Record<string, string> | null {
  const resolvers = section(cfg, 'DNS').Resolvers
  if (resolvers == null || typeof resolvers !== 'object' || Array.isArray(resolvers)) return null
  const ac = autoConfOf(cfg)
  const out: Record<string, string> = {}
  for (const [domain, resolver] of Object.entries(resolvers)) {
    if (resolver === AUTO_PLACEHOLDER) {
      const list = ac != null && Object.hasOwn(ac.dnsResolvers, domain) ? ac.dnsResolvers[domain] : undefined
      if (list != null && list.length > 0) setOwn(out, domain, list[0])
    } else {
      setOwn(out, domain, String(resolver))
    }
  }
  if (ac != null) {
    for (const [domain, list] of Object.entries(ac.dnsResolvers)) {
      if (!Object.hasOwn(out, domain) && list.length > 0) setOwn(out, domain, list[0])
    }
  }
  return out
}

/** boxo ExpandDelegatedEndpoints. */
function expandEndpoints (cfg: KuboConfig, configured: string[] | null, paths: string[]): string[] {
  const ac = autoConfOf(cfg)
  const native = nativeSystems(cfg)
  if (ac == null) return expandSlice(configured, null) ?? []
  const urls = new Set<string>()
  for (const [base, ep] of Object.entries(ac.endpoints)) {
    const read = ep.read.filter(p => paths.includes(p))
    const write = ep.write.filter(p => paths.includes(p))
    if (read.length === 0 && write.length === 0) continue
    if (ep.systems.some(s => native.includes(s))) continue
    for (const p of [...new Set([...read, ...write])].sort()) urls.add((base.replace(/\/+$/, '') + p).replace(/\/+$/, ''))
  }
  // Go iterates a map here (random order); sorted for a stable answer
  return (expandSlice(configured, [...urls].sort()) ?? []).map(u => u.replace(/\/+$/, ''))
}

export function delegatedRoutersWithAutoConf (cfg: KuboConfig): string[] {
  return expandEndpoints(cfg, strings(section(cfg, 'Routing').DelegatedRouters), [PROVIDERS, PEERS, IPNS])
}

export function delegatedPublishersWithAutoConf (cfg: KuboConfig): string[] {
  return expandEndpoints(cfg, strings(section(cfg, 'Ipns').DelegatedPublishers), [IPNS])
}

/** supportedAutoConfFields: each expansion as Kubo's JSON value. */
export const AUTOCONF_FIELDS: Record<string, (cfg: KuboConfig) => Json> = {
  Bootstrap: (cfg) => bootstrapWithAutoConf(cfg) ?? [],
  'DNS.Resolvers': (cfg) => sortedObject(dnsResolversWithAutoConf(cfg) ?? {}),
  'Routing.DelegatedRouters': (cfg) => delegatedRoutersWithAutoConf(cfg),
  'Ipns.DelegatedPublishers': (cfg) => delegatedPublishersWithAutoConf(cfg)
}

function sortedObject (o: Record<string, string>): Record<string, Json> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
}

/** Config.ExpandConfigField: the expansion for a supported key, else the value unchanged. */
export function expandConfigField (cfg: KuboConfig, key: string, value: Json): Json {
  const fn = AUTOCONF_FIELDS[key]
  return fn != null ? fn(cfg) : value
}

/** Config.ExpandAutoConfValues over a raw config map: replaces those fields that are present. */
export function expandAutoConfValues (cfg: KuboConfig, raw: KuboConfig): KuboConfig {
  const out: KuboConfig = { ...raw }
  for (const [path, fn] of Object.entries(AUTOCONF_FIELDS)) {
    const [head, tail] = path.split('.')
    if (tail == null) {
      if (head in out) out[head] = fn(cfg)
      continue
    }
    const sec = out[head]
    if (sec != null && typeof sec === 'object' && !Array.isArray(sec) && tail in sec) {
      out[head] = { ...sec, [tail]: fn(cfg) }
    }
  }
  return out
}
