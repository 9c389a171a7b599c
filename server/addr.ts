// Address and auth helpers shared by the daemon, the RPC app and the CLI client (which must not load
// the server to use them).
import { RpcError } from '../core/errors.js'

/** config.ConvertAuthSecret: the Authorization header value a secret stands for ('' = ignored). */
export function authHeaderFor (secret: string): string {
  if (secret === '') return ''
  const colon = secret.indexOf(':')
  if (colon < 0) return `Bearer ${secret}`
  const type = secret.slice(0, colon)
  const value = secret.slice(colon + 1)
  if (type === 'bearer') return `Bearer ${value}`
  if (type === 'basic') return value.includes(':') ? `Basic ${Buffer.from(value).toString('base64')}` : `Basic ${value}`
  return ''
}

/** A listen address from a multiaddr: TCP host/port or a unix socket path. */
export function listenTarget (addr: string): { host: string, port: number } | { path: string } {
  const parts = addr.split('/').filter(p => p !== '')
  if (parts[0] === 'unix') return { path: '/' + parts.slice(1).join('/') }
  if ((parts[0] === 'ip4' || parts[0] === 'ip6' || parts[0] === 'dns' || parts[0] === 'dns4' || parts[0] === 'dns6') && parts[2] === 'tcp') {
    return { host: parts[1], port: Number(parts[3]) }
  }
  throw new RpcError(`serveHTTPApi: manet.Listen(${addr}) failed: unsupported address`)
}
