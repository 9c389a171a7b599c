// Fewer TCP segments per libp2p frame, as go-libp2p sends them: each extra segment wakes the peer (and, on a loaded
// machine, waits for a turn of the scheduler). Wrappers over the @libp2p/tls and yamux factories; the wire format is
// unchanged. Both reach into the modules' instances and leave them as they are when the shapes are not there.

type Factory = (components: any) => any
type Secure = (...args: any[]) => Promise<{ connection: any }>

/**
 * @libp2p/tls writes each part of a frame (yamux header, payload) as its own TLS record, the later ones a turn of the
 * event loop after the first (its socket completes writes in setImmediate). Corking the TLS socket around a send
 * makes a frame one record and one write.
 */
export function oneRecordPerFrame<F extends Factory> (factory: F): F {
  return ((components: any) => {
    const encrypter = factory(components)
    const wrap = (secure: Secure): Secure => async (...args) => {
      const out = await secure(...args)
      const conn = out.connection
      const socket = conn?.socket
      if (typeof conn?.sendData === 'function' && typeof socket?.cork === 'function') {
        const send = conn.sendData.bind(conn)
        conn.sendData = (data: unknown) => {
          socket.cork()
          try { return send(data) } finally { socket.uncork() }
        }
      }
      return out
    }
    encrypter.secureInbound = wrap(encrypter.secureInbound.bind(encrypter))
    encrypter.secureOutbound = wrap(encrypter.secureOutbound.bind(encrypter))
    return encrypter
  }) as F
}

/** the least round trip time a stream's window tuning assumes (ms) */
export const RTT_FLOOR_MS = 10

/** yamux StreamState.Established */
const ESTABLISHED = 3

/**
 * js yamux sends a window update for every data frame it receives: one more segment back for each message. go-yamux
 * (Kubo) sends one once the window is half used; so does a stream here once it is established (opening, pausing and
 * resuming keep the module's own rule). The window grows as go-yamux's does, on loopback too (RTT_FLOOR_MS).
 */
export function halfWindowUpdates<F extends Factory> (factory: F): F {
  return ((components: any) => {
    const yamux = factory(components)
    const create = yamux.createStreamMuxer?.bind(yamux)
    if (create == null) return yamux
    yamux.createStreamMuxer = (...args: any[]) => {
      const muxer = create(...args)
      const newStream = muxer._newStream?.bind(muxer)
      if (typeof newStream !== 'function') return muxer
      muxer._newStream = (...a: any[]) => {
        const stream = newStream(...a)
        const update = stream.sendWindowUpdate?.bind(stream)
        if (typeof update !== 'function' || typeof stream.recvWindowCapacity !== 'number') return stream
        // the window doubles when half of it was used within 4 RTTs (go-yamux's auto-tuning); js yamux's RTT
        // is whole ms from one ping (0 on loopback: a stream's window never grew past 256 KiB, one round trip
        // through the receiver's event loop per 256 KiB): RTT_FLOOR_MS at least
        const rtt = stream.getRTT
        if (typeof rtt === 'function') stream.getRTT = () => Math.max(rtt(), RTT_FLOOR_MS)
        stream.sendWindowUpdate = () => {
          if (stream.state === ESTABLISHED && stream.recvWindow - stream.recvWindowCapacity < stream.recvWindow / 2) return
          update()
        }
        return stream
      }
      return muxer
    }
    return yamux
  }) as F
}
