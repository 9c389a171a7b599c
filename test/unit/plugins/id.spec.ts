import { expect } from 'chai'
import { peerIdFromPrivateKey, peerIdFromString } from '@libp2p/peer-id'
import { generateKeyPair, publicKeyToProtobuf } from '@libp2p/crypto/keys'
import { multiaddr } from '@multiformats/multiaddr'
import { createTestNode, type TestNode, renderText } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { idPlugin } from '../../../plugins/id/index.js'
import { cleanAndTrim } from '../../../plugins/id/id.js'
import { AGENT_VERSION } from '../../../core/version.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'

const OFFLINE = "'ipfs id' cannot query information on remote peers without a running daemon; if you only want to convert --peerid-base, pass --offline option"

describe('id plugin', () => {
  describe('offline node', () => {
    let node: TestNode
    let selfId: string
    before(async () => {
      node = await createTestNode({ plugins: [idPlugin()] })
      selfId = peerIdFromPrivateKey(node.container.cradle.keystore.self()).toString()
    })
    after(async () => { await node.stop() })

    it('self: fields in Go order, Addresses and Protocols null without libp2p', async () => {
      const out = await node.invoke('id')
      expect(Object.keys(out)).to.deep.equal(['ID', 'PublicKey', 'Addresses', 'AgentVersion', 'Protocols'])
      expect(out.ID).to.equal(selfId).and.to.match(/^12D3KooW/)
      expect(out.PublicKey).to.have.length(48).and.to.match(/^CAESI/)
      expect(out.Addresses).to.equal(null)
      expect(out.Protocols).to.equal(null)
      expect(out.AgentVersion).to.equal(AGENT_VERSION)
    })

    it('PublicKey is the base64 protobuf public key', async () => {
      const out = await node.invoke('id')
      const key = node.container.cradle.keystore.self()
      expect(out.PublicKey).to.equal(Buffer.from(publicKeyToProtobuf(key.publicKey)).toString('base64'))
    })

    it('peerid-base: b58mh default, base36/k, base32/b give libp2p-key CIDs', async () => {
      const cid = peerIdFromString(selfId).toCID()
      expect((await node.invoke('id', { options: { 'peerid-base': 'v0' } })).ID).to.equal(selfId)
      expect((await node.invoke('id', { options: { 'peerid-base': 'base36' } })).ID).to.match(/^k51qzi5uqu5d/)
      expect((await node.invoke('id', { query: [['peerid-base', ['k']]] })).ID).to.equal((await node.invoke('id', { options: { 'peerid-base': 'base36' } })).ID)
      const b32 = (await node.invoke('id', { options: { 'peerid-base': 'base32' } })).ID
      expect(b32).to.match(/^bafzaa/).and.to.equal(cid.toString())
      expect((await node.invoke('id', { options: { 'peerid-base': 'b' } })).ID).to.equal(b32)
    })

    it('an unknown peerid-base fails as go-multibase does', async () => {
      expect((await rejection(node.invoke('id', { options: { 'peerid-base': 'base99' } }))).message).to.equal('unsupported multibase encoding: base99')
      expect((await rejection(node.invoke('id', { options: { 'peerid-base': '' } }))).message).to.equal('empty multibase encoding')
    })

    it('an undecodable peer ID: invalid peer id', async () => {
      expect((await rejection(node.invoke('id', { args: ['not-a-peer'] }))).message).to.equal('invalid peer id')
      // a CID that is not libp2p-key
      expect((await rejection(node.invoke('id', { args: ['bafkqaaa'] }))).message).to.equal('invalid peer id')
    })

    it('our own ID given as argument (in any form) answers for self', async () => {
      const b36 = peerIdFromString(selfId).toCID().toString(await import('multiformats/bases/base36').then(m => m.base36))
      const out = await node.invoke('id', { args: [b36] })
      expect(out.ID).to.equal(selfId)
      expect(out.AgentVersion).to.equal(AGENT_VERSION)
    })

    it('another peer on an offline node: Kubo’s error', async () => {
      const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
      expect((await rejection(node.invoke('id', { args: [other] }))).message).to.equal(OFFLINE)
    })

    it('another peer with --offline: what can be derived from the ID alone', async () => {
      const key = await generateKeyPair('Ed25519')
      const other = peerIdFromPrivateKey(key).toString()
      const out = await node.invoke('id', { args: [other], options: { offline: true } })
      expect(out).to.deep.equal({
        ID: other,
        PublicKey: Buffer.from(publicKeyToProtobuf(key.publicKey)).toString('base64'),
        Addresses: null,
        AgentVersion: '',
        Protocols: null
      })
      // converting the peer ID base is what --offline is for
      expect((await node.invoke('id', { args: [other], options: { offline: true, 'peerid-base': 'base36' } })).ID).to.match(/^k51/)
    })

    it('text: tab-indented JSON and two newlines', async () => {
      const out = await node.invoke('id')
      const text = await renderText(node, 'id')
      expect(text).to.equal(`{\n\t"ID": "${out.ID}",\n\t"PublicKey": "${out.PublicKey}",\n\t"Addresses": null,\n\t"AgentVersion": "${AGENT_VERSION}",\n\t"Protocols": null\n}\n\n`)
    })

    it('text: --format substitutes and unescapes \\n and \\t', async () => {
      const out = await node.invoke('id')
      expect(await renderText(node, 'id', { options: { format: '<id>\\t<aver>\\n' } })).to.equal(`${out.ID}\t${AGENT_VERSION}\n`)
      expect(await renderText(node, 'id', { query: [['f', ['<pubkey>|<addrs>|<protocols>']]] })).to.equal(`${out.PublicKey}||`)
      expect(await renderText(node, 'id', { options: { format: '' } })).to.equal('')
    })

    it('cleanAndTrim replaces control and format characters and caps at 128 runes', () => {
      expect(cleanAndTrim(' a\u0000b\u200ec ')).to.equal('a\uFFFDb\uFFFDc')
      expect(cleanAndTrim('x'.repeat(200))).to.have.length(128)
    })
  })

  describe('online nodes', function () {
    this.timeout(30_000)
    let a: TestNode
    let b: TestNode
    const config = async (): Promise<ReturnType<typeof defaultConfig>> => {
      const cfg = defaultConfig(identityOf(await generateIdentity()))
      ;(cfg.Addresses as Record<string, unknown>).Swarm = ['/ip4/127.0.0.1/tcp/0']
      cfg.Bootstrap = []
      ;(cfg.Routing as Record<string, unknown>).DelegatedRouters = []
      return cfg
    }
    before(async () => {
      a = await createTestNode({ plugins: [idPlugin()], online: true, config: await config() })
      b = await createTestNode({ plugins: [idPlugin()], online: true, config: await config() })
    })
    after(async () => {
      await a?.stop()
      await b?.stop()
    })

    it('self: sorted addresses ending in /p2p/<id>, sorted protocols', async () => {
      const out = await a.invoke('id')
      expect(out.Addresses).to.be.an('array').that.is.not.empty
      for (const addr of out.Addresses) {
        expect(addr).to.match(new RegExp(`^/ip4/127\\.0\\.0\\.1/tcp/\\d+/p2p/${out.ID}$`))
        expect(() => multiaddr(addr)).to.not.throw()
      }
      expect(out.Addresses).to.deep.equal([...out.Addresses].sort())
      expect(out.Protocols).to.include('/ipfs/id/1.0.0').and.to.include('/ipfs/ping/1.0.0')
      expect(out.Protocols).to.deep.equal([...out.Protocols].sort())
    })

    it('a remote peer: dials, identifies and answers from the peer store', async () => {
      const aOut = await a.invoke('id')
      const libp2p = b.container.cradle.libp2p
      if (libp2p == null) throw new Error('b is not online')
      await libp2p.peerStore.merge(peerIdFromString(aOut.ID), { multiaddrs: aOut.Addresses.map((s: string) => multiaddr(s)) })
      const out = await b.invoke('id', { args: [aOut.ID] })
      expect(out.ID).to.equal(aOut.ID)
      expect(out.PublicKey).to.equal(aOut.PublicKey)
      expect(out.AgentVersion).to.equal(AGENT_VERSION)
      expect(out.Protocols).to.include('/ipfs/id/1.0.0')
      expect(out.Addresses).to.include(aOut.Addresses[0])
    })

    it('a remote peer nobody knows: Kubo’s lookup-failure error', async () => {
      const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
      expect((await rejection(b.invoke('id', { args: [other] }))).message).to.equal(OFFLINE)
    })
  })
})
