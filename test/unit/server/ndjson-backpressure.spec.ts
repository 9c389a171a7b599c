// Streamed NDJSON rows (server/respond.ts pumpRows, batched rows) must wait for a slow client: the rows of an
// endless or huge stream (refs -r, pin ls --stream) may not pile up in the response's memory.
import http, { type ServerResponse } from 'node:http'
import { expect } from 'chai'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { startRpcServer, type RpcServer } from '../../helpers/rpc-server.js'
import { defineCommand } from '../../../registry/define.js'
import type { Plugin } from '../../../registry/types.js'

/** what pumpRows may queue on the response before it waits for a drain (PUMP_AHEAD), and some slack */
const LIMIT = 4 * 1024 * 1024 + 1024 * 1024
/** rows produced at most: well beyond what the socket buffers of a paused client take */
const TOTAL = 32 * 1024 * 1024
const ROW = 'x'.repeat(4000)

const flood = {
  res: undefined as ServerResponse | undefined,
  /** the most bytes queued on the response when a row was pulled */
  maxQueued: 0,
  rows: 0,
  finished: () => {}
}

const plugin: Plugin = {
  name: 'flood-probe',
  commands: [
    defineCommand({
      path: ['flood'],
      description: 'NDJSON rows one event-loop turn apart, until the response queues too much or TOTAL bytes went.',
      output: 'ndjson',
      async * run () {
        try {
          for (let sent = 0; sent < TOTAL; sent += ROW.length) {
            await new Promise(resolve => setImmediate(resolve))
            const queued = flood.res?.writableLength ?? 0
            flood.maxQueued = Math.max(flood.maxQueued, queued)
            if (queued > LIMIT) return
            flood.rows++
            yield { Row: ROW }
          }
        } finally {
          flood.finished()
        }
      }
    })
  ]
}

describe('server: streamed NDJSON and a slow client', function () {
  this.timeout(60_000)
  let node: TestNode
  let rpcServer: RpcServer
  let server: http.Server
  let base: string

  before(async () => {
    node = await createTestNode({ plugins: [plugin] })
    rpcServer = await startRpcServer(node.container)
    server = rpcServer.server
    base = rpcServer.base
  })
  after(async () => {
    await rpcServer.close()
    await node.stop()
  })

  it('rows stop being pulled while the response holds a few MiB the client has not read', async () => {
    // the pump waits for 'drain' when it holds back the source: the client reads from then on
    let pumpWaits!: () => void
    const waiting = new Promise<void>(resolve => { pumpWaits = resolve })
    const over = new Promise<void>(resolve => { flood.finished = resolve })
    server.prependListener('request', (_req: http.IncomingMessage, res: ServerResponse) => {
      flood.res = res
      const on = res.on.bind(res)
      res.on = ((event: string, fn: (...a: unknown[]) => void) => {
        if (event === 'drain') pumpWaits()
        return on(event, fn)
      }) as typeof res.on
    })
    const rows = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${base}/api/v0/flood`, { method: 'POST', agent: false }, (res) => {
        res.pause()
        let body = ''
        let reading = false
        const read = (): void => {
          if (reading) return
          reading = true
          res.setEncoding('utf8')
          res.on('data', (c: string) => { body += c })
          res.on('end', () => { resolve(body.split('\n').filter(l => l !== '').length) })
          res.resume()
        }
        // paused until the pump waits for the client, or the source is over (it never waited)
        void waiting.then(read)
        void over.then(read)
      })
      req.on('error', reject)
      req.end()
    })
    expect(flood.maxQueued).to.be.below(LIMIT)
    expect(rows).to.equal(flood.rows)
    expect(rows).to.equal(Math.ceil(TOTAL / ROW.length))
  })
})
