#!/usr/bin/env node
// Provider lookups in a private DHT as it grows (outside CI: 50 daemons need ~7 GiB and minutes to start).
// Usage: node scripts/bench-dht.js [--sizes 5,20,50] [--lookups 5] [--kind tsipfs|kubo]
// Starts daemons on loopback with the multi-node test harness, each new node connected to node 0 and one
// random earlier node; at each size it waits for routing tables to settle, then `lookups` times: a random
// node P adds and provides a new block (`routing provide`), a random node Q not connected to P runs
// `routing findprovs -v --num-providers=1` and we record the wall time and the hops (distinct peers that
// answered Q's query, Kubo's PeerResponse events, before the provider came back).
// Prints a table and how hops grow with log2(size), to extrapolate to the public DHT's size.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt }
const sizes = opt('--sizes', '5,20,50').split(',').map(Number)
const lookups = Number(opt('--lookups', '5'))
const kind = opt('--kind', 'tsipfs')
const { Cluster, waitFor } = await import(path.join(root, 'dist', 'test', 'helpers', 'cluster.js'))

const log = (m) => { process.stderr.write(`[bench-dht ${new Date().toTimeString().slice(0, 8)}] ${m}\n`) }
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)] }
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)]

const cluster = new Cluster({ label: `bench-dht-${kind}` })
const nodes = []
const rows = []
process.on('SIGINT', () => { cluster.stop().finally(() => process.exit(130)) })
try {
  for (const size of sizes) {
    while (nodes.length < size) {
      const n = await cluster[kind]({ name: `${kind}${nodes.length}` })
      // a dial can fail on a loaded machine (a handshake past its timeout): retry, then try another node
      for (const first of new Set([nodes[0], pick(nodes)].filter(Boolean))) {
        let ok = false
        for (let attempt = 0; attempt < 4 && !ok; attempt++) {
          const to = attempt < 2 ? first : pick(nodes)
          try { await n.call('swarm/connect', [to.addr()]); ok = true } catch (err) { log(`connect ${n.name} → ${to.name}: ${err.message.split('\n')[0]}`) }
        }
      }
      nodes.push(n)
      if (nodes.length % 10 === 0) log(`${nodes.length} nodes up, rss of the last ${(n.rss() / 1048576).toFixed(0)} MiB`)
    }
    log(`size ${size}: settling 15 s`)
    await new Promise(resolve => setTimeout(resolve, 15_000))
    const times = []
    const hops = []
    let found = 0
    for (let i = 0; i < lookups; i++) {
      const p = pick(nodes)
      const cid = await p.add(randomBytes(64))
      await p.call('routing/provide', [cid], { timeout: '60s' })
      const connected = new Set(await p.peers())
      const q = pick(nodes.filter(n => n !== p && !connected.has(n.id))) ?? pick(nodes.filter(n => n !== p))
      const t0 = Date.now()
      const events = await q.call('routing/findprovs', [cid], { 'num-providers': 1, verbose: true, timeout: '60s' })
      const ms = Date.now() - t0
      const at = events.findIndex(e => e.Type === 4 && (e.Responses ?? []).some(r => r.ID === p.id))
      const before = at < 0 ? events : events.slice(0, at)
      const answered = new Set(before.filter(e => e.Type === 1).map(e => e.ID))
      // hops only when the node reports query events (Kubo 0.40's findprovs over its dual DHT reports none)
      const traced = events.some(e => e.Type === 0 || e.Type === 1)
      if (at >= 0) { found++; times.push(ms); if (traced) hops.push(answered.size) }
      log(`size ${size} lookup ${i + 1}: ${at >= 0 ? 'found' : 'NOT found'} in ${ms} ms, ${answered.size} peers answered`)
    }
    const totalRss = nodes.reduce((s, n) => s + n.rss(), 0) / 1048576
    rows.push({ size, found, time: median(times), hops: hops.length > 0 ? median(hops) : undefined, rss: totalRss / nodes.length })
  }
} finally {
  await cluster.stop()
}

const lines = [
  `## private DHT provider lookups (${kind}, loopback, ${lookups} lookups per size)`,
  '',
  '| nodes | found | median time | median hops (peers answering) | hops / log2(nodes) | mean RSS per node |',
  '| --- | --- | --- | --- | --- | --- |',
  ...rows.map(r => `| ${r.size} | ${r.found}/${lookups} | ${r.time ?? '-'} ms | ${r.hops ?? '-'} | ${r.hops != null ? (r.hops / Math.log2(r.size)).toFixed(2) : '-'} | ${r.rss.toFixed(0)} MiB |`),
  ''
]
const last = rows.filter(r => r.hops != null).pop()
if (last != null) {
  const perBit = last.hops / Math.log2(last.size)
  lines.push(`Extrapolation: Kademlia lookups take O(log N) hops; at ${perBit.toFixed(2)} answering peers per bit of network size, a network of`,
    `10,000 DHT servers (the public Amino DHT's order of magnitude) needs about ${(perBit * Math.log2(10000)).toFixed(0)} answering peers; the time then`,
    'depends on round trips to those peers (tens of ms each on the Internet, not loopback\'s fraction of a ms) and on dial failures.')
}
console.log(lines.join('\n'))
