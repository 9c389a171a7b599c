#!/usr/bin/env node
// The networking benchmarks (part of `npm run bench`; `npm run bench -- --net-only` runs only these, and
// `node scripts/bench-net.js [--runs N]` runs them alone):
// - bitswap transfer of a 256 MiB file over loopback, tsipfs→tsipfs, Kubo→Kubo, Kubo→tsipfs, tsipfs→Kubo:
//   the source `add`s the file (default options), a fresh destination connects to it (TCP) and `cat`s the root to
//   /dev/null; MiB/s = 256 / seconds of that `cat` (median of N runs, each with a new destination), and the CPU
//   time (user + system, /proc) each daemon spent during the `cat`, per MiB;
// - RSS of an online daemon with 50 connected peers (test/helpers/swarm-peers.ts: 50 bare libp2p peers dial
//   it), tsipfs and Kubo, after 10 s settled.
// Uses the multi-node test harness (dist/test/helpers/cluster.js); Kubo from scripts/kubo.sh.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const MiB = 1024 * 1024

function curl (args) {
  return new Promise((resolve, reject) => {
    const p = spawn('curl', ['-sS', '--fail-with-body', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    p.stdout.on('data', c => { out += c })
    p.stderr.on('data', c => { err += c })
    p.on('exit', code => code === 0 ? resolve(out) : reject(new Error(`curl ${args.join(' ')}: ${code} ${err} ${out.slice(0, 300)}`)))
  })
}

/** CPU time (user + system) of a process so far, ms (Linux /proc; NaN elsewhere) */
function cpuMs (pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(f[11]) + Number(f[12])) * 1000 / 100
  } catch { return NaN }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)] }

/** `add` a file from disk through the RPC API; returns the root CID */
async function addFile (peer, file) {
  const out = await curl(['-X', 'POST', '-F', `file=@${file}`, `${peer.api}/api/v0/add?quieter=true`])
  return JSON.parse(out.trim().split('\n').pop()).Hash
}

/** dst dials src (src dials dst when dst has no `swarm connect` yet) */
async function link (cluster, src, dst) {
  try {
    await cluster.connect(dst, src)
  } catch (err) {
    if (!/404/.test(err.message)) throw err
    await cluster.connect(src, dst)
  }
}

/**
 * Runs the networking benchmarks; returns the markdown section and writes net.txt into `results`.
 * @param {{ runs?: number, results: string, file: string, log?: (m: string) => void, pairs?: string[] }} opts
 */
