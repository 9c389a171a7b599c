// Gateway settings read from Kubo's config (Gateway.*), with Kubo's defaults and its implicit
// subdomain gateway on "localhost" (core/corehttp/gateway.go).
import type { KuboConfig } from '../../core/config/index.js'
import { parseHumanBytes } from '../../core/config/units.js'
import { parseDurationMs } from '../../core/util/duration.js'
import { setOwn } from '../../core/util/own.js'

export interface PublicGateway {
  paths: string[]
  useSubdomains: boolean
  noDNSLink: boolean
  inlineDNSLink: boolean
  deserializedResponses: boolean
}

export interface GatewaySettings {
  /** Gateway.HTTPHeaders plus the CORS defaults, applied to every response */
  headers: Record<string, string[]>
  rootRedirect: string
  noFetch: boolean
  noDNSLink: boolean
  deserializedResponses: boolean
  allowCodecConversion: boolean
  disableHTMLErrors: boolean
  /** time allowed to get the first byte (and between later chunks); 0 = off */
  retrievalTimeoutMs: number
  /** absolute deadline of a /ipfs/ or /ipns/ request (never 0: 0 means the default) */
  maxRequestDurationMs: number
  /** /ipfs/ and /ipns/ requests handled at once; more get 429; 0 = no limit */
  maxConcurrentRequests: number
  /** the Delegated Routing V1 HTTP API at /routing/v1/ */
  exposeRoutingAPI: boolean
  /** range requests on larger files get 501; 0 = no limit */
  maxRangeRequestFileSize: number
  /** Experimental.P2pHttpProxy: /p2p/<peer>/http/... proxied to the peer over libp2p (p2p-proxy.ts) */
  p2pHttpProxy: boolean
  exactGateways: Map<string, PublicGateway>
  wildcardGateways: Array<{ re: RegExp, gw: PublicGateway }>
}

const DEFAULT_PATHS = ['/ipfs/', '/ipns/', '/p2p/']
// boxo gateway.DefaultRetrievalTimeout, DefaultMaxRequestDuration, DefaultMaxConcurrentRequests
const DEFAULT_RETRIEVAL_TIMEOUT_MS = 30_000
const DEFAULT_MAX_REQUEST_DURATION_MS = 3_600_000
const DEFAULT_MAX_CONCURRENT_REQUESTS = 4096

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (v != null && typeof v === 'object' && !Array.isArray(v)) ? v as Obj : {}
const flag = (v: unknown, dflt: boolean): boolean => typeof v === 'boolean' ? v : dflt
const strings = (v: unknown): string[] => Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []

/** An OptionalDuration in ms: null/"default" (or a value Kubo would refuse) → undefined. */
function optionalDurationMs (v: unknown): number | undefined {
  if (v == null) return undefined
  const text = String(v)
  if (text === '' || text === 'default' || text === 'null') return undefined
  return parseDurationMs(text)
}

/** An OptionalInteger: null → undefined. */
const optionalInteger = (v: unknown): number | undefined => typeof v === 'number' && Number.isInteger(v) ? v : undefined

/** Canonical HTTP header name, as Go's http.CanonicalHeaderKey. */
export function canonicalHeader (name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase())
}

const sortedSet = (values: string[]): string[] => [...new Set(values.map(canonicalHeader))].sort()

/** Gateway.HTTPHeaders with boxo's CORS defaults (gateway/headers.go ApplyCors). */
function corsHeaders (configured: Obj): Record<string, string[]> {
  const headers: Record<string, string[]> = {}
  for (const [k, v] of Object.entries(configured)) setOwn(headers, canonicalHeader(k), strings(v))
  headers['Access-Control-Allow-Origin'] ??= ['*']
  headers['Access-Control-Allow-Methods'] ??= ['GET', 'HEAD', 'OPTIONS']
  headers['Access-Control-Allow-Headers'] = sortedSet(['Content-Type', 'User-Agent', 'Range', 'X-Requested-With', ...(headers['Access-Control-Allow-Headers'] ?? [])])
  headers['Access-Control-Expose-Headers'] = sortedSet(['Content-Length', 'Content-Range', 'X-Chunked-Output', 'X-Stream-Output', 'X-Ipfs-Path', 'X-Ipfs-Roots', ...(headers['Access-Control-Expose-Headers'] ?? [])])
  return headers
}

