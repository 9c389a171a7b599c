// The RPC wire contract (wire.md), table-tested against the Koa app with a plugin of probe commands.
import http from 'node:http'
import { expect } from 'chai'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { rpc, multipart } from '../../helpers/rpc.js'
import { startRpcServer, type RpcServer } from '../../helpers/rpc-server.js'
import { probe, probeStops } from '../../helpers/probe-commands.js'
import { SERVER_HEADER } from '../../../core/version.js'

describe('server: HTTP contract', function () {
  this.timeout(20_000)
  let node: TestNode
  let server: RpcServer
  let base: string

  const listen = async (cfg?: (n: TestNode) => Promise<void>): Promise<void> => {
    node = await createTestNode({ plugins: [probe] })
    if (cfg != null) await cfg(node)
    server = await startRpcServer(node.container)
    base = server.base
  }
  const close = async (): Promise<void> => {
    await server.close()
    await node.stop()
  }

  describe('defaults', () => {
    before(async () => { await listen() })
    after(close)

    it('single JSON value with preamble headers and Go escaping', async () => {
      const r = await rpc(base, '/api/v0/echo?arg=x&arg=y&n=0x10&f=false')
      expect(r.status).to.equal(200)
      expect(r.headers['content-type']).to.equal('application/json')
      expect(r.headers['trailer']).to.equal('X-Stream-Error')
      expect(r.headers['access-control-expose-headers']).to.equal('X-Stream-Output, X-Chunked-Output, X-Content-Length')
      expect(r.headers['server']).to.equal(SERVER_HEADER)
      expect(r.headers['x-chunked-output']).to.equal(undefined)
      expect(r.body).to.equal('{"Args":["x","y"],"N":16,"Flag":false,"List":null,"Html":"\\u003c\\u0026\\u003e"}\n')
    })

    it('repeated string options keep every value; unknown keys are ignored', async () => {
      const r = await rpc(base, '/api/v0/echo?arg=x&list=a&list=b&unknown=1')
      expect(r.json().List).to.deep.equal(['a', 'b'])
    })

    it('the last path segment becomes the first argument', async () => {
      const r = await rpc(base, '/api/v0/echo/QmFoo?arg=bar')
      expect(r.json().Args).to.deep.equal(['QmFoo', 'bar'])
    })

    it('encoding=text uses the text encoder', async () => {
      const r = await rpc(base, '/api/v0/echo?arg=a&arg=b&encoding=text')
      expect(r.headers['content-type']).to.equal('text/plain')
      expect(r.body).to.equal('a,b\n')
    })

    it('stdin arguments come from the first multipart part, one per line', async () => {
      const mp = multipart([{ filename: 'stdin', content: 'l1\r\nl2\n' }])
      const r = await rpc(base, '/api/v0/echo', { body: mp.body, headers: { 'Content-Type': mp.contentType } })
      expect(r.json().Args).to.deep.equal(['l1', 'l2'])
    })

    it('NDJSON with X-Chunked-Output', async () => {
      const r = await rpc(base, '/api/v0/stream?count=3')
      expect(r.headers['x-chunked-output']).to.equal('1')
      expect(r.headers['transfer-encoding']).to.equal('chunked')
      expect(r.ndjson()).to.deep.equal([{ I: 0 }, { I: 1 }, { I: 2 }])
      expect(r.trailers['x-stream-error']).to.equal(undefined)
    })

    it('a late error goes into the X-Stream-Error trailer', async () => {
      const r = await rpc(base, '/api/v0/stream?fail=late')
      expect(r.status).to.equal(200)
      expect(r.ndjson()).to.deep.equal([{ I: 0 }, { I: 1 }])
      expect(r.trailers['x-stream-error']).to.equal('late failure')
    })

    for (const count of [2, 70]) {
      it(`a late error with text outside Latin-1 and control characters still gives its trailer (${count} rows)`, async () => {
        // Node refuses such a trailer value (ERR_INVALID_CHAR): the response never ended and the rejection went unhandled
        const text = 'bad 日本\u0000\u001b\tend'
        const r = await rpc(base, `/api/v0/stream?count=${count}&fail=${encodeURIComponent('late:' + text)}`)
        expect(r.status).to.equal(200)
        expect(r.ndjson()).to.have.length(count)
        // the UTF-8 bytes, as Go writes them (Node's client reads them as Latin-1)
        expect(Buffer.from(r.trailers['x-stream-error'] as string, 'latin1').toString('utf8')).to.equal('bad 日本  \tend')
      })
    }

    const errors: Array<[string, number, string, string]> = [
      ['/api/v0/stream?fail=early', 500, 'application/json', '{"Message":"early failure","Code":0,"Type":"error"}\n'],
      ['/api/v0/stream?fail=client', 400, 'application/json', '{"Message":"bad input","Code":1,"Type":"error"}\n'],
      ['/api/v0/stream?fail=early&encoding=text', 500, 'text/plain', 'early failure'],
      ['/api/v0/echo', 400, 'text/plain; charset=utf-8', 'argument "a" is required\n'],
      ['/api/v0/echo?arg=x&n=abc', 400, 'text/plain; charset=utf-8', 'could not convert value "abc" to type "int" (for option "-n")\n'],
      ['/api/v0/echo?arg=x&n=1&n=2', 400, 'text/plain; charset=utf-8', 'expected key n to have only a single value, received [1 2]\n'],
      ['/api/v0/echo?arg=x&encoding=yaml', 400, 'text/plain; charset=utf-8', 'invalid encoding: yaml\n'],
      ['/api/v0/upload', 400, 'text/plain; charset=utf-8', "file argument 'data' is required\n"],
      ['/api/v0/nope', 404, 'text/plain; charset=utf-8', '404 page not found\n'],
      ['/api/v0/grp/nope', 404, 'text/plain; charset=utf-8', '404 page not found\n'],
      ['/api/v0/local', 404, 'text/plain; charset=utf-8', '404 page not found\n'],
      ['/other', 404, 'text/plain; charset=utf-8', '404 page not found\n']
    ]
    for (const [url, status, type, body] of errors) {
      it(`${url} → ${status}`, async () => {
        const r = await rpc(base, url)
        expect(r.status).to.equal(status)
        expect(r.headers['content-type']).to.equal(type)
        expect(r.body).to.equal(body)
      })
    }

    it('a group without Run answers 200 with an empty channel body', async () => {
      const r = await rpc(base, '/api/v0/grp')
      expect(r.status).to.equal(200)
      expect(r.headers['x-chunked-output']).to.equal('1')
      expect(r.body).to.equal('')
    })

    it('a command emitting nothing answers 200 with an empty body', async () => {
      const r = await rpc(base, '/api/v0/nothing')
      expect(r.status).to.equal(200)
      expect(r.headers['x-chunked-output']).to.equal('1')
      expect(r.headers['content-type']).to.equal('application/json')
      expect(r.body).to.equal('')
    })

    it('bytes output: X-Stream-Output, X-Content-Length, text/plain', async () => {
      const r = await rpc(base, '/api/v0/bytes')
      expect(r.headers['x-stream-output']).to.equal('1')
      expect(r.headers['x-content-length']).to.equal('5')
      expect(r.headers['content-type']).to.equal('text/plain')
      expect(r.body).to.equal('hello')
    })

    it('bytes output: a long stream arrives whole; a late error goes into the trailer', async () => {
      const r = await rpc(base, '/api/v0/chunks?count=64')
      expect(r.status).to.equal(200)
      expect(r.bytes.length).to.equal(64 * 256 * 1024)
      expect(r.bytes[3 * 256 * 1024]).to.equal(3)
      expect(r.bytes[r.bytes.length - 1]).to.equal(63)
      expect(r.trailers['x-stream-error']).to.equal(undefined)
      const failed = await rpc(base, '/api/v0/chunks?count=3&fail=true')
      expect(failed.bytes.length).to.equal(3 * 256 * 1024)
      expect(failed.trailers['x-stream-error']).to.equal('broke mid-stream')
    })

    it('streamed NDJSON rows arrive in order; a late error goes into the trailer', async () => {
      const ok = await rpc(base, '/api/v0/rows?count=200')
      expect(ok.status).to.equal(200)
      expect(ok.headers['x-chunked-output']).to.equal('1')
      expect(ok.ndjson().map((v: { I: number }) => v.I)).to.deep.equal([...Array(200).keys()])
      expect(ok.trailers['x-stream-error']).to.equal(undefined)
      const late = await rpc(base, '/api/v0/rows?count=5&fail=true')
      expect(late.status).to.equal(200)
      expect(late.ndjson().map((v: { I: number }) => v.I)).to.deep.equal([0, 1, 2, 3, 4])
      expect(late.trailers['x-stream-error']).to.equal('broke late')
    })

    it('streamed NDJSON: a client that goes away stops the source', async () => {
      const before = probeStops.rows
      await new Promise<void>((resolve, reject) => {
        const req = http.request(`${base}/api/v0/rows?count=10000000`, { method: 'POST', agent: false }, (res) => {
          let got = 0
          res.on('data', (c: Buffer) => {
            got += c.length
            if (got > 256 * 1024) { req.destroy(); resolve() }
          })
          res.on('error', () => {})
        })
        req.on('error', () => {})
        req.on('close', () => resolve())
        req.end()
        setTimeout(() => reject(new Error('no data')), 10_000).unref()
      })
      for (let i = 0; i < 250 && probeStops.rows === before; i++) await new Promise(resolve => setTimeout(resolve, 20))
      expect(probeStops.rows).to.equal(before + 1)
    })

    it('bytes output: a client that goes away stops the source', async () => {
      const before = probeStops.chunks
      await new Promise<void>((resolve, reject) => {
        const req = http.request(`${base}/api/v0/chunks?count=100000`, { method: 'POST', agent: false }, (res) => {
          let got = 0
          res.on('data', (c: Buffer) => {
            got += c.length
            if (got > 8 * 1024 * 1024) { req.destroy(); resolve() }
          })
          res.on('error', () => {})
        })
        req.on('error', () => {})
        req.on('close', () => resolve())
        req.end()
        setTimeout(() => reject(new Error('no data')), 10_000).unref()
      })
      for (let i = 0; i < 100 && probeStops.chunks === before; i++) await new Promise(resolve => setTimeout(resolve, 20))
      expect(probeStops.chunks).to.equal(before + 1)
    })

    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD']) {
      it(`${method} → 405 with Allow`, async () => {
        const r = await rpc(base, '/api/v0/nope', { method })
        expect(r.status).to.equal(405)
        expect(r.headers.allow).to.equal('OPTIONS, POST')
        if (method !== 'HEAD') expect(r.body).to.equal('405 - Method Not Allowed\n')
      })
    }

    it('OPTIONS → 204 with Allow', async () => {
      const r = await rpc(base, '/api/v0/echo', { method: 'OPTIONS' })
      expect(r.status).to.equal(204)
      expect(r.headers.allow).to.equal('OPTIONS, POST')
    })

    it('/api/v0 redirects to /api/v0/', async () => {
      const r = await rpc(base, '/api/v0')
      expect(r.status).to.equal(301)
      expect(r.headers.location).to.equal('/api/v0/')
    })

    it('an unparsable timeout answers an empty 200', async () => {
      const r = await rpc(base, '/api/v0/echo?arg=x&timeout=10')
      expect(r.status).to.equal(200)
      expect(r.body).to.equal('')
      expect(r.headers['content-type']).to.equal(undefined)
    })

    it('streams multipart files with path, kind, mode and mtime', async () => {
      const mp = multipart([
        { name: 'dir', filename: 'd', type: 'application/x-directory', content: '' },
        { name: 'file-1?mode=0644&mtime=1700000000', filename: 'd%2Fa%20b.txt', content: 'abc' },
        { filename: 'd/link', type: 'application/symlink', content: 'a b.txt' }
      ])
      const r = await rpc(base, '/api/v0/upload', { body: mp.body, headers: { 'Content-Type': mp.contentType } })
      expect(r.ndjson()).to.deep.equal([
        { Path: 'd', Type: 'directory', Size: 0, Mode: null, Mtime: null },
        { Path: 'd/a b.txt', Type: 'file', Size: 3, Mode: 0o644, Mtime: 1700000000 },
        { Path: 'd/link', Type: 'symlink', Size: 0, Mode: null, Mtime: null }
      ])
    })

    it('reads multipart bodies as Go does: bare LF, header-less parts; a body of just --B is an error', async () => {
      const headers = { 'Content-Type': 'multipart/form-data; boundary=B' }
      const lf = await rpc(base, '/api/v0/upload', { body: '--B\nContent-Disposition: form-data; name="f"; filename="a"\n\nabc\n--B--\n', headers })
      expect(lf.ndjson()).to.deep.equal([{ Path: 'a', Type: 'file', Size: 3, Mode: null, Mtime: null }])
      const bare = await rpc(base, '/api/v0/upload', { body: '--B', headers })
      expect(bare.status).to.equal(500)
      expect(JSON.parse(bare.body)).to.deep.equal({ Message: 'multipart: NextPart: EOF', Code: 0, Type: 'error' })
      const full = await rpc(base, '/api/v0/upload', { body: Buffer.alloc(1 << 20), headers })
      expect(full.status).to.equal(500)
      expect(JSON.parse(full.body)).to.deep.equal({ Message: 'multipart: NextPart: bufio: buffer full', Code: 0, Type: 'error' })
    })

    describe('origin checks and CORS', () => {
      it('allows the API port\'s own localhost origin', async () => {
        const origin = base
        const r = await rpc(base, '/api/v0/echo?arg=x', { headers: { Origin: origin } })
        expect(r.status).to.equal(200)
        expect(r.headers['access-control-allow-origin']).to.equal(origin)
        expect(r.headers.vary).to.equal('Origin')
      })
      it('rejects another origin with 403', async () => {
        const r = await rpc(base, '/api/v0/echo?arg=x', { headers: { Origin: 'https://evil.example' } })
        expect(r.status).to.equal(403)
        expect(r.body).to.equal('403 - Forbidden\n')
      })
      it('rejects a bad referer', async () => {
        const r = await rpc(base, '/api/v0/echo?arg=x', { headers: { Referer: 'https://evil.example/page' } })
        expect(r.status).to.equal(403)
      })
      it('rejects a browser user agent without Origin/Referer', async () => {
        const r = await rpc(base, '/api/v0/echo?arg=x', { headers: { 'User-Agent': 'Mozilla/5.0' } })
        expect(r.status).to.equal(403)
        const e = await rpc(base, '/api/v0/echo?arg=x', { headers: { 'User-Agent': 'Mozilla/5.0 Electron' } })
        expect(e.status).to.equal(200)
      })
      it('method check comes before the origin check', async () => {
        const r = await rpc(base, '/api/v0/echo', { method: 'GET', headers: { Origin: 'https://evil.example' } })
        expect(r.status).to.equal(405)
      })
      it('answers preflights with 204 and echoes allowed ones', async () => {
        const ok = await rpc(base, '/api/v0/echo', { method: 'OPTIONS', headers: { Origin: base, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'Content-Type' } })
        expect(ok.status).to.equal(204)
        expect(ok.headers['access-control-allow-origin']).to.equal(base)
        expect(ok.headers['access-control-allow-methods']).to.equal('POST')
        const refused = await rpc(base, '/api/v0/echo', { method: 'OPTIONS', headers: { Origin: base, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'Authorization' } })
        expect(refused.status).to.equal(204)
        expect(refused.headers['access-control-allow-origin']).to.equal(undefined)
      })
    })
  })

  describe('API.Authorizations and API.HTTPHeaders', () => {
    before(async () => {
      await listen(async (n) => {
        await n.container.cradle.config.setKey('API', {
          HTTPHeaders: { 'X-Custom': ['yes'], 'Access-Control-Allow-Origin': ['https://webui.example'] },
          Authorizations: {
            alice: { AuthSecret: 'basic:alice:password123', AllowedPaths: ['/api/v0/echo'] },
            bob: { AuthSecret: 'bearer:secret-token123', AllowedPaths: ['/api/v0'] },
            carol: { AuthSecret: 'token:abc', AllowedPaths: ['/api/v0'] }
          }
        })
      })
    })
    after(close)
    const denied = 'Kubo RPC Access Denied: Please provide a valid authorization token as defined in the API.Authorizations configuration.\n'

    it('rejects a request without a token', async () => {
      const r = await rpc(base, '/api/v0/echo?arg=x')
      expect(r.status).to.equal(403)
      expect(r.body).to.equal(denied)
    })
    it('accepts basic auth on an allowed path, not elsewhere', async () => {
      const auth = 'Basic ' + Buffer.from('alice:password123').toString('base64')
      expect((await rpc(base, '/api/v0/echo?arg=x', { headers: { Authorization: auth } })).status).to.equal(200)
      expect((await rpc(base, '/api/v0/stream', { headers: { Authorization: auth } })).status).to.equal(403)
    })
    it('accepts a bearer token everywhere under /api/v0', async () => {
      const r = await rpc(base, '/api/v0/stream', { headers: { Authorization: 'Bearer secret-token123' } })
      expect(r.status).to.equal(200)
    })
    it('ignores secrets with an unknown type', async () => {
      expect((await rpc(base, '/api/v0/stream', { headers: { Authorization: 'Bearer abc' } })).status).to.equal(403)
      expect((await rpc(base, '/api/v0/stream', { headers: { Authorization: 'token abc' } })).status).to.equal(403)
    })
    it('applies auth to preflights too', async () => {
      const r = await rpc(base, '/api/v0/echo', { method: 'OPTIONS', headers: { Origin: 'https://webui.example', 'Access-Control-Request-Method': 'POST' } })
      expect(r.status).to.equal(403)
    })
    it('copies configured headers and allows configured origins', async () => {
      const r = await rpc(base, '/api/v0/echo?arg=x', { headers: { Authorization: 'Bearer secret-token123', Origin: 'https://webui.example' } })
      expect(r.status).to.equal(200)
      expect(r.headers['x-custom']).to.equal('yes')
      expect(r.headers['access-control-allow-origin']).to.equal('https://webui.example')
    })
  })
})
