// Transports, security and the listen addresses they serve, from Addresses.Swarm and
// Swarm.Transports.* (Kubo core/node/libp2p/transport.go, sec.go). Each module is imported only when
// its transport is on. WebTransport and WebRTC-direct listeners cannot run in Node: skipped, logged.
import type { NetSettings } from './settings.js'
import { oneRecordPerFrame } from './coalesce.js'
import { tlsOnSocket } from './tls-socket.js'

export type ListenKind = 'tcp' | 'ws' | 'quic' | 'webtransport' | 'webrtc-direct' | 'relay' | 'unknown'

/** What serves a listen address. */
export function listenKind (addr: string): ListenKind {
  if (addr.endsWith('/p2p-circuit')) return 'relay'
  if (/\/quic-v1\/webtransport(\/|$)/.test(addr)) return 'webtransport'
  if (/\/webrtc-direct(\/|$)/.test(addr)) return 'webrtc-direct'
  if (/\/udp\/\d+\/quic-v1$/.test(addr)) return 'quic'
  if (/\/tcp\/\d+\/(ws|wss|tls\/ws|tls\/sni\/[^/]+\/ws)$/.test(addr)) return 'ws'
  if (/\/tcp\/\d+$/.test(addr)) return 'tcp'
  return 'unknown'
}

export interface TransportPlan {
  listen: string[]
  /** [address, reason] for each address not listened on */
  skipped: Array<[string, string]>
  transports: unknown[]
  encrypters: unknown[]
}

const WHY: Partial<Record<ListenKind, string>> = {
  webtransport: 'WebTransport listening is not supported in Node.js',
  'webrtc-direct': 'WebRTC-direct is not in this build (it needs a native module not installable from the registry here)',
  unknown: 'no transport for this address'
}

export async function planTransports (s: NetSettings): Promise<TransportPlan> {
  const plan: TransportPlan = { listen: [], skipped: [], transports: [], encrypters: [] }
  const enabled: Record<ListenKind, boolean> = {
    tcp: s.transports.tcp,
    ws: s.transports.websocket,
    quic: s.transports.quic,
    webtransport: false,
    'webrtc-direct': false,
    relay: s.transports.relay && s.relayClient,
    unknown: false
  }
  for (const addr of s.listen) {
    const kind = listenKind(addr)
    if (kind === 'ws' && /wss|tls/.test(addr)) { plan.skipped.push([addr, 'secure WebSocket listening needs AutoTLS, not in this build']); continue }
    if (enabled[kind]) plan.listen.push(addr)
    else plan.skipped.push([addr, WHY[kind] ?? `Swarm.Transports.Network disables ${kind}`])
  }
  for (const relay of s.staticRelays) {
    if (enabled.relay) plan.listen.push(`${relay}/p2p-circuit`)
  }
  if (s.transports.tcp) {
    const { tcp } = await import('@libp2p/tcp')
    plan.transports.push(tcp())
  }
  if (s.transports.quic) {
    const { quic } = await import('@chainsafe/libp2p-quic')
    plan.transports.push(quic())
  }
  if (s.transports.websocket) {
    const { webSockets } = await import('@libp2p/websockets')
    plan.transports.push(webSockets())
  }
  if (enabled.relay) {
    const { circuitRelayTransport } = await import('@libp2p/circuit-relay-v2')
    plan.transports.push(circuitRelayTransport())
  }
  for (const name of s.security) {
    if (name === 'tls') {
      const { tls } = await import('@libp2p/tls')
      plan.encrypters.push(oneRecordPerFrame(tlsOnSocket(tls())))
    } else {
      const { noise } = await import('@chainsafe/libp2p-noise')
      plan.encrypters.push(noise())
    }
  }
  return plan
}
