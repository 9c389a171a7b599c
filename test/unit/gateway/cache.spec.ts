// The response cache of the plain path gateway (server/gateway/cache.ts): a repeated request for
// immutable content gets the same answer without reading the blockstore; requests whose answer
// depends on more than the URL, Host, Accept and If-None-Match are never answered from it;
// removals and config changes are seen.
import { expect } from 'chai'
import sinon from 'sinon'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CID } from 'multiformats/cid'
import { initRepo } from '../../../core/repo/index.js'
import { cacheKey, ResponseCache } from '../../../server/gateway/cache.js'
import { FastPath } from '../../../server/gateway/fast.js'
import { startGateway, type GatewayResponse, type TestGateway } from './helpers.js'

const R1 = 'bafybeib3ffl2teiqdncv3mkz4r23b5ctrwkzrrhctdbne6iboayxuxk5ui'
const R4 = 'bafybeifq2rzpqnqrsdupncmkmhs3ckxxjhuvdcbvydkgvch3ms24k5lo7q'
const F = 'bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am'
const T_JSON = 'bafkreibrppizs3g7axs2jdlnjua6vgpmltv7k72l7v7sa6mmht6mne3qqe'

/** what must be equal between two answers to the same request */
const shape = (r: GatewayResponse): unknown => {
  const { date, ...headers } = r.headers
  return { status: r.status, headers, body: r.body.toString('hex') }
}

