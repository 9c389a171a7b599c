// gateway.md §2.11: subdomain gateway (Host {h} = example.com:8080, as in Kubo's CI).
import { expect } from 'chai'
import { base36 } from 'multiformats/bases/base36'
import { CID } from 'multiformats/cid'
import { dnslinkYaml, H, requestViaConnect, startGateway, SUBDOMAIN_CONFIG, type TestGateway } from './helpers.js'
import { parseIpnsName } from '../../../server/gateway/ipns.js'
import { inlineDnslink, uninlineDnslink } from '../../../server/gateway/host.js'

const CIDV1 = 'bafkreicysg23kiwv34eg2d7qweipxwosdo2py4ldv42nbauguluen5v6am'
const CIDV0 = 'QmZULkCELmmk5XNfCgTnCyFgAVxBRBXyDHGGMVoLFLiXEN'
const CIDV0TO1 = 'bafybeiffndsajwhk3lwjewwdxqntmjm4b5wxaaanokonsggenkbw6slwk4'
const TOO_LONG = 'bafkrgqhhyivzstcz3hhswshfjgy6ertgmnqeleynhwt4dlfsthi4hn7zgh4uvlsb5xncykzapi3ocd4lzogukir6ksdy6wzrnz6ohnv4aglcs'
const DIR_V0 = 'QmYiPNLU7Hc739sqcBH5DgVmk5mKTQVzKSqvJJeNGWTgrE'
const DIR_V1 = CID.parse(DIR_V0).toV1().toString()
const TESTDIR = 'bafybeiht6dtwk3les7vqm6ibpvz6qpohidvlshsfyr7l5mpysdw2vmbbhe'
const PCT_DIR = 'bafybeig675grnxcmshiuzdaz2xalm6ef4thxxds6o6ypakpghm5kghpc34'
const RSA = 'QmVujd5Vb7moysJj8itnGufN7MEtPRCNHkKpNuA4onsRa3'
const ED = '12D3KooWLQzUv2FHWGVPXTXSZpdHs7oHbXub2G5WC8Tx4NQhyd2d'
const ED_B36 = 'k51qzi5uqu5dk3v4rmjber23h16xnr23bsggmqqil9z2gduiis5se8dht36dam'

const libp2pKey = (name: string): string => CID.createV1(0x72, parseIpnsName(name) as never).toString(base36)
const dagPbOfKey = (name: string): string => CID.createV1(0x70, parseIpnsName(name) as never).toString(base36)

