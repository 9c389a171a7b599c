// Delegated Routing V1 HTTP API on the gateway (Gateway.ExposeRoutingAPI; boxo routing/http/server as
// Kubo 0.40 serves it over an offline node): routes, status codes, bodies, caching headers, IPNS records.
import http from 'node:http'
import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import { generateKeyPair } from '@libp2p/crypto/keys'
import type { PrivateKey } from '@libp2p/interface'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { createIPNSRecord, createIPNSRecordWithExpiration, marshalIPNSRecord } from 'ipns'
import { base36 } from 'multiformats/bases/base36'
import { CID } from 'multiformats/cid'
import { identity } from 'multiformats/hashes/identity'
import { fixture, startGateway, type GatewayResponse, type TestGateway } from './helpers.js'
import { applyFilters, parseMediaType } from '../../../server/gateway/routing.js'
import { xxhash64 } from '../../../server/gateway/xxhash.js'

const V1V2 = 'k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w'
const RECORD = `ipns_records/${V1V2}_v1-v2.ipns-record`
const RAW_CID = 'bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'
const EMPTY_CACHE = 'public, max-age=15, stale-while-revalidate=172800, stale-if-error=172800'
const IPNS_TYPE = 'application/vnd.ipfs.ipns-record'
/** identity CID of "hello routing\n" (no block needed) */
const HELLO = CID.createV1(0x55, identity.digest(new TextEncoder().encode('hello routing\n')))

/** A request with a method, headers and a body (the helpers' client sends none). */
async function send (gw: TestGateway, method: string, path: string, headers: Record<string, string> = {}, body?: Uint8Array): Promise<GatewayResponse> {
  return await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: gw.port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const b = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b, text: b.toString('utf8'), trailers: res.trailers })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body != null ? Buffer.from(body) : undefined)
  })
}

const nameOf = (key: PrivateKey): string => peerIdFromPrivateKey(key).toCID().toString(base36)

async function record (key: PrivateKey, seq: number, value = `/ipfs/${HELLO.toString()}`): Promise<Uint8Array> {
  return marshalIPNSRecord(await createIPNSRecord(key, value, seq, 3_600_000, { ttlNs: 42_000_000_000n }))
}

