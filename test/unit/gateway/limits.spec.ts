// Gateway limits (boxo gateway middlewares as Kubo 0.40 configures them): Gateway.MaxConcurrentRequests
// (429 + Retry-After), Gateway.MaxRequestDuration (504), Gateway.RetrievalTimeout defaults, and the
// reach of Gateway.MaxRangeRequestFileSize.
import { expect } from 'chai'
import type { Blockstore } from 'interface-blockstore'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { startGateway, type GatewayResponse, type TestGateway } from './helpers.js'
import { gatewaySettings } from '../../../server/gateway/config.js'

const FZ = 'bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm' // 34 bytes
const EMPTY = 'bafkqaaa' // identity CID: served without any block

/** A network that never answers (until the request's signal aborts). */
const hanging = {
  async * get (_cid: CID, options?: { signal?: AbortSignal }) {
    await new Promise((_resolve, reject) => { options?.signal?.addEventListener('abort', () => reject(options.signal?.reason)) })
    yield new Uint8Array(0)
  },
  has: async () => false
} as unknown as Blockstore

const missing = async (): Promise<string> => CID.createV1(raw.code, await sha256.digest(crypto.getRandomValues(new Uint8Array(16)))).toString()

describe('gateway: limits', function () {
  this.timeout(20_000)

  describe('settings', () => {
    it("Kubo 0.40's defaults, and what 0 and negative values mean", () => {
      const d = gatewaySettings({})
      expect(d.retrievalTimeoutMs).to.equal(30_000)
      expect(d.maxRequestDurationMs).to.equal(3_600_000)
      expect(d.maxConcurrentRequests).to.equal(4096)
      expect(d.exposeRoutingAPI).to.equal(true)
      expect(d.maxRangeRequestFileSize).to.equal(0)
      const z = gatewaySettings({ Gateway: { RetrievalTimeout: '0s', MaxRequestDuration: '0s', MaxConcurrentRequests: 0, ExposeRoutingAPI: false } })
      expect(z.retrievalTimeoutMs).to.equal(0)
      expect(z.maxRequestDurationMs).to.equal(3_600_000)
      expect(z.maxConcurrentRequests).to.equal(0)
      expect(z.exposeRoutingAPI).to.equal(false)
      const n = gatewaySettings({ Gateway: { RetrievalTimeout: '-1s', MaxRequestDuration: '-1m', MaxConcurrentRequests: -5, MaxRangeRequestFileSize: '5GiB' } })
      expect(n.retrievalTimeoutMs).to.equal(0)
      expect(n.maxRequestDurationMs).to.equal(3_600_000)
      expect(n.maxConcurrentRequests).to.equal(0)
      expect(n.maxRangeRequestFileSize).to.equal(5 * 1024 ** 3)
      expect(gatewaySettings({ Gateway: { RetrievalTimeout: null, MaxRequestDuration: '90s', MaxRangeRequestFileSize: 34 } })).to.include({ retrievalTimeoutMs: 30_000, maxRequestDurationMs: 90_000, maxRangeRequestFileSize: 34 })
    })
  })

  describe('Gateway.MaxConcurrentRequests', () => {
    let gw: TestGateway
    before(async () => {
      gw = await startGateway({ fetchingBlockstore: hanging, config: { 'Gateway.MaxConcurrentRequests': 1, 'Gateway.RetrievalTimeout': '1500ms' } })
    })
    after(async () => { await gw.stop() })

    it('429 with Retry-After while the slot is taken; the slot comes back when the response ends', async () => {
      // cached before: a cache hit must not get past the limit either
      expect((await gw.get(`/ipfs/${EMPTY}`)).status).to.equal(200)
      const slow = gw.get(`/ipfs/${await missing()}`)
      await new Promise(resolve => setTimeout(resolve, 200))
      for (const p of [`/ipfs/${EMPTY}`, `/ipfs/${FZ}`, '/ipns/example.org']) {
        const res = await gw.get(p)
        expect(res.status, p).to.equal(429)
        expect(res.headers['retry-after']).to.equal('60')
        expect(res.headers['cache-control']).to.equal('no-store')
        expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8')
        expect(res.text).to.equal('Too many requests. Please retry after 60 seconds.\n')
      }
      const page = await gw.get(`/ipfs/${EMPTY}`, { headers: { Accept: 'text/html' } })
      expect(page.status).to.equal(429)
      expect(page.headers['content-type']).to.equal('text/html')
      expect(page.text).to.include('Too many requests. Please retry after 60 seconds.').and.include('</html>')
      // not limited: the routing API, redirects and paths outside /ipfs and /ipns
      expect((await gw.get(`/routing/v1/providers/${FZ}`)).status).to.equal(200)
      expect((await gw.get('/ipfs')).status).to.equal(301)
      expect((await gw.get('/version')).status).to.equal(200)
      const first: GatewayResponse = await slow
      expect(first.status).to.equal(504)
      const after = await gw.get(`/ipfs/${EMPTY}`)
      expect(after.status).to.equal(200)
    })
  })

  describe('Gateway.MaxRequestDuration', () => {
    it('504 at the absolute deadline (RetrievalTimeout off)', async () => {
      const gw = await startGateway({ fetchingBlockstore: hanging, config: { 'Gateway.MaxRequestDuration': '300ms', 'Gateway.RetrievalTimeout': '0s' } })
      try {
        const started = Date.now()
        const cid = await missing()
        const res = await gw.get(`/ipfs/${cid}/%C3%A9`)
        expect(res.status).to.equal(504)
        expect(res.text).to.equal(`failed to resolve /ipfs/${cid}/\\u00e9: context deadline exceeded\n`)
        expect(Date.now() - started).to.be.within(250, 5000)
      } finally {
        await gw.stop()
      }
    })
  })

  describe('Gateway.MaxRangeRequestFileSize', () => {
    let gw: TestGateway
    before(async () => { gw = await startGateway({ cars: ['dir_listing/fixtures.car'], config: { 'Gateway.MaxRangeRequestFileSize': 33 } }) })
    after(async () => { await gw.stop() })

    it('501 (an HTML page for browsers) only for deserialized files over the limit', async () => {
      const page = await gw.get(`/ipfs/${FZ}`, { headers: { Range: 'bytes=0-3', Accept: 'text/html' } })
      expect(page.status).to.equal(501)
      expect(page.headers['content-type']).to.equal('text/html')
      expect(page.text).to.include('range requests not supported for files larger than 33 bytes: switch to verifiable block requests (application/vnd.ipld.raw)')
      // verifiable blocks are not limited
      const block = await gw.get(`/ipfs/${FZ}?format=raw`, { headers: { Range: 'bytes=0-3' } })
      expect(block.status).to.equal(206)
      expect(block.text).to.equal('I am')
    })

    it('a file at the limit is served as usual', async () => {
      const small = await startGateway({ cars: ['dir_listing/fixtures.car'], config: { 'Gateway.MaxRangeRequestFileSize': '34B' } })
      try {
        const res = await small.get(`/ipfs/${FZ}`, { headers: { Range: 'bytes=0-3' } })
        expect(res.status).to.equal(206)
        expect(res.headers['content-range']).to.equal('bytes 0-3/34')
      } finally {
        await small.stop()
      }
    })
  })
})
