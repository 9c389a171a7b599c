// The libp2p host: TCP, noise, yamux, identify, ping; kad-dht unless Routing.Type says no DHT, gossipsub
// only with pubsub enabled. This module is imported only by an online node (core/container.ts) and
// the DHT and pubsub modules only when configured: an unused service costs memory (modules and state).
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { identify, identifyPush } from '@libp2p/identify'
import { ping } from '@libp2p/ping'
import type { Libp2p, PrivateKey } from '@libp2p/interface'
import type { Datastore } from 'interface-datastore'
import type { KuboConfig } from '../config/index.js'
import { AGENT_VERSION, PRODUCT_VERSION } from '../version.js'

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
}

const flag = (v: unknown): boolean => v === true

/** Kubo's pubsub switch: Pubsub.Enabled, implied by Ipns.UsePubsub (both default false; a daemon flag overrides each). */
export function pubsubEnabled (config: KuboConfig, pubsub?: boolean, ipnsPubsub?: boolean): boolean {
  return (pubsub ?? flag((config.Pubsub as Record<string, unknown> | undefined)?.Enabled)) ||
    (ipnsPubsub ?? flag((config.Ipns as Record<string, unknown> | undefined)?.UsePubsub))
}

/** The DHT a Routing.Type runs: none ("none", "delegated": HTTP routers only), client or server mode. */
export function dhtMode (config: KuboConfig, override?: string): 'none' | 'client' | 'server' {
  const type = override ?? (config.Routing as Record<string, unknown> | undefined)?.Type
  if (type === 'none' || type === 'delegated') return 'none'
  if (type === 'dhtclient' || type === 'autoclient') return 'client'
  return 'server'
}

const strings = (v: unknown): string[] => Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []

/** Listen addresses we can serve: TCP only (QUIC, WebRTC and WebTransport are not in this build). */
export function swarmListenAddrs (config: KuboConfig): string[] {
  const swarm = strings((config.Addresses as Record<string, unknown> | undefined)?.Swarm)
  return swarm.filter(a => /^\/ip[46]\/[^/]+\/tcp\/\d+$/.test(a))
}

export async function createLibp2pHost ({ privateKey, config, datastore, pubsub, ipnsPubsub, routingType }: Libp2pDeps): Promise<Libp2p> {
  const addresses = (config.Addresses ?? {}) as Record<string, unknown>
  const optional: Record<string, unknown> = {}
  const mode = dhtMode(config, routingType)
  if (mode !== 'none') {
    // Kubo's dual DHT (WAN `dht` + `lanDHT`), IPNS-validating: core/routing/dht.ts
    const { dhtServices } = await import('../routing/dht.js')
    Object.assign(optional, dhtServices(config, mode))
  }
  if (pubsubEnabled(config, pubsub, ipnsPubsub)) {
    // Pubsub.Router, Pubsub.DisableSigning and Kubo's persisted seqno validation (./pubsub.ts)
    const { pubsubService } = await import('./pubsub.js')
    optional.pubsub = await pubsubService(config, datastore)
  }
  const node = await createLibp2p({
    privateKey,
    datastore,
    start: false,
    nodeInfo: { name: 'tsipfs', version: PRODUCT_VERSION, userAgent: AGENT_VERSION },
    addresses: {
      listen: swarmListenAddrs(config),
      announce: strings(addresses.Announce),
      appendAnnounce: strings(addresses.AppendAnnounce)
    },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      identifyPush: identifyPush(),
      ping: ping(),
      ...optional
    }
  })
  return node as unknown as Libp2p
}