describe('gateway: subdomain gateway (§2.11)', () => {
  let gw: TestGateway
  const onH = { Host: H }
  before(async () => {
    gw = await startGateway({
      cars: ['subdomain_gateway/fixtures.car', 'path_gateway_unixfs/dir-with-percent-encoded-filename.car'],
      records: [`subdomain_gateway/${RSA}.ipns-record`, `subdomain_gateway/${ED}.ipns-record`],
      config: SUBDOMAIN_CONFIG,
      dnslink: { ...dnslinkYaml('subdomain_gateway/dnslink.yml'), ...dnslinkYaml('dnslink_ipns/dnslink.yml') }
    })
  })
  after(async () => { await gw.stop() })

  describe('path → subdomain redirects', () => {
    it('301 from /ipfs/<CIDv1>/ to the CID subdomain', async () => {
      const res = await gw.get(`/ipfs/${CIDV1}/`, { headers: onH })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal(`http://${CIDV1}.ipfs.${H}/`)
    })
    it('re-encodes a directory CIDv0 as CIDv1 base32', async () => {
      const res = await gw.get(`/ipfs/${DIR_V0}/`, { headers: onH })
      expect(res.headers.location).to.equal(`http://${DIR_V1}.ipfs.${H}/`)
      const file = await gw.get(`/ipfs/${CIDV0}/`, { headers: onH })
      expect(file.headers.location).to.equal(`http://${CIDV0TO1}.ipfs.${H}/`)
    })
    it('keeps the path remainder, escaped exactly, and the query', async () => {
      const res = await gw.get(`/ipfs/${PCT_DIR}/Portugal%252C+Espa%C3%B1a=Peninsula%20Ib%C3%A9rica.txt?x=1`, { headers: onH })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal(`http://${PCT_DIR}.ipfs.${H}/Portugal%252C+Espa%C3%B1a=Peninsula%20Ib%C3%A9rica.txt?x=1`)
    })
    it('follows X-Forwarded-Proto', async () => {
      const https = await gw.get(`/ipfs/${CIDV1}/`, { headers: { ...onH, 'X-Forwarded-Proto': 'https' } })
      expect(https.headers.location).to.equal(`https://${CIDV1}.ipfs.${H}/`)
      const http = await gw.get(`/ipfs/${CIDV1}/`, { headers: { ...onH, 'X-Forwarded-Proto': 'http' } })
      expect(http.headers.location).to.equal(`http://${CIDV1}.ipfs.${H}/`)
    })
    it('answers an invalid CID with the path error, without a redirect', async () => {
      const res = await gw.get('/ipfs/QmInvalidCID', { headers: onH })
      expect(res.status).to.equal(400)
      expect(res.text).to.include('invalid path "/ipfs/QmInvalidCID"')
    })
  })

  describe('content on subdomains', () => {
    it('serves the CID at the root of its subdomain', async () => {
      const res = await gw.get('/', { headers: { Host: `${CIDV1}.ipfs.${H}` } })
      expect(res.status).to.equal(200)
      expect(res.text).to.include('hello')
      expect(res.headers['x-ipfs-path']).to.equal(`/ipfs/${CIDV1}/`)
    })
    it('does not mount /ipfs/ on a subdomain', async () => {
      const res = await gw.get(`/ipfs/${CIDV1}/`, { headers: { Host: `${DIR_V1}.ipfs.${H}` } })
      expect(res.status).to.equal(404)
    })
    it('serves a directory named ipfs inside the content root', async () => {
      const res = await gw.get('/ipfs/file.txt', { headers: { Host: `${TESTDIR}.ipfs.${H}` } })
      expect(res.text).to.equal('I am a txt file\n')
    })
    it('accepts a base36 CID label that fits in a DNS label', async () => {
      const b36 = CID.parse(CIDV1).toString(base36)
      const res = await gw.get('/', { headers: { Host: `${b36}.ipfs.${H}` } })
      expect(res.status).to.equal(200)
    })
  })

  describe('URI router (?uri=)', () => {
    it('redirects ipfs:// URIs to the path, before any subdomain logic', async () => {
      const res = await gw.get('/ipfs/?uri=ipfs%3A%2F%2FQmXoypizjW3WknFiJnKLwHCnL72vedxjQkDDP1mXWo6uco%2Fwiki%2FDiego_Maradona.html', { headers: onH })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal('/ipfs/QmXoypizjW3WknFiJnKLwHCnL72vedxjQkDDP1mXWo6uco/wiki/Diego_Maradona.html')
    })
    it('redirects ipns:// URIs', async () => {
      const res = await gw.get('/ipns/?uri=ipns%3A%2F%2Fen.wikipedia-on-ipfs.example.org', { headers: onH })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal('/ipns/en.wikipedia-on-ipfs.example.org')
    })
    it('rejects other schemes', async () => {
      const res = await gw.get('/ipfs/?uri=https%3A%2F%2Fexample.org')
      expect(res.status).to.equal(400)
      expect(res.text).to.include('uri query parameter scheme must be ipfs or ipns')
    })
  })

  describe('DNS label length limit', () => {
    it('400 for a CID too long for a DNS label, on the path and on the subdomain', async () => {
      const a = await gw.get(`/ipfs/${TOO_LONG}/`, { headers: onH })
      expect(a.status).to.equal(400)
      expect(a.text).to.include('CID incompatible with DNS label length limit of 63')
      const b = await gw.get('/', { headers: { Host: `${TOO_LONG}.ipfs.${H}` } })
      expect(b.status).to.equal(400)
      expect(b.text).to.include('CID incompatible with DNS label length limit of 63')
    })
    it('uses base36 when that fits in 63 characters', async () => {
      const cid = CID.parse(DIR_V1)
      const long = cid.toString()
      expect(long.length).to.be.at.most(63)
      const res = await gw.get(`/ipfs/${DIR_V0}/hello-CIDv1`, { headers: onH })
      expect(res.headers.location).to.equal(`http://${DIR_V1}.ipfs.${H}/hello-CIDv1`)
    })
  })

  describe('X-Forwarded-Host', () => {
    it('an unknown host without DNSLink is a path gateway', async () => {
      const res = await gw.get(`/ipfs/${CIDV1}`, { headers: { Host: 'fake.domain.com' } })
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('hello\n')
    })
    it('X-Forwarded-Host names the subdomain gateway (with X-Forwarded-Proto)', async () => {
      const base = { Host: 'fake.domain.com', 'X-Forwarded-Host': H }
      expect((await gw.get(`/ipfs/${CIDV1}`, { headers: base })).headers.location).to.equal(`http://${CIDV1}.ipfs.${H}/`)
      expect((await gw.get(`/ipfs/${CIDV1}`, { headers: { ...base, 'X-Forwarded-Proto': 'https' } })).headers.location).to.equal(`https://${CIDV1}.ipfs.${H}/`)
      expect((await gw.get(`/ipfs/${CIDV1}`, { headers: { ...base, 'X-Forwarded-Proto': 'http' } })).headers.location).to.equal(`http://${CIDV1}.ipfs.${H}/`)
    })
  })

  describe('IPNS keys', () => {
    for (const [label, key] of [['RSA', RSA], ['Ed25519', ED]] as const) {
      it(`${label}: /ipns/<base58> and /ipns/<base36> redirect to the libp2p-key base36 subdomain`, async () => {
        const b36 = libp2pKey(key)
        const a = await gw.get(`/ipns/${key}`, { headers: onH })
        expect(a.status).to.equal(301)
        expect(a.headers.location).to.equal(`http://${b36}.ipns.${H}/`)
        const b = await gw.get(`/ipns/${b36}`, { headers: onH })
        expect(b.headers.location).to.equal(`http://${b36}.ipns.${H}/`)
      })
      it(`${label}: the key subdomain serves the record's content`, async () => {
        const res = await gw.get('/', { headers: { Host: `${libp2pKey(key)}.ipns.${H}` } })
        expect(res.status).to.equal(200)
        expect(res.text).to.equal('hello\n')
      })
      it(`${label}: a dag-pb CID of the key is redirected to the libp2p-key CID`, async () => {
        const res = await gw.get('/', { headers: { Host: `${dagPbOfKey(key)}.ipns.${H}` } })
        expect(res.status).to.equal(301)
        expect(res.headers.location).to.equal(`http://${libp2pKey(key)}.ipns.${H}/`)
      })
    }
    it('uses the expected Ed25519 base36 name', async () => {
      const res = await gw.get(`/ipns/${ED}`, { headers: onH })
      expect(res.headers.location).to.equal(`http://${ED_B36}.ipns.${H}/`)
    })
  })

  describe('DNSLink names', () => {
    it('inlines DNSLink names into one label (- → --, . → -)', async () => {
      expect(inlineDnslink('en.wikipedia-on-ipfs.example.org')).to.equal('en-wikipedia--on--ipfs-example-org')
      expect(uninlineDnslink('dnslink--test-example-org')).to.equal('dnslink-test.example.org')
      const res = await gw.get('/ipns/en.wikipedia-on-ipfs.example.org/wiki/', { headers: onH })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal(`http://en-wikipedia--on--ipfs-example-org.ipns.${H}/wiki/`)
      const https = await gw.get('/ipns/en.wikipedia-on-ipfs.example.org/wiki/', { headers: { ...onH, 'X-Forwarded-Proto': 'https' } })
      expect(https.headers.location).to.equal(`https://en-wikipedia--on--ipfs-example-org.ipns.${H}/wiki/`)
    })
    for (const host of ['dnslink-test.example.org', 'dnslink--test-example-org']) {
      it(`serves ${host}.ipns.{h}`, async () => {
        const res = await gw.get('/', { headers: { Host: `${host}.ipns.${H}` } })
        expect(res.status).to.equal(200)
        expect(res.text).to.equal('hello\n')
      })
    }
    for (const host of ['dnslink-over-ipns.example.org', 'dnslink--over--ipns-example-org', 'dnslink-over-ipns-cidv1.example.org', 'dnslink--over--ipns--cidv1-example-org']) {
      it(`resolves DNSLink → IPNS → /ipfs for ${host}.ipns.{h}`, async () => {
        const res = await gw.get('/', { headers: { Host: `${host}.ipns.${H}` } })
        expect(res.status).to.equal(200)
        expect(res.text).to.equal('hello\n')
      })
    }
  })

  describe('proxy mode', () => {
    it('serves absolute-form requests', async () => {
      const a = await gw.get('', { target: `http://${CIDV1}.ipfs.${H}/` })
      expect(a.status).to.equal(200)
      expect(a.text).to.include('hello')
      const b = await gw.get('', { target: `http://${H}/ipfs/${CIDV0}/` })
      expect(b.status).to.equal(301)
      expect(b.headers.location).to.equal(`http://${CIDV0TO1}.ipfs.${H}/`)
      const c = await gw.get('', { target: `http://${TESTDIR}.ipfs.${H}/ipfs/file.txt` })
      expect(c.text).to.equal('I am a txt file\n')
    })
    it('serves requests through a CONNECT tunnel', async () => {
      const a = await requestViaConnect(gw.port, `${CIDV1}.ipfs.${H}`, '/')
      expect(a.status).to.equal(200)
      expect(a.text).to.include('hello')
      const b = await requestViaConnect(gw.port, H, `/ipfs/${CIDV0}/`)
      expect(b.status).to.equal(301)
      expect(b.headers.location).to.equal(`http://${CIDV0TO1}.ipfs.${H}/`)
      const c = await requestViaConnect(gw.port, `${TESTDIR}.ipfs.${H}`, '/ipfs/file.txt')
      expect(c.text).to.equal('I am a txt file\n')
    })
  })

  describe('Gateway.PublicGateways', () => {
    it('localhost is a subdomain gateway by default', async () => {
      const res = await gw.get(`/ipfs/${CIDV1}`, { headers: { Host: `localhost:${gw.port}` } })
      expect(res.status).to.equal(301)
      expect(res.headers.location).to.equal(`http://${CIDV1}.ipfs.localhost:${gw.port}/`)
    })
    it('a known gateway 404s paths it does not serve', async () => {
      const res = await gw.get('/something', { headers: onH })
      expect(res.status).to.equal(404)
      expect(res.text).to.equal('404 page not found\n')
    })
  })
})
