// Host-based routing (boxo gateway/hostname.go): path gateways, subdomain gateways
// ({cid}.ipfs.{host}, {key}.ipns.{host}, inlined DNSLink names) and DNSLink hosts.
import { base32 } from 'multiformats/bases/base32'
import { base36 } from 'multiformats/bases/base36'
import { CID } from 'multiformats/cid'
import { parseCid } from '../../core/cid-encoder.js'
import { knownGateway, stripPort, type GatewaySettings, type PublicGateway } from './config.js'
import type { DnslinkLookup } from './dnslink.js'
import { GatewayError } from './errors.js'
import { LIBP2P_KEY, parseIpnsName } from './ipns.js'
import { escapePath } from './resolve.js'

const DNS_LABEL_MAX = 63

export interface HostRequest {
  /** Host header, or the host of an absolute-form request target */
  host: string
  /** X-Forwarded-Host, when sent */
  forwardedHost?: string
  /** https when X-Forwarded-Proto says so */
  https: boolean
  /** decoded URL path */
  path: string
  rawQuery: string
  signal?: AbortSignal
}

export type HostRoute =
  | { kind: 'redirect', status: number, location: string }
  | { kind: 'not-found' }
  | {
    kind: 'serve'
    /** the path to serve, rewritten for subdomain and DNSLink hosts */
    path: string
    /** the host that picked the gateway's settings (X-Forwarded-Host first) */
    host: string
    /** the gateway hostname of a subdomain request (e.g. example.com:8080) */
    subdomainHost?: string
    /** the DNSLink host */
    dnslinkHost?: string
  }

export function hasPrefix (path: string, prefixes: string[]): boolean {
  return prefixes.some(prefix => {
    const p = prefix.replace(/\/$/, '')
    return p === path || path.startsWith(p + '/')
  })
}

const isSubdomainNamespace = (ns: string): boolean => ['ipfs', 'ipns', 'p2p', 'ipld'].includes(ns)
const isPeerIdNamespace = (ns: string): boolean => ns === 'ipns' || ns === 'p2p'
const isIp = (h: string): boolean => /^\d{1,3}(\.\d{1,3}){3}$/.test(h) || h.includes(':')

function isDomainName (name: string): boolean {
  const n = name.replace(/\.$/, '')
  if (n === '' || n.length > 253) return false
  return n.split('.').every(label => label.length > 0 && label.length <= DNS_LABEL_MAX)
}

const isDomainNameAndNotPeerId = (name: string): boolean => name !== '' && parseIpnsName(name) == null && isDomainName(name)

/** my.v-long.example.com → my-v--long-example-com */
export function inlineDnslink (fqdn: string): string {
  const label = fqdn.replace(/-/g, '--').replace(/\./g, '-')
  if (label.length > DNS_LABEL_MAX) throw new GatewayError(400, `inlined DNSLink incompatible with DNS label length limit of 63: ${JSON.stringify(label)}`)
  return label
}

/** my-v--long-example-com → my.v-long.example.com */
export function uninlineDnslink (label: string): string {
  let out = ''
  for (let i = 0; i < label.length; i++) {
    if (label[i] === '-') {
      if (label[i + 1] === '-') { out += '-'; i++ } else out += '.'
    } else {
      out += label[i]
    }
  }
  return out
}

/** A CID text that fits in a DNS label: as given, or base36 CIDv1 (boxo toDNSLabel). */
export function toDnsLabel (rootId: string, cid: CID): string {
  if (rootId.length <= DNS_LABEL_MAX) return rootId
  const b36 = CID.createV1(cid.code, cid.multihash).toString(base36)
  if (b36.length <= DNS_LABEL_MAX) return b36
  throw new GatewayError(400, `CID incompatible with DNS label length limit of 63: ${b36}`)
}

export class HostRouter {
  constructor (private readonly settings: GatewaySettings, private readonly dnslink: DnslinkLookup) {}

  async hasDnslink (host: string, signal?: AbortSignal): Promise<boolean> {
    const name = stripPort(host)
    if (isIp(name) || !isDomainNameAndNotPeerId(name)) return false
    try {
      return (await this.dnslink(name, { signal })) != null
    } catch {
      return false
    }
  }

