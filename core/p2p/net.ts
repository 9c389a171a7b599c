// Multiaddrs as Node sockets (go-multiaddr's manet.Dial/Listen for what p2p tunnels use: /ip4, /ip6,
// /dns, /dns4, /dns6 with /tcp, and /unix), with Go's error texts where a user sees them.
import net from 'node:net'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'

export type SocketTarget = { kind: 'tcp', host: string, port: number, family: 4 | 6 | 0 } | { kind: 'unix', path: string } | { kind: 'udp', host: string, port: number, family: 4 | 6 | 0 }

/** What a multiaddr names, or an error in go-multiaddr's words. */
export function socketTarget (ma: Multiaddr): SocketTarget {
  const parts = ma.getComponents()
  const first = parts[0]
  if (first?.name === 'unix' && first.value != null && parts.length === 1) return { kind: 'unix', path: first.value }
  const second = parts[1]
  if (first == null || second == null || parts.length !== 2 || first.value == null || second.value == null) {
    throw new Error(`${ma.toString()} is not a 'thin waist' address`)
  }
  let family: 4 | 6 | 0
  if (first.name === 'ip4' || first.name === 'dns4') family = 4
  else if (first.name === 'ip6' || first.name === 'dns6') family = 6
  else if (first.name === 'dns') family = 0
  else throw new Error(`${ma.toString()} is not a 'thin waist' address`)
  if (second.name !== 'tcp' && second.name !== 'udp') throw new Error(`${ma.toString()} is not a 'thin waist' address`)
  return { kind: second.name, host: first.value, port: Number(second.value), family }
}

/** Go's net error texts for the errno codes a bind or dial meets. */
const GO_ERRNO: Record<string, string> = {
  EADDRINUSE: 'address already in use',
  EADDRNOTAVAIL: 'cannot assign requested address',
  EACCES: 'permission denied',
  ECONNREFUSED: 'connection refused',
  ENOENT: 'no such file or directory',
  EHOSTUNREACH: 'no route to host',
  ENETUNREACH: 'network is unreachable',
  ETIMEDOUT: 'connection timed out'
}
const goErrno = (err: unknown): string => GO_ERRNO[(err as { code?: string }).code ?? ''] ?? (err as Error).message

const hostPort = (host: string, port: number): string => host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
const netName = (kind: string, family: number): string => `${kind}${family === 0 ? '' : family}`

/** manet.Listen: a TCP or unix listener (UDP is refused as go's manet does). */
export async function listenOn (ma: Multiaddr): Promise<net.Server> {
  const t = socketTarget(ma)
  if (t.kind === 'udp') {
    throw new Error(`listen ${netName('udp', t.family)} ${hostPort(t.host, t.port)}: address ${hostPort(t.host, t.port)}: unexpected address type`)
  }
  const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true })
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error): void => {
      const where = t.kind === 'unix' ? `unix ${t.path}` : `${netName('tcp', t.family)} ${hostPort(t.host, t.port)}`
      reject(new Error(`listen ${where}: bind: ${goErrno(err)}`))
    }
    server.once('error', fail)
    const done = (): void => { server.off('error', fail); resolve() }
    if (t.kind === 'unix') server.listen(t.path, done)
    else server.listen({ host: t.host, port: t.port, ipv6Only: t.family === 6 }, done)
  })
  return server
}

/** The address a listener is bound to, as a multiaddr (port 0 resolved). */
export function boundAddr (server: net.Server): Multiaddr {
  const a = server.address()
  if (typeof a === 'string') return multiaddr(`/unix/${encodeURIComponent(a)}`)
  if (a == null) throw new Error('listener is closed')
  return multiaddr(`/${a.family === 'IPv6' ? 'ip6' : 'ip4'}/${a.address}/tcp/${a.port}`)
}

/** The remote end of an accepted socket as a multiaddr (manet.Conn.RemoteMultiaddr). */
export function remoteAddr (socket: net.Socket): Multiaddr | undefined {
  if (socket.remoteAddress == null || socket.remotePort == null) return undefined
  return multiaddr(`/${socket.remoteFamily === 'IPv6' ? 'ip6' : 'ip4'}/${socket.remoteAddress}/tcp/${socket.remotePort}`)
}

/** manet.Dial for TCP and unix targets: the connected socket (half-open allowed). */
export async function dialTo (ma: Multiaddr, signal?: AbortSignal): Promise<net.Socket> {
  const t = socketTarget(ma)
  if (t.kind === 'udp') throw new Error(`dial ${netName('udp', t.family)} ${hostPort(t.host, t.port)}: UDP targets are not supported`)
  return await new Promise<net.Socket>((resolve, reject) => {
    const socket = t.kind === 'unix'
      ? net.connect({ path: t.path, allowHalfOpen: true, signal })
      : net.connect({ host: t.host, port: t.port, family: t.family, allowHalfOpen: true, signal })
    const fail = (err: Error): void => {
      socket.destroy()
      const where = t.kind === 'unix' ? `unix ${t.path}` : `${netName('tcp', t.family)} ${hostPort(t.host, t.port)}`
      reject(new Error(`dial ${where}: connect: ${goErrno(err)}`))
    }
    socket.once('error', fail)
    socket.once('connect', () => { socket.off('error', fail); resolve(socket) })
  })
}
