// gateway.md §2.8: dag-json / dag-cbor / json / cbor responses, 406 on codec mismatch, HTML previews.
import { expect } from 'chai'
import * as dagCbor from '@ipld/dag-cbor'
import * as dagJson from '@ipld/dag-json'
import { startGateway, type TestGateway } from './helpers.js'

const DJ = 'baguqeeram5ujjqrwheyaty3w5gdsmoz6vittchvhk723jjqxk7hakxkd47xq'
const DC = 'bafyreibs4utpgbn7uqegmd2goqz4bkyflre2ek2iwv743fhvylwi4zeeim'
const DC_LEAF = 'bafyreiaefvpp22slf5bzd4lqgzwbztqahwlldtqkpgmlhv7mh23pudle7y'
const JSON_CID = 'bagaaierajjsnhsxqlgfrvknlt7z2heoljcgfv37cn45tu7mhmr23x3ekiboq'
const CBOR_CID = 'bafireif3aymeikgfbofx533yf5vlx4kimzq6zmzmpra2mnzfsfnmv4hchm'
const FZ = 'bafkreialihlqnf5uwo4byh4n3cmwlntwqzxxs2fg5vanqdi3d7tb2l5xkm'
const KEY_DJ = 'k51qzi5uqu5dhjghbwdvbo6mi40htrq6e2z4pwgp15pgv3ho1azvidttzh8yy2'
const KEY_DC = 'k51qzi5uqu5dghjous0agrwavl8vzl64xckoqzwqeqwudfr74kfd11zcyk3b7l'

const codecs = [
  { name: 'dag-json', cid: DJ, size: 124, type: 'application/vnd.ipld.dag-json', plain: 'application/json', plainFormat: 'json', other: 'dag-cbor', ext: 'json', disposition: 'inline', key: KEY_DJ },
  { name: 'dag-cbor', cid: DC, size: 76, type: 'application/vnd.ipld.dag-cbor', plain: 'application/cbor', plainFormat: 'cbor', other: 'dag-json', ext: 'cbor', disposition: 'attachment', key: KEY_DC }
] as const

