// POSTs under /api/v0/ skip Koa (server/rpc-context.ts): every answer must be the one Koa gives, byte for
// byte (status line, headers in order, chunk framing, trailers), Date aside.
import http from 'node:http'
import net from 'node:net'
import { expect } from 'chai'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { multipart } from '../../helpers/rpc.js'
import { startRpcServer, type RpcServer } from '../../helpers/rpc-server.js'
import { probe } from '../../helpers/probe-commands.js'

/** One raw HTTP/1.1 exchange; the answer as text with its Date header dropped. */
async function raw (port: number, head: string, body: Buffer = Buffer.alloc(0)): Promise<string> {
  return await new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const sock = net.connect(port, '127.0.0.1', () => {
      sock.write(head.replace(/\n/g, '\r\n') + `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`)
      sock.end(body)
    })
    sock.on('data', (c: Buffer) => chunks.push(c))
    sock.on('error', reject)
    sock.on('close', () => { resolve(Buffer.concat(chunks).toString('latin1').replace(/\r\nDate: [^\r]*/, '')) })
  })
}

describe('server: the RPC path without Koa answers as Koa does', function () {
  this.timeout(20_000)
  let node: TestNode
  const servers: RpcServer[] = []
  let direct = 0
  let koa = 0

  before(async () => {
    node = await createTestNode({ plugins: [probe] })
    await node.container.cradle.config.setKey('API', {
      HTTPHeaders: { 'X-Custom': ['a', 'b'], 'Access-Control-Allow-Origin': ['https://webui.example'] },
      Authorizations: { bob: { AuthSecret: 'bearer:secret-token123', AllowedPaths: ['/api/v0'] } }
    })
    const start = async (useDirect: boolean): Promise<number> => {
      const server = await startRpcServer(node.container, { direct: useDirect })
      servers.push(server)
      return server.port
    }
    direct = await start(true)
    koa = await start(false)
  })
  after(async () => {
    for (const s of servers) await s.close()
    await node.stop()
  })

  const auth = 'Authorization: Bearer secret-token123\n'
  const lines = multipart([{ name: 'file', content: 'l1\nl2\n' }])
  const up = multipart([{ name: 'file', filename: 'a.txt', content: 'hello' }, { name: 'file', filename: 'b.txt', content: 'world!' }])
  const cases: Array<[string, string, Buffer?]> = [
    ['single JSON', 'POST /api/v0/echo?arg=x&n=0x10 HTTP/1.1\nHost: h\n'],
    ['text encoding', 'POST /api/v0/echo?arg=x&arg=y&encoding=text HTTP/1.1\nHost: h\n'],
    ['xml encoding', 'POST /api/v0/echo?arg=x&encoding=xml HTTP/1.1\nHost: h\n'],
    ['bad encoding', 'POST /api/v0/echo?arg=x&encoding=yaml HTTP/1.1\nHost: h\n'],
    ['parse error 400', 'POST /api/v0/echo?arg=x&n=abc HTTP/1.1\nHost: h\n'],
    ['missing argument', 'POST /api/v0/echo HTTP/1.1\nHost: h\n'],
    ['path argument', 'POST /api/v0/echo/z HTTP/1.1\nHost: h\n'],
    ['escaped path', 'POST /api/v0/ech%6F?arg=q HTTP/1.1\nHost: h\n'],
    ['NDJSON streamed', 'POST /api/v0/stream HTTP/1.1\nHost: h\n'],
    ['early error', 'POST /api/v0/stream?fail=early HTTP/1.1\nHost: h\n'],
    ['client error', 'POST /api/v0/stream?fail=client HTTP/1.1\nHost: h\n'],
    ['late error trailer', 'POST /api/v0/stream?fail=late HTTP/1.1\nHost: h\n'],
    ['early error as text', 'POST /api/v0/stream?fail=early&encoding=text HTTP/1.1\nHost: h\n'],
    ['bytes', 'POST /api/v0/bytes HTTP/1.1\nHost: h\n'],
    ['no values', 'POST /api/v0/nothing HTTP/1.1\nHost: h\n'],
    ['thrown TypeError', 'POST /api/v0/boom HTTP/1.1\nHost: h\n'],
    ['group without Run', 'POST /api/v0/grp HTTP/1.1\nHost: h\n'],
    ['NoRemote 404', 'POST /api/v0/local HTTP/1.1\nHost: h\n'],
    ['unknown 404', 'POST /api/v0/nope HTTP/1.1\nHost: h\n'],
    ['unparsable timeout', 'POST /api/v0/echo?arg=x&timeout=soon HTTP/1.1\nHost: h\n'],
    ['version mismatch', 'POST /api/v0/echo?arg=x HTTP/1.1\nHost: h\nUser-Agent: /kubo/0.1.0/\n'],
    ['browser without Origin', 'POST /api/v0/echo?arg=x HTTP/1.1\nHost: h\nUser-Agent: Mozilla/5.0\n'],
    ['foreign Origin', 'POST /api/v0/echo?arg=x HTTP/1.1\nHost: h\nOrigin: http://evil.example\n'],
    ['bad Referer', 'POST /api/v0/echo?arg=x HTTP/1.1\nHost: h\nReferer: ::\n'],
    ['bad boundary', 'POST /api/v0/upload HTTP/1.1\nHost: h\nContent-Type: multipart/form-data\n'],
    ['upload', `POST /api/v0/upload HTTP/1.1\nHost: h\nContent-Type: ${up.contentType}\n`, up.body],
    ['stdin lines', `POST /api/v0/echo HTTP/1.1\nHost: h\nContent-Type: ${lines.contentType}\n`, lines.body],
    ['empty command', 'POST /api/v0/ HTTP/1.1\nHost: h\n'],
    ['escapes and + in the query', 'POST /api/v0/echo?arg=a+b%20c&arg=%zz&n=1 HTTP/1.1\nHost: h\n'],
    ['HTTP/1.0', 'POST /api/v0/echo?arg=x HTTP/1.0\nHost: h\n'],
    ['fragment (Koa either way)', 'POST /api/v0/echo?arg=x#frag HTTP/1.1\nHost: h\n'],
    ['no token', 'POST /api/v0/echo?arg=x HTTP/1.1\nHost: h\n'],
    ['allowed Origin', 'POST /api/v0/echo?arg=x HTTP/1.1\nHost: h\nOrigin: https://webui.example\n'],
    ['GET (Koa either way)', 'GET /api/v0/echo?arg=x HTTP/1.1\nHost: h\n'],
    ['OPTIONS preflight', 'OPTIONS /api/v0/echo HTTP/1.1\nHost: h\nOrigin: https://webui.example\nAccess-Control-Request-Method: POST\n']
  ]
  for (const [name, head, body] of cases) {
    it(name, async () => {
      const h = name === 'no token' ? head : head + auth
      const [a, b] = [await raw(direct, h, body), await raw(koa, h, body)]
      expect(a).to.match(/^HTTP\/1\.1 \d{3} /)
      expect(a).to.equal(b)
    })
  }
})
