// The libp2p host following Kubo's config: transports (TCP, QUIC-v1, WebSockets, circuit relay v2),
// TLS and Noise, yamux, the services of services.ts, the address filters/gater, bandwidth metrics and
// the network service (network.ts). This module is imported only by an online node (core/container.ts):
// an offline daemon never loads libp2p.
import { createLibp2p } from 'libp2p'
import { yamux } from '@chainsafe/libp2p-yamux'
import type { Libp2p, PrivateKey } from '@libp2p/interface'
import type { Datastore } from 'interface-datastore'
import type { Logger } from '../logger/index.js'
import type { KuboConfig } from '../config/index.js'
import { agentVersion, PRODUCT_VERSION } from '../version.js'
import { multiaddr } from '@multiformats/multiaddr'
import { netSettings, dhtMode as dhtModeOf, type NetSettings } from './settings.js'
import type { Limits } from './resources.js'
import { planTransports } from './transports.js'
import { halfWindowUpdates } from './coalesce.js'
import { buildServices, loopbackOnly } from './services.js'
import { createNetwork, createNetworkParts, type Network } from './network.js'
import { ipOf, parseMask, type Mask } from './filters.js'
import { cachePeerReads } from './peerstore-cache.js'
import { PeerStoreInMemory } from './peerstore-memory.js'
import { fastProtocolMerge } from './peerstore-merge.js'

export { pubsubEnabled } from './settings.js'
export type { Network } from './network.js'

export interface Libp2pDeps {
  privateKey: PrivateKey
  config: KuboConfig
  datastore: Datastore
  /** overrides Pubsub.Enabled (daemon --enable-pubsub-experiment) */
  pubsub?: boolean
  /** overrides Ipns.UsePubsub (daemon --enable-namesys-pubsub) */
  ipnsPubsub?: boolean
  /** overrides Routing.Type (daemon --routing other than "default") */
  routingType?: string
  logger?: Logger
}

/** The DHT a Routing.Type runs: none ("none", "delegated", "custom"), client or server mode. */
export function dhtMode (config: KuboConfig, override?: string): 'none' | 'client' | 'server' {
  const mode = dhtModeOf(netSettings(config, override).routingType)
  return mode === 'auto' ? 'server' : mode
}

const silent = { warn () {}, info () {}, debug () {}, error () {} } as unknown as Logger

/** Addresses.NoAnnounce: exact multiaddrs and ipcidr masks (Kubo makeAddrsFactory). */
function announceFilter (noAnnounce: string[]): ((addrs: any[]) => any[]) | undefined {
  if (noAnnounce.length === 0) return undefined
  const exact = new Set<string>()
  const masks: Mask[] = []
  for (const a of noAnnounce) {
    try { masks.push(parseMask(a)) } catch { exact.add(a) }
  }
  return (addrs) => addrs.filter(a => {
    if (exact.has(a.toString())) return false
    const ip = ipOf(a)
    return ip == null || !masks.some(m => { try { return m.net.contains(ip) } catch { return false } })
  })
}

/**
 * js-libp2p refuses a host's 6th inbound connection within a second and an 11th handshake in progress,
 * where Kubo (go-libp2p's resource manager) accepts up to its System.ConnsInbound: the rate and the
 * pending handshakes follow that limit, and loopback and Swarm.ResourceMgr.Allowlist (Kubo's allowlist,
 * which bypasses the limits) are always let in.
 */
export function inboundAdmission (settings: NetSettings, limits: Limits): { inboundConnectionThreshold: number, maxIncomingPendingConnections: number, allow: string[] } {
  const inbound = typeof limits.System.ConnsInbound === 'number' ? limits.System.ConnsInbound : 100_000
  const allow: string[] = ['/ip4/127.0.0.0/ipcidr/8', '/ip6/::1/ipcidr/128']
  for (const a of settings.resourceMgr.allowlist) {
    try { multiaddr(a); allow.push(a) } catch { /* Kubo refuses to start on a bad entry; config validation reports it */ }
  }
  return { inboundConnectionThreshold: Math.max(inbound, 64), maxIncomingPendingConnections: Math.max(Math.min(inbound, 1024), 64), allow }
}

/** The host and its network service. */
export async function createNetworkHost (deps: Libp2pDeps): Promise<{ libp2p: Libp2p, network: Network }> {
  const { privateKey, config, datastore, pubsub, ipnsPubsub, routingType } = deps
  const log = deps.logger ?? silent
  const settings = netSettings(config, routingType)
  const plan = await planTransports(settings)
  const parts = createNetworkParts(settings, plan.skipped, log)
  const { services, peerDiscovery } = await buildServices({
    settings,
    config,
    datastore,
    pubsub,
    ipnsPubsub,
    loopbackOnly: loopbackOnly(plan.listen),
    log: (msg) => { log.info(msg) },
    onLocalPeer: (info) => { parts.onLocalPeer(info) },
    onRtt: (peer, ns) => { parts.rtts.set(peer.toString(), ns) }
  })
  const highWater = settings.connMgr.type === 'none' ? Infinity : settings.connMgr.highWater
  const node = await createLibp2p({
    privateKey,
    // the peer store in memory (as Kubo's pstoremem); DHT and provider records stay in the repo's datastore
    datastore: new PeerStoreInMemory(datastore),
    start: false,
    nodeInfo: { name: 'tsipfs', version: PRODUCT_VERSION, userAgent: agentVersion() },
    addresses: {
      listen: plan.listen,
      announce: settings.announce,
      appendAnnounce: settings.appendAnnounce,
      announceFilter: announceFilter(settings.noAnnounce)
    },
    transports: plan.transports as any[],
    connectionEncrypters: plan.encrypters as any[],
    streamMuxers: [halfWindowUpdates(yamux())],
    connectionGater: parts.filters.gater(),
    connectionManager: {
      // the trimming is ours (connmgr.ts); libp2p's own limit is only a hard ceiling far above it
      maxConnections: Number.isFinite(highWater) ? Math.max(highWater * 2, highWater + 64) : 100_000,
      ...inboundAdmission(settings, parts.resources.limits)
    },
    metrics: settings.bandwidthMetrics ? () => parts.bandwidth as any : undefined,
    peerDiscovery: peerDiscovery as any[],
    services: services as any
  })
  const libp2p = node as unknown as Libp2p
  fastProtocolMerge(libp2p.peerStore)
  cachePeerReads(libp2p.peerStore)
  return { libp2p, network: createNetwork(parts, libp2p, log) }
}

/** The host alone (embedding, tests). */
export async function createLibp2pHost (deps: Libp2pDeps): Promise<Libp2p> {
  return (await createNetworkHost(deps)).libp2p
}

/** Listen addresses this build serves (the rest are skipped with a log line). */
export async function swarmListenAddrs (config: KuboConfig): Promise<string[]> {
  return (await planTransports(netSettings(config))).listen
}
