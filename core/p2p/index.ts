// Libp2p stream mounting (Kubo's p2p package behind `ipfs p2p`): listeners that forward local TCP
// connections to a peer's protocol (`forward`), protocol handlers that forward incoming libp2p streams to
// a local TCP service (`listen`), and the registry of the tunnelled streams between them. Each tunnel
// pipes both ways with half-close (a FIN on one side closes that direction on the other); an error or a
// reset on either side, or `p2p stream close`, closes both ends at once. Peers with open tunnels are
// tagged `stream-fwd` (20) for the connection manager, as in Kubo.
import type net from 'node:net'
import type { Libp2p, PeerId } from '@libp2p/interface'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import type { Logger } from '../logger/index.js'
import { StreamDuplex } from './duplex.js'
import { boundAddr, dialTo, listenOn, remoteAddr } from './net.js'

export { socketTarget } from './net.js'

/** how long a forwarded connection waits for the stream to the peer (Kubo: 30 s) */
const DIAL_TIMEOUT_MS = 30_000
/** tunnels per protocol and connection (js-libp2p's default of 32 inbound would refuse the 33rd) */
const MAX_STREAMS = 4096
const CONNMGR_TAG = 'stream-fwd'

export interface Listener {
  protocol: string
  listenAddress: Multiaddr
  targetAddress: Multiaddr
  kind: 'local' | 'p2p'
  /** resolves when the listener is closed (p2p close, request gone, node stopping) */
  done: Promise<void>
}

export interface TunnelInfo {
  id: number
  protocol: string
  origin: Multiaddr
  target: Multiaddr
  peer: string
}

export interface P2pService {
  start: () => void
  stop: () => Promise<void>
  /** `p2p forward`: a local listener whose connections become streams to `peer`'s protocol */
  forwardLocal: (protocol: string, bind: Multiaddr, peer: PeerId) => Promise<Listener>
  /** `p2p listen`: a protocol handler whose streams are piped to `target` */
  forwardRemote: (protocol: string, target: Multiaddr, reportPeerId: boolean) => Promise<Listener>
  /** local listeners first, then protocol handlers, each in creation order */
  listeners: () => Listener[]
  /** closes the listeners `match` selects (open tunnels stay); how many */
  close: (match: (l: Listener) => boolean) => number
  streams: () => TunnelInfo[]
  /** reset tunnels: both ends closed */
  reset: (match: (t: TunnelInfo) => boolean) => number
}

interface Entry extends Listener {
  key: string
  shutdown: () => void
}

interface Tunnel extends TunnelInfo {
  remotePeer: PeerId
  local: net.Socket
  remote: StreamDuplex
}

export interface P2pDeps {
  libp2p: Libp2p | null
  logger?: Logger
}