describe('gateway: dag-json, dag-cbor, json and cbor (§2.8)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({
      cars: ['path_gateway_dag/dag-json-traversal.car', 'path_gateway_dag/dag-cbor-traversal.car', 'path_gateway_dag/plain-json.car',
        'path_gateway_dag/plain-cbor.car', 'path_gateway_dag/gateway-json-cbor.car'],
      records: [`path_gateway_dag/${KEY_DJ}.ipns-record`, `path_gateway_dag/${KEY_DC}.ipns-record`]
    })
  })
  after(async () => { await gw.stop() })

  for (const c of codecs) {
    describe(c.name, () => {
      let block: Buffer
      before(async () => { block = (await gw.get(`/ipfs/${c.cid}?format=raw`)).body })

      it('answers the block with no format, with ?format and with Accept', async () => {
        for (const [q, h] of [['', {}], [`?format=${c.name}`, {}], ['', { Accept: c.type }]] as const) {
          const res = await gw.get(`/ipfs/${c.cid}${q}`, { headers: h })
          expect(res.status).to.equal(200)
          expect(res.body.equals(block)).to.equal(true)
        }
      })
      it(`serves it as ${c.plain} when asked`, async () => {
        for (const [q, h] of [[`?format=${c.plainFormat}`, {}], ['', { Accept: c.plain }]] as const) {
          const res = await gw.get(`/ipfs/${c.cid}${q}`, { headers: h })
          expect(res.status).to.equal(200)
          expect(res.headers['content-type']).to.equal(c.plain)
          expect(res.body.equals(block)).to.equal(true)
        }
      })
      it('has the codec headers', async () => {
        const res = await gw.get(`/ipfs/${c.cid}`, { headers: { Accept: c.type } })
        expect(res.headers['content-type']).to.equal(c.type)
        expect(res.headers['content-length']).to.equal(String(c.size))
        expect(res.headers['content-disposition']).to.include(`${c.disposition}; filename="${c.cid}.${c.ext}"`)
        expect(res.headers.etag).to.include(`${c.cid}.${c.name}`)
        expect(res.headers['x-ipfs-path']).to.equal(`/ipfs/${c.cid}`)
        expect(res.headers['x-ipfs-roots']).to.equal(c.cid)
        expect(res.headers['cache-control']).to.include('public, max-age=29030400, immutable')
      })
      it('?filename names it; download=true makes it an attachment', async () => {
        const a = await gw.get(`/ipfs/${c.cid}?filename=foobar.${c.ext}`, { headers: { Accept: c.type } })
        expect(a.headers['content-disposition']).to.include(`${c.disposition}; filename="foobar.${c.ext}"`)
        const b = await gw.get(`/ipfs/${c.cid}?filename=foobar.${c.ext}&download=true`, { headers: { Accept: c.type } })
        expect(b.headers['content-disposition']).to.include(`attachment; filename="foobar.${c.ext}"`)
      })
      it('HEAD with and without ?format', async () => {
        for (const q of ['', `?format=${c.name}`]) {
          const res = await gw.get(`/ipfs/${c.cid}${q}`, { method: 'HEAD' })
          expect(res.status).to.equal(200)
          expect(res.headers['content-type']).to.include(c.type)
          expect(res.headers['content-length']).to.equal(String(c.size))
          expect(res.headers.etag).to.include(`${c.cid}.${c.name}`)
          expect(res.body.length).to.equal(0)
        }
      })
      it('gives browsers an HTML preview on the trailing-slash URL', async () => {
        const redirect = await gw.get(`/ipfs/${c.cid}`, { headers: { Accept: 'text/html' } })
        expect(redirect.status).to.equal(301)
        expect(redirect.headers.location).to.equal(`/ipfs/${c.cid}/`)
        const res = await gw.get(`/ipfs/${c.cid}/`, { headers: { Accept: 'text/html' } })
        expect(res.status).to.equal(200)
        expect(res.headers.etag).to.include('DagIndex-')
        expect(res.headers['content-type']).to.include('text/html')
        expect(res.headers['content-disposition']).to.equal(undefined)
        expect(res.headers['cache-control']).to.equal(undefined)
        expect(res.text).to.include('</html>').and.include(c.cid).and.include('banana')
        expect(res.text).to.include('href="?format=raw"')
      })
      it(`406 for ?format=${c.other}`, async () => {
        const res = await gw.get(`/ipfs/${c.cid}?format=${c.other}`)
        expect(res.status).to.equal(406)
        expect(res.text).to.include('fetch raw block with ?format=raw and convert client-side')
      })
      it('501 for a path that ends inside the block', async () => {
        const res = await gw.get(`/ipfs/${c.cid}/foo?format=${c.name}`)
        expect(res.status).to.equal(501)
        expect(res.text).to.include('reading IPLD Kinds other than Links (CBOR Tag 42) is not implemented')
      })
      it('follows links inside the block', async () => {
        const res = await gw.get(`/ipfs/${c.cid}/foo/link/bar?format=${c.name}`)
        expect(res.status).to.equal(200)
        const decoded = c.name === 'dag-json' ? dagJson.decode(res.body) : dagCbor.decode(res.body)
        expect(decoded).to.deep.equal({ hello: 'this is not a link' })
        if (c.name === 'dag-cbor') expect(res.headers['x-ipfs-roots']).to.equal([DC, DC, 'bafyreig5alecq2l2akgajxywgnv22kuxh6xcagsnelepylqovt4t5jxt6u', DC_LEAF].join(','))
      })
      it('404 for a missing field', async () => {
        expect((await gw.get(`/ipfs/${c.cid}/foo/i-do-not-exist`)).status).to.equal(404)
      })
      it('is served the same through IPNS', async () => {
        const a = await gw.get(`/ipns/${c.key}`)
        expect(a.status).to.equal(200)
        expect(a.body.equals(block)).to.equal(true)
        const b = await gw.get(`/ipns/${c.key}`, { headers: { Accept: c.type } })
        expect(b.headers['content-type']).to.equal(c.type)
        expect(b.headers.etag).to.equal(`"${c.cid}.${c.name}"`)
        const h = await gw.get(`/ipns/${c.key}/`, { headers: { Accept: 'text/html' } })
        expect(h.text).to.include('</html>')
      })
    })
  }

  it('the dag-cbor leaf is returned byte for byte', async () => {
    const res = await gw.get(`/ipfs/${DC}/foo/link/bar?format=dag-cbor`)
    expect(res.body.length).to.equal(26)
    expect(res.body[0]).to.equal(0xa1)
  })

  describe('406 on codec mismatch (IPIP-0524)', () => {
    for (const [label, q, h] of [
      ['?format=dag-json', '?format=dag-json', {}],
      ['?format=dag-cbor', '?format=dag-cbor', {}],
      ['Accept dag-json', '', { Accept: 'application/vnd.ipld.dag-json' }]
    ] as const) {
      it(`a UnixFS file with ${label}`, async () => {
        const res = await gw.get(`/ipfs/${FZ}${q}`, { headers: h })
        expect(res.status).to.equal(406)
        expect(res.text).to.include('"raw"')
      })
    }
  })

  describe('plain codecs', () => {
    it('json: inline <cid>.json, application/json', async () => {
      for (const [q, h] of [['', {}], ['?format=json', {}], ['', { Accept: 'application/json' }]] as const) {
        const res = await gw.get(`/ipfs/${JSON_CID}${q}`, { headers: h })
        expect(res.status).to.equal(200)
        expect(res.body.length).to.equal(26)
        expect(res.headers['content-type']).to.equal('application/json')
        expect(res.headers['content-disposition']).to.include(`inline; filename="${JSON_CID}.json"`)
      }
    })
    it('cbor: attachment <cid>.cbor, application/cbor', async () => {
      for (const [q, h] of [['', {}], ['?format=cbor', {}], ['', { Accept: 'application/cbor' }]] as const) {
        const res = await gw.get(`/ipfs/${CBOR_CID}${q}`, { headers: h })
        expect(res.status).to.equal(200)
        expect(res.body.length).to.equal(17)
        expect(res.headers['content-type']).to.equal('application/cbor')
        expect(res.headers['content-disposition']).to.include(`attachment; filename="${CBOR_CID}.cbor"`)
      }
    })
  })

  describe('Gateway.AllowCodecConversion', () => {
    let conv: TestGateway
    before(async () => {
      conv = await startGateway({ cars: ['path_gateway_dag/dag-json-traversal.car'], config: { 'Gateway.AllowCodecConversion': true } })
    })
    after(async () => { await conv.stop() })
    it('converts dag-json to dag-cbor', async () => {
      const res = await conv.get(`/ipfs/${DJ}?format=dag-cbor`)
      expect(res.status).to.equal(200)
      expect(res.headers['content-type']).to.equal('application/vnd.ipld.dag-cbor')
      const raw = (await conv.get(`/ipfs/${DJ}?format=raw`)).body
      expect(Buffer.from(dagCbor.encode(dagJson.decode(raw))).equals(res.body)).to.equal(true)
    })
  })
})
