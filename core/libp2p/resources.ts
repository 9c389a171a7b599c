// Swarm.ResourceMgr emulated: js-libp2p has no resource manager, so the limits Kubo computes
// (core/node/libp2p/rcmgr_defaults.go) are computed the same way, enforced for connections by the
// gater (system and transient inbound connections, inbound connections per peer), and reported by
// `swarm resources` with the live usage. A refused connection is counted under the limit that refused
// it, logged, and listed by `swarm resources` (beyond Kubo, which only says "resource limit exceeded").
import os from 'node:os'
import type { NetSettings } from './settings.js'

export type LimitValue = number | 'unlimited' | 'blockAll'

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

export interface Limits { System: ScopeLimits, Transient: ScopeLimits, PeerConnsInbound: number }

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
  return {
    System: scope(maxMemory, maxFD, connsInbound),
    Transient: scope(Math.floor(maxMemory / 4), Math.floor(maxFD / 4), Math.floor(maxMemoryMB / 4)),
    PeerConnsInbound: PEER_CONNS_INBOUND
  }
}

export interface ConnView { direction: 'inbound' | 'outbound', remotePeer: string, streams: Array<{ direction: 'inbound' | 'outbound' }>, transient?: boolean }

export class ResourceAccount {
  readonly limits: Limits
  /** "scope:LimitName" → connections refused by that limit */
  readonly refusals = new Map<string, number>()

  constructor (settings: NetSettings, private readonly connections: () => ConnView[], private readonly enabled = settings.resourceMgr.enabled) {
    this.limits = computeLimits(settings)
  }

  usage (filter?: (c: ConnView) => boolean): Usage {
    const u: Usage = { Memory: 0, FD: 0, Conns: 0, ConnsInbound: 0, ConnsOutbound: 0, Streams: 0, StreamsInbound: 0, StreamsOutbound: 0 }
    for (const c of this.connections()) {
      if (filter != null && !filter(c)) continue
      u.Conns++
      u.FD++
      if (c.direction === 'inbound') u.ConnsInbound++
      else u.ConnsOutbound++
      for (const s of c.streams) {
        u.Streams++
        if (s.direction === 'inbound') u.StreamsInbound++
        else u.StreamsOutbound++
      }
    }
    return u
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

type Wire = Record<string, string | number>

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
