// The network service: what runs around the libp2p host and what commands read (cradle key `network`):
// bandwidth counters, address filters and the gater, the connection manager, peering, bootstrap and the
// emulated resource manager. Started after libp2p, stopped before it.
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import { peerIdFromString } from '@libp2p/peer-id'
import { KEEP_ALIVE, type Connection, type Libp2p, type PeerId, type PeerInfo } from '@libp2p/interface'
import type { Logger } from '../logger/index.js'
import { BandwidthMetrics, type Bandwidth } from './bandwidth.js'
import { AddrFilters } from './filters.js'
import { ConnManager } from './connmgr.js'
import { Peering } from './peering.js'
import { Bootstrapper, peerOfAddr } from './bootstrap.js'
import { ResourceAccount, type ConnView } from './resources.js'
import type { NetSettings } from './settings.js'

/** Kubo's connmgr tag for peering peers */
export const PEERING_TAG = 'ipfs-peering'

export interface Network {
  readonly settings: NetSettings
  readonly bandwidth: Bandwidth
  readonly filters: AddrFilters
  readonly connmgr: ConnManager
  readonly peering: Peering
  readonly resources: ResourceAccount
  /** listen addresses not served, with the reason */
  readonly skipped: Array<[string, string]>
  /** last measured round trip to a peer in ns (a ping after connecting, and every `ping`) */
  latency: (peer: string) => bigint | undefined
  /** ping once, recording the round trip (ns) */
  ping: (peer: PeerId, signal?: AbortSignal) => Promise<bigint>
  /** dial a /p2p/ multiaddr (the user's: private addresses in it may be dialed) */
  connect: (addr: Multiaddr, signal?: AbortSignal) => Promise<Connection>
  start: () => Promise<void>
  stop: () => Promise<void>
}

/** Parts made before libp2p (it needs the metrics and the gater). */
export interface NetworkParts {
  settings: NetSettings
  bandwidth: BandwidthMetrics
  filters: AddrFilters
  resources: ResourceAccount
  skipped: Array<[string, string]>
  /** set once libp2p exists */
  host: { libp2p?: Libp2p }
  /** mDNS calls this for each peer it finds (set while the network runs) */
  onLocalPeer: (info: PeerInfo) => void
  /** round trips of every ping (ns), by peer */
  rtts: Map<string, bigint>
  /** the connection manager's say on an inbound peer (set once it exists): why it is refused, or undefined */
  admitPeer?: (peer: string) => string | undefined
}

const viewOf = (c: Connection): ConnView => ({
  direction: c.direction,
  remotePeer: c.remotePeer.toString(),
  streams: c.streams.map(s => ({ direction: s.direction, protocol: s.protocol })),
  transient: c.limits != null
})

export function createNetworkParts (settings: NetSettings, skipped: Array<[string, string]>, log: Logger): NetworkParts {
  const host: { libp2p?: Libp2p } = {}
  const conns = (): Connection[] => host.libp2p?.getConnections() ?? []
  const resources = new ResourceAccount(settings, () => conns().map(viewOf))
  const filters = new AddrFilters({
    filters: settings.addrFilters,
    admitInbound: () => resources.admitInbound(),
    admitPeer: (peer) => resources.admitPeer(peer) ?? parts.admitPeer?.(peer),
    log: (msg) => { log.warn(msg) }
  })
  const bandwidth = new BandwidthMetrics({
    peerOf: (stream) => conns().find(c => c.streams.includes(stream as never))?.remotePeer.toString()
  })
  // Kubo allows dialing what the config names; so do we, private ranges included
  for (const a of [...settings.bootstrap, ...settings.peering.flatMap(p => p.Addrs)]) {
    try { filters.vouch(multiaddr(a)) } catch {}
  }
  const parts: NetworkParts = { settings, bandwidth, filters, resources, skipped, host, onLocalPeer: () => {}, rtts: new Map() }
  return parts
}

