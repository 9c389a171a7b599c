// An in-process RPC server (createRpcApp) on a free loopback port, for specs that talk HTTP to a test node.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AwilixContainer } from 'awilix'
import { CountedResponse, createRpcApp } from '../../server/app.js'
import type { Cradle } from '../../core/cradle.js'

export interface RpcServer {
  /** http://127.0.0.1:<port> */
  base: string
  port: number
  server: http.Server
  /** drops open connections, then stops listening (the node is the caller's to stop) */
  close: () => Promise<void>
}

/**
 * Serve `container`'s RPC API on 127.0.0.1, port 0 (`direct` as createRpcApp takes it), with the daemon's
 * CountedResponse unless `counted` is false (a plain http server's responses).
 */
export async function startRpcServer (container: AwilixContainer<Cradle>, opts: { direct?: boolean, counted?: boolean } = {}): Promise<RpcServer> {
  let port = 0
  const app = createRpcApp({ container, port: () => port, direct: opts.direct }).callback()
  const server = opts.counted === false ? http.createServer(app) : http.createServer({ ServerResponse: CountedResponse }, app)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    server,
    close: async () => {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
    }
  }
}
