// What every HTTP listener of the daemon shares (API and gateway ports), kept apart from the gateway
// app so the daemon can listen before (or without) loading it.
import type http from 'node:http'
import type { Duplex } from 'node:stream'

/**
 * Let the gateway be used as an HTTP proxy (spec proxy-gateway): absolute-form requests are handled by
 * the app itself; CONNECT tunnels are accepted and their traffic served by the same server.
 */
export function attachProxySupport (server: http.Server): void {
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Go's net/http answers CONNECT through the handler (Kubo: an empty 200) and keeps reading requests
    socket.write(`HTTP/1.1 200 OK\r\nDate: ${new Date().toUTCString()}\r\nContent-Length: 0\r\n\r\n`)
    if (head.length > 0) socket.unshift(head)
    server.emit('connection', socket)
  })
}

/** Go's http.DefaultMaxHeaderBytes (1 MiB) plus the 4096 bytes of slack its server reads beyond it. */
export const GO_MAX_HEADER_BYTES = (1 << 20) + 4096

/**
 * A client that half-closes after its request (shutdown(SHUT_WR), `nc -N`) still gets the answer, as from Go's
 * net/http; Node's server otherwise aborts the request at the FIN and drops the answer.
 */
export function answerHalfClosed (server: http.Server): void {
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true
}
