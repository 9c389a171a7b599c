// The libp2p host: TCP, noise, yamux, identify, ping, kad-dht, gossipsub.
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { identify, identifyPush } from '@libp2p/identify'
import { ping } from '@libp2p/ping'
import { kadDHT } from '@libp2p/kad-dht'
import { gossipsub } from '@libp2p/gossipsub'
import type { Libp2p, PrivateKey } from '@libp2p/interface'
import type { Datastore } from 'interface-datastore'
import type { KuboConfig } from '../config/index.js'
import { AGENT_VERSION, PRODUCT_VERSION } from '../version.js'

export interface Libp2pDeps {
  privateKey: PrivateKey
  config: KuboConfig
  datastore: Datastore
}

const strings = (v: unknown): string[] => Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []

/** Listen addresses we can serve: TCP only (QUIC, WebRTC and WebTransport are not in this build). */
export function swarmListenAddrs (config: KuboConfig): string[] {
  const swarm = strings((config.Addresses as Record<string, unknown> | undefined)?.Swarm)
  return swarm.filter(a => /^\/ip[46]\/[^/]+\/tcp\/\d+$/.test(a))
}

export async function createLibp2pHost ({ privateKey, config, datastore }: Libp2pDeps): Promise<Libp2p> {
  const addresses = (config.Addresses ?? {}) as Record<string, unknown>
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
      dht: kadDHT({ protocol: '/ipfs/kad/1.0.0', clientMode: false }),
      pubsub: gossipsub({ allowPublishToZeroTopicPeers: true, emitSelf: false })
    }
  })
  return node as unknown as Libp2p
}
