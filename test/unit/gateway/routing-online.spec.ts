// The routing API over two online nodes on loopback: B's gateway finds what A provides, A itself, and
// an IPNS record put on B reaches A through the DHT (routing API and /ipns/ paths).
import http from 'node:http'
import type net from 'node:net'
import { expect } from 'chai'
import { generateKeyPair } from '@libp2p/crypto/keys'
import type { Libp2p } from '@libp2p/interface'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { createIPNSRecord, marshalIPNSRecord } from 'ipns'
import { base36 } from 'multiformats/bases/base36'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'
import { createGatewayApp } from '../../../server/gateway/index.js'
import { request, type GatewayResponse } from './helpers.js'

interface OnlineGateway { node: TestNode, libp2p: Libp2p, server: http.Server, port: number }

async function onlineGateway (): Promise<OnlineGateway> {
  const config = defaultConfig(identityOf(await generateIdentity()))
  ;(config.Addresses as Record<string, unknown>).Swarm = ['/ip4/127.0.0.1/tcp/0']
  config.Bootstrap = []
  ;(config.Routing as Record<string, unknown>).DelegatedRouters = []
  const node = await createTestNode({ plugins: [], online: true, config })
  const server = http.createServer(createGatewayApp({ container: node.container, dnslink: {} }).callback())
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return { node, libp2p: node.container.cradle.libp2p as Libp2p, server, port: (server.address() as net.AddressInfo).port }
}

async function stop (g: OnlineGateway | undefined): Promise<void> {
  if (g == null) return
  g.server.closeAllConnections()
  await new Promise<void>(resolve => g.server.close(() => resolve()))
  await g.node.stop()
}

/** The kad-dht's routing table (js kad-dht keeps loopback peers out of it by default). */
const routingTable = (l: Libp2p): { add: (id: unknown) => Promise<void>, size: number } =>
  (l.services as Record<string, { routingTable: { add: (id: unknown) => Promise<void>, size: number } }>).dht.routingTable

async function put (g: OnlineGateway, path: string, body: Uint8Array, type: string): Promise<GatewayResponse> {
  return await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: g.port, method: 'PUT', path, headers: { 'Content-Type': type }, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const b = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b, text: b.toString(), trailers: res.trailers })
      })
    })
    req.on('error', reject)
    req.end(Buffer.from(body))
  })
}

