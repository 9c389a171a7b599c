#!/usr/bin/env node
// Names and pubsub, tsipfs beside Kubo (outside CI: it starts 2 × N daemons).
// Usage: node scripts/bench-names.js [--nodes 5] [--resolves 10] [--messages 500] [--kinds tsipfs,kubo]
// (--messages 0: names only, no pubsub part) [--warmup 0] (messages published first, not counted)
// [--parts resolve,pubsub] [--prof DIR] (--prof: the two pubsub tsipfs daemons write node --cpu-prof files to DIR)
// [--config JSON] (config keys set on every node of both kinds, e.g. '{"Routing.Type":"dht"}')
// [--late-resolver] (the resolving node starts after the publish, so it holds no DHT copy of the record: Kubo
// answers from its own copy at once when it has one, without waiting for peers; this measures a real lookup on both)
// For each kind, with the multi-node harness on loopback:
// - a private DHT of N daemons (each connected to node 0 and one earlier node); node 0 publishes a name
//   (ttl 1m), the last node (not connected to node 0) resolves it: `name resolve --nocache` (uncached: a DHT
//   lookup each time) and `name resolve` (cached) — median and p90 wall time of `resolves` calls;
// - pubsub between two of them: one `pubsub sub` held open, the other publishes `messages` messages one
//   after another (each `pubsub pub` call waits for the previous one); messages/s from the first publish
//   to the last arrival, and the p50/p99 latency of each message (publish call start → arrival).
// Beside each wall time, the daemons' CPU per operation (/proc/<pid>/stat), which load does not blur.
// (and the CPU all nodes use idle for as long as the uncached resolves took: background, not the lookup)
// Prints a table side by side with the load average (.cache/bench-results/names.md).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const opt = (name, dflt) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : dflt }
const N = Number(opt('--nodes', '5'))
const RESOLVES = Number(opt('--resolves', '10'))
const MESSAGES = Number(opt('--messages', '500'))
const WARMUP = Number(opt('--warmup', '0'))
const kinds = opt('--kinds', 'tsipfs,kubo').split(',')
const parts = opt('--parts', 'resolve,pubsub').split(',')
const PROF = opt('--prof', undefined)
const LATE = argv.includes('--late-resolver')
const { Cluster, waitFor } = await import(path.join(root, 'dist', 'test', 'helpers', 'cluster.js'))

const log = (m) => { process.stderr.write(`[bench-names ${new Date().toTimeString().slice(0, 8)}] ${m}\n`) }
const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1)))] }
const b64u = (s) => 'u' + Buffer.from(s).toString('base64url')
const CONFIG = { 'Pubsub.Enabled': true, ...JSON.parse(opt('--config', '{}')) }