export async function benchNet ({ runs = 3, results, file, log = console.error, pairs = ['tsipfs>tsipfs', 'kubo>kubo', 'kubo>tsipfs', 'tsipfs>kubo'] }) {
  const { Cluster, waitFor } = await import(path.join(root, 'dist', 'test', 'helpers', 'cluster.js'))
  const size = fs.statSync(file).size
  const lines = []
  const record = (l) => { lines.push(l); log(l) }
  const transfer = {}
  /** CPU ms per MiB of the source and destination processes during each `cat` */
  const cpuPerMiB = {}
  for (const pair of pairs) {
    const [from, to] = pair.split('>')
    const cluster = new Cluster({ label: `bench-${from}-${to}` })
    const speeds = []
    const cpu = { src: [], dst: [] }
    try {
      const src = await cluster[from]({ name: `src-${from}` })
      const cid = await addFile(src, file)
      for (let r = 0; r < runs; r++) {
        const dst = await cluster[to]({ name: `dst-${to}-${r}` })
        try {
          await link(cluster, src, dst)
          const c0 = [cpuMs(src.proc.pid), cpuMs(dst.proc.pid)]
          const t0 = process.hrtime.bigint()
          const got = await curl(['-X', 'POST', '-o', '/dev/null', '-w', '%{size_download}', `${dst.api}/api/v0/cat?arg=${cid}`])
          const s = Number(process.hrtime.bigint() - t0) / 1e9
          if (Number(got) !== size) throw new Error(`${pair}: got ${got} bytes of ${size}`)
          const c1 = [cpuMs(src.proc.pid), cpuMs(dst.proc.pid)]
          speeds.push(size / MiB / s)
          cpu.src.push((c1[0] - c0[0]) / (size / MiB))
          cpu.dst.push((c1[1] - c0[1]) / (size / MiB))
          const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]
          record(`transfer ${pair} run ${r + 1}: ${(size / MiB).toFixed(0)} MiB in ${s.toFixed(2)} s = ${(size / MiB / s).toFixed(1)} MiB/s; CPU source ${cpu.src.at(-1).toFixed(1)} ms/MiB, destination ${cpu.dst.at(-1).toFixed(1)} ms/MiB; load ${load}`)
        } finally {
          await dst.stop()
          fs.rmSync(dst.repo, { recursive: true, force: true })
        }
      }
    } catch (err) {
      record(`transfer ${pair}: FAILED ${err.message.split('\n')[0]}`)
    } finally {
      await cluster.stop()
    }
    transfer[pair] = speeds
    cpuPerMiB[pair] = cpu
  }

  const rss = {}
  for (const kind of ['tsipfs', 'kubo']) {
    const cluster = new Cluster({ label: `bench-rss-${kind}` })
    let peers
    try {
      const d = await cluster[kind]({ name: `rss-${kind}` })
      const before = d.rss()
      const nodeBin = fs.existsSync(path.join(root, 'node_modules', 'node', 'bin', 'node')) ? path.join(root, 'node_modules', 'node', 'bin', 'node') : process.execPath
      peers = spawn(nodeBin, [path.join(root, 'dist', 'test', 'helpers', 'swarm-peers.js'), JSON.stringify({ target: d.addr('tcp'), n: 50 })], { stdio: ['pipe', 'pipe', 'inherit'] })
      let out = ''
      peers.stdout.on('data', c => { out += c })
      const k = await waitFor(() => /connected (\d+)/.exec(out)?.[1], { timeout: 180_000, what: '50 peers connected' })
      await new Promise(resolve => setTimeout(resolve, 10_000))
      let listed = null
      try { listed = ((await d.call('swarm/peers')).Peers ?? []).length } catch {}
      rss[kind] = { before: before / MiB, after: d.rss() / MiB, dialed: Number(k), listed }
      record(`rss ${kind}: ${rss[kind].before.toFixed(0)} MiB online idle, ${rss[kind].after.toFixed(0)} MiB with ${k} peers connected (swarm peers: ${listed ?? 'n/a'})`)
    } catch (err) {
      record(`rss ${kind}: FAILED ${err.message.split('\n')[0]}`)
    } finally {
      peers?.stdin.end()
      peers?.kill()
      await cluster.stop()
    }
  }
  fs.writeFileSync(path.join(results, 'net.txt'), lines.join('\n') + '\n')

  const fmt = (xs) => xs == null || xs.length === 0 ? 'failed' : `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`
  const kk = median(transfer['kubo>kubo'] ?? [])
  const tt = median(transfer['tsipfs>tsipfs'] ?? [])
  return [
    '## networking (loopback)',
    '',
    `bitswap transfer of a ${(size / MiB).toFixed(0)} MiB file (\`cat\` on a fresh destination), MiB/s, median (min–max) of ${runs}:`,
    '',
    '| from → to | MiB/s | CPU source, ms/MiB | CPU destination, ms/MiB |',
    '| --- | --- | --- | --- |',
    ...pairs.map(p => `| ${p.replace('>', ' → ')} | ${fmt(transfer[p])} | ${fmt(cpuPerMiB[p]?.src)} | ${fmt(cpuPerMiB[p]?.dst)} |`),
    '',
    `target tsipfs→tsipfs ≥ Kubo→Kubo: ${Number.isNaN(tt) || Number.isNaN(kk) ? 'n/a' : tt >= kk ? 'met' : `not met (${(tt / kk * 100).toFixed(0)} %)`}`,
    '',
    '| daemon | RSS online idle | RSS with 50 peers | target |',
    '| --- | --- | --- | --- |',
    ...['tsipfs', 'kubo'].map(k => rss[k] == null ? `| ${k} | failed | failed | |` : `| ${k} | ${rss[k].before.toFixed(0)} MiB | ${rss[k].after.toFixed(0)} MiB (${rss[k].dialed} dialed, ${rss[k].listed ?? 'n/a'} listed) | ${k === 'tsipfs' ? (rss[k].after <= 250 ? '≤ 250 MiB: met' : '≤ 250 MiB: not met') : ''} |`),
    ''
  ].join('\n')
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2)
  const runs = Number(argv[argv.indexOf('--runs') + 1] ?? 3) || 3
  const file = process.env.BENCH_NET_FILE ?? path.join(process.env.DATA ?? '/tmp/bench-data', 'rand256-1.bin')
  const results = path.join(root, '.cache', 'bench-results', `net-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}`)
  fs.mkdirSync(results, { recursive: true })
  const pairsAt = argv.indexOf('--pairs')
  const section = await benchNet({ runs: argv.includes('--runs') ? runs : 3, results, file, pairs: pairsAt >= 0 ? argv[pairsAt + 1].split(',') : undefined })
  fs.writeFileSync(path.join(results, 'summary.md'), section)
  console.log(section)
}
