// libp2p TLS (the spec @libp2p/tls speaks: TLS 1.3, the libp2p certificate, ALPN muxer negotiation) run on the TCP
// socket itself. @libp2p/tls runs Node's TLS over a JS Duplex of the connection (JSStreamSocket): every record it
// reads or writes crosses into JS as a fresh Buffer and back out through the TCP connection's own writes. On a plain
// TCP connection whose socket is still unread, TLS here takes the socket's handle, so OpenSSL reads from and writes to
// the kernel socket directly and only cleartext crosses into JS. Any other connection goes to @libp2p/tls unchanged.
import net from 'node:net'
import { TLSSocket, connect } from 'node:tls'
import { InvalidCryptoExchangeError } from '@libp2p/interface'
import { generateCertificate, toMessageStream, verifyPeerCertificate } from '@libp2p/tls/utils'

type Factory = (components: any) => any

/** the TCP socket of a @libp2p/tcp connection with nothing buffered in front of it, or undefined */
export function ownSocket (connection: any): net.Socket | undefined {
  const socket = connection?.socket
  if (!(socket instanceof net.Socket) || (socket as any)._handle == null || socket.destroyed) return undefined
  if (socket.readableLength !== 0 || connection.readBufferLength !== 0) return undefined
  return socket
}

/** Wraps the @libp2p/tls factory: TCP connections are encrypted on their socket, the rest by the module. */
export function tlsOnSocket<F extends Factory> (factory: F): F {
  return ((components: any) => {
    const encrypter = factory(components)
    const stockIn = encrypter.secureInbound.bind(encrypter)
    const stockOut = encrypter.secureOutbound.bind(encrypter)
    encrypter.secureInbound = async (connection: any, options?: any) => {
      const socket = ownSocket(connection)
      return socket == null ? await stockIn(connection, options) : await secure(components, connection, socket, true, options)
    }
    encrypter.secureOutbound = async (connection: any, options?: any) => {
      const socket = ownSocket(connection)
      return socket == null ? await stockOut(connection, options) : await secure(components, connection, socket, false, options)
    }
    return encrypter
  }) as F
}

/** coalesced writes at least this big reuse buffers of their own (smaller ones: Node's copy) */
export const COALESCE_MIN = 64 * 1024
/** and at most this big */
export const COALESCE_MAX = 4 * 1024 * 1024
/** free buffers kept per size (a power of two) */
const KEEP = 2
const free = new Map<number, Buffer[]>()

/**
 * Node's TLS socket encrypts several queued writes (a frame's header and parts, frames queued behind a pending write)
 * as one: it copies them into a new allocation each time, which glibc maps and unmaps above the daemon's
 * MALLOC_MMAP_THRESHOLD_ (bin/tsipfs.js): page faults on every byte sent. Here they are copied into a reused buffer,
 * handed back once the write completed (OpenSSL has consumed it by then).
 */
export function coalesceWrites (socket: net.Socket): void {
  const writev = (socket as any)._writev
  const write = (socket as any)._write
  if (typeof writev !== 'function' || typeof write !== 'function') return
  ;(socket as any)._writev = function (chunks: Array<{ chunk: any }>, cb: (err?: Error | null) => void) {
    let total = 0
    for (const { chunk } of chunks) {
      if (!(chunk instanceof Uint8Array)) return writev.call(this, chunks, cb)
      total += chunk.byteLength
    }
    if (total < COALESCE_MIN || total > COALESCE_MAX) return writev.call(this, chunks, cb)
    const size = 2 ** Math.ceil(Math.log2(total))
    const buf = free.get(size)?.pop() ?? Buffer.allocUnsafeSlow(size)
    let at = 0
    for (const { chunk } of chunks) { buf.set(chunk, at); at += chunk.byteLength }
    write.call(this, buf.subarray(0, total), 'buffer', (err?: Error | null) => {
      const list = free.get(size) ?? []
      if (list.length < KEEP) { list.push(buf); free.set(size, list) }
      cb(err)
    })
  }
}