async function timed (fn) { const t = performance.now(); await fn(); return performance.now() - t }
/** CPU time (user + system, ms) a daemon has used so far: comparable under load where wall times are not */
const cpuMs = (peer) => { const f = readFileSync(`/proc/${peer.proc.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 1000 / CLK_TCK }
const CLK_TCK = 100

async function bench (kind) {
  const cluster = new Cluster({ label: `bench-names-${kind}` })
  try {
    const nodes = []
    let cid, Name
    const publish = async () => { cid = await nodes[0].add(`bench ${Date.now()}`); ({ Name } = await nodes[0].call('name/publish', [cid], { ttl: '1m' })) }
    for (let i = 0; i < N; i++) {
      if (LATE && i === N - 1 && parts.includes('resolve')) { await new Promise(resolve => setTimeout(resolve, 3000)); await publish() }
      const env = PROF != null && kind === 'tsipfs' && i < 2 ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(PROF)}` } : undefined
      const n = await cluster[kind]({ name: `${kind}${i}`, config: CONFIG, env })
      for (const to of new Set([nodes[0], nodes[nodes.length - 1]].filter(Boolean))) await n.call('swarm/connect', [to.addr()])
      nodes.push(n)
    }
    log(`${kind}: ${N} nodes up; settling 5 s`)
    await new Promise(resolve => setTimeout(resolve, 5000))
    const [a] = nodes
    const z = nodes[nodes.length - 1]
    const uncached = []
    const cached = []
    let uncachedCpu = { resolver: NaN, all: NaN, idle: NaN }
    let cachedCpu = NaN
    const names = { kind }
    if (parts.includes('resolve')) {
    if (Name == null) await publish()
    await waitFor(async () => { try { return (await z.call('name/resolve', [Name], { nocache: true })).Path === `/ipfs/${cid}` } catch { return false } }, { timeout: 60_000, what: 'first resolve' })
    // CPU of every daemon during the uncached resolves (the resolver's and the answering peers'), per resolve
    const cpuAll = () => nodes.reduce((sum, n) => sum + cpuMs(n), 0)
    let c0 = cpuAll()
    const z0 = cpuMs(z)
    // the window in CLOCK_MONOTONIC µs (the clock of V8 profiles: TSIPFS_DAEMON_NODE_FLAGS="... --cpu-prof")
    const w0 = process.hrtime.bigint() / 1000n
    const t0 = performance.now()
    for (let i = 0; i < RESOLVES; i++) uncached.push(await timed(async () => { await z.call('name/resolve', [Name], { nocache: true }) }))
    log(`${kind}: uncached resolves from ${w0} to ${process.hrtime.bigint() / 1000n} µs (monotonic)`)
    uncachedCpu = { resolver: (cpuMs(z) - z0) / RESOLVES, all: (cpuAll() - c0) / RESOLVES }
    if (LATE) {
      // each daemon republishes its names 1 min after it starts (Kubo's and ours): the publisher's republish puts
      // the record to the resolver too, whose later resolves then answer from that copy without a lookup
      const held = await z.call('routing/get', [`/ipns/${Name}`], { offline: true }).then(() => true, () => false)
      names.resolverHeldCopy = held
      if (held) log(`${kind}: WARNING the resolver held a copy of the record after the uncached resolves (the publisher's republish, 1 min after its start, came): the uncached figures are not all lookups`)
    }
    // the same wall time idle: what the daemons spend anyway (timers, pings, gossipsub heartbeats), per resolve
    const idle0 = cpuAll()
    await new Promise(resolve => setTimeout(resolve, performance.now() - t0))
    uncachedCpu.idle = (cpuAll() - idle0) / RESOLVES
    c0 = cpuMs(z)
    for (let i = 0; i < RESOLVES; i++) cached.push(await timed(async () => { await z.call('name/resolve', [Name]) }))
    cachedCpu = (cpuMs(z) - c0) / RESOLVES
    log(`${kind}: resolve uncached p50 ${q(uncached, 0.5).toFixed(1)} ms, cached p50 ${q(cached, 0.5).toFixed(1)} ms`)
    }
    Object.assign(names, {
      resolveUncachedP50: q(uncached, 0.5),
      resolveUncachedP90: q(uncached, 0.9),
      resolveCachedP50: q(cached, 0.5),
      resolveCachedP90: q(cached, 0.9),
      uncachedCpu,
      cachedCpu
    })
    if (MESSAGES === 0) { log(`${kind}: ${JSON.stringify(names)}`); return names }

    // pubsub: a → b (directly connected)
    const b = nodes[1]
    const topic = `bench-${Date.now()}`
    const controller = new AbortController()
    const res = await fetch(`${b.api}/api/v0/pubsub/sub?arg=${b64u(topic)}`, { method: 'POST', signal: controller.signal })
    const arrivals = new Map()
    const reading = (async () => {
      let buf = ''
      try {
        for await (const chunk of res.body) {
          buf += Buffer.from(chunk).toString()
          let i
          while ((i = buf.indexOf('\n')) >= 0) {
            const line = buf.slice(0, i); buf = buf.slice(i + 1)
            if (line.trim() === '') continue
            const m = JSON.parse(line)
            arrivals.set(Buffer.from(m.data.slice(1), 'base64url').toString(), performance.now())
          }
        }
      } catch {}
    })()
    await waitFor(async () => ((await a.call('pubsub/peers', [b64u(topic)])).Strings ?? []).includes(b.id), { timeout: 120_000, what: 'mesh' })
    // warm-up messages (not counted): JIT, streams
    for (let i = 0; i < WARMUP; i++) await a.call('pubsub/pub', [b64u(topic)], {}, Buffer.from(`w${i}`))
    if (WARMUP > 0) await waitFor(() => arrivals.size >= WARMUP, { timeout: 30_000, interval: 50, what: 'warm-up messages' }).catch(() => {})
    arrivals.clear()
    const sent = new Map()
    const pubCpu0 = cpuMs(a)
    const subCpu0 = cpuMs(b)
    const t0 = performance.now()
    const m0 = process.hrtime.bigint() / 1000n
    for (let i = 0; i < MESSAGES; i++) {
      sent.set(`m${i}`, performance.now())
      await a.call('pubsub/pub', [b64u(topic)], {}, Buffer.from(`m${i}`))
    }
    await waitFor(() => arrivals.size >= MESSAGES, { timeout: 60_000, interval: 50, what: 'all messages' }).catch(() => {})
    log(`${kind}: pubsub messages from ${m0} to ${process.hrtime.bigint() / 1000n} µs (monotonic)`)
    const last = Math.max(...arrivals.values())
    const pubCpu = (cpuMs(a) - pubCpu0) / MESSAGES
    const subCpu = (cpuMs(b) - subCpu0) / MESSAGES
    controller.abort()
    await reading
    const lat = [...sent].filter(([k]) => arrivals.has(k)).map(([k, t]) => arrivals.get(k) - t)
    const out = {
      ...names,
      pubCpu,
      subCpu,
      delivered: arrivals.size,
      msgsPerSec: arrivals.size / ((last - t0) / 1000),
      latP50: q(lat, 0.5),
      latP99: q(lat, 0.99)
    }
    log(`${kind}: ${JSON.stringify(out)}`)
    return out
  } finally {
    await cluster.stop()
  }
}

