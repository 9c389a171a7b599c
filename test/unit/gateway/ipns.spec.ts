// gateway.md §2.10: IPNS resolution, record validation, canonical redirects and record responses.
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { fixture, startGateway, type TestGateway } from './helpers.js'
import { ipnsDatastoreKey, parseIpnsName } from '../../../server/gateway/ipns.js'

const V1 = 'k51qzi5uqu5dm4tm0wt8srkg9h9suud4wuiwjimndrkydqm81cqtlb5ak6p7ku'
const BROKEN_V1_VALUE = 'k51qzi5uqu5dlmit2tuwdvnx4sbnyqgmvbxftl0eo3f33wwtb9gr7yozae9kpw'
const BROKEN_V2_SIG = 'k51qzi5uqu5diamp7qnnvs1p1gzmku3eijkeijs3418j23j077zrkok63xdm8c'
const BROKEN_V1_SIG = 'k51qzi5uqu5dilgf7gorsh9vcqqq4myo6jd4zmqkuy9pxyxi5fua3uf7axph4y'
const V1V2 = 'k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w'
const V2 = 'k51qzi5uqu5dit2ku9mutlfgwyz8u730on38kd10m97m36bjt66my99hb6103f'
const SUBPATH_KEY = 'k51qzi5uqu5djokp3m1keo36hoxtd6u3a1d2rg1camf6al7p3huy63dojlm57c'
const RECORDS: Record<string, string> = {
  [V1]: 'ipns_records/k51qzi5uqu5dm4tm0wt8srkg9h9suud4wuiwjimndrkydqm81cqtlb5ak6p7ku_v1.ipns-record',
  [BROKEN_V1_VALUE]: 'ipns_records/k51qzi5uqu5dlmit2tuwdvnx4sbnyqgmvbxftl0eo3f33wwtb9gr7yozae9kpw_v1-v2-broken-v1-value.ipns-record',
  [BROKEN_V2_SIG]: 'ipns_records/k51qzi5uqu5diamp7qnnvs1p1gzmku3eijkeijs3418j23j077zrkok63xdm8c_v1-v2-broken-signature-v2.ipns-record',
  [BROKEN_V1_SIG]: 'ipns_records/k51qzi5uqu5dilgf7gorsh9vcqqq4myo6jd4zmqkuy9pxyxi5fua3uf7axph4y_v1-v2-broken-signature-v1.ipns-record',
  [V1V2]: 'ipns_records/k51qzi5uqu5dlkw8pxuw9qmqayfdeh4kfebhmreauqdc6a7c3y7d5i9fi8mk9w_v1-v2.ipns-record',
  [V2]: 'ipns_records/k51qzi5uqu5dit2ku9mutlfgwyz8u730on38kd10m97m36bjt66my99hb6103f_v2.ipns-record',
  [SUBPATH_KEY]: `gateway-cache/${SUBPATH_KEY}.ipns-record`
}

