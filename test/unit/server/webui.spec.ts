// server/webui.ts on its own: what it serves from a built folder, what it leaves to the RPC app, and what
// it answers when the front end was not built.
import { expect } from 'chai'
import http from 'node:http'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { createConfigStore } from '../../../core/config/index.js'
import { gatewayOrigins, withWebui } from '../../../server/webui.js'
import { rpc } from '../../helpers/rpc.js'

describe('server/webui', () => {
  let dir: string
  let server: http.Server
  let base: string
  const config = createConfigStore({ API: { HTTPHeaders: { 'X-Custom': ['yes'], 'Access-Control-Allow-Origin': ['*'] } }, Addresses: { Gateway: ['/ip4/127.0.0.1/tcp/8181', '/ip4/0.0.0.0/tcp/0'] } })
  const js = 'console.log("hello from the web UI");\n'.repeat(100)

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-webui-unit-'))
    mkdirSync(path.join(dir, 'assets'))
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title><script src="/webui/assets/app-1234.js"></script>')
    writeFileSync(path.join(dir, 'assets', 'app-1234.js'), js)
    server = http.createServer(withWebui((_req, res) => { res.writeHead(418); res.end('rpc') }, { config, dir }))
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  after(async () => {
    await new Promise(resolve => server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  it('redirects /webui to /webui/ (307, query kept) and leaves other paths to the RPC app', async () => {
    const r = await rpc(base, '/webui?x=1', { method: 'GET' })
    expect(r.status).to.equal(307)
    expect(r.headers.location).to.equal('/webui/?x=1')
    expect((await rpc(base, '/api/v0/id')).status).to.equal(418)
    expect((await rpc(base, '/webuix', { method: 'GET' })).status).to.equal(418)
  })

  it('serves index.html revalidated and hashed assets immutable, gzipped on request, with API.HTTPHeaders but not the CORS keys', async () => {
    const index = await rpc(base, '/webui/', { method: 'GET' })
    expect(index.status).to.equal(200)
    expect(index.headers['cache-control']).to.equal('no-cache')
    expect(index.headers['x-custom']).to.equal('yes')
    expect(index.headers['access-control-allow-origin']).to.equal(undefined)
    expect(index.headers['x-frame-options']).to.equal('DENY')
    expect(index.headers['content-security-policy']).to.include("connect-src 'self' http://127.0.0.1:8181 http://127.0.0.1:*;")
    const asset = await rpc(base, '/webui/assets/app-1234.js', { method: 'GET', headers: { 'Accept-Encoding': 'gzip, br' } })
    expect(asset.headers['cache-control']).to.equal('public, max-age=31536000, immutable')
    expect(asset.headers['content-type']).to.equal('text/javascript; charset=utf-8')
    expect(asset.headers['content-encoding']).to.equal('gzip')
    expect(gunzipSync(asset.bytes).toString()).to.equal(js)
    const plain = await rpc(base, '/webui/assets/app-1234.js', { method: 'GET' })
    expect(plain.headers['content-encoding']).to.equal(undefined)
    expect(plain.body).to.equal(js)
    expect((await rpc(base, '/webui/assets/app-1234.js', { method: 'GET', headers: { 'If-None-Match': String(plain.headers.etag) } })).status).to.equal(304)
    const head = await rpc(base, '/webui/', { method: 'HEAD' })
    expect(head.status).to.equal(200)
    expect(head.body).to.equal('')
  })

  it('refuses other methods, escapes from the folder and missing files', async () => {
    const post = await rpc(base, '/webui/', { method: 'POST' })
    expect(post.status).to.equal(405)
    expect(post.headers.allow).to.equal('GET, HEAD')
    // sent as they are (URL parsers would resolve the dots before sending)
    const raw = async (p: string): Promise<number> => await new Promise((resolve, reject) => {
      http.get({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: p }, res => { res.resume(); resolve(res.statusCode ?? 0) }).on('error', reject)
    })
    for (const p of ['/webui/../index.html', '/webui/%2e%2e/%2e%2e/etc/passwd', '/webui/assets/../../x', '/webui/assets//app-1234.js', '/webui/nope.js', '/webui/assets']) {
      expect(await raw(p), p).to.equal(404)
    }
  })

  it('says how to build the front end when it is missing', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-webui-none-'))
    const s = http.createServer(withWebui((_req, res) => { res.end() }, { config, dir: empty }))
    await new Promise<void>(resolve => s.listen(0, '127.0.0.1', resolve))
    try {
      const r = await rpc(`http://127.0.0.1:${(s.address() as AddressInfo).port}`, '/webui/', { method: 'GET' })
      expect(r.status).to.equal(404)
      expect(r.body).to.include('npm run build:webui')
    } finally {
      await new Promise(resolve => s.close(resolve))
      rmSync(empty, { recursive: true, force: true })
    }
  })

  it('gatewayOrigins: loopback stays, 0.0.0.0 becomes the page host, port 0 any port', () => {
    expect(gatewayOrigins({ Addresses: { Gateway: '/ip4/0.0.0.0/tcp/8080' } }, 'node.local')).to.deep.equal(['http://node.local:8080'])
    expect(gatewayOrigins({ Addresses: { Gateway: ['/ip6/::1/tcp/8080', '/unix/tmp/gw.sock'] } }, 'x')).to.deep.equal(['http://[::1]:8080'])
    expect(gatewayOrigins({}, 'x')).to.deep.equal([])
  })
})
