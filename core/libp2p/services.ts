// The libp2p services a config asks for: identify (+push), ping, AutoNAT, hole punching (DCUtR),
// UPnP, mDNS, the relay service, the DHTs (core/routing/dht.ts: Amino WAN + LAN) and delegated HTTP
// routers (Kubo core/node/libp2p/*.go, routingopt.go). Modules load only when used.
import { identify, identifyPush } from '@libp2p/identify'
import { ping } from '@libp2p/ping'
import { contentRoutingSymbol, peerRoutingSymbol, type PeerId, type PeerInfo } from '@libp2p/interface'
import type { KuboConfig } from '../config/index.js'
import type { Datastore } from 'interface-datastore'
import { dhtMode, pubsubEnabled, usesDelegatedRouters, type NetSettings } from './settings.js'

export interface ServicesInit {
  settings: NetSettings
  config: KuboConfig
  datastore: Datastore
  pubsub?: boolean
  ipnsPubsub?: boolean
  /** every listen address is loopback: no UPnP, no mDNS (nothing to map or announce on a LAN) */
  loopbackOnly: boolean
  log: (msg: string) => void
  /** each peer mDNS finds */
  onLocalPeer: (info: PeerInfo) => void
  /** every ping's round trip in ns (ours, the DHTs' liveness checks): latency for `swarm peers` */
  onRtt: (peer: PeerId, ns: bigint) => void
}

const isLoopbackAddr = (addr: string): boolean => /^\/ip4\/127\.|^\/ip6\/::1\//.test(addr)
export const loopbackOnly = (listen: string[]): boolean => listen.length > 0 && listen.every(isLoopbackAddr)

export async function buildServices ({ settings: s, config, datastore, pubsub, ipnsPubsub, loopbackOnly, log, onLocalPeer, onRtt }: ServicesInit): Promise<{ services: Record<string, unknown>, peerDiscovery: unknown[] }> {
  const services: Record<string, unknown> = {
    identify: identify(),
    identifyPush: identifyPush(),
    // the DHTs check routing-table peers with this service too: room for more than one ping at a time
    ping: (components: Parameters<ReturnType<typeof ping>>[0]) => {
      const service = ping({ maxInboundStreams: 8, maxOutboundStreams: 8 })(components)
      const inner = service.ping.bind(service)
      service.ping = async (peer, options) => {
        const t0 = process.hrtime.bigint()
        const ms = await inner(peer, options)
        onRtt(peer as PeerId, process.hrtime.bigint() - t0)
        return ms
      }
      return service
    }
  }
  const peerDiscovery: unknown[] = []
  if (s.autoNATService) {
    const { autoNAT } = await import('@libp2p/autonat')
    services.autoNAT = autoNAT()
  }
  if (s.holePunching && s.transports.relay && s.relayClient) {
    const { dcutr } = await import('@libp2p/dcutr')
    services.dcutr = dcutr()
  }
  if (s.relayService) {
    const { circuitRelayServer } = await import('@libp2p/circuit-relay-v2')
    services.relay = circuitRelayServer()
  }
  if (s.natPortMap && !loopbackOnly) {
    const { uPnPNAT } = await import('@libp2p/upnp-nat')
    services.upnp = uPnPNAT()
  } else if (s.natPortMap) {
    log('UPnP port mapping skipped: every listen address is loopback')
  }
  if (s.mdns && !loopbackOnly) {
    const { mdns } = await import('@libp2p/mdns')
    peerDiscovery.push((components: Parameters<ReturnType<typeof mdns>>[0]) => {
      const discovery = mdns()(components)
      discovery.addEventListener('peer', (evt) => { onLocalPeer(evt.detail) })
      return discovery
    })
  } else if (s.mdns) {
    log('mDNS skipped: every listen address is loopback')
  }
  const mode = dhtMode(s.routingType)
  if (mode !== 'none') {
    // Kubo's dual DHT (WAN `dht` + `lanDHT`), IPNS-validating: core/routing/dht.ts
    const { dhtServices } = await import('../routing/dht.js')
    const dhts = dhtServices(config, mode === 'client' ? 'client' : 'server')
    const lan = dhts.lanDHT as ((components: unknown) => object) | undefined
    if (lan != null) dhts.lanDHT = (components: unknown) => whileItHasPeers(lan(components))
    Object.assign(services, dhts)
  }
  if (usesDelegatedRouters(s.routingType) || s.routingType === 'custom') {
    // Kubo's expanded endpoints carry their path (https://cid.contact/routing/v1/providers); the client
    // takes the base URL and adds the paths itself
    const urls = [...new Set(s.delegatedRouters.filter(u => /^https?:\/\//.test(u)).map(u => u.replace(/\/routing\/v1(\/.*)?$/, '').replace(/\/?$/, '/')))]
    if (urls.length > 0) {
      const { delegatedRoutingV1HttpApiClient } = await import('@helia/delegated-routing-v1-http-api-client')
      urls.forEach((url, i) => { services[`delegatedRouting${i}`] = delegatedRoutingV1HttpApiClient({ url }) })
    }
  }
  if (pubsubEnabled(config, pubsub, ipnsPubsub)) {
    // Pubsub.Router, Pubsub.DisableSigning and Kubo's persisted seqno validation (./pubsub.ts)
    const { pubsubService } = await import('./pubsub.js')
    services.pubsub = await pubsubService(config, datastore)
  }
  return { services, peerDiscovery }
}


/**
 * The LAN DHT answers the node's content and peer routing only while its routing table has peers:
 * js kad-dht waits for peers on an empty table, so without this every provide or lookup through
 * libp2p's content routing would hang on a node with no LAN peer (most of them). go's dual DHT gets
 * an immediate "failed to find any peer in table" from the empty one and goes on with the other.
 */
function whileItHasPeers<T extends object> (dht: T): T {
  const table = (): number => (dht as { routingTable?: { size: number } }).routingTable?.size ?? 0
  const guard = (inner: Record<string, unknown> | undefined): unknown => {
    if (inner == null) return inner
    return new Proxy(inner, {
      get (target, prop) {
        const value = Reflect.get(target, prop)
        if (typeof value !== 'function') return value
        return (...args: unknown[]) => {
          if (table() > 0) return value.apply(target, args)
          if (prop === 'findProviders' || prop === 'getClosestPeers') return (async function * () {})()
          if (prop === 'findPeer' || prop === 'get') return Promise.reject(Object.assign(new Error('Not found'), { name: 'NotFoundError' }))
          return Promise.resolve()
        }
      }
    })
  }
  for (const sym of [contentRoutingSymbol, peerRoutingSymbol]) {
    const inner = (dht as Record<symbol, Record<string, unknown> | undefined>)[sym]
    Object.defineProperty(dht, sym, { get: () => guard(inner), configurable: true })
  }
  return dht
}