describe('gateway: IPNS (§2.10)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({ cars: ['gateway-cache/fixtures.car'], records: Object.values(RECORDS) })
  })
  after(async () => { await gw.stop() })

  it('stores records under /ipns/<BASE32(peer ID)> in the datastore', () => {
    const key = ipnsDatastoreKey(parseIpnsName('12D3KooWLQzUv2FHWGVPXTXSZpdHs7oHbXub2G5WC8Tx4NQhyd2d') as never).toString()
    expect(key).to.match(/^\/ipns\/AASAQAISE[A-Z2-7]+$/)
  })

  describe('record validation', () => {
    for (const [label, key] of [['a V1-only record', V1], ['a V1 value that differs from the V2 data', BROKEN_V1_VALUE], ['a broken V2 signature', BROKEN_V2_SIG]] as const) {
      it(`5xx for ${label}`, async () => {
        const res = await gw.get(`/ipns/${key}`)
        expect(res.status).to.be.within(500, 599)
      })
    }
    for (const [label, key, body] of [
      ['a broken V1 signature with a good V2', BROKEN_V1_SIG, 'v1+v2 with broken signature v1'],
      ['V1+V2', V1V2, 'v1+v2 record'],
      ['V2 only', V2, 'v2-only record']
    ] as const) {
      it(`200 for ${label}`, async () => {
        const res = await gw.get(`/ipns/${key}`)
        expect(res.status).to.equal(200)
        expect(res.text).to.equal(body)
      })
    }
    it('500 for a name with no record', async () => {
      const res = await gw.get('/ipns/k51qzi5uqu5dgh881t0hm6pfpev7wmidy6m8z3fzl4vxajkfkyd5zfjif5dhkx')
      expect(res.status).to.equal(500)
      expect(res.text).to.include('could not resolve name')
    })
  })

  describe('canonical names on the path gateway', () => {
    it('302 from a base58 Ed25519 peer ID to base36', async () => {
      const res = await gw.get('/ipns/12D3KooWRBy97UB99e3J6hiPesre1MZeuNQvfan4gBziswrRJsNK/root2/')
      expect(res.status).to.equal(302)
      expect(res.headers.location).to.equal('/ipns/k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8/root2/')
    })
    it('302 from a base58 RSA peer ID to base36', async () => {
      const res = await gw.get('/ipns/QmcJM7PRfkSbcM5cf1QugM5R37TLRKyJGgBEhXjLTB8uA2/root2/?q=1')
      expect(res.status).to.equal(302)
      expect(res.headers.location).to.equal('/ipns/k2k4r8ol4m8kkcqz509c1rcjwunebj02gcnm5excpx842u736nja8ger/root2/?q=1')
    })
  })

  it('appends the request path to a value that has a sub-path', async () => {
    const res = await gw.get(`/ipns/${SUBPATH_KEY}/root3/root4/index.html`)
    expect(res.status).to.equal(200)
    expect(res.text).to.equal('hello\n')
  })

  describe('record responses (?format=ipns-record)', () => {
    for (const key of [V1V2, V2]) {
      for (const [label, q, h] of [['?format', '?format=ipns-record', {}], ['Accept', '', { Accept: 'application/vnd.ipfs.ipns-record' }]] as const) {
        it(`${key.slice(0, 20)}… with ${label}`, async () => {
          const res = await gw.get(`/ipns/${key}${q}`, { headers: h })
          expect(res.status).to.equal(200)
          expect(res.headers['content-disposition']).to.include(`attachment; filename="${key}.ipns-record"`)
          expect(res.headers['content-type']).to.include('application/vnd.ipfs.ipns-record')
          expect(res.headers['cache-control']).to.include('public, max-age=1800')
          expect(res.body.equals(readFileSync(fixture(RECORDS[key])))).to.equal(true)
        })
      }
    }
    it('?filename with non-ASCII characters', async () => {
      const res = await gw.get(`/ipns/${V1V2}?format=ipns-record&filename=${encodeURIComponent('testтест.ipns-record')}`)
      expect(res.headers['content-disposition']).to.include(`attachment; filename="test____.ipns-record"; filename*=UTF-8''test%D1%82%D0%B5%D1%81%D1%82.ipns-record`)
    })
    it('400 on /ipfs/ paths and on sub-paths', async () => {
      expect((await gw.get('/ipfs/bafkqaaa?format=ipns-record')).status).to.equal(400)
      expect((await gw.get(`/ipns/${V1V2}/sub?format=ipns-record`)).status).to.equal(400)
    })
    it('500 for an invalid record', async () => {
      expect((await gw.get(`/ipns/${BROKEN_V2_SIG}?format=ipns-record`)).status).to.equal(500)
    })
  })

  it('sends Last-Modified on /ipns/ responses', async () => {
    const res = await gw.get(`/ipns/${V2}`)
    expect(res.headers['last-modified']).to.be.a('string')
  })
})
