// Kubo's networking config keys read into plain values (config/swarm.go, config/types.go defaults).
// No libp2p imports here: unit tests and commands may read settings without loading the host.
import type { KuboConfig } from '../config/index.js'
import { bootstrapWithAutoConf, delegatedRoutersWithAutoConf } from '../config/autoconf.js'
import { parseGoDuration, parseHumanBytes } from '../config/units.js'

type Obj = Record<string, unknown>
export const section = (v: unknown, ...path: string[]): Obj => {
  let cur: unknown = v
  for (const key of path) cur = cur != null && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Obj)[key] : undefined
  return cur != null && typeof cur === 'object' && !Array.isArray(cur) ? cur as Obj : {}
}
export const strings = (v: unknown): string[] => Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []
/** Kubo's config.Flag: true, false or unset (null) meaning the default. */
export const flag = (v: unknown, dflt: boolean): boolean => typeof v === 'boolean' ? v : dflt
const int = (v: unknown, dflt: number): number => typeof v === 'number' && Number.isFinite(v) ? v : dflt
/** Kubo's OptionalDuration: a Go duration string; unset or unparsable gives the default (ms). */
export const durationMs = (v: unknown, dflt: number): number => {
  if (typeof v !== 'string' || v === '') return dflt
  try { return Number(parseGoDuration(v) / 1_000_000n) } catch { return dflt }
}
/** Kubo's config.Priority for security transports: a number, false (disabled) or unset (the default). */
const priority = (v: unknown, dflt: number): number | false => v === false ? false : typeof v === 'number' ? v : dflt

export interface ConnMgrSettings {
  type: 'basic' | 'none'
  lowWater: number
  highWater: number
  gracePeriodMs: number
  silencePeriodMs: number
}

export interface NetSettings {
  listen: string[]
  announce: string[]
  appendAnnounce: string[]
  noAnnounce: string[]
  transports: { tcp: boolean, quic: boolean, websocket: boolean, webTransport: boolean, webRTCDirect: boolean, relay: boolean }
  /** security transports in the order Kubo prefers them (lowest priority number first) */
  security: Array<'tls' | 'noise'>
  relayClient: boolean
  staticRelays: string[]
  relayService: boolean
  holePunching: boolean
  natPortMap: boolean
  autoNATService: boolean
  mdns: boolean
  addrFilters: string[]
  bootstrap: string[]
  peering: Array<{ ID: string, Addrs: string[] }>
  connMgr: ConnMgrSettings
  /** allowlist: Swarm.ResourceMgr.Allowlist (multiaddrs, /ipcidr masks allowed) */
  resourceMgr: { enabled: boolean, maxMemory?: number, maxFileDescriptors?: number, allowlist: string[] }
  bandwidthMetrics: boolean
  routingType: string
  delegatedRouters: string[]
  loopbackOnLanDht: boolean
}

/** Kubo 0.40 defaults: ConnMgr 32/96/20s, silence 10s (config/swarm.go). */
export const CONNMGR_DEFAULTS = { lowWater: 32, highWater: 96, gracePeriodMs: 20_000, silencePeriodMs: 10_000 }