export function createP2p ({ libp2p, logger }: P2pDeps): P2pService {
  const local = new Map<string, Entry>()
  const remote = new Map<string, Entry>()
  const tunnels = new Map<number, Tunnel>()
  const perPeer = new Map<string, number>()
  let nextId = 0
  const log = (msg: string): void => { logger?.debug(msg) }
  const host = (): Libp2p => {
    if (libp2p == null) throw new Error("this command must be run in online mode. Try running 'ipfs daemon' first")
    return libp2p
  }

  const tag = (peer: PeerId, delta: number): void => {
    const id = peer.toString()
    const n = (perPeer.get(id) ?? 0) + delta
    if (n > 0) perPeer.set(id, n)
    else perPeer.delete(id)
    if ((delta > 0 && n === 1) || n === 0) {
      const tags = n > 0 ? { [CONNMGR_TAG]: { value: 20 } } : { [CONNMGR_TAG]: undefined }
      host().peerStore.merge(peer, { tags: tags as any }).catch(() => {})
    }
  }

  const forget = (t: Tunnel): void => {
    if (tunnels.delete(t.id)) tag(t.remotePeer, -1)
  }

  /** register and start piping a tunnel; both ends are closed together on error */
  const register = (info: Omit<TunnelInfo, 'id' | 'peer'>, peer: PeerId, socket: net.Socket, duplex: StreamDuplex): void => {
    const t: Tunnel = { ...info, id: nextId++, peer: peer.toString(), remotePeer: peer, local: socket, remote: duplex }
    tunnels.set(t.id, t)
    tag(peer, 1)
    let open = 2
    const closed = (): void => {
      if (--open > 0) return
      forget(t)
    }
    socket.once('close', (hadError) => {
      // closed before both directions finished (error, reset, destroy): the stream goes too
      if (hadError || !(socket.readableEnded && socket.writableFinished)) duplex.destroy(new Error('local connection closed'))
      closed()
    })
    duplex.once('close', () => {
      // the stream failed or was reset: the local connection is closed once what it was given is sent
      // (as Go's Close), at once when `p2p stream close` resets the tunnel
      if (duplex.errored != null || !(duplex.readableEnded && duplex.writableFinished)) {
        if (socket.writable) { socket.end(); socket.once('finish', () => socket.destroy()) } else socket.destroy()
      }
      closed()
    })
    socket.on('error', (err) => { log(`p2p: local ${info.origin.toString()}: ${err.message}`) })
    duplex.on('error', (err) => { log(`p2p: stream ${info.protocol}: ${err.message}`) })
    socket.pipe(duplex)
    duplex.pipe(socket)
    socket.resume()
  }

  const closeEntry = (e: Entry): void => {
    if (e.kind === 'local') local.delete(e.key)
    else remote.delete(e.key)
    e.shutdown()
  }

  return {
    start () {},
    async stop () {
      for (const e of [...local.values(), ...remote.values()]) closeEntry(e)
      for (const t of [...tunnels.values()]) { t.remote.destroy(new Error('node stopping')); t.local.destroy() }
    },

    async forwardLocal (protocol, bind, peer) {
      const node = host()
      const server = await listenOn(bind)
      const listenAddress = boundAddr(server)
      const key = listenAddress.toString()
      if (local.has(key)) {
        server.close()
        throw new Error('listener already registered')
      }
      let finish!: () => void
      const done = new Promise<void>(resolve => { finish = resolve })
      const targetAddress = multiaddr(`/p2p/${peer.toString()}`)
      const entry: Entry = {
        key,
        kind: 'local',
        protocol,
        listenAddress,
        targetAddress,
        done,
        shutdown: () => { server.close(); finish() }
      }
      server.on('connection', (socket: net.Socket) => {
        const origin = remoteAddr(socket) ?? listenAddress
        socket.on('error', () => {})
        node.dialProtocol(peer, protocol, { signal: AbortSignal.timeout(DIAL_TIMEOUT_MS), maxOutboundStreams: MAX_STREAMS } as any).then((stream) => {
          if (socket.destroyed) { stream.abort(new Error('local connection closed')); return }
          register({ protocol, origin, target: targetAddress }, peer, socket, new StreamDuplex(stream))
        }, (err: Error) => {
          // Kubo: the local connection is closed and a warning logged
          logger?.warn(`p2p: failed to dial to remote ${peer.toString()}/${protocol}: ${err.message}`)
          socket.destroy()
        })
      })
      server.on('error', (err) => { log(`p2p: listener ${key}: ${err.message}`) })
      local.set(key, entry)
      return entry
    },

    async forwardRemote (protocol, target, reportPeerId) {
      const node = host()
      if (remote.has(protocol)) throw new Error('listener already registered')
      let finish!: () => void
      const done = new Promise<void>(resolve => { finish = resolve })
      // a protocol the node already serves keeps its handler (Kubo's match handler comes after the node's own)
      const owned = !node.getProtocols().includes(protocol)
      const entry: Entry = {
        key: protocol,
        kind: 'p2p',
        protocol,
        listenAddress: multiaddr(`/p2p/${node.peerId.toString()}`),
        targetAddress: target,
        done,
        shutdown: () => {
          if (owned) node.unhandle(protocol).catch(() => {})
          finish()
        }
      }
      remote.set(protocol, entry)
      if (owned) {
        try {
          await node.handle(protocol, async (stream, connection) => {
            const peer = connection.remotePeer
            // listening at once: what the peer sends (and its close) while the service is dialed is kept
            const duplex = new StreamDuplex(stream)
            duplex.on('error', () => {})
            let socket: net.Socket
            try {
              socket = await dialTo(target)
            } catch (err) {
              log(`p2p: ${protocol}: ${(err as Error).message}`)
              duplex.destroy(err as Error)
              return
            }
            if (duplex.destroyed) { socket.destroy(); return }
            socket.pause()
            if (reportPeerId) socket.write(`${peer.toString()}\n`)
            register({ protocol, origin: multiaddr(`/p2p/${peer.toString()}`), target }, peer, socket, duplex)
          }, { maxInboundStreams: MAX_STREAMS, maxOutboundStreams: MAX_STREAMS })
        } catch (err) {
          remote.delete(protocol)
          throw err
        }
      } else {
        logger?.warn(`p2p: ${protocol} is served by the node itself: the listener will get no streams`)
      }
      return entry
    },

    listeners: () => [...local.values(), ...remote.values()],

    close (match) {
      const todo = [...local.values(), ...remote.values()].filter(match)
      for (const e of todo) closeEntry(e)
      return todo.length
    },

    streams: () => [...tunnels.values()].sort((a, b) => a.id - b.id).map(({ id, protocol, origin, target, peer }) => ({ id, protocol, origin, target, peer })),

    reset (match) {
      const todo = [...tunnels.values()].filter(t => match(t))
      for (const t of todo) {
        // gone from `p2p stream ls` at once (Kubo deregisters before answering)
        forget(t)
        t.remote.destroy(new Error('stream closed'))
        t.local.destroy()
      }
      return todo.length
    }
  }
}
