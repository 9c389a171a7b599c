// gateway.md §2.14: error statuses, error pages, and the Gateway.* switches that produce them
// (DeserializedResponses, NoFetch, RetrievalTimeout, RootRedirect, DisableHTMLErrors).
import { expect } from 'chai'
import { MemoryBlockstore } from 'blockstore-core/memory'
import type { Blockstore } from 'interface-blockstore'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { startGateway, type TestGateway } from './helpers.js'

const D = 'bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i'
const FZ = 'bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm'
const KEY = 'k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w'
const RECORD = `ipns_records/${KEY}_v1-v2.ipns-record`

describe('gateway: errors (§2.14)', () => {
  let gw: TestGateway
  before(async () => { gw = await startGateway({ cars: ['dir_listing/fixtures.car', 'path_gateway_dag/dag-json-traversal.car'], records: [RECORD] }) })
  after(async () => { await gw.stop() })

  it('400 for an invalid CID, as text or as an HTML page for browsers', async () => {
    const text = await gw.get('/ipfs/QmInvalidCID')
    expect(text.status).to.equal(400)
    expect(text.headers['content-type']).to.equal('text/plain; charset=utf-8')
    expect(text.text).to.match(/^invalid path "\/ipfs\/QmInvalidCID": .+\n$/)
    const page = await gw.get('/ipfs/QmInvalidCID', { headers: { Accept: 'text/html' } })
    expect(page.status).to.equal(400)
    expect(page.headers['content-type']).to.equal('text/html')
    expect(page.text).to.include('400 Bad Request').and.include('invalid path &#34;/ipfs/QmInvalidCID&#34;').and.include('</html>')
  })

  it('400 for a Service-Worker registration on a namespace root', async () => {
    const res = await gw.get(`/ipfs/${FZ}`, { headers: { 'Service-Worker': 'script' } })
    expect(res.status).to.equal(400)
    expect(res.text).to.include('navigator.serviceWorker: registration is not allowed for this scope')
  })

  it('301 for a superfluous namespace', async () => {
    const res = await gw.get(`/ipfs/ipfs/${FZ}?b=2&a=1`)
    expect(res.status).to.equal(301)
    expect(res.headers.location).to.equal(`/ipfs/${FZ}?a=1&b=2`)
  })

  it('301 to the clean path for . and .. segments', async () => {
    const res = await gw.get(`/ipfs/${D}/%C4%85/%C4%99/..`)
    expect(res.status).to.equal(301)
    expect(res.headers.location).to.equal(`/ipfs/${D}/%C4%85`)
  })

  it('404 for a path outside /ipfs and /ipns, and /version', async () => {
    const res = await gw.get('/')
    expect(res.status).to.equal(404)
    expect(res.text).to.equal('404 page not found\n')
    const version = await gw.get('/version')
    expect(version.text).to.match(/^Commit: \nClient Version: tsipfs\//)
  })

  it('404 for a missing root block', async () => {
    const res = await gw.get('/ipfs/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy')
    expect(res.status).to.equal(404)
    expect(res.text).to.include('could not find bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy')
  })

  it('400 for an undecodable path', async () => {
    expect((await gw.get(`/ipfs/${D}/%E0%A4%A`)).status).to.equal(400)
  })

  describe('Gateway.DeserializedResponses = false (a trustless gateway)', () => {
    let tl: TestGateway
    before(async () => { tl = await startGateway({ cars: ['dir_listing/fixtures.car'], records: [RECORD], config: { 'Gateway.DeserializedResponses': false } }) })
    after(async () => { await tl.stop() })
    it('406 for deserialized responses', async () => {
      const res = await tl.get(`/ipfs/${FZ}`)
      expect(res.status).to.equal(406)
      expect(res.text).to.include('only trustless requests are accepted on this gateway')
      expect((await tl.get(`/ipfs/${D}/api?format=raw`)).status).to.equal(406)
    })
    it('serves raw blocks, CARs and IPNS records', async () => {
      expect((await tl.get(`/ipfs/${FZ}?format=raw`)).status).to.equal(200)
      expect((await tl.get(`/ipfs/${D}/api?format=car`)).status).to.equal(200)
      expect((await tl.get(`/ipns/${KEY}?format=ipns-record`)).status).to.equal(200)
    })
  })

  describe('Gateway.NoFetch and retrieval', () => {
    const remoteBytes = new TextEncoder().encode('from the network\n')
    let remoteCid: CID
    const network = new MemoryBlockstore()
    before(async () => {
      remoteCid = CID.createV1(raw.code, await sha256.digest(remoteBytes))
      await network.put(remoteCid, remoteBytes)
    })
    it('reads through the fetching blockstore unless NoFetch is set', async () => {
      const fetching = await startGateway({ fetchingBlockstore: network })
      const noFetch = await startGateway({ fetchingBlockstore: network, config: { 'Gateway.NoFetch': true } })
      try {
        const a = await fetching.get(`/ipfs/${remoteCid.toString()}`)
        expect(a.status).to.equal(200)
        expect(a.text).to.equal('from the network\n')
        expect((await fetching.get(`/ipfs/${remoteCid.toString()}`, { headers: { 'Cache-Control': 'only-if-cached' } })).status).to.equal(412)
        expect((await noFetch.get(`/ipfs/${remoteCid.toString()}`)).status).to.equal(404)
      } finally {
        await fetching.stop()
        await noFetch.stop()
      }
    })
    it('504 when a block takes longer than Gateway.RetrievalTimeout', async () => {
      const hanging = {
        async * get (_cid: CID, options?: { signal?: AbortSignal }) {
          await new Promise((_resolve, reject) => { options?.signal?.addEventListener('abort', () => reject(options.signal?.reason)) })
          yield new Uint8Array(0)
        },
        has: async () => false
      } as unknown as Blockstore
      const slow = await startGateway({ fetchingBlockstore: hanging, config: { 'Gateway.RetrievalTimeout': '200ms' } })
      try {
        const started = Date.now()
        const res = await slow.get(`/ipfs/${remoteCid.toString()}`)
        expect(res.status).to.equal(504)
        expect(res.text).to.include('Unable to retrieve content within timeout period')
        expect(Date.now() - started).to.be.below(5000)
      } finally {
        await slow.stop()
      }
    })
  })

  describe('Gateway.MaxRangeRequestFileSize', () => {
    let limited: TestGateway
    before(async () => { limited = await startGateway({ cars: ['dir_listing/fixtures.car'], config: { 'Gateway.MaxRangeRequestFileSize': '10B' } }) })
    after(async () => { await limited.stop() })
    it('501 for a range request on a larger file; whole reads still work', async () => {
      const res = await limited.get(`/ipfs/${FZ}`, { headers: { Range: 'bytes=0-3' } })
      expect(res.status).to.equal(501)
      expect(res.text).to.include('range requests not supported for files larger than 10 bytes')
      expect((await limited.get(`/ipfs/${FZ}`)).status).to.equal(200)
    })
  })

  describe('Gateway.RootRedirect and DisableHTMLErrors', () => {
    let other: TestGateway
    before(async () => { other = await startGateway({ config: { 'Gateway.RootRedirect': '/ipfs/bafkqaaa/', 'Gateway.DisableHTMLErrors': true } }) })
    after(async () => { await other.stop() })
    it('redirects paths outside /ipfs and /ipns', async () => {
      const res = await other.get('/')
      expect(res.status).to.equal(302)
      expect(res.headers.location).to.equal('/ipfs/bafkqaaa/')
    })
    it('answers errors as text even to browsers', async () => {
      const res = await other.get('/ipfs/QmInvalidCID', { headers: { Accept: 'text/html' } })
      expect(res.status).to.equal(400)
      expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8')
    })
  })
})