describe('gateway: Delegated Routing V1 HTTP API (offline node)', () => {
  let gw: TestGateway
  before(async () => { gw = await startGateway({ records: [RECORD] }) })
  after(async () => { await gw.stop() })

  describe('GET /routing/v1/providers/{cid}', () => {
    it('200 with no providers offline, JSON, cached briefly', async () => {
      const res = await gw.get(`/routing/v1/providers/${RAW_CID}`)
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('application/json')
      expect(res.text).to.equal('{"Providers":[]}')
      expect(res.headers['cache-control']).to.equal(EMPTY_CACHE)
      expect(res.headers.vary).to.equal('Accept')
      expect(Date.parse(res.headers['last-modified'] as string)).to.be.closeTo(Date.now(), 5000)
      // the gateway's CORS headers
      expect(res.headers['access-control-allow-origin']).to.equal('*')
    })

    it('NDJSON when asked: an empty stream', async () => {
      const res = await gw.get(`/routing/v1/providers/${RAW_CID}`, { headers: { Accept: 'application/json, application/x-ndjson' } })
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('application/x-ndjson')
      expect(res.text).to.equal('')
      expect(res.headers['cache-control']).to.equal(EMPTY_CACHE)
    })

    it('JSON for */* and CIDv0', async () => {
      const res = await gw.get('/routing/v1/providers/QmYzfKSE55XCjD1MW128RfciAf2DViABhEiXfgVFMabSjN', { headers: { Accept: 'text/html,*/*;q=0.8' } })
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('application/json')
    })

    it('400 for a bad CID or an Accept with no JSON type', async () => {
      const bad = await gw.get('/routing/v1/providers/foo')
      expect(bad.status).to.equal(400)
      expect(bad.headers['content-type']).to.equal('text/plain; charset=utf-8')
      expect(bad.text).to.equal("unable to parse CID: invalid cid: encoding/hex: invalid byte: U+006F 'o'")
      const html = await gw.get(`/routing/v1/providers/${RAW_CID}`, { headers: { Accept: 'text/html' } })
      expect(html.status).to.equal(400)
      expect(html.text).to.equal('no supported content types')
      const malformed = await gw.get(`/routing/v1/providers/${RAW_CID}`, { headers: { Accept: 'application/' } })
      expect(malformed.status).to.equal(400)
      expect(malformed.text).to.equal('unable to parse Accept header: mime: expected token after slash')
    })
  })

  describe('GET /routing/v1/peers/{peer-id}', () => {
    it('200 with no peers offline', async () => {
      const res = await gw.get('/routing/v1/peers/12D3KooWLQzUv2FHWGVPXTXSZpdHs7oHbXub2G5WC8Tx4NQhyd2d')
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('application/json')
      expect(res.text).to.equal('{"Peers":[]}')
      expect(res.headers['cache-control']).to.equal(EMPTY_CACHE)
    })

    it('takes CIDv1 peer IDs and any CID (its multihash)', async () => {
      expect((await gw.get(`/routing/v1/peers/${V1V2}`)).status).to.equal(200)
      expect((await gw.get(`/routing/v1/peers/${RAW_CID}`)).status).to.equal(200)
    })

    it('400 for what is not a peer ID', async () => {
      const res = await gw.get('/routing/v1/peers/abc')
      expect(res.status).to.equal(400)
      expect(res.text).to.equal('unable to parse PeerID "abc": failed to parse peer ID: invalid cid: selected encoding not supported')
      const b58 = await gw.get('/routing/v1/peers/Qm0')
      expect(b58.status).to.equal(400)
      expect(b58.text).to.equal('unable to parse PeerID "Qm0": failed to parse peer ID: input isn\'t valid multihash')
    })
  })

  describe('GET /routing/v1/ipns/{name}', () => {
    it('the stored record, with its caching headers', async () => {
      const raw = readFileSync(fixture(RECORD))
      const res = await gw.get(`/routing/v1/ipns/${V1V2}`)
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal(IPNS_TYPE)
      expect(Buffer.compare(res.body, raw)).to.equal(0)
      expect(res.headers.etag).to.equal(`"${xxhash64(raw).toString(16)}"`)
      expect(res.headers['content-disposition']).to.equal(`attachment; filename="${V1V2}.ipns-record"`)
      expect(res.headers.vary).to.equal('Accept')
      const expires = Date.parse(res.headers.expires as string)
      expect(expires).to.be.greaterThan(Date.now())
      const left = Math.trunc((expires - Date.now()) / 1000)
      const m = /^public, max-age=1800, stale-while-revalidate=(\d+), stale-if-error=(\d+)$/.exec(res.headers['cache-control'] as string)
      expect(m, res.headers['cache-control']).to.not.equal(null)
      expect(Number(m?.[1])).to.be.closeTo(left, 5)
      expect(m?.[2]).to.equal(m?.[1])
    })

    it('200 with a text body when there is no record (IPIP-0513)', async () => {
      const key = await generateKeyPair('Ed25519')
      const res = await gw.get(`/routing/v1/ipns/${nameOf(key)}`)
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('text/plain; charset=utf-8')
      expect(res.headers['x-content-type-options']).to.equal('nosniff')
      expect(res.headers['cache-control']).to.equal(EMPTY_CACHE)
      expect(res.text).to.equal('delegate error: routing: not found\n')
    })

    it('406 for an Accept without the record type, 400 for a name that is not a libp2p-key CID', async () => {
      const json = await gw.get(`/routing/v1/ipns/${V1V2}`, { headers: { Accept: 'application/json' } })
      expect(json.status).to.equal(406)
      expect(json.text).to.equal("content type in 'Accept' header is not supported, retry with 'application/vnd.ipfs.ipns-record'")
      expect((await gw.get(`/routing/v1/ipns/${V1V2}`, { headers: { Accept: `${IPNS_TYPE}, */*` } })).status).to.equal(200)
      const raw = await gw.get(`/routing/v1/ipns/${RAW_CID}`)
      expect(raw.status).to.equal(400)
      expect(raw.text).to.equal('peer ID CID is not valid: CID codec "raw" is not allowed for IPNS Names, use  "libp2p-key" instead')
      const bad = await gw.get('/routing/v1/ipns/x')
      expect(bad.status).to.equal(400)
      expect(bad.text).to.equal('unable to parse CID: invalid cid: cid too short')
    })
  })

  describe('PUT /routing/v1/ipns/{name}', () => {
    const put = async (name: string, body: Uint8Array, type = IPNS_TYPE): Promise<GatewayResponse> =>
      await send(gw, 'PUT', `/routing/v1/ipns/${name}`, type !== '' ? { 'Content-Type': type } : {}, body)

    it('stores a valid record: GET returns it and /ipns/ resolves through it', async () => {
      const key = await generateKeyPair('Ed25519')
      const name = nameOf(key)
      const rec = await record(key, 1)
      const res = await put(name, rec)
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('')
      expect(res.headers['content-type']).to.equal(undefined)
      const back = await gw.get(`/routing/v1/ipns/${name}`)
      expect(back.status).to.equal(200)
      expect(Buffer.compare(back.body, Buffer.from(rec))).to.equal(0)
      expect(back.headers['cache-control']).to.match(/^public, max-age=42, stale-while-revalidate=\d+, stale-if-error=\d+$/)
      const content = await gw.get(`/ipns/${name}`)
      expect(content.status).to.equal(200)
      expect(content.text).to.equal('hello routing\n')
    })

    it('keeps the newer record when an older one is put (and still answers 200)', async () => {
      const key = await generateKeyPair('Ed25519')
      const name = nameOf(key)
      const newer = await record(key, 5)
      expect((await put(name, newer)).status).to.equal(200)
      expect((await put(name, await record(key, 2))).status).to.equal(200)
      expect(Buffer.compare((await gw.get(`/routing/v1/ipns/${name}`)).body, Buffer.from(newer))).to.equal(0)
      const newest = await record(key, 6)
      expect((await put(name, newest)).status).to.equal(200)
      expect(Buffer.compare((await gw.get(`/routing/v1/ipns/${name}`)).body, Buffer.from(newest))).to.equal(0)
    })

    it('400 for records that do not validate, before storing anything', async () => {
      const key = await generateKeyPair('Ed25519')
      const other = await generateKeyPair('Ed25519')
      const name = nameOf(key)
      const wrongKey = await put(name, await record(other, 1))
      expect(wrongKey.status).to.equal(400)
      expect(wrongKey.text).to.equal('provided record is invalid: signature verification failed')
      const expired = await put(name, marshalIPNSRecord(await createIPNSRecordWithExpiration(key, `/ipfs/${HELLO.toString()}`, 1, '2001-01-01T00:00:00.000000000Z')))
      expect(expired.status).to.equal(400)
      expect(expired.text).to.equal('provided record is invalid: record is expired')
      const empty = await put(name, new Uint8Array(0))
      expect(empty.status).to.equal(400)
      expect(empty.text).to.equal('provided record is invalid: record is malformed\nrecord is missing the dag-cbor data field')
      const garbage = await put(name, new Uint8Array([0xff, 0xff, 0xff]))
      expect(garbage.status).to.equal(400)
      expect(garbage.text).to.match(/^provided record is invalid: record is malformed\nproto: /)
      expect((await gw.get(`/routing/v1/ipns/${name}`)).text).to.equal('delegate error: routing: not found\n')
    })

    it('400 for an RSA name whose record does not carry the key; broken V1 value', async () => {
      const broken = readFileSync(fixture('ipns_records/k51qzi5uqu5dlmit2tuwdvnx4sbnyqgmvbxftl0eo3f33wwtb9gr7yozae9kpw_v1-v2-broken-v1-value.ipns-record'))
      const res = await put('k51qzi5uqu5dlmit2tuwdvnx4sbnyqgmvbxftl0eo3f33wwtb9gr7yozae9kpw', broken)
      expect(res.status).to.equal(400)
      expect(res.text).to.equal('provided record is invalid: field "Value" did not match between protobuf and CBOR')
      const rsa = await generateKeyPair('RSA', 1024)
      const rsaName = nameOf(rsa)
      const withoutKey = await createIPNSRecord(rsa, `/ipfs/${HELLO.toString()}`, 1, 3_600_000)
      delete (withoutKey as { pubKey?: Uint8Array }).pubKey
      const noKey = await put(rsaName, marshalIPNSRecord(withoutKey))
      expect(noKey.status).to.equal(400)
      expect(noKey.text).to.equal('provided record is invalid: public key is not embedded in peer ID')
      // with the key embedded, the RSA record is fine
      expect((await put(rsaName, await record(rsa, 1))).status).to.equal(200)
    })

    it('406 without the record Content-Type; 400 for a bad name', async () => {
      const key = await generateKeyPair('Ed25519')
      const res = await put(nameOf(key), await record(key, 1), '')
      expect(res.status).to.equal(406)
      expect(res.text).to.equal("content type in 'Content-Type' header is missing or not supported")
      const raw = await put(RAW_CID, await record(key, 1))
      expect(raw.status).to.equal(400)
      expect(raw.text).to.equal('peer ID CID is not valid: CID codec "raw" is not allowed for IPNS Names, use  "libp2p-key" instead')
    })
  })

  describe('other routes', () => {
    it('dht/closest/peers: 500 offline (no DHT), 400 for a bad key', async () => {
      const res = await gw.get('/routing/v1/dht/closest/peers/12D3KooWLQzUv2FHWGVPXTXSZpdHs7oHbXub2G5WC8Tx4NQhyd2d')
      expect(res.status).to.equal(500)
      expect(res.text).to.equal('delegate error: GetClosestPeers not supported: DHT is not available')
      const bad = await gw.get('/routing/v1/dht/closest/peers/x')
      expect(bad.status).to.equal(400)
      expect(bad.text).to.equal('unable to parse key "x": unable to parse as CID or PeerID: invalid cid: cid too short\nfailed to parse peer ID: invalid cid: cid too short')
    })

    it('PUT /routing/v1/providers/ (deprecated): nothing to do, bad JSON, unsupported records', async () => {
      const none = await send(gw, 'PUT', '/routing/v1/providers/', {}, Buffer.from('{"Providers":[]}'))
      expect(none.status).to.equal(200)
      expect(none.text).to.equal('{"ProvideResults":null}')
      const bad = await send(gw, 'PUT', '/routing/v1/providers/', {}, Buffer.from('{'))
      expect(bad.status).to.equal(400)
      expect(bad.text).to.match(/^invalid request: /)
      const other = await send(gw, 'PUT', '/routing/v1/providers/', {}, Buffer.from('{"Providers":[{"Schema":"peer"}]}'))
      expect(other.status).to.equal(400)
      expect(other.text).to.equal('provider record 0 is not bitswap')
      const bitswap = await send(gw, 'PUT', '/routing/v1/providers/', {}, Buffer.from('{"Providers":[{"Schema":"bitswap","Protocol":"transport-bitswap"}]}'))
      expect(bitswap.status).to.equal(500)
      expect(bitswap.text).to.equal('delegate error: routing: operation or key not supported')
    })

    it('405 with no body for another method, 404 for unknown paths, 301 for /routing/v1', async () => {
      for (const method of ['POST', 'HEAD', 'DELETE']) {
        const res = await send(gw, method, `/routing/v1/providers/${RAW_CID}`)
        expect(res.status, method).to.equal(405)
        expect(res.text).to.equal('')
        expect(res.headers['content-type']).to.equal(undefined)
      }
      // the PUT-only route: a GET is a method mismatch too
      expect((await gw.get('/routing/v1/providers/')).status).to.equal(405)
      for (const p of ['/routing/v1/', '/routing/v1/nope', `/routing/v1/providers/${RAW_CID}/x`, '/routing/v1/peers/']) {
        const res = await gw.get(p)
        expect(res.status, p).to.equal(404)
        expect(res.text).to.equal('404 page not found\n')
      }
      const root = await gw.get('/routing/v1?a=1')
      expect(root.status).to.equal(301)
      expect(root.headers.location).to.equal('/routing/v1/?a=1')
    })

    it('not on known gateway hosts (Host: localhost is the implicit subdomain gateway)', async () => {
      const res = await gw.get(`/routing/v1/providers/${RAW_CID}`, { headers: { Host: 'localhost:8080' } })
      expect(res.status).to.equal(404)
    })
  })

  describe('Gateway.ExposeRoutingAPI = false', () => {
    let off: TestGateway
    before(async () => { off = await startGateway({ config: { 'Gateway.ExposeRoutingAPI': false } }) })
    after(async () => { await off.stop() })
    it('404 under /routing/v1', async () => {
      const res = await off.get(`/routing/v1/providers/${RAW_CID}`)
      expect(res.status).to.equal(404)
      expect(res.text).to.equal('404 page not found\n')
    })
  })
})