const results = []
for (const kind of kinds) results.push(await bench(kind))
const f = (x) => x == null ? '–' : x.toFixed(1)
const rows = [
  ['name resolve, uncached (DHT), p50 / p90 ms', r => `${f(r.resolveUncachedP50)} / ${f(r.resolveUncachedP90)}`],
  ['daemon CPU per uncached resolve: resolver / all nodes (all nodes idle as long), ms', r => `${f(r.uncachedCpu.resolver)} / ${f(r.uncachedCpu.all)} (${f(r.uncachedCpu.idle)})`],
  ['name resolve, cached, p50 / p90 ms', r => `${f(r.resolveCachedP50)} / ${f(r.resolveCachedP90)}`],
  ['daemon CPU per cached resolve, ms', r => f(r.cachedCpu)],
  [`pubsub, ${MESSAGES} messages: delivered`, r => String(r.delivered)],
  ['pubsub messages/s (sequential pub calls)', r => f(r.msgsPerSec)],
  ['pubsub latency p50 / p99 ms', r => `${f(r.latP50)} / ${f(r.latP99)}`],
  ['daemon CPU per message: publisher / subscriber, ms', r => `${f(r.pubCpu)} / ${f(r.subCpu)}`]
]
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
let md = `| ${N}-node private DHT, loopback${LATE ? ', resolver started after the publish' : ''} (load ${load}) | ${results.map(r => r.kind).join(' | ')} |\n| --- |${results.map(() => ' --- |').join('')}\n`
for (const [label, fn] of (MESSAGES === 0 ? rows.slice(0, 4) : rows).filter((_, i) => parts.includes(i < 4 ? 'resolve' : 'pubsub'))) md += `| ${label} | ${results.map(fn).join(' | ')} |\n`
mkdirSync(path.join(root, '.cache', 'bench-results'), { recursive: true })
writeFileSync(path.join(root, '.cache', 'bench-results', 'names.md'), md)
process.stdout.write(md)
process.exit(0)
