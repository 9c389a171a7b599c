// gateway.md §2.12: DNSLink gateway (Host names with a DNSLink record), and how DNSLink answers are
// configured (an injectable map or function for tests; IPFS_NS_MAP, then DNS, by default).
import { expect } from 'chai'
import { createDnslinkLookup, parseDnslinkTxt } from '../../../server/gateway/dnslink.js'
import type { DnsResolver } from '../../../core/dns/index.js'
import { dnslinkYaml, startGateway, type TestGateway } from './helpers.js'

const SUBDOMAIN_KEY_RECORD = 'subdomain_gateway/12D3KooWLQzUv2FHWGVPXTXSZpdHs7oHbXub2G5WC8Tx4NQhyd2d.ipns-record'
const D = 'bafybeig6ka5mlwkl4subqhaiatalkcleo4jgnr3hqwvpmsqfca27cijp3i'

describe('gateway: DNSLink hosts (§2.12)', () => {
  let gw: TestGateway
  before(async () => {
    gw = await startGateway({
      cars: ['gateway-cache/fixtures.car', 'dir_listing/fixtures.car', 'subdomain_gateway/fixtures.car'],
      records: [SUBDOMAIN_KEY_RECORD],
      dnslink: {
        ...dnslinkYaml('dir_listing/dnslink.yml'),
        ...dnslinkYaml('gateway-cache/dnslink.yml'),
        ...dnslinkYaml('dnslink_ipns/dnslink.yml'),
        'loop-a.example.org': '/ipns/loop-b.example.org',
        'loop-b.example.org': '/ipns/loop-a.example.org'
      }
    })
  })
  after(async () => { await gw.stop() })

  it('serves a DNSLink value with a sub-path, appending the request path', async () => {
    const res = await gw.get('/root3/root4/index.html', { headers: { Host: 'dnslink-subpath.example.org' } })
    expect(res.status).to.equal(200)
    expect(res.text).to.equal('hello\n')
    expect(res.headers['x-ipfs-path']).to.equal('/ipns/dnslink-subpath.example.org/root3/root4/index.html')
  })

  for (const host of ['dnslink-over-ipns.example.org', 'dnslink-over-ipns-cidv1.example.org']) {
    it(`resolves DNSLink → IPNS → /ipfs on ${host}`, async () => {
      const res = await gw.get('/', { headers: { Host: host } })
      expect(res.status).to.equal(200)
      expect(res.text).to.equal('hello\n')
    })
  }

  it('redirects a directory without its trailing slash relative to the host', async () => {
    const res = await gw.get('/%C4%85/%C4%99', { headers: { Host: 'dnslink-dir-listing.example.org' } })
    expect(res.status).to.equal(301)
    expect(res.headers.location).to.equal('/%C4%85/%C4%99/')
  })

  it('does not apply the /ipns/<base58> canonical redirect on DNSLink hosts', async () => {
    const res = await gw.get('/ipns/12D3KooWLQzUv2FHWGVPXTXSZpdHs7oHbXub2G5WC8Tx4NQhyd2d', { headers: { Host: 'dnslink-dir-listing.example.org' } })
    expect(res.status).not.to.equal(302)
  })

  it('serves /ipns/<dnslink name> on the path gateway too', async () => {
    const res = await gw.get('/ipns/dnslink-subpath.example.org/root3/root4/index.html')
    expect(res.status).to.equal(200)
    expect(res.text).to.equal('hello\n')
    expect(res.headers['cache-control'] ?? 'public, max-age').to.match(/^public, max-age/)
  })

  it('ends a DNSLink loop with an error', async () => {
    const res = await gw.get('/', { headers: { Host: 'loop-a.example.org' } })
    expect(res.status).to.equal(400)
    expect(res.text).to.include('recursion limit')
  })

  it('a name without DNSLink is a 500 on /ipns/', async () => {
    const res = await gw.get('/ipns/no-dnslink.example.org/')
    expect(res.status).to.equal(500)
    expect(res.text).to.include('failed to resolve /ipns/no-dnslink.example.org/')
  })

  it('/ipns/<name that is no IPNS name> fails with boxo namesys texts, as Kubo 0.40.1\'s gateway (checked live)', async () => {
    const missing = 'failed: could not resolve name: DNSLink lookup could not find a TXT record (https://docs.ipfs.tech/concepts/dnslink/)'
    // any miekg/dns domain name goes to DNSLink: a dotted name, one word, a CID of another codec
    for (const name of ['no-dnslink.example.org', 'garbage', 'bafkqaaa']) {
      const res = await gw.get(`/ipns/${name}`)
      expect(res.status).to.equal(500)
      expect(res.text).to.equal(`failed to resolve /ipns/${name}: DNSLink lookup for "${name}." ${missing}\n`)
    }
    // no domain name (an empty label, a label over 63 bytes): cannot resolve; a long CID of another codec: the hint
    for (const name of ['a..b', 'a'.repeat(64)]) {
      const res = await gw.get(`/ipns/${name}`)
      expect(res.status).to.equal(500)
      expect(res.text).to.equal(`failed to resolve /ipns/${name}: cannot resolve: "/ipns/${name}"\n`)
    }
    const { sha512 } = await import('multiformats/hashes/sha2')
    const { CID } = await import('multiformats/cid')
    const long = CID.createV1(0x70, await sha512.digest(Uint8Array.from([1]))).toString()
    expect((await gw.get(`/ipns/${long}`)).text).to.match(/: peer ID represented as CIDv1 require libp2p-key multicodec: retry with \/ipns\/k/)
  })

  it('an unknown host without DNSLink falls back to the path gateway', async () => {
    const res = await gw.get(`/ipfs/${D}/`, { headers: { Host: 'unknown.example.net' } })
    expect(res.status).to.equal(200)
    expect(res.text).to.include('Index of')
  })

  describe('configuring DNSLink answers', () => {
    it('reads TXT values', () => {
      expect(parseDnslinkTxt('dnslink=/ipfs/bafy123')).to.equal('/ipfs/bafy123')
      expect(parseDnslinkTxt('dnslink=/ipns/example.org/a')).to.equal('/ipns/example.org/a')
      expect(parseDnslinkTxt('v=spf1 -all')).to.equal(undefined)
      expect(parseDnslinkTxt('dnslink=https://example.org')).to.equal(undefined)
    })
    it('a map answers only its names (no DNS), case-insensitively and with or without the final dot', async () => {
      const lookup = createDnslinkLookup({ 'Example.org.': 'dnslink=/ipfs/bafyabc' }, dnsOf({ 'other.example.org': '/ipfs/bafyother' }))
      expect(await lookup('example.org')).to.deep.equal({ value: '/ipfs/bafyabc' })
      expect(await lookup('other.example.org')).to.equal(undefined)
    })
    it('by default answers IPFS_NS_MAP names first, then asks DNS', async () => {
      const lookup = createDnslinkLookup(undefined, dnsOf({ 'c.example': '/ipfs/bafyc', 'a.example': '/ipfs/bafydns' }), { IPFS_NS_MAP: 'a.example:/ipfs/bafyx,b.example:/ipns/a.example' })
      expect(await lookup('a.example')).to.deep.equal({ value: '/ipfs/bafyx' })
      expect(await lookup('b.example')).to.deep.equal({ value: '/ipns/a.example' })
      expect(await lookup('c.example')).to.deep.equal({ value: '/ipfs/bafyc' })
      expect(await lookup('d.example')).to.equal(undefined)
    })
  })

  describe('Gateway.NoDNSLink', () => {
    let off: TestGateway
    before(async () => {
      off = await startGateway({ cars: ['gateway-cache/fixtures.car'], config: { 'Gateway.NoDNSLink': true }, dnslink: dnslinkYaml('gateway-cache/dnslink.yml') })
    })
    after(async () => { await off.stop() })
    it('ignores DNSLink hosts', async () => {
      const res = await off.get('/root3/root4/index.html', { headers: { Host: 'dnslink-subpath.example.org' } })
      expect(res.status).to.equal(404)
    })
  })
})

/** A DNS resolver answering DNSLink from a table (and failing, as boxo does, for other names). */
function dnsOf (table: Record<string, string>): DnsResolver {
  return {
    txt: async () => ({ texts: [] }),
    dnslink: async (domain) => {
      const value = table[domain]
      if (value == null) throw new Error('could not resolve name')
      return { value }
    }
  }
}
