// A TCP client for tunnel tests: connect, send, half-close, read everything until the far end closes.
import net from 'node:net'

export async function exchange (port: number, data: string): Promise<string> {
  return await new Promise<string>((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    let out = ''
    s.on('data', (d) => { out += d.toString() })
    s.on('error', () => {})
    s.on('connect', () => { s.end(data) })
    s.on('end', () => { s.end() })
    // a reset (dead service behind the tunnel) ends the exchange too
    s.on('close', () => { resolve(out) })
  })
}
