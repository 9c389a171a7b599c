// name, resolve and pubsub commands on an offline in-memory node (Kubo core/commands/name, resolve.go,
// pubsub.go): publish rules (offline, sequence, TTL, V1+V2), resolve, get/put/inspect, errors.
import { expect } from 'chai'
import { unmarshalIPNSRecord } from 'ipns'
import { createTestNode, filesOf, renderText, type TestNode } from '../../helpers/node.js'
import { rejects } from '../../helpers/assert.js'
import { parseIpnsName, staticNameMap, type NameSystem } from '../../../core/namesys/index.js'
import { hexDump } from '../../../plugins/name/inspect.js'

describe('name', () => {
  let node: TestNode
  let cid: string
  let cid2: string
  before(async () => {
    node = await createTestNode()
    cid = (await node.invoke('add', { files: filesOf({ path: 'a', content: 'hello\n' }) }))[0].Hash
    cid2 = (await node.invoke('add', { files: filesOf({ path: 'b', content: 'world\n' }) }))[0].Hash
  })
  after(async () => { await node.stop() })

  // the record the node keeps (name get needs an online node, as Kubo's)
  const record = async (name = 'self'): Promise<Uint8Array> => {
    const raw = await (node.container.cradle.nameSystem as NameSystem).localRecord(parseIpnsName(name === 'self' ? selfName : name)!)
    if (raw == null) throw new Error('routing: not found')
    return Buffer.from(raw)
  }
  let selfName = ''

  it('refuses to publish offline without --allow-offline', async () => {
    await rejects(node.invoke('name/publish', { args: [cid] }), "can't publish while offline: pass `--allow-offline` to override or `--allow-delegated` if Ipns.DelegatedPublishers are set up")
    await rejects(node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true, 'allow-delegated': true } }), 'cannot use both --allow-offline and --allow-delegated flags')
    await rejects(node.invoke('name/publish', { args: [cid], options: { 'allow-delegated': true } }), 'no delegated publishers configured: add Ipns.DelegatedPublishers or use --allow-offline for local-only publishing')
  })

  it('publishes a V1+V2 record with a 5m TTL under the base36 name, and resolves it', async () => {
    const out = await node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true } })
    expect(out.Name).to.match(/^k51/)
    expect(out.Value).to.equal(`/ipfs/${cid}`)
    selfName = out.Name
    const rec = unmarshalIPNSRecord(await record())
    expect(rec.value).to.equal(`/ipfs/${cid}`)
    expect(rec.ttl).to.equal(5n * 60n * 1_000_000_000n)
    expect(rec.sequence).to.equal(0n)
    expect('signatureV1' in rec).to.equal(true)
    expect((await node.invoke('name/resolve', {})).Path).to.equal(`/ipfs/${cid}`)
    expect((await node.invoke('name/resolve', { args: [`/ipns/${selfName}`] })).Path).to.equal(`/ipfs/${cid}`)
    expect(await renderText(node, 'name/publish', { args: [cid], options: { 'allow-offline': true } })).to.equal(`Published to ${selfName}: /ipfs/${cid}\n`)
    expect(await renderText(node, 'name/publish', { args: [cid], options: { 'allow-offline': true, Q: true } })).to.equal(`${selfName}\n`)
  })

  it('bumps the sequence only when the value changes; --sequence must be higher', async () => {
    await node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true } })
    const before = unmarshalIPNSRecord(await record()).sequence
    await node.invoke('name/publish', { args: [cid2], options: { 'allow-offline': true } })
    expect(unmarshalIPNSRecord(await record()).sequence).to.equal(before + 1n)
    await rejects(node.invoke('name/publish', { args: [cid2], options: { 'allow-offline': true, sequence: Number(before) } }), 'sequence number must be greater than the current record sequence')
    await node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true, sequence: 100 } })
    expect(unmarshalIPNSRecord(await record()).sequence).to.equal(100n)
    expect((await node.invoke('name/resolve', { args: [selfName] })).Path).to.equal(`/ipfs/${cid}`)
  })

  it('takes --ttl, --lifetime and --v1compat=false (a V2-only record)', async () => {
    await node.invoke('name/publish', { args: [cid2], options: { 'allow-offline': true, ttl: '1m', lifetime: '2h', v1compat: false } })
    const rec = unmarshalIPNSRecord(await record())
    expect(rec.ttl).to.equal(60n * 1_000_000_000n)
    expect('signatureV1' in rec).to.equal(false)
    const eol = Date.parse(rec.validity)
    expect(eol - Date.now()).to.be.within(2 * 3600_000 - 60_000, 2 * 3600_000 + 1000)
    await rejects(node.invoke('name/publish', { args: [cid2], options: { 'allow-offline': true, lifetime: 'x' } }), 'error parsing lifetime option: time: invalid duration "x"')
  })

  it('publishes with another key, by name or peer ID, and fails for unknown keys', async () => {
    const key = await node.invoke('key/gen', { args: ['other'], options: { 'ipns-base': 'b58mh' } })
    const a = await node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true, key: 'other' } })
    const b = await node.invoke('name/publish', { args: [cid2], options: { 'allow-offline': true, key: key.Id } })
    expect(a.Name).to.equal(b.Name)
    expect((await node.invoke('name/resolve', { args: [a.Name] })).Path).to.equal(`/ipfs/${cid2}`)
    await rejects(node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true, key: 'nope' } }), 'no key by the given name was found')
  })

  it('publishes with a key given as its peer ID in either form, self included; an unknown peer ID fails (Kubo keylookup)', async () => {
    const other = (await node.invoke('key/list', { options: { l: true, 'ipns-base': 'base36' } })).Keys.find((k: { Name: string }) => k.Name === 'other').Id
    expect((await node.invoke('name/publish', { args: [cid2], options: { 'allow-offline': true, key: other } })).Name).to.equal(other)
    const self = (await node.invoke('key/list', { options: { l: true, 'ipns-base': 'b58mh' } })).Keys.find((k: { Name: string }) => k.Name === 'self').Id
    expect((await node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true, key: self } })).Name).to.equal(selfName)
    expect((await node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true, key: selfName } })).Name).to.equal(selfName)
    await rejects(node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true, key: '12D3KooWEY8cCHV4bJWD4eMGgfHUd4N7DtMmoV3k6Yz2mJwqnsjW' } }), 'no key by the given name or PeerID was found')
  })

  it('resolve -r=false stops after one step; name chains resolve recursively', async () => {
    const other = (await node.invoke('key/list', {})).Keys.find((k: { Name: string }) => k.Name === 'other').Id
    await node.invoke('name/publish', { args: [`/ipns/${other}`], options: { 'allow-offline': true, resolve: false } })
    expect((await node.invoke('name/resolve', { args: [selfName] })).Path).to.equal(`/ipfs/${cid2}`)
    expect((await node.invoke('name/resolve', { args: [selfName], options: { recursive: false } })).Path).to.equal(`/ipns/${other}`)
    expect((await node.invoke('resolve', { args: [`/ipns/${selfName}`], options: { recursive: false } })).Path).to.equal(`/ipns/${other}`)
    expect((await node.invoke('resolve', { args: [`/ipns/${selfName}`] })).Path).to.equal(`/ipfs/${cid2}`)
    expect(await node.invoke('name/resolve', { args: [selfName], options: { stream: true } })).to.deep.equal([{ Path: `/ipfs/${cid2}` }])
  })

  it('fails to resolve unknown names with Kubo\'s errors', async () => {
    await rejects(node.invoke('name/resolve', { args: ['k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8'] }), 'could not resolve name')
    // boxo (Kubo 0.40.1): an IPNS name, else a domain name (miekg/dns IsDomainName: labels of 1-63 bytes), else this hint
    // for a CID of another codec, else "cannot resolve" (a shorter CID or a single word goes to DNSLink: dns.spec)
    const { sha512 } = await import('multiformats/hashes/sha2')
    const { CID } = await import('multiformats/cid')
    const long = CID.createV1(0x70, await sha512.digest(Uint8Array.from([1]))).toString()
    expect(long.length).to.be.greaterThan(63)
    await rejects(node.invoke('name/resolve', { args: [long] }), /^peer ID represented as CIDv1 require libp2p-key multicodec: retry with \/ipns\/k/)
    await rejects(node.invoke('name/resolve', { args: ['a..b'] }), 'cannot resolve: "/ipns/a..b"')
    await rejects(node.invoke('name/resolve', { args: ['a'.repeat(64)] }), `cannot resolve: "/ipns/${'a'.repeat(64)}"`)
    // a domain name of up to 255 bytes goes to DNSLink; Go's resolver (Kubo's system DNS) finds no TXT record, without
    // asking, for a name it refuses (over 253 bytes with _dnslink., a space): Kubo 0.40.1's texts, checked live
    const missing = 'failed: could not resolve name: DNSLink lookup could not find a TXT record (https://docs.ipfs.tech/concepts/dnslink/)'
    const longest = [...Array(3).fill('a'.repeat(63)), 'b'.repeat(63)].join('.')
    expect(longest.length).to.equal(255)
    await rejects(node.invoke('name/resolve', { args: [longest] }), `DNSLink lookup for "${longest}." ${missing}`)
    await rejects(node.invoke('name/resolve', { args: [longest + '.'] }), `DNSLink lookup for "${longest}." ${missing}`)
    await rejects(node.invoke('name/resolve', { args: [longest.slice(1) + '.c'] }), `cannot resolve: "/ipns/${longest.slice(1)}.c"`)
    await rejects(node.invoke('name/resolve', { args: ['ex ample.com'] }), `DNSLink lookup for "ex ample.com." ${missing}`)
    await rejects(node.invoke('name/resolve', { args: [selfName], options: { 'dht-timeout': '-1s' } }), 'DHT timeout value must be >= 0')
  })

  it('routing put --allow-offline of a bad IPNS record fails with boxo\'s texts, as Kubo 0.40.1\'s offline router', async () => {
    await rejects(node.invoke('routing/put', { args: [`/ipns/${selfName}`], files: filesOf({ content: 'garbage' }), options: { 'allow-offline': true } }), 'record is malformed\nproto: cannot parse invalid wire-format data')
    const other = (await node.invoke('key/list', { options: { l: true } })).Keys.find((k: { Name: string }) => k.Name === 'other').Id
    await rejects(node.invoke('routing/put', { args: [`/ipns/${other}`], files: filesOf({ content: await record() }), options: { 'allow-offline': true } }), 'signature verification failed')
  })

  it('name get on an offline node fails as Kubo 0.40.1 (coreapi Routing().Get: ErrOffline)', async () => {
    await rejects(node.invoke('name/get', { args: [selfName] }), "this action must be run in online mode, try running 'ipfs daemon' first")
  })

  it('resolve --stream of a name no record is found for gives no entry and no error, as Kubo 0.40.1 (other errors stay)', async () => {
    expect(await node.invoke('name/resolve', { args: ['k51qzi5uqu5dlvj2baxnqndepeb86cbk3ng7n3i46uzyxzyqj2xjonzllnv0v8'], options: { stream: true } })).to.deep.equal([])
    await rejects(node.invoke('name/resolve', { args: ['a..b'], options: { stream: true } }), 'cannot resolve: "/ipns/a..b"')
  })

  it('puts a record only when it is valid and newer (or with --force)', async () => {
    const raw = await record()
    await rejects(node.invoke('name/put', { args: [selfName], files: filesOf({ content: raw }) }), "can't put while offline: pass `--allow-offline` to store locally or `--allow-delegated` if Ipns.DelegatedPublishers are set up")
    await rejects(node.invoke('name/put', { args: [selfName], files: filesOf({ content: raw.subarray(0, 20) }), options: { 'allow-offline': true } }), /^invalid IPNS record: record is malformed/)
    const seq = unmarshalIPNSRecord(raw).sequence
    // the same bytes are accepted again
    expect(await node.invoke('name/put', { args: [selfName], files: filesOf({ content: raw }), options: { 'allow-offline': true } })).to.deep.equal({ Name: selfName, Value: unmarshalIPNSRecord(raw).value })
    const other = (await node.invoke('key/list', {})).Keys.find((k: { Name: string }) => k.Name === 'other').Id
    await rejects(node.invoke('name/put', { args: [other], files: filesOf({ content: raw }), options: { 'allow-offline': true } }), 'record validation failed: signature verification failed')
    await node.invoke('name/publish', { args: [cid], options: { 'allow-offline': true } })
    await rejects(node.invoke('name/put', { args: [selfName], files: filesOf({ content: raw }), options: { 'allow-offline': true } }), `existing IPNS record has sequence ${seq + 1n} >= new record sequence ${seq}, use 'ipfs name put --force' to skip this check`)
    await node.invoke('name/put', { args: [selfName], files: filesOf({ content: raw }), options: { 'allow-offline': true, force: true } })
    expect(unmarshalIPNSRecord(await record()).sequence).to.equal(seq)
  })

  it('inspects a record, verified or not, as Kubo prints it', async () => {
    const raw = await record()
    const out = await node.invoke('name/inspect', { files: filesOf({ content: raw }), options: { verify: selfName } })
    expect(out.SignatureType).to.equal('V1+V2')
    expect(out.PbSize).to.equal(raw.length)
    expect(out.Validation).to.deep.equal({ Valid: true, Reason: '', Name: selfName })
    expect(out.Entry.TTL).to.equal(5 * 60 * 1e9)
    const text = await renderText(node, 'name/inspect', { files: filesOf({ content: raw }), options: { dump: false } })
    expect(text).to.match(/^Value:          "\/ip[fn]s\/\w+"\nValidity Type:  0\nValidity:       "[^"]+"\nSequence:       \d+\nTTL:            5m0s\nProtobuf Size:  \d+\nSignature Type: V1\+V2\n\nThis record was not verified\. Pass '--verify k51\.\.\.' to verify\.\n$/)
    expect(hexDump(Buffer.from('0123456789abcdefXYZ'))).to.equal('00000000  30 31 32 33 34 35 36 37  38 39 61 62 63 64 65 66  |0123456789abcdef|\n00000010  58 59 5a                                          |XYZ|\n')
  })

  it('name pubsub: disabled on this node', async () => {
    expect(await node.invoke('name/pubsub/state', {})).to.deep.equal({ Enabled: false })
    expect(await renderText(node, 'name/pubsub/state', {})).to.equal('disabled\n')
    await rejects(node.invoke('name/pubsub/subs', {}), 'IPNS pubsub subsystem is not enabled')
  })

  it('resolve: /ipfs/ paths to their last CID, keeping the CID base of the input', async () => {
    const dir = (await node.invoke('add', { files: filesOf({ path: 'd/f', content: 'x' }), options: { 'cid-version': 1 } })).pop().Hash
    const f = (await node.invoke('ls', { args: [dir] })).Objects[0].Links[0].Hash
    expect((await node.invoke('resolve', { args: [`/ipfs/${dir}/f`] })).Path).to.equal(`/ipfs/${f}`)
    expect((await node.invoke('resolve', { args: [`${dir}/f`] })).Path).to.equal(`/ipfs/${f}`)
  })

  it('pubsub: disabled without Pubsub.Enabled', async () => {
    await rejects(node.invoke('pubsub/ls', {}), 'experimental pubsub feature not enabled, run daemon with --enable-pubsub-experiment to use')
  })
})

describe('IPFS_NS_MAP', () => {
  it('reads Kubo\'s name:value pairs', () => {
    expect([...staticNameMap({ IPFS_NS_MAP: 'a.example:/ipfs/bafyx,b.example:/ipns/a.example' })]).to.deep.equal([['a.example', '/ipfs/bafyx'], ['b.example', '/ipns/a.example']])
    expect(staticNameMap({}).size).to.equal(0)
  })
})
