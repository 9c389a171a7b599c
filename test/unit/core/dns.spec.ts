// core/dns and DNSLink names through DNS.Resolvers (a DNS-over-HTTPS server on loopback, test/helpers/doh.ts):
// per-suffix resolvers, DNS.MaxCacheTTL, boxo's DNSLink errors, and `name resolve` / `resolve` / `dns`-style
// lookups of /ipns/<domain> on a node.
import { expect } from 'chai'
import { createDnsResolver, unquoteTxt } from '../../../core/dns/index.js'
import { startDoh, type DohServer } from '../../helpers/doh.js'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { rejects } from '../../helpers/assert.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'

describe('core/dns', () => {
  let doh: DohServer
  let other: DohServer
  before(async () => {
    doh = await startDoh({ '_dnslink.example.org': ['dnslink=/ipfs/bafkqaaa'], '_dnslink.two.example.org': ['dnslink=/ipfs/bafkqaaa', 'dnslink=/ipns/example.org'], '_dnslink.junk.example.org': ['v=spf1 -all'] })
    other = await startDoh({ '_dnslink.example.net': ['dnslink=/ipns/example.org/sub'] })
  })
  after(async () => { await doh.close(); await other.close() })

  const config = (extra: Record<string, unknown> = {}): any => ({ DNS: { Resolvers: { '.': doh.url, 'example.net.': other.url }, ...extra } })

  it('asks the resolver of the longest matching suffix', async () => {
    const dns = createDnsResolver({ config: config() })
    expect(await dns.dnslink('example.org')).to.deep.equal({ value: '/ipfs/bafkqaaa', ttl: 60 })
    expect(await dns.dnslink('example.net')).to.deep.equal({ value: '/ipns/example.org/sub', ttl: 60 })
    expect(other.queries.get('_dnslink.example.net')).to.equal(1)
    expect(doh.queries.get('_dnslink.example.net')).to.equal(undefined)
  })

  it('fails with boxo\'s texts for missing and duplicate DNSLink records', async () => {
    const dns = createDnsResolver({ config: config() })
    await rejects(dns.dnslink('missing.example.org'), 'could not resolve name: DNSLink lookup could not find a TXT record (https://docs.ipfs.tech/concepts/dnslink/)')
    await rejects(dns.dnslink('junk.example.org'), 'could not resolve name: DNSLink lookup could not find a TXT record (https://docs.ipfs.tech/concepts/dnslink/)')
    await rejects(dns.dnslink('two.example.org'), 'could not resolve name: DNSLink lookup returned more than one IPFS content path; ask domain owner to remove duplicate TXT records')
  })

  it('caches answers for their TTL, capped by DNS.MaxCacheTTL (0s: no cache)', async () => {
    const cached = createDnsResolver({ config: config() })
    const before = doh.queries.get('_dnslink.example.org') ?? 0
    await cached.dnslink('example.org')
    await cached.dnslink('example.org')
    expect(doh.queries.get('_dnslink.example.org')).to.equal(before + 1)
    const uncached = createDnsResolver({ config: config({ MaxCacheTTL: '0s' }) })
    await uncached.dnslink('example.org')
    await uncached.dnslink('example.org')
    expect(doh.queries.get('_dnslink.example.org')).to.equal(before + 3)
  })

  it('unquotes TXT character strings', () => {
    expect(unquoteTxt('"dnslink=/ipfs/a" "bc"')).to.equal('dnslink=/ipfs/abc')
    expect(unquoteTxt('plain')).to.equal('plain')
  })

  describe('on a node', () => {
    let node: TestNode
    let cid: string
    before(async () => {
      const cfg = defaultConfig(identityOf(await generateIdentity()))
      cfg.DNS = { Resolvers: { '.': doh.url } }
      node = await createTestNode({ config: cfg })
      cid = (await node.invoke('add', { files: filesOf({ path: 'd/f.txt', content: 'dns' }), options: { 'cid-version': 1 } })).pop().Hash
      doh.records.set('_dnslink.site.example', [`dnslink=/ipfs/${cid}`])
      doh.records.set('_dnslink.alias.example', ['dnslink=/ipns/site.example/f.txt'])
    })
    after(async () => { await node.stop() })

    it('name resolve and resolve follow DNSLink (recursively, and one step with -r=false)', async () => {
      expect(await node.invoke('name/resolve', { args: ['site.example'] })).to.deep.equal({ Path: `/ipfs/${cid}` })
      expect(await node.invoke('name/resolve', { args: ['/ipns/alias.example'] })).to.deep.equal({ Path: `/ipfs/${cid}/f.txt` })
      expect(await node.invoke('name/resolve', { args: ['alias.example'], options: { recursive: false } })).to.deep.equal({ Path: '/ipns/site.example/f.txt' })
      const f = (await node.invoke('ls', { args: [cid] })).Objects[0].Links[0].Hash
      expect(await node.invoke('resolve', { args: ['/ipns/alias.example'] })).to.deep.equal({ Path: `/ipfs/${f}` })
      // boxo names the FQDN (Kubo 0.40.1: 'DNSLink lookup for "example.com." failed: ...'); any miekg/dns domain name
      // goes to DNSLink: one label, a CID that is no peer ID
      const missing = 'failed: could not resolve name: DNSLink lookup could not find a TXT record (https://docs.ipfs.tech/concepts/dnslink/)'
      await rejects(node.invoke('name/resolve', { args: ['nothing.example'] }), `DNSLink lookup for "nothing.example." ${missing}`)
      await rejects(node.invoke('name/resolve', { args: ['notaname'] }), `DNSLink lookup for "notaname." ${missing}`)
      await rejects(node.invoke('name/resolve', { args: ['bafkqaaa'] }), `DNSLink lookup for "bafkqaaa." ${missing}`)
    })

    it('cat reads /ipns/<domain>/<path>', async () => {
      expect(Buffer.from(await node.invoke('cat', { args: ['/ipns/alias.example'] })).toString()).to.equal('dns')
    })
  })
})
