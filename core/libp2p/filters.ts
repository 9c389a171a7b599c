// Address filters (Swarm.AddrFilters, `swarm filters`) and the dynamic connection gater built on them.
// Masks use the multiaddr-filter format Kubo takes: /ip4/192.168.0.0/ipcidr/16, /ip6/fe80::/ipcidr/10.
// Beyond Kubo: an address in a private range (RFC 1918, CGNAT, link-local, ULA) is dialed only when it
// is on one of this host's own networks, was given by the user or the config (swarm connect, Peering,
// Bootstrap) or was found by local discovery (mDNS); private addresses that public peers pass on
// (DHT, identify) are not dialed, so a server never "netscans" other people's LANs.
import os from 'node:os'
import { IpNet } from '@chainsafe/netmask'

export const INVALID_FILTER = 'invalid multiaddr-filter format'

export interface Mask { text: string, net: IpNet }

/** whyrusleeping/multiaddr-filter NewMask. */
export function parseMask (text: string): Mask {
  const m = /^\/(ip4|ip6)\/([^/]+)\/ipcidr\/(\d+)$/.exec(text)
  if (m == null) throw new Error(INVALID_FILTER)
  const bits = Number(m[3])
  if ((m[1] === 'ip4' && bits > 32) || bits > 128) throw new Error(INVALID_FILTER)
  try {
    return { text, net: new IpNet(m[2], bits) }
  } catch {
    throw new Error(INVALID_FILTER)
  }
}

/** The IP address of a multiaddr's first component (undefined for DNS names and others). */
export function ipOf (addr: { getComponents: () => Array<{ name: string, value?: string }> }): string | undefined {
  const first = addr.getComponents()[0]
  return first != null && (first.name === 'ip4' || first.name === 'ip6') ? first.value : undefined
}

const PRIVATE = [
  '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16',
  'fc00::/7', 'fe80::/10'
].map(c => new IpNet(c))
const LOOPBACK = [new IpNet('127.0.0.0/8'), new IpNet('::1/128')]

const contains = (nets: IpNet[], ip: string): boolean => {
  try { return nets.some(n => n.contains(ip)) } catch { return false }
}
export const isPrivateIp = (ip: string): boolean => contains(PRIVATE, ip)
export const isLoopbackIp = (ip: string): boolean => contains(LOOPBACK, ip)

/** The networks of this host's interfaces (a private address on one of them is on our LAN). */
function localNetworks (): IpNet[] {
  const nets: IpNet[] = []
  for (const list of Object.values(os.networkInterfaces())) {
    for (const i of list ?? []) {
      try { nets.push(new IpNet(i.cidr ?? `${i.address}/${i.family === 'IPv4' ? 32 : 128}`)) } catch {}
    }
  }
  return nets
}

export interface GaterInit {
  filters: string[]
  /** say why a connection is refused (resource limits); undefined when accepted */
  admitInbound?: (remoteAddr: string) => string | undefined
  admitPeer?: (peer: string) => string | undefined
  log?: (msg: string) => void
}

/** The swarm's filter set plus the private-range policy; `gater` is what libp2p consults. */
export class AddrFilters {
  private readonly masks = new Map<string, Mask>()
  /** private IPs the user, the config or mDNS vouched for */
  private readonly vouched = new Set<string>()
  private nets: IpNet[] = []
  private netsAt = 0
  refused = 0

  constructor (private readonly init: GaterInit) {
    for (const f of init.filters) this.add(f)
  }

  /** the filters, in the order added */
  list (): string[] { return [...this.masks.keys()] }
  add (text: string): void { const m = parseMask(text); this.masks.set(m.text, m) }
  remove (text: string): boolean { parseMask(text); return this.masks.delete(text) }
  clear (): void { this.masks.clear() }

  /** allow dialing this (private) address's IP (given by the user/config, or found by mDNS) */
  vouch (addr: { getComponents: () => Array<{ name: string, value?: string }> }): void {
    const ip = ipOf(addr)
    if (ip != null) this.vouched.add(ip)
  }

  /** the filter that blocks this IP, if any */
  blockedBy (ip: string): string | undefined {
    for (const m of this.masks.values()) {
      try { if (m.net.contains(ip)) return m.text } catch {}
    }
    return undefined
  }

  private onLocalNetwork (ip: string): boolean {
    if (Date.now() - this.netsAt > 30_000) { this.nets = localNetworks(); this.netsAt = Date.now() }
    return contains(this.nets, ip)
  }

  /** true when an outgoing dial to this address is not allowed */
  denyDial (addr: { getComponents: () => Array<{ name: string, value?: string }> }): boolean {
    const ip = ipOf(addr)
    if (ip == null) return false
    if (this.blockedBy(ip) != null) return true
    if (isPrivateIp(ip) && !this.vouched.has(ip) && !this.onLocalNetwork(ip)) return true
    return false
  }

  /** the libp2p ConnectionGater */
  gater (): Record<string, (...args: any[]) => boolean> {
    const refuse = (why: string): boolean => {
      this.refused++
      this.init.log?.(why)
      return true
    }
    return {
      denyDialMultiaddr: (ma) => this.denyDial(ma),
      filterMultiaddrForPeer: (_peer, ma) => !this.denyDial(ma),
      denyInboundConnection: (maConn) => {
        const ip = ipOf(maConn.remoteAddr)
        if (ip != null && this.blockedBy(ip) != null) return true
        const why = this.init.admitInbound?.(maConn.remoteAddr.toString())
        return why != null ? refuse(why) : false
      },
      denyInboundEncryptedConnection: (peer) => {
        const why = this.init.admitPeer?.(peer.toString())
        return why != null ? refuse(why) : false
      },
      denyOutboundConnection: (_peer, maConn) => {
        const ip = ipOf(maConn.remoteAddr)
        return ip != null && this.blockedBy(ip) != null
      }
    }
  }
}