describe('gateway: response cache', () => {
  let dir: string
  let gw: TestGateway
  let reads: sinon.SinonSpy
  let fastAnswers: sinon.SinonSpy
  /** requests answered other than from the response cache (by the full path, which reads blocks, or the fast path, which may not) */
  const work = (): number => reads.callCount + fastAnswers.callCount

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-gwcache-'))
    await initRepo(dir, { profile: 'test' })
    gw = await startGateway({
      repoPath: dir,
      cars: ['gateway-cache/fixtures.car', 'path_gateway_dag/gateway-json-cbor.car']
    })
    reads = sinon.spy(gw.node.container.cradle.blockstore, 'get')
    fastAnswers = sinon.spy(FastPath.prototype, 'answer')
  })
  after(async () => {
    reads.restore()
    fastAnswers.restore()
    await gw.stop()
    await fs.rm(dir, { recursive: true, force: true })
  })

  const paths = [
    `/ipfs/${R1}/root2/root3/root4/index.html`,
    `/ipfs/${R1}/root2/root3/root4/`,
    `/ipfs/${F}`,
    `/ipfs/${F}?format=raw`,
    `/ipfs/${F}?filename=a%20b.txt&download=true`,
    `/ipfs/${T_JSON}`
  ]

  for (const p of paths) {
    it(`answers ${p} the same way from the cache, without reading blocks`, async () => {
      for (const method of ['GET', 'HEAD']) {
        const first = await gw.get(p, { method })
        expect(first.status).to.equal(200)
        const before = work()
        const again = await gw.get(p, { method })
        expect(shape(again)).to.deep.equal(shape(first))
        expect(work(), `${method} ${p} read blocks`).to.equal(before)
      }
    })
  }

  it('keeps Accept apart', async () => {
    const p = `/ipfs/${F}`
    const raw = await gw.get(p, { headers: { Accept: 'application/vnd.ipld.raw' } })
    const plain = await gw.get(p)
    expect(raw.headers['content-type']).to.equal('application/vnd.ipld.raw')
    expect(plain.headers['content-type']).to.not.equal('application/vnd.ipld.raw')
    expect(shape(await gw.get(p, { headers: { Accept: 'application/vnd.ipld.raw' } }))).to.deep.equal(shape(raw))
  })

  it('answers a repeated If-None-Match revalidation from the cache, apart from other tags', async () => {
    const p = `/ipfs/${R1}/root2/root3/root4/index.html`
    await gw.get(p)
    let before = work()
    const notModified = await gw.get(p, { headers: { 'If-None-Match': `"${F}"` } })
    expect(notModified.status).to.equal(304)
    expect(notModified.headers.etag).to.equal(`"${F}"`)
    expect(work()).to.be.greaterThan(before)
    before = work()
    expect(shape(await gw.get(p, { headers: { 'If-None-Match': `"${F}"` } }))).to.deep.equal(shape(notModified))
    expect(work()).to.equal(before)
    const other = await gw.get(p, { headers: { 'If-None-Match': '"something-else"' } })
    expect(other.status).to.equal(200)
    expect(other.text).to.equal('hello\n')
  })

  it('never answers range, date-conditional or forwarded requests from the cache', async () => {
    const p = `/ipfs/${R1}/root2/root3/root4/index.html`
    await gw.get(p)
    let before = work()
    const part = await gw.get(p, { headers: { Range: 'bytes=0-1' } })
    expect(part.status).to.equal(206)
    expect(part.text).to.equal('he')
    expect(work()).to.be.greaterThan(before)
    before = work()
    await gw.get(p, { headers: { 'If-Modified-Since': 'Thu, 01 Jan 2099 00:00:00 GMT' } })
    expect(work()).to.be.greaterThan(before)
    before = work()
    await gw.get(p, { headers: { 'X-Forwarded-Host': 'example.com' } })
    expect(work()).to.be.greaterThan(before)
  })

  it('caches only IP-literal hosts and /ipfs/ paths', () => {
    const req = (url: string, headers: string[], method = 'GET'): any => ({ method, url, rawHeaders: headers })
    expect(cacheKey(req('/ipfs/x', ['Host', '127.0.0.1:8080']))).to.equal('GET 127.0.0.1:8080   /ipfs/x')
    expect(cacheKey(req('/ipfs/x', ['Host', '[::1]:8080', 'Accept', 'a', 'accept', 'b']))).to.equal('GET [::1]:8080 a, b  /ipfs/x')
    expect(cacheKey(req('/ipfs/x', ['Host', '127.0.0.1', 'If-None-Match', '"a"']))).to.equal('GET 127.0.0.1  "a" /ipfs/x')
    expect(cacheKey(req('/ipfs/x', ['Host', 'localhost:8080']))).to.equal(undefined)
    expect(cacheKey(req('/ipfs/x', ['Host', 'example.com']))).to.equal(undefined)
    expect(cacheKey(req('/ipns/x', ['Host', '127.0.0.1']))).to.equal(undefined)
    expect(cacheKey(req('/ipfs/x', ['Host', '127.0.0.1'], 'POST'))).to.equal(undefined)
    expect(cacheKey(req('/ipfs/x', ['Host', '127.0.0.1', 'Cache-Control', 'only-if-cached']))).to.equal(undefined)
    expect(cacheKey(req('/ipfs/x', ['Host', '127.0.0.1', 'If-Modified-Since', 'x']))).to.equal(undefined)
    expect(cacheKey(req('/ipfs/x', ['Host', '127.0.0.1', 'Sec-Fetch-Mode', 'navigate', 'User-Agent', 'x']))).to.equal('GET 127.0.0.1   /ipfs/x')
    expect(cacheKey(req('/ipfs/x', ['Host', '127.0.0.1', 'Range', 'bytes=0-1']))).to.equal(undefined)
  })

  it('sees a block removal', async () => {
    const p = `/ipfs/${R4}/index.html`
    expect((await gw.get(p)).status).to.equal(200)
    expect((await gw.get(p)).status).to.equal(200)
    await gw.node.container.cradle.blockstore.delete(CID.parse(F))
    const gone = await gw.get(p)
    expect(gone.status).to.not.equal(200)
  })

  it('sees a config change', async () => {
    const p = `/ipfs/${T_JSON}`
    await gw.get(p)
    await gw.node.container.cradle.config.setKey('Gateway.HTTPHeaders', { 'X-Test': ['1'] })
    const res = await gw.get(p)
    expect(res.headers['x-test']).to.equal('1')
  })

  it('evicts the oldest entry not read since it was stored (a read entry gets a second chance)', () => {
    const cache = new ResponseCache(() => 1)
    const entry = (): { status: number, headers: Record<string, string>, generation: number } => ({ status: 200, headers: {}, generation: 1 })
    for (let i = 0; i < 2048; i++) cache.set(`k${i}`, entry())
    expect(cache.get('k0')).to.not.equal(undefined)
    expect(cache.get('k2')).to.not.equal(undefined)
    cache.set('new1', entry())
    cache.set('new2', entry())
    expect(cache.size).to.equal(2048)
    // k1 and k3 went; k0 and k2, read, were kept
    expect(['k0', 'k1', 'k2', 'k3', 'k4', 'new1', 'new2'].map(k => cache.get(k) != null)).to.deep.equal([true, false, true, false, true, true, true])
  })

  it('keeps the entry just stored when every older one was read (they get their second chance, the oldest then goes)', () => {
    const cache = new ResponseCache(() => 1)
    const entry = (): { status: number, headers: Record<string, string>, generation: number } => ({ status: 200, headers: {}, generation: 1 })
    for (let i = 0; i < 2048; i++) cache.set(`k${i}`, entry())
    for (let i = 0; i < 2048; i++) expect(cache.get(`k${i}`)).to.not.equal(undefined)
    cache.set('new', entry())
    expect(cache.size).to.equal(2048)
    expect(cache.get('new'), 'the newest response').to.not.equal(undefined)
    expect(cache.get('k0'), 'the oldest').to.equal(undefined)
    expect(cache.get('k1')).to.not.equal(undefined)
  })
})
