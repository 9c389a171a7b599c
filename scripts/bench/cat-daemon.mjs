// Daemon cat cost, tsipfs beside Kubo: each daemon on a fresh offline repo, the same 256 MiB file added (default
// layout: dag-pb leaves, or --raw), then `cat` over HTTP by curl, alternating daemons cat by cat; prints MiB/s and
// the daemon's CPU per cat (main thread / other threads, user+system) and curl's own CPU; beside them limits.js's
// read+send server (the same leaf files read in place and sent as chunks, unless --no-limit).
// Usage: node scripts/bench/cat-daemon.mjs [--runs 5] [--raw] [--tree DIR ...] [--no-kubo] [--data /tmp/bench-data]
//        [--sync true|false] [--no-limit] [--env I:KEY=VALUE]   (--tree: more tsipfs checkouts, e.g. a baseline copy; I: its index, 0 = this one)
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { daemonNode, startOffline, stopDaemon } from './daemons.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const argv = process.argv.slice(2)
const value = (name, def) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : def }
const values = (name) => argv.flatMap((a, i) => a === name ? [argv[i + 1]] : [])
const runs = Number(value('--runs', '5'))
const sync = value('--sync', 'true') === 'true'
const raw = argv.includes('--raw')
const file = path.join(value('--data', '/tmp/bench-data'), 'rand256-1.bin')
const trees = [root, ...values('--tree').map(t => path.resolve(t))]
const kubo = argv.includes('--no-kubo') ? undefined : path.join(root, '.cache', 'kubo', 'v0.40.1', 'ipfs')
const envs = values('--env').map(e => { const [i, kv] = [e.slice(0, e.indexOf(':')), e.slice(e.indexOf(':') + 1)]; return { i: Number(i), k: kv.slice(0, kv.indexOf('=')), v: kv.slice(kv.indexOf('=') + 1) } })
const query = 'progress=false' + (raw ? '&cid-version=1&raw-leaves=true' : '')
const SIZE = 256 * 1024 * 1024
// the Node the daemon runs on (bin/tsipfs.js re-spawns a newer one when the PATH's is older): the limit server's too
const node22 = daemonNode(root)

/** [main, other] CPU seconds of pid's threads (schedstat: ns, finer than stat's 10 ms ticks) */
function threadsOf (pid) {
  let main = 0
  let other = 0
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const cpu = Number(fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]) / 1e9
      if (Number(t) === pid) main += cpu; else other += cpu
    } catch {}
  }
  return [main, other]
}

/** the process that serves: bin/tsipfs.js re-spawns node for the daemon (its child), Kubo serves itself */
function serverPid (pid) {
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8')
      if (Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid) return Number(d)
    } catch {}
  }
  return pid
}

async function start (label, tree, extraEnv = {}) {
  const d = await startOffline({ label, tree, kubo, node: node22, sync, prefix: 'cat9', extraEnv })
  const r = spawnSync('curl', ['-sS', '-f', '-X', 'POST', '-F', `file=@${file};filename=f.bin`, `${d.api}/api/v0/add?${query}`], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${label} add: ${r.stderr}`)
  const cid = JSON.parse(r.stdout.trim().split('\n').at(-1)).Hash
  return { ...d, cid, pid: serverPid(d.daemon.pid), rows: [] }
}

function cat (d) {
  const [m0, o0] = threadsOf(d.pid)
  // bash's `times`: the CPU of curl (its finished child)
  const url = d.url ?? `${d.api}/api/v0/cat?arg=${d.cid}`
  const r = spawnSync('bash', ['-c', `curl -sS -f -X POST "${url}" -o /dev/null -w '%{size_download} %{time_total}\\n'; times`], { encoding: 'utf8' })
  const [m1, o1] = threadsOf(d.pid)
  if (r.status !== 0) throw new Error(`${d.label} cat: ${r.stderr}`)
  const lines = r.stdout.trim().split('\n')
  const [n, secs] = lines[0].split(' ').map(Number)
  if (n !== (d.url != null ? d.size : SIZE)) throw new Error(`${d.label} cat size ${n}`)
  const sec = (s) => { const m = /(\d+)m([\d.]+)s/.exec(s); return Number(m[1]) * 60 + Number(m[2]) }
  const [cu, cs] = lines.at(-1).split(' ')
  return { mibs: n / 1048576 / secs, main: (m1 - m0) * 1000, other: (o1 - o0) * 1000, curl: (sec(cu) + sec(cs)) * 1000 }
}

async function startLimit (repo) {
  const files = []
  const blocks = path.join(repo, 'blocks')
  const leaf = raw ? 262144 : 262158
  for (const d of fs.readdirSync(blocks)) {
    const dir = path.join(blocks, d)
    if (!d.startsWith('.') && fs.statSync(dir).isDirectory()) for (const f of fs.readdirSync(dir)) if (fs.statSync(path.join(dir, f)).size === leaf) files.push(path.join(dir, f))
  }
  if (files.length !== 1024) throw new Error(`limit server: ${files.length} leaf files`)
  const list = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cat9-limit-')), 'files')
  fs.writeFileSync(list, files.join('\n'))
  // limits.js's read+send server over the same leaf files, as a process beside the daemons
  const daemon = spawn(node22, [path.join(path.dirname(fileURLToPath(import.meta.url)), 'read-send-server.js'), list], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise((resolve, reject) => { daemon.stdout.once('data', d => resolve(Number(String(d).trim()))); daemon.once('exit', reject) })
  return { label: 'limit', daemon, url: `http://127.0.0.1:${port}/`, repo: path.dirname(list), pid: daemon.pid, rows: [] }
}

const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)] }
const daemons = []
try {
  for (const [i, t] of trees.entries()) daemons.push(await start(`t${i}`, t, Object.fromEntries(envs.filter(e => e.i === i).map(e => [e.k, e.v]))))
  if (kubo != null) daemons.push(await start('kubo', undefined))
  if (!argv.includes('--no-limit')) {
    const limit = await startLimit(daemons[0].repo)
    limit.size = (raw ? 262144 : 262158) * 1024
    daemons.push(limit)
  }
  for (const d of daemons) cat(d) // warm-up (page cache, JIT)
  for (let r = 0; r < runs; r++) for (const d of daemons) d.rows.push(cat(d))
  console.log(`cat 256 MiB ${raw ? 'raw leaves' : 'dag-pb leaves'}, sync ${sync}, ${runs} runs, load ${os.loadavg().map(l => l.toFixed(1)).join(' ')}`)
  for (const [i, d] of daemons.entries()) {
    const f = (k) => med(d.rows.map(x => x[k])).toFixed(0)
    const name = d.label === 'kubo' ? 'kubo' : d.label === 'limit' ? 'read+send limit server' : trees[i]
    console.log(`${name}: MiB/s ${f('mibs')} (${d.rows.map(x => x.mibs.toFixed(0)).join(' ')}); daemon ms main ${f('main')} other ${f('other')} total ${med(d.rows.map(x => x.main + x.other)).toFixed(0)}; curl ms ${f('curl')}`)
  }
} finally {
  for (const d of daemons) await stopDaemon(d)
}