const isIp = (host: string): boolean => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':')

export function stripPort (host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']')
    return end > 0 ? host.slice(1, end) : host
  }
  const colon = host.lastIndexOf(':')
  if (colon > 0 && host.indexOf(':') === colon && /^\d*$/.test(host.slice(colon + 1))) return host.slice(0, colon)
  return host
}

export function gatewaySettings (config: KuboConfig): GatewaySettings {
  const gw = obj((config as Obj).Gateway)
  const deserializedResponses = flag(gw.DeserializedResponses, true)
  const timeout = optionalDurationMs(gw.RetrievalTimeout)
  // boxo validateConfig: zero or negative means the default
  const maxDuration = optionalDurationMs(gw.MaxRequestDuration)
  const maxConcurrent = optionalInteger(gw.MaxConcurrentRequests) ?? DEFAULT_MAX_CONCURRENT_REQUESTS
  let maxRange = 0
  try {
    const v = gw.MaxRangeRequestFileSize
    maxRange = typeof v === 'string' ? parseHumanBytes(v) : Number(v ?? 0)
  } catch {}

  const all = new Map<string, PublicGateway | null>()
  all.set('localhost', { paths: DEFAULT_PATHS, useSubdomains: true, noDNSLink: false, inlineDNSLink: false, deserializedResponses })
  for (const [host, spec] of Object.entries(obj(gw.PublicGateways))) {
    if (spec == null) { all.delete(host); continue } // null removes an implicit default
    const s = obj(spec)
    all.set(host, {
      paths: strings(s.Paths),
      useSubdomains: s.UseSubdomains === true,
      noDNSLink: s.NoDNSLink === true,
      inlineDNSLink: flag(s.InlineDNSLink, false),
      deserializedResponses: flag(s.DeserializedResponses, deserializedResponses)
    })
  }
  const exactGateways = new Map<string, PublicGateway>()
  const wildcardGateways: Array<{ re: RegExp, gw: PublicGateway }> = []
  for (const [host, spec] of all) {
    if (spec == null) continue
    // UseSubdomains cannot work on an IP address (boxo skips such entries)
    if (spec.useSubdomains && isIp(stripPort(host))) continue
    if (host.includes('*')) {
      const pattern = host.split('*').map(p => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]+')
      wildcardGateways.push({ re: new RegExp(`^${pattern}(?::\\d+)?$`), gw: spec })
    } else {
      exactGateways.set(host, spec)
    }
  }

  return {
    headers: corsHeaders(obj(gw.HTTPHeaders)),
    rootRedirect: typeof gw.RootRedirect === 'string' ? gw.RootRedirect : '',
    noFetch: gw.NoFetch === true,
    noDNSLink: gw.NoDNSLink === true,
    deserializedResponses,
    allowCodecConversion: flag(gw.AllowCodecConversion, false),
    disableHTMLErrors: flag(gw.DisableHTMLErrors, false),
    retrievalTimeoutMs: timeout == null ? DEFAULT_RETRIEVAL_TIMEOUT_MS : Math.max(0, timeout),
    maxRequestDurationMs: maxDuration != null && maxDuration > 0 ? maxDuration : DEFAULT_MAX_REQUEST_DURATION_MS,
    maxConcurrentRequests: maxConcurrent > 0 ? maxConcurrent : 0,
    exposeRoutingAPI: flag(gw.ExposeRoutingAPI, true),
    maxRangeRequestFileSize: Number.isFinite(maxRange) && maxRange > 0 ? maxRange : 0,
    p2pHttpProxy: obj((config as Obj).Experimental).P2pHttpProxy === true,
    exactGateways,
    wildcardGateways
  }
}

/** The public gateway a Host header names: exact (with, then without port), then wildcards. */
export function knownGateway (settings: GatewaySettings, host: string): PublicGateway | undefined {
  const exact = settings.exactGateways.get(host) ?? settings.exactGateways.get(stripPort(host))
  if (exact != null) return exact
  return settings.wildcardGateways.find(w => w.re.test(host))?.gw
}