export function createNetwork (parts: NetworkParts, libp2p: Libp2p, log: Logger): Network {
  parts.host.libp2p = libp2p
  const { settings, bandwidth, filters, resources, skipped } = parts
  const connectedPeers = (): number => new Set(libp2p.getConnections().map(c => c.remotePeer.toString())).size
  const isConnected = (peer: string): boolean => libp2p.getConnections(peerIdFromString(peer)).length > 0
  const connmgr = new ConnManager(settings.connMgr, {
    peers: async () => {
      const byPeer = new Map<string, { id: PeerId, openedAt: number, conns: number }>()
      for (const c of libp2p.getConnections()) {
        const id = c.remotePeer.toString()
        const openedAt = c.timeline.open
        const cur = byPeer.get(id)
        if (cur == null) byPeer.set(id, { id: c.remotePeer, openedAt, conns: 1 })
        else { cur.conns++; cur.openedAt = Math.min(cur.openedAt, openedAt) }
      }
      return await Promise.all([...byPeer.entries()].map(async ([id, { id: peerId, openedAt, conns }]) => {
        const peer = await libp2p.peerStore.get(peerId).catch(() => undefined)
        let value = 0
        for (const t of peer?.tags.values() ?? []) value += t.value
        return { id, openedAt, value, conns }
      }))
    },
    close: async (peer, signal) => {
      const id = peerIdFromString(peer)
      // drop our keep-alive tags (the DHT's closest peers) so libp2p's reconnect queue does not redial it
      const tags = (await libp2p.peerStore.get(id).catch(() => undefined))?.tags
      const drop = [...(tags?.keys() ?? [])].filter(t => t.startsWith(KEEP_ALIVE))
      if (drop.length > 0) await libp2p.peerStore.merge(id, { tags: Object.fromEntries(drop.map(t => [t, undefined])) }).catch(() => {})
      await libp2p.hangUp(id, { signal })
    },
    connections: () => libp2p.getConnections().length,
    log: (msg) => { log.info(msg) }
  })
  parts.admitPeer = (peer) => connmgr.admit(peer)
  const peering = new Peering({
    remember: async (peer, addrs) => {
      const ms = addrs.map(a => multiaddr(a))
      for (const m of ms) filters.vouch(m)
      if (ms.length > 0) await libp2p.peerStore.merge(peerIdFromString(peer), { multiaddrs: ms })
    },
    dial: async (peer) => { await libp2p.dial(peerIdFromString(peer)) },
    isConnected,
    protect: (peer) => {
      connmgr.protect(peer, PEERING_TAG)
      void libp2p.peerStore.merge(peerIdFromString(peer), { tags: { [PEERING_TAG]: { value: 100 } } }).catch(() => {})
    },
    unprotect: (peer) => {
      connmgr.unprotect(peer, PEERING_TAG)
      void libp2p.peerStore.merge(peerIdFromString(peer), { tags: { [PEERING_TAG]: undefined } }).catch(() => {})
    },
    log: (msg) => { log.debug(msg) }
  })
  for (const p of settings.peering) peering.addPeer(p.ID, p.Addrs)
  const bootstrap = new Bootstrapper(settings.bootstrap.filter(a => peerOfAddr(a) != null), {
    connectedPeers,
    isConnected,
    dial: async (addr) => { await libp2p.dial(multiaddr(addr)) },
    log: (msg) => { log.debug(msg) }
  })

  const rtts = parts.rtts
  const ping = async (peer: PeerId, signal?: AbortSignal): Promise<bigint> => {
    const service = (libp2p.services as { ping?: { ping: (p: PeerId, o?: { signal?: AbortSignal }) => Promise<number> } }).ping
    if (service == null) throw new Error('ping service not running')
    await service.ping(peer, { signal })
    // the service records the round trip (services.ts)
    return rtts.get(peer.toString()) ?? 0n
  }

  const onOpen = (): void => { connmgr.onConnection() }
  const onConnect = (evt: CustomEvent<PeerId>): void => { peering.onConnect(evt.detail.toString()) }
  const onDisconnect = (evt: CustomEvent<PeerId>): void => {
    rtts.delete(evt.detail.toString())
    peering.onDisconnect(evt.detail.toString())
  }
  // Kubo connects to the peers mDNS finds (their addresses are on our own networks)
  const onLocalPeer = (info: PeerInfo): void => {
    if (isConnected(info.id.toString()) || connectedPeers() >= settings.connMgr.highWater) return
    void libp2p.dial(info.id).catch(() => {})
  }

  return {
    settings,
    bandwidth,
    filters,
    connmgr,
    peering,
    resources,
    skipped,
    latency: (peer) => rtts.get(peer),
    ping,
    connect: async (addr, signal) => {
      filters.vouch(addr)
      return await libp2p.dial(addr, { signal })
    },
    start: async () => {
      for (const [addr, why] of skipped) log.warn(`not listening on ${addr}: ${why}`)
      bandwidth.start()
      libp2p.addEventListener('connection:open', onOpen)
      libp2p.addEventListener('peer:connect', onConnect)
      libp2p.addEventListener('peer:disconnect', onDisconnect)
      parts.onLocalPeer = onLocalPeer
      peering.start()
      bootstrap.start()
    },
    stop: async () => {
      bootstrap.stop()
      peering.stop()
      connmgr.stop()
      bandwidth.stop()
      parts.onLocalPeer = () => {}
      libp2p.removeEventListener('connection:open', onOpen)
      libp2p.removeEventListener('peer:connect', onConnect)
      libp2p.removeEventListener('peer:disconnect', onDisconnect)
    }
  }
}