export function netSettings (config: KuboConfig, routingOverride?: string): NetSettings {
  const addresses = section(config, 'Addresses')
  const swarm = section(config, 'Swarm')
  const network = section(swarm, 'Transports', 'Network')
  const security = section(swarm, 'Transports', 'Security')
  const connMgr = section(swarm, 'ConnMgr')
  const rcmgr = section(swarm, 'ResourceMgr')
  const routing = section(config, 'Routing')
  const relayClient = section(swarm, 'RelayClient')
  const sec: Array<{ name: 'tls' | 'noise', prio: number }> = []
  const tls = priority(security.TLS, 100)
  const noise = priority(security.Noise, 200)
  if (tls !== false) sec.push({ name: 'tls', prio: tls })
  if (noise !== false) sec.push({ name: 'noise', prio: noise })
  sec.sort((a, b) => a.prio - b.prio)
  const maxMemory = typeof rcmgr.MaxMemory === 'string' && rcmgr.MaxMemory !== '' ? parseHumanBytes(rcmgr.MaxMemory) : undefined
  const routingType = routingOverride ?? (typeof routing.Type === 'string' && routing.Type !== '' ? routing.Type : 'auto')
  return {
    listen: strings(addresses.Swarm),
    announce: strings(addresses.Announce),
    appendAnnounce: strings(addresses.AppendAnnounce),
    noAnnounce: strings(addresses.NoAnnounce),
    transports: {
      tcp: flag(network.TCP, true),
      quic: flag(network.QUIC, true),
      websocket: flag(network.Websocket, true),
      webTransport: flag(network.WebTransport, true),
      webRTCDirect: flag(network.WebRTCDirect, true),
      relay: flag(network.Relay, true)
    },
    security: sec.map(s => s.name),
    relayClient: flag(relayClient.Enabled, true),
    staticRelays: strings(relayClient.StaticRelays),
    // Kubo serves relays by default once AutoNAT says it is public; here only when asked for
    relayService: flag(section(swarm, 'RelayService').Enabled, false),
    holePunching: flag(swarm.EnableHolePunching, true),
    natPortMap: !flag(swarm.DisableNatPortMap, false),
    autoNATService: section(config, 'AutoNAT').ServiceMode !== 'disabled',
    mdns: flag(section(config, 'Discovery', 'MDNS').Enabled, true),
    addrFilters: strings(swarm.AddrFilters),
    bootstrap: bootstrapWithAutoConf(config as never) ?? [],
    peering: (Array.isArray(section(config, 'Peering').Peers) ? section(config, 'Peering').Peers as unknown[] : [])
      .map(p => ({ ID: String((p as Obj)?.ID ?? ''), Addrs: strings((p as Obj)?.Addrs) }))
      .filter(p => p.ID !== ''),
    connMgr: {
      type: connMgr.Type === 'none' ? 'none' : 'basic',
      lowWater: int(connMgr.LowWater, CONNMGR_DEFAULTS.lowWater),
      highWater: int(connMgr.HighWater, CONNMGR_DEFAULTS.highWater),
      gracePeriodMs: durationMs(connMgr.GracePeriod, CONNMGR_DEFAULTS.gracePeriodMs),
      silencePeriodMs: durationMs(connMgr.SilencePeriod, CONNMGR_DEFAULTS.silencePeriodMs)
    },
    resourceMgr: {
      enabled: flag(rcmgr.Enabled, true),
      maxMemory,
      maxFileDescriptors: typeof rcmgr.MaxFileDescriptors === 'number' ? rcmgr.MaxFileDescriptors : undefined,
      allowlist: Array.isArray(rcmgr.Allowlist) ? rcmgr.Allowlist.filter((a): a is string => typeof a === 'string') : []
    },
    bandwidthMetrics: !flag(swarm.DisableBandwidthMetrics, false),
    routingType,
    delegatedRouters: delegatedRoutersWithAutoConf(config as never),
    loopbackOnLanDht: flag(routing.LoopbackAddressesOnLanDHT, false)
  }
}

/** The DHTs a Routing.Type runs (Kubo core/node/libp2p/routingopt.go): none, or client/server/auto mode. */
export function dhtMode (routingType: string): 'none' | 'client' | 'server' | 'auto' {
  switch (routingType) {
    case 'none': case 'delegated': case 'custom': return 'none'
    case 'dhtclient': case 'autoclient': return 'client'
    case 'dhtserver': return 'server'
    default: return 'auto'
  }
}

/** Routing.Type values that also query Routing.DelegatedRouters over HTTP. */
export const usesDelegatedRouters = (routingType: string): boolean => ['auto', 'autoclient', 'delegated'].includes(routingType)

/** Kubo's pubsub switch: Pubsub.Enabled, implied by Ipns.UsePubsub (both default false; a daemon flag overrides each). */
export function pubsubEnabled (config: KuboConfig, pubsub?: boolean, ipnsPubsub?: boolean): boolean {
  return (pubsub ?? flag(section(config, 'Pubsub').Enabled, false)) || (ipnsPubsub ?? flag(section(config, 'Ipns').UsePubsub, false))
}