/**
 * The TCP connection closes its socket itself (close, abort, reset, inactivity): closing the handle under the TLS
 * socket that reads and writes it crashes the process (use after free). Those calls go to the TLS socket, whose
 * teardown closes the TCP socket last (Node's TLS close destroys its parent socket).
 */
function tlsOwnsHandle (raw: net.Socket, socket: TLSSocket): void {
  const destroy = raw.destroy
  const resetAndDestroy = raw.resetAndDestroy
  raw.destroy = function (this: net.Socket, err?: Error) {
    if (!socket.destroyed) { socket.destroy(); return this }
    return destroy.call(this, err)
  }
  raw.resetAndDestroy = function (this: net.Socket) {
    if (!socket.destroyed) { socket.destroy(); return this }
    return resetAndDestroy.call(this)
  }
  raw.destroySoon = function (this: net.Socket) {
    if (!socket.destroyed) socket.destroySoon()
    else destroy.call(this)
  }
}

/** @libp2p/tls's _encrypt with the TCP socket in place of its JS Duplex */
async function secure (components: any, connection: any, raw: net.Socket, isServer: boolean, options?: any): Promise<any> {
  const log = connection.log?.newScope?.('tls') ?? components.logger.forComponent('libp2p:tls')
  const muxers: Map<string, any> = components.upgrader.getStreamMuxers()
  let streamMuxer: any
  // what arrives while the certificate is made waits in the socket (not the connection's buffer): TLS reads it first
  raw.pause()
  const cert = await generateCertificate(components.privateKey, options)
  if (raw.destroyed) throw new InvalidCryptoExchangeError('connection closed before TLS started')
  const opts: any = {
    ...cert,
    isServer,
    minVersion: 'TLSv1.3',
    maxVersion: 'TLSv1.3',
    rejectUnauthorized: false,
    ALPNProtocols: [...(options?.skipStreamMuxerNegotiation === true ? [] : muxers.keys()), 'libp2p'],
    ALPNCallback: ({ protocols }: { protocols: string[] }) => {
      let chosen: string | undefined
      for (const protocol of protocols) {
        if (protocol === 'libp2p') chosen = 'libp2p'
        streamMuxer = muxers.get(protocol)
        if (streamMuxer != null) { chosen = protocol; break }
      }
      return chosen
    }
  }
  // (the TCP socket's inactivity timer stays: Node refreshes a TLS socket's parents' timers on its reads and writes)
  const socket: TLSSocket = isServer ? new TLSSocket(raw, { ...opts, requestCert: true }) : connect({ socket: raw, ...opts })
  tlsOwnsHandle(raw, socket)
  // (emitted, as @libp2p/tls does: destroy(err) of a socket already closed emits nothing)
  const onAbort = (): void => { socket.emit('error', new InvalidCryptoExchangeError('TLS handshake aborted')) }
  options?.signal?.addEventListener('abort', onAbort)
  try {
    return await new Promise((resolve, reject) => {
      socket.on('error', (err: Error) => {
        log.error('error encrypting %s connection - %e', connection.direction, err)
        socket.destroy()
        connection.abort(err)
        reject(err)
      })
      // a server's TLS socket closed by the peer's FIN before the handshake emits no error: the upgrade fails here
      socket.once('close', () => { reject(new InvalidCryptoExchangeError('connection closed before the TLS handshake completed')) })
      socket.once('secure', () => {
        const remote = socket.getPeerCertificate()
        verifyPeerCertificate(remote.raw, options?.remotePeer, log).then(remotePeer => {
          if (!isServer && typeof socket.alpnProtocol === 'string' && socket.alpnProtocol !== 'libp2p' && options?.skipStreamMuxerNegotiation !== true) {
            streamMuxer = muxers.get(socket.alpnProtocol)
            if (streamMuxer == null) {
              const err = new InvalidCryptoExchangeError(`Selected muxer ${socket.alpnProtocol} did not exist`)
              connection.abort(err)
              reject(err)
              return
            }
          }
          coalesceWrites(socket)
          resolve({ remotePeer, connection: toMessageStream(connection, socket), streamMuxer })
        }, (err: Error) => { socket.emit('error', err) })
      })
    })
  } finally {
    options?.signal?.removeEventListener('abort', onAbort)
  }
}