describe('gateway: routing API online (two nodes)', function () {
  this.timeout(60_000)
  let a: OnlineGateway
  let b: OnlineGateway
  let cid: CID
  let lonelyProviders: GatewayResponse

  before(async () => {
    a = await onlineGateway()
    b = await onlineGateway()
    // before any DHT peer: lookups answer at once (as go-libp2p-kad-dht with an empty table)
    const started = Date.now()
    const lonely = await request(b.port, `/routing/v1/peers/${a.libp2p.peerId.toString()}`)
    expect(lonely.text).to.equal('{"Peers":[]}')
    const closest = await request(b.port, `/routing/v1/dht/closest/peers/${a.libp2p.peerId.toString()}`)
    expect(closest.status).to.equal(500)
    expect(closest.text).to.equal('delegate error: failed to find any peer in table')
    // a provide without peers still records A as a provider locally
    const local = CID.createV1(raw.code, await sha256.digest(crypto.getRandomValues(new Uint8Array(32))))
    await a.libp2p.contentRouting.provide(local, { signal: AbortSignal.timeout(300) }).catch(() => {})
    lonelyProviders = await request(a.port, `/routing/v1/providers/${local.toString()}`)
    expect(Date.now() - started).to.be.below(5000)

    await b.libp2p.dial(a.libp2p.getMultiaddrs()[0])
    await routingTable(b.libp2p).add(a.libp2p.peerId)
    await routingTable(a.libp2p).add(b.libp2p.peerId)
    cid = CID.createV1(raw.code, await sha256.digest(crypto.getRandomValues(new Uint8Array(32))))
    await a.libp2p.contentRouting.provide(cid, { signal: AbortSignal.timeout(10_000) })
  })

  after(async () => {
    await stop(a)
    await stop(b)
  })

  it('GET /routing/v1/providers/{cid} on B lists A with its addresses', async () => {
    const res = await request(b.port, `/routing/v1/providers/${cid.toString()}`)
    expect(res.status).to.equal(200)
    expect(res.headers['content-type']).to.equal('application/json')
    expect(res.headers['cache-control']).to.equal('public, max-age=300, stale-while-revalidate=172800, stale-if-error=172800')
    const addrs = a.libp2p.getMultiaddrs().map(m => m.decapsulateCode(421).toString())
    expect(res.text).to.equal(`{"Providers":[{"Addrs":${JSON.stringify(addrs)},"ID":"${a.libp2p.peerId.toString()}","Schema":"peer"}]}`)
  })

  it('the same as NDJSON, and filtered out by filter-addrs', async () => {
    const res = await request(b.port, `/routing/v1/providers/${cid.toString()}`, { headers: { Accept: 'application/x-ndjson' } })
    expect(res.status).to.equal(200)
    expect(res.headers['content-type']).to.equal('application/x-ndjson')
    expect(res.headers['cache-control']).to.equal('public, max-age=300, stale-while-revalidate=172800, stale-if-error=172800')
    const lines = res.text.split('\n')
    expect(lines).to.have.length(2)
    expect(lines[1]).to.equal('')
    expect(JSON.parse(lines[0])).to.include({ ID: a.libp2p.peerId.toString(), Schema: 'peer' })
    const none = await request(b.port, `/routing/v1/providers/${cid.toString()}?filter-addrs=udp`)
    expect(none.text).to.equal('{"Providers":[]}')
  })

  it('A lists itself: from its provider store while it has no DHT peer, then through the DHT', async () => {
    expect(lonelyProviders.status).to.equal(200)
    expect(JSON.parse(lonelyProviders.text).Providers.map((p: { ID: string }) => p.ID)).to.deep.equal([a.libp2p.peerId.toString()])
    const res = await request(a.port, `/routing/v1/providers/${cid.toString()}`)
    expect(res.status).to.equal(200)
    expect(JSON.parse(res.text).Providers.map((p: { ID: string }) => p.ID)).to.deep.equal([a.libp2p.peerId.toString()])
  })

  it('GET /routing/v1/peers/{peer-id} on B finds A (peer ID or libp2p-key CID)', async () => {
    for (const id of [a.libp2p.peerId.toString(), a.libp2p.peerId.toCID().toString(base36)]) {
      const res = await request(b.port, `/routing/v1/peers/${id}`)
      expect(res.status).to.equal(200)
      const { Peers } = JSON.parse(res.text)
      expect(Peers).to.have.length(1)
      expect(Peers[0].ID).to.equal(a.libp2p.peerId.toString())
      expect(Peers[0].Schema).to.equal('peer')
      expect(Peers[0].Addrs).to.include(a.libp2p.getMultiaddrs()[0].decapsulateCode(421).toString())
    }
  })

  it('GET /routing/v1/dht/closest/peers/{key} on B lists A', async () => {
    const res = await request(b.port, `/routing/v1/dht/closest/peers/${cid.toString()}`)
    expect(res.status).to.equal(200)
    const { Peers } = JSON.parse(res.text)
    expect(Peers.map((p: { ID: string }) => p.ID)).to.include(a.libp2p.peerId.toString())
  })

  it('an IPNS record PUT on B is stored there and found by A through the DHT', async () => {
    const key = await generateKeyPair('Ed25519')
    const name = peerIdFromPrivateKey(key).toCID().toString(base36)
    const record = marshalIPNSRecord(await createIPNSRecord(key, `/ipfs/${cid.toString()}`, 1, 3_600_000))
    const res = await put(b, `/routing/v1/ipns/${name}`, record, 'application/vnd.ipfs.ipns-record')
    expect(res.status).to.equal(200)
    for (const g of [b, a]) {
      const got = await request(g.port, `/routing/v1/ipns/${name}`)
      expect(got.status).to.equal(200)
      expect(got.headers['content-type']).to.equal('application/vnd.ipfs.ipns-record')
      expect(Buffer.compare(got.body, Buffer.from(record))).to.equal(0)
    }
    // A's gateway resolves the name through the DHT too (kad-dht validates /ipns/ records)
    const viaPath = await request(a.port, `/ipns/${name}?format=ipns-record`)
    expect(viaPath.status).to.equal(200)
    expect(Buffer.compare(viaPath.body, Buffer.from(record))).to.equal(0)
  })
})
