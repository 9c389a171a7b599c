// N bare libp2p peers in one process (TCP, noise, yamux, identify, ping) that dial a target and stay
// connected: cheap company for memory benchmarks ("RSS with 50 connected peers") and connection-manager tests.
// argv: JSON { target: multiaddr, n: number, host?: '127.0.0.1' }. Prints `connected <k>` once all dials are
// done (k = how many succeeded), then keeps the peers until stdin closes.
import { createInterface } from 'node:readline'
import { createLibp2p } from 'libp2p'
import { tcp } from '@libp2p/tcp'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { identify } from '@libp2p/identify'
import { ping } from '@libp2p/ping'
import { multiaddr } from '@multiformats/multiaddr'

const { target, n, host = '127.0.0.1' } = JSON.parse(process.argv[2] ?? '{}') as { target: string, n: number, host?: string }
const nodes = []
let connected = 0
for (let i = 0; i < n; i++) {
  const node = await createLibp2p({
    addresses: { listen: [`/ip4/${host}/tcp/0`] },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: { identify: identify(), ping: ping() }
  })
  nodes.push(node)
  // one dial every 100 ms: js-libp2p's default inboundConnectionThreshold refuses bursts from one host
  if (i > 0) await new Promise(resolve => setTimeout(resolve, 100))
  try {
    await node.dial(multiaddr(target), { signal: AbortSignal.timeout(20_000) })
    connected++
  } catch (err) {
    process.stderr.write(`peer ${i}: ${(err as Error).message}\n`)
  }
}
process.stdout.write(`connected ${connected}\n`)
for await (const _ of createInterface({ input: process.stdin })) { /* keep running until stdin closes */ }
await Promise.all(nodes.map(async n => { await n.stop() }))
process.exit(0)
