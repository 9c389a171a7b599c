// Swarm.ResourceMgr emulated: js-libp2p has no resource manager, so the limits Kubo computes
// (core/node/libp2p/rcmgr_defaults.go) are computed the same way, enforced for connections by the
// gater (system and transient inbound connections, inbound connections per peer), and reported by
// `swarm resources` with the live usage. A refused connection is counted under the limit that refused
// it, logged, and listed by `swarm resources` (beyond Kubo, which only says "resource limit exceeded").
import os from 'node:os'
import type { NetSettings } from './settings.js'

export type LimitValue = number | 'unlimited' | 'blockAll' | 'default'

export interface ScopeLimits {
  Memory: LimitValue
  FD: LimitValue
  Conns: LimitValue
  ConnsInbound: LimitValue
  ConnsOutbound: LimitValue
  Streams: LimitValue
  StreamsInbound: LimitValue
  StreamsOutbound: LimitValue
}
export type LimitName = keyof ScopeLimits
export const LIMIT_NAMES: LimitName[] = ['Memory', 'FD', 'Conns', 'ConnsInbound', 'ConnsOutbound', 'Streams', 'StreamsInbound', 'StreamsOutbound']

export interface Usage { Memory: number, FD: number, Conns: number, ConnsInbound: number, ConnsOutbound: number, Streams: number, StreamsInbound: number, StreamsOutbound: number }

/** Kubo config.DefaultResourceMgrMinInboundConns */
const MIN_INBOUND_CONNS = 800
/** go-libp2p DefaultLimits PeerBaseLimit.ConnsInbound (what PeerDefault's DefaultLimit resolves to) */
export const PEER_CONNS_INBOUND = 8
const DEFAULT_FDS = 10_000

export interface Limits {
  System: ScopeLimits
  Transient: ScopeLimits
  PeerConnsInbound: number
  /** go-libp2p's limits for its bundled services and their protocols (SetDefaultServiceLimits), scaled */
  Services: Record<string, ScopeLimits>
  Protocols: Record<string, ScopeLimits>
}

/** [StreamsInbound, StreamsOutbound, Streams, Memory MiB] */
type StreamLimits = [number, number, number, number]
interface ServiceLimit { protocols: string[], base: StreamLimits, increase: StreamLimits }
/**
 * go-libp2p SetDefaultServiceLimits (limits.go): each service's base limit and its increase per GiB, the
 * same for the service and for each of its protocols. The relay's hop and stop protocols have their own.
 */
const SERVICE_LIMITS: Record<string, ServiceLimit> = {
  'libp2p.autonat': { protocols: ['/libp2p/autonat/1.0.0'], base: [64, 64, 64, 4], increase: [4, 4, 4, 2] },
  'libp2p.holepunch': { protocols: ['/libp2p/dcutr'], base: [32, 32, 64, 4], increase: [8, 8, 16, 4] },
  'libp2p.identify': { protocols: ['/ipfs/id/1.0.0', '/ipfs/id/push/1.0.0'], base: [64, 64, 128, 4], increase: [64, 64, 128, 4] },
  'libp2p.ping': { protocols: ['/ipfs/ping/1.0.0'], base: [64, 64, 64, 4], increase: [64, 64, 64, 4] },
  'libp2p.relay/v2': { protocols: [], base: [256, 256, 256, 16], increase: [256, 256, 256, 16] }
}
const RELAY_PROTOCOLS: ServiceLimit = { protocols: ['/libp2p/circuit/relay/0.2.0/hop', '/libp2p/circuit/relay/0.2.0/stop'], base: [640, 640, 640, 16], increase: [640, 640, 640, 16] }
/** the service whose scope a protocol's streams count in (go-libp2p: the handler sets it) */
const SERVICE_OF: Record<string, string> = { '/libp2p/circuit/relay/0.2.0/hop': 'libp2p.relay/v2' }
for (const [name, l] of Object.entries(SERVICE_LIMITS)) for (const p of l.protocols) SERVICE_OF[p] = name

/** go-libp2p rcmgr scale(): base + increase × MiB / 1024, the MiB counted only above 128 MiB; no FD or connections */
function scaled (l: ServiceLimit, maxMemory: number): ScopeLimits {
  const mib = maxMemory > 128 * 1024 * 1024 ? Math.floor(maxMemory / (1024 * 1024)) : 0
  const at = (i: number): number => l.base[i] + Math.floor(l.increase[i] * mib / 1024)
  const memory = l.base[3] * 1024 * 1024 + Math.floor(l.increase[3] * 1024 * 1024 * mib / 1024)
  return { Memory: memory, FD: 'blockAll', Conns: 'blockAll', ConnsInbound: 'blockAll', ConnsOutbound: 'blockAll', Streams: at(2), StreamsInbound: at(0), StreamsOutbound: at(1) }
}

/** the limits of a scope nothing configures (a protocol or peer in use): Kubo prints them as "default" */
export const DEFAULT_SCOPE: ScopeLimits = { Memory: 'default', FD: 'default', Conns: 'default', ConnsInbound: 'default', ConnsOutbound: 'default', Streams: 'default', StreamsInbound: 'default', StreamsOutbound: 'default' }