describe('gateway/routing helpers', () => {
  it('filters (IPIP-0484): protocols, positive and negative address filters, unknown', () => {
    const rec = { ID: '12D3KooWLQzUv2FHWGVPXTXSZpdHs7oHbXub2G5WC8Tx4NQhyd2d', Addrs: ['/ip4/1.2.3.4/tcp/4001', '/ip4/1.2.3.4/udp/4001/quic-v1'], Protocols: ['transport-bitswap'] }
    expect(applyFilters(rec, [], [])).to.equal(rec)
    expect(applyFilters(rec, [], ['transport-bitswap'])).to.deep.equal(rec)
    expect(applyFilters(rec, [], ['transport-ipfs-gateway-http'])).to.equal(undefined)
    expect(applyFilters(rec, ['tcp'], [])?.Addrs).to.deep.equal(['/ip4/1.2.3.4/tcp/4001'])
    expect(applyFilters(rec, ['!tcp'], [])?.Addrs).to.deep.equal(['/ip4/1.2.3.4/udp/4001/quic-v1'])
    expect(applyFilters(rec, ['webtransport'], [])).to.equal(undefined)
    const bare = { ID: rec.ID }
    expect(applyFilters(bare, [], ['unknown'])).to.equal(bare)
    expect(applyFilters(bare, ['unknown'], [])).to.equal(bare)
    expect(applyFilters(bare, ['tcp'], [])).to.equal(undefined)
  })

  it("media types as Go's mime.ParseMediaType", () => {
    expect(parseMediaType(' application/JSON; q=0.9')).to.deep.equal({ type: 'application/json' })
    expect(parseMediaType('json')).to.deep.equal({ type: 'json' })
    expect(parseMediaType('')).to.deep.equal({ error: 'mime: no media type' })
    expect(parseMediaType('a b')).to.deep.equal({ error: 'mime: expected slash after first token' })
    expect(parseMediaType('a/b c')).to.deep.equal({ error: 'mime: unexpected content after media subtype' })
    expect(parseMediaType('a/b; q')).to.deep.equal({ error: 'mime: invalid media parameter' })
    expect(parseMediaType('a/b;')).to.deep.equal({ type: 'a/b' })
    expect(parseMediaType('a/b; q=1; q=2')).to.deep.equal({ error: 'mime: duplicate parameter name' })
  })

  it('xxhash64 (cespare/xxhash Sum64) vectors', () => {
    const enc = new TextEncoder()
    expect(xxhash64(enc.encode('')).toString(16)).to.equal('ef46db3751d8e999')
    expect(xxhash64(enc.encode('abc')).toString(16)).to.equal('44bc2cf5ad770999')
    expect(xxhash64(enc.encode('Nobody inspects the spammish repetition')).toString(16)).to.equal('fbcea83c8a378bf1')
    expect(xxhash64(enc.encode('The quick brown fox jumps over the lazy dog')).toString(16)).to.equal('b242d361fda71bc')
  })
})
