// Kubo's dual DHT as two kad-dht services on the libp2p host (go-libp2p-kad-dht/dual):
// - `dht`, the WAN (Amino) DHT on /ipfs/kad/1.0.0: only public addresses are kept for peers;
// - `lanDHT` on /ipfs/lan/kad/1.0.0: only private addresses, and loopback only with
//   Routing.LoopbackAddressesOnLanDHT (Kubo's `test` profile sets it), so nodes on one machine find each other.
// Both validate IPNS records as Kubo does. Imported by core/libp2p only when Routing.Type runs a DHT.
import { kadDHT, removePrivateAddressesMapper } from '@libp2p/kad-dht'
import { ipnsValidator } from 'ipns/validator'
import { ipnsSelector } from 'ipns/selector'
import type { PeerInfo } from '@libp2p/interface'
import type { Multiaddr } from '@multiformats/multiaddr'
import type { KuboConfig } from '../config/index.js'
import { DHT_DATASTORE_PREFIX } from './index.js'
import { leanGetValue, leanStreams } from './dht-server.js'

export const WAN_PROTOCOL = '/ipfs/kad/1.0.0'
export const LAN_PROTOCOL = '/ipfs/lan/kad/1.0.0'

const hostOf = (ma: Multiaddr): [string, string] => {
  const [, proto = '', host = ''] = ma.toString().split('/')
  return [proto, host.toLowerCase()]
}

const isLoopback = (ma: Multiaddr): boolean => {
  const [proto, host] = hostOf(ma)
  return (proto === 'ip4' && host.startsWith('127.')) || (proto === 'ip6' && host === '::1') || host === 'localhost'
}

/** RFC 1918, loopback, link-local, CGNAT, ULA: addresses the WAN DHT ignores and the LAN DHT keeps. */
export function isPrivateAddr (ma: Multiaddr): boolean {
  const [proto, host] = hostOf(ma)
  if (host === 'localhost') return true
  if (proto === 'ip4') {
    const [a, b] = host.split('.').map(Number)
    return a === 10 || a === 127 || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) ||
      (a === 169 && b === 254) || (a === 100 && b >= 64 && b < 128)
  }
  if (proto === 'ip6') return host === '::1' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host)
  return false
}

/** Routing.LoopbackAddressesOnLanDHT (default false) */
export function loopbackOnLan (config: KuboConfig): boolean {
  return (config.Routing as Record<string, unknown> | undefined)?.LoopbackAddressesOnLanDHT === true
}

/** The LAN DHT's view of a peer: private addresses, loopback ones only when allowed. */
export function lanMapper (loopback: boolean): (peer: PeerInfo) => PeerInfo {
  return (peer) => ({ ...peer, multiaddrs: peer.multiaddrs.filter(ma => isPrivateAddr(ma) && (loopback || !isLoopback(ma))) })
}

/** The DHT services for a host: `{ dht, lanDHT }` (client mode for dhtclient/autoclient). */
export function dhtServices (config: KuboConfig, mode: 'client' | 'server'): Record<string, unknown> {
  const common = {
    clientMode: mode === 'client',
    validators: { ipns: ipnsValidator },
    selectors: { ipns: ipnsSelector },
    // our own records are re-announced by core/provider (Provide.DHT.Interval); the DHT's reprovider only
    // cleans up (threshold 0: it re-puts a self record only once it has expired)
    reprovide: { threshold: 0 }
  }
  // each with our GET_VALUE answer and stream loop (./dht-server.ts)
  const lean = <C, S extends object>(factory: (components: C) => S) => (components: C): S => leanStreams(leanGetValue(factory(components)))
  return {
    dht: lean(kadDHT({ ...common, protocol: WAN_PROTOCOL, peerInfoMapper: removePrivateAddressesMapper, datastorePrefix: DHT_DATASTORE_PREFIX.wan })),
    lanDHT: lean(kadDHT({
      ...common,
      protocol: LAN_PROTOCOL,
      peerInfoMapper: lanMapper(loopbackOnLan(config)),
      logPrefix: 'libp2p:kad-dht:lan',
      datastorePrefix: DHT_DATASTORE_PREFIX.lan,
      metricsPrefix: 'libp2p_kad_dht_lan'
    }))
  }
}
