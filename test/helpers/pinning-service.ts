// A Pinning Service API server for tests: the npm mock-ipfs-pinning-service (in memory) on 127.0.0.1:0,
// answering every pin with loopback delegates only (its defaults are documentation addresses a daemon
// would dial). A pin name starting with `queued-`, `pinning-`, `pinned-` or `failed-` gets that status.
import http from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'

const require = createRequire(import.meta.url)

export interface MockPinningService {
  /** http://127.0.0.1:PORT */
  url: string
  token: string
  /** the mock's state: `pins` is a Map keyed by CID of { requestid, status, created, pin, delegates } */
  state: () => { pins: Map<string, { requestid: string, status: string, created: string, pin: { cid: string, name?: string, origins?: string[] } }> }
  /** every request seen: method and URL */
  requests: Array<{ method: string, url: string }>
  stop: () => Promise<void>
}

/** A loopback delegate (a refused port): dialing it never leaves the machine. */
export const LOOPBACK_DELEGATE = '/ip4/127.0.0.1/tcp/1/p2p/QmaCpDMGvV2BGHeYERUEnRQAwe3N8SzbUtfsmvsqQLuvuJ'

export async function startPinningService (token = 'secret', delegates = LOOPBACK_DELEGATE): Promise<MockPinningService> {
  const { setup } = require('mock-ipfs-pinning-service') as { setup: (o: object) => Promise<http.RequestListener & { locals: { state: any } }> }
  const app = await setup({ token, loglevel: 'error', delegates })
  const requests: Array<{ method: string, url: string }> = []
  const server = http.createServer((req, res) => { requests.push({ method: req.method ?? '', url: req.url ?? '' }); app(req, res) })
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', resolve) })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    state: () => app.locals.state,
    requests,
    stop: async () => await new Promise<void>(resolve => { server.closeAllConnections(); server.close(() => { resolve() }) })
  }
}