export function computeLimits (settings: NetSettings): Limits {
  const maxMemory = settings.resourceMgr.maxMemory ?? Math.floor(os.totalmem() / 2)
  const maxMemoryMB = Math.floor(maxMemory / (1024 * 1024))
  const maxFD = settings.resourceMgr.maxFileDescriptors ?? DEFAULT_FDS
  let connsInbound = maxMemoryMB
  if (settings.connMgr.type !== 'none') {
    connsInbound = Math.max(connsInbound, settings.connMgr.highWater * 2, MIN_INBOUND_CONNS)
  }
  const scope = (memory: number, fd: number, inbound: number): ScopeLimits => ({
    Memory: memory,
    FD: fd,
    Conns: 'unlimited',
    ConnsInbound: inbound,
    ConnsOutbound: 'unlimited',
    Streams: 'unlimited',
    StreamsInbound: 'unlimited',
    StreamsOutbound: 'unlimited'
  })
  const Services: Record<string, ScopeLimits> = {}
  const Protocols: Record<string, ScopeLimits> = {}
  for (const [name, l] of Object.entries(SERVICE_LIMITS)) {
    Services[name] = scaled(l, maxMemory)
    for (const p of l.protocols) Protocols[p] = scaled(l, maxMemory)
  }
  for (const p of RELAY_PROTOCOLS.protocols) Protocols[p] = scaled(RELAY_PROTOCOLS, maxMemory)
  return {
    System: scope(maxMemory, maxFD, connsInbound),
    Transient: scope(Math.floor(maxMemory / 4), Math.floor(maxFD / 4), Math.floor(maxMemoryMB / 4)),
    PeerConnsInbound: PEER_CONNS_INBOUND,
    Services,
    Protocols
  }
}

export interface StreamView { direction: 'inbound' | 'outbound', protocol?: string }
export interface ConnView { direction: 'inbound' | 'outbound', remotePeer: string, streams: StreamView[], transient?: boolean }

const emptyUsage = (): Usage => ({ Memory: 0, FD: 0, Conns: 0, ConnsInbound: 0, ConnsOutbound: 0, Streams: 0, StreamsInbound: 0, StreamsOutbound: 0 })
const countStream = (u: Usage, s: StreamView): void => {
  u.Streams++
  if (s.direction === 'inbound') u.StreamsInbound++
  else u.StreamsOutbound++
}

/** the usage of every service, protocol and peer scope (peers: those connected; protocols: those with a stream open) */
export interface ScopeUsages { services: Map<string, Usage>, protocols: Map<string, Usage>, peers: Map<string, Usage> }

export class ResourceAccount {
  readonly limits: Limits
  /** "scope:LimitName" → connections refused by that limit */
  readonly refusals = new Map<string, number>()

  constructor (settings: NetSettings, private readonly connections: () => ConnView[], private readonly enabled = settings.resourceMgr.enabled) {
    this.limits = computeLimits(settings)
  }

  usage (filter?: (c: ConnView) => boolean): Usage {
    const u = emptyUsage()
    for (const c of this.connections()) {
      if (filter != null && !filter(c)) continue
      addConn(u, c)
    }
    return u
  }

  scopes (): ScopeUsages {
    const out: ScopeUsages = { services: new Map(), protocols: new Map(), peers: new Map() }
    const of = (m: Map<string, Usage>, k: string): Usage => {
      let u = m.get(k)
      if (u == null) { u = emptyUsage(); m.set(k, u) }
      return u
    }
    for (const c of this.connections()) {
      addConn(of(out.peers, c.remotePeer), c)
      for (const s of c.streams) {
        if (s.protocol == null || s.protocol === '') continue
        countStream(of(out.protocols, s.protocol), s)
        const service = SERVICE_OF[s.protocol]
        if (service != null) countStream(of(out.services, service), s)
      }
    }
    return out
  }

  private refuse (scope: string, name: LimitName, limit: number): string {
    const key = `${scope}:${name}`
    this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1)
    return `resource limit exceeded: ${scope} ${name} (limit ${limit}); see 'ipfs swarm resources'`
  }

  /** why a new inbound connection is refused, or undefined */
  admitInbound (): string | undefined {
    if (!this.enabled) return undefined
    const limit = this.limits.System.ConnsInbound
    if (typeof limit === 'number' && this.usage().ConnsInbound + 1 > limit) return this.refuse('system', 'ConnsInbound', limit)
    return undefined
  }

  /** why another inbound connection from this peer is refused, or undefined */
  admitPeer (peer: string): string | undefined {
    if (!this.enabled) return undefined
    const limit = this.limits.PeerConnsInbound
    if (this.usage(c => c.remotePeer === peer).ConnsInbound + 1 > limit) return this.refuse(`peer:${peer}`, 'ConnsInbound', limit)
    return undefined
  }
}

function addConn (u: Usage, c: ConnView): void {
  u.Conns++
  u.FD++
  if (c.direction === 'inbound') u.ConnsInbound++
  else u.ConnsOutbound++
  for (const s of c.streams) countStream(u, s)
}

type Wire = Record<string, string | number>

/**
 * Kubo's map of scopes (mergeLimitsAndStatsMapIntoLimitsConfigAndUsageMap): every configured scope with its
 * usage (zero when idle) and every scope in use without a limit of its own ("default"), by name.
 */
export function scopesWire (limits: Record<string, ScopeLimits>, usage: Map<string, Usage>): Record<string, Wire> {
  const out: Record<string, Wire> = {}
  // Go's encoding/json writes map keys sorted
  for (const name of [...new Set([...Object.keys(limits), ...usage.keys()])].sort()) {
    out[name] = scopeWire(limits[name] ?? DEFAULT_SCOPE, usage.get(name) ?? emptyUsage())
  }
  return out
}

/** Kubo's LimitsConfigAndUsage for one scope: each limit then its usage; int64 Memory as a string. */
export function scopeWire (limits: ScopeLimits, usage: Usage): Wire {
  const out: Wire = {}
  for (const name of LIMIT_NAMES) {
    const v = limits[name]
    out[name] = name === 'Memory' && typeof v === 'number' ? String(v) : v
    out[`${name}Usage`] = usage[name]
  }
  return out
}