  /** The subdomain URL for a path on a subdomain gateway, or '' when the path has none. */
  async toSubdomainUrl (hostname: string, path: string, req: HostRequest, inline: boolean): Promise<string> {
    const parts = path.split('/')
    if (parts.length < 3) return ''
    const ns = parts[1]
    let rootId = parts[2]
    const rest = parts.slice(3).join('/')
    if (!isSubdomainNamespace(ns)) return ''

    if (isPeerIdNamespace(ns) && !isDomainNameAndNotPeerId(rootId)) {
      const mh = parseIpnsName(rootId)
      if (mh != null) rootId = CID.createV1(LIBP2P_KEY, mh).toString()
    }
    let cid: CID | undefined
    try { cid = parseCid(rootId) } catch {}
    if (cid != null) {
      const code = isPeerIdNamespace(ns) ? LIBP2P_KEY : cid.code
      const v1 = CID.createV1(code, cid.multihash)
      rootId = toDnsLabel(v1.toString(isPeerIdNamespace(ns) ? base36 : base32), v1)
    } else {
      if (ns === 'ipns' && !rootId.includes('.') && rootId.includes('-')) {
        const fqdn = uninlineDnslink(rootId)
        if (await this.hasDnslink(fqdn, req.signal)) rootId = fqdn
      }
      if ((inline || req.https) && ns === 'ipns' && rootId.includes('.')) {
        if (await this.hasDnslink(rootId, req.signal)) rootId = inlineDnslink(rootId)
      } else if (ns === 'ipfs') {
        return ''
      }
    }
    if (rootId === '') return ''
    let url = `${req.https ? 'https' : 'http'}://${rootId}.${ns}.${hostname}/${escapePath(rest)}`
    if (req.rawQuery !== '') url += '?' + req.rawQuery
    return url
  }

  /** {rootID}.{ns}.{gateway host} when the host is a subdomain of a known gateway. */
  private subdomainDetails (host: string): { gw: PublicGateway, gwHost: string, ns: string, rootId: string } | undefined {
    const labels = host.split('.')
    for (let i = labels.length - 1; i >= 2; i--) {
      const fqdn = labels.slice(i).join('.')
      const gw = knownGateway(this.settings, fqdn)
      if (gw == null) continue
      const ns = labels[i - 1]
      if (!isSubdomainNamespace(ns)) continue
      return { gw, gwHost: fqdn, ns, rootId: labels.slice(0, i - 1).join('.') }
    }
    return undefined
  }

  async route (req: HostRequest): Promise<HostRoute> {
    const host = req.forwardedHost ?? req.host
    const known = knownGateway(this.settings, host)
    if (known != null) {
      if (hasPrefix(req.path, known.paths)) {
        if (known.useSubdomains) {
          const url = await this.toSubdomainUrl(host, req.path, req, known.inlineDNSLink)
          if (url !== '') return { kind: 'redirect', status: 301, location: url }
        }
        return { kind: 'serve', path: req.path, host }
      }
      if (!known.noDNSLink && await this.hasDnslink(host, req.signal)) {
        return { kind: 'serve', path: `/ipns/${stripPort(host)}${req.path}`, host, dnslinkHost: host }
      }
      return { kind: 'not-found' }
    }

    const sub = this.subdomainDetails(host)
    if (sub != null) {
      const { gw, gwHost, ns, rootId } = sub
      let prefix = `/${ns}/${rootId}`
      if (!(gw.useSubdomains && hasPrefix(prefix, gw.paths))) return { kind: 'not-found' }
      let cid: CID | undefined
      try { cid = parseCid(rootId) } catch {}
      if (cid != null) {
        const dnsCid = toDnsLabel(rootId, cid)
        if (!req.host.startsWith(dnsCid)) {
          const url = await this.toSubdomainUrl(gwHost, `/${ns}/${dnsCid}${req.path}`, req, gw.inlineDNSLink)
          if (url !== '') return { kind: 'redirect', status: 301, location: url }
        }
        if (isPeerIdNamespace(ns) && cid.code !== LIBP2P_KEY) {
          const url = await this.toSubdomainUrl(gwHost, prefix + req.path, req, gw.inlineDNSLink)
          if (url !== '') return { kind: 'redirect', status: 301, location: url }
        }
      } else if (ns === 'ipns' && !rootId.includes('.') && rootId.includes('-')) {
        // an inlined DNSLink name: my-v--long-example-com
        const fqdn = uninlineDnslink(rootId)
        if (await this.hasDnslink(fqdn, req.signal) || !await this.hasDnslink(rootId, req.signal)) prefix = `/ipns/${fqdn}`
      }
      return { kind: 'serve', path: prefix + req.path, host, subdomainHost: gwHost }
    }

    if (!this.settings.noDNSLink && await this.hasDnslink(host, req.signal)) {
      return { kind: 'serve', path: `/ipns/${stripPort(host)}${req.path}`, host, dnslinkHost: host }
    }
    return { kind: 'serve', path: req.path, host }
  }
}
