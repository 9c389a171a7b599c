// A Helia peer (npm `helia`) run as its own process, so that it can live in a network namespace: the test
// drives it with one JSON request per line on stdin and reads one JSON answer per line on stdout.
// Only what tests ask for is configured (no public bootstrap, no delegated routing, no HTTP gateways):
// TCP (+ QUIC when @chainsafe/libp2p-quic is installed), noise, yamux, identify, ping, bitswap, optional kad-dht,
// optional js-libp2p gossipsub (signed messages, as Kubo's).
// argv: JSON { host: '127.0.0.1', dht?: 'wan' | 'lan' | 'none', pubsub?: boolean }
// requests: { id, op: 'info' | 'dial' | 'hangup' | 'peers' | 'add' | 'cat' | 'ping' | 'provide' | 'findprovs' |
//   'subscribe' | 'publish' | 'messages' | 'subscribers' | 'stop', ... }
import { createInterface } from 'node:readline'
import { createHeliaLight } from 'helia'
import { withLibp2pLight } from '@helia/libp2p'
import { withBitswap } from '@helia/bitswap'
import { unixfs } from '@helia/unixfs'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { identify, identifyPush } from '@libp2p/identify'
import { ping } from '@libp2p/ping'
import { peerIdFromCID, peerIdFromString } from '@libp2p/peer-id'
import { multiaddr } from '@multiformats/multiaddr'
import { MemoryBlockstore } from 'blockstore-core'
import { MemoryDatastore } from 'datastore-core'
import { CID } from 'multiformats/cid'

interface Init { host?: string, dht?: 'wan' | 'lan' | 'none', pubsub?: boolean }
const init: Init = JSON.parse(process.argv[2] ?? '{}')
const host = init.host ?? '127.0.0.1'

const transports: any[] = [tcp()]
const listen = [`/ip4/${host}/tcp/0`]
try {
  const { quic } = await import('@chainsafe/libp2p-quic' as string)
  transports.push(quic())
  listen.push(`/ip4/${host}/udp/0/quic-v1`)
} catch {}

const services: Record<string, any> = { identify: identify(), identifyPush: identifyPush(), ping: ping() }
if (init.dht != null && init.dht !== 'none') {
  const { kadDHT, passthroughMapper } = await import('@libp2p/kad-dht')
  services.dht = kadDHT({ protocol: init.dht === 'lan' ? '/ipfs/lan/kad/1.0.0' : '/ipfs/kad/1.0.0', clientMode: false, peerInfoMapper: passthroughMapper })
}
if (init.pubsub === true) {
  const { gossipsub } = await import('@libp2p/gossipsub')
  services.pubsub = gossipsub({ allowPublishToZeroTopicPeers: true, globalSignaturePolicy: 'StrictSign' })
}

const light = createHeliaLight({ blockstore: new MemoryBlockstore(), datastore: new MemoryDatastore() })
const helia = withBitswap(withLibp2pLight(light, {
  addresses: { listen },
  transports,
  connectionEncrypters: [noise()],
  streamMuxers: [yamux()],
  services
}))
await helia.start()
const fs = unixfs(helia)
const libp2p = helia.libp2p as any

const out = (v: unknown): void => { process.stdout.write(JSON.stringify(v) + '\n') }
const info = (): unknown => ({ id: libp2p.peerId.toString(), addrs: libp2p.getMultiaddrs().map((a: any) => a.toString()), agent: helia.info?.name })

const ops: Record<string, (req: any) => Promise<unknown>> = {
  info: async () => info(),
  dial: async ({ addr }) => { await libp2p.dial(multiaddr(addr)); return true },
  hangup: async ({ peer }) => { await libp2p.hangUp(peerIdFromString(peer)); return true },
  peers: async () => libp2p.getConnections().map((c: any) => ({ peer: c.remotePeer.toString(), addr: c.remoteAddr.toString() })),
  add: async ({ data }) => (await fs.addBytes(Buffer.from(data, 'base64'), { rawLeaves: true, cidVersion: 1 } as any)).toString(),
  cat: async ({ cid, timeout }) => {
    const chunks: Uint8Array[] = []
    for await (const c of fs.cat(CID.parse(cid), { signal: AbortSignal.timeout(timeout ?? 30_000) })) chunks.push(c)
    return Buffer.concat(chunks).toString('base64')
  },
  ping: async ({ peer }) => await libp2p.services.ping.ping(peerIdFromString(peer)),
  agent: async ({ peer }) => {
    const p = await libp2p.peerStore.get(peerIdFromString(peer))
    const v = p.metadata.get('AgentVersion')
    return v == null ? null : new TextDecoder().decode(v)
  },
  provide: async ({ cid }) => { await helia.routing.provide(CID.parse(cid), { signal: AbortSignal.timeout(30_000) }); return true },
  findprovs: async ({ cid, timeout }) => {
    const found: string[] = []
    for await (const p of helia.routing.findProviders(CID.parse(cid), { signal: AbortSignal.timeout(timeout ?? 20_000) })) {
      const id = peerIdFromCID(p.id as any).toString()
      if (id !== libp2p.peerId.toString() && !found.includes(id)) found.push(id)
      if (found.length > 0) break
    }
    return found
  },
  // pubsub: messages of the topics subscribed to, as they came ({ from, data (base64), seqno (decimal) })
  subscribe: async ({ topic }) => { libp2p.services.pubsub.subscribe(topic); received.set(topic, received.get(topic) ?? []); return true },
  publish: async ({ topic, data }) => { await libp2p.services.pubsub.publish(topic, Buffer.from(data, 'base64')); return true },
  messages: async ({ topic }) => received.get(topic) ?? [],
  subscribers: async ({ topic }) => libp2p.services.pubsub.getSubscribers(topic).map((p: any) => p.toString()),
  stop: async () => { await helia.stop(); setTimeout(() => process.exit(0), 10); return true }
}

const received = new Map<string, Array<{ from?: string, data: string, seqno?: string }>>()
libp2p.services.pubsub?.addEventListener('message', (evt: CustomEvent<any>) => {
  const m = evt.detail
  received.get(m.topic)?.push({ from: m.from?.toString(), data: Buffer.from(m.data).toString('base64'), seqno: m.sequenceNumber?.toString() })
})

out({ ready: true, ...(info() as object) })
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue
  const req = JSON.parse(line)
  const op = ops[req.op]
  if (op == null) { out({ id: req.id, error: `unknown op ${String(req.op)}` }); continue }
  op(req).then(result => { out({ id: req.id, result }) }, (err: Error) => { out({ id: req.id, error: err.message ?? String(err) }) })
}
await helia.stop().catch(() => {})
process.exit(0)
