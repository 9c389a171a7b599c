// ipfs_http_response_size_bytes counts the body bytes of every answer the same way whether the server makes
// CountedResponse answers (the daemon's API server) or plain ones (the per-request write/end wrappers).
import { expect } from 'chai'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { multipart } from '../../helpers/rpc.js'
import { startRpcServer, type RpcServer } from '../../helpers/rpc-server.js'
import { metricsFor } from '../../../server/metrics.js'

describe('server: response size metric', function () {
  this.timeout(20_000)
  let node: TestNode
  const servers: RpcServer[] = []

  before(async () => { node = await createTestNode() })
  after(async () => {
    for (const s of servers) await s.close()
    await node.stop()
  })

  /** the summary's sum and count */
  const sizes = async (): Promise<[number, number]> => {
    const text = await metricsFor(node.container).text()
    const get = (name: string): number => Number(text.split('\n').find(l => l.startsWith(name + ' ') || l.startsWith(name + '{'))?.split(' ').pop() ?? 'NaN')
    return [get('ipfs_http_response_size_bytes_sum') || 0, get('ipfs_http_response_size_bytes_count') || 0]
  }

  for (const counted of [true, false]) {
    it(`counts the body bytes clients receive (${counted ? 'CountedResponse' : 'plain'} answers; direct and Koa paths)`, async () => {
      const direct = await startRpcServer(node.container, { counted })
      const koa = await startRpcServer(node.container, { counted, direct: false })
      servers.push(direct, koa)
      const [sum0, count0] = await sizes()
      let received = 0
      const mp = multipart([{ filename: 'a', content: 'hello' }, { filename: 'b', content: 'world' }])
      for (const s of [direct, koa]) {
        const requests: Array<[string, RequestInit]> = [
          ['/api/v0/block/put', { method: 'POST', body: new Uint8Array(mp.body), headers: { 'content-type': mp.contentType } }],
          ['/api/v0/block/get?arg=bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq', { method: 'POST' }],
          ['/api/v0/nope', { method: 'POST' }],
          ['/api/v0/version', { method: 'GET' }],
          ['/api/v0/block/stat', { method: 'POST' }]
        ]
        for (const [url, init] of requests) {
          const res = await fetch(s.base + url, init)
          const body = Buffer.from(await res.arrayBuffer())
          received += body.length
        }
      }
      // the last answer's 'close' may come after its body: wait for all ten
      let sum = 0
      let count = 0
      for (let i = 0; i < 50 && count - count0 < 10; i++) {
        [sum, count] = await sizes()
        if (count - count0 < 10) await new Promise(resolve => setTimeout(resolve, 20))
      }
      expect(count - count0).to.equal(10)
      expect(received).to.be.greaterThan(200)
      expect(sum - sum0).to.equal(received)
    })
  }
})
