// Daemon add cost, tsipfs beside Kubo: each daemon on a fresh offline repo with the same flatfs `sync`, the same
// 256 MiB files added over HTTP (curl multipart, as ../shared/bench/rpc-bench.sh), wall MiB/s and the daemon's CPU
// (utime+stime from /proc, client excluded) per add. Runs alternate between daemons so each pair shares the minute.
// Usage: node scripts/bench/add-daemon.mjs [--runs 3] [--sync true|false|both] [--raw] [--tree DIR ...] [--no-kubo]
//        [--data /tmp/bench-data] [--cpu-prof DIR] [--env I:KEY=VALUE]   (--tree: more tsipfs checkouts, e.g. a baseline worktree)
//        [--dir N]: instead, one directory of N files of 1 KiB in one multipart request per run (rpc-bench.sh's
//        10,000-file row, ../shared/bench/make-multipart.mjs): files/s and daemon CPU per file
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { daemonNode, startOffline, stopDaemon } from './daemons.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const argv = process.argv.slice(2)
const value = (name, def) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : def }
const values = (name) => argv.flatMap((a, i) => a === name ? [argv[i + 1]] : [])
const runs = Number(value('--runs', '3'))
const syncArg = value('--sync', 'both')
const syncs = syncArg === 'both' ? [true, false] : [syncArg === 'true']
const raw = argv.includes('--raw')
const dataDir = value('--data', '/tmp/bench-data')
const cpuProf = value('--cpu-prof')
const trees = [root, ...values('--tree').map(t => path.resolve(t))]
const kubo = argv.includes('--no-kubo') ? undefined : path.join(root, '.cache', 'kubo', 'v0.40.1', 'ipfs')
const query = 'progress=false' + (raw ? '&cid-version=1&raw-leaves=true' : '')
const node22 = daemonNode(root)
const SIZE = 256 * 1024 * 1024
const dirFiles = value('--dir') == null ? undefined : Number(value('--dir'))
const sharedMultipart = path.join(process.env.BENCH_DIR ?? '/work/shared/bench', 'make-multipart.mjs')
const TICK = 100 // USER_HZ

/** [user, sys] seconds of the main thread (tid = pid) and of the process's other threads */
function threadsOf (pid) {
  const out = { mainUser: 0, mainSys: 0, otherUser: 0, otherSys: 0 }
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const st = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8')
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ')
      const main = Number(t) === pid
      out[main ? 'mainUser' : 'otherUser'] += Number(f[11]) / TICK
      out[main ? 'mainSys' : 'otherSys'] += Number(f[12]) / TICK
    } catch {}
  }
  return out
}

/** VmRSS of pid in MiB */
function rssOf (pid) {
  try { return Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024 } catch { return NaN }
}

/** utime+stime in seconds of pid and its live descendants */
function cpuOf (pid) {
  let total = 0
  const kids = new Map()
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const st = fs.readFileSync(`/proc/${d}/stat`, 'utf8')
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ')
      kids.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / TICK })
    } catch {}
  }
  const visit = (p) => { const k = kids.get(p); if (k == null) return; total += k.cpu; for (const [c, v] of kids) if (v.ppid === p) visit(c) }
  visit(pid)
  return total
}

async function start (label, tree, sync, extraEnv = {}) {
  const flags = cpuProf != null ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []
  return await startOffline({ label, tree, kubo, node: node22, sync, prefix: 'add7', extraEnv, flags })
}

/** one curl against d's API with the daemon's CPU (all threads, and main vs others) around it */
function measuredCurl (d, curlArgs, maxBuffer) {
  const c0 = cpuOf(d.daemon.pid)
  const t0 = threadsOf(d.daemon.pid)
  const r = spawnSync('curl', ['-sS', '-f', '-X', 'POST', ...curlArgs, '-w', '\n%{time_total}'], { encoding: 'utf8', maxBuffer })
  const cpu = cpuOf(d.daemon.pid) - c0
  const t1 = threadsOf(d.daemon.pid)
  const th = Object.fromEntries(Object.keys(t1).map(k => [k, t1[k] - t0[k]]))
  if (r.status !== 0) throw new Error(`${d.label} add failed: ${r.stderr}`)
  const lines = r.stdout.split('\n').filter(l => l.trim() !== '')
  return { lines: lines.slice(0, -1), secs: Number(lines.at(-1)), cpu, th, rss: rssOf(d.daemon.pid) }
}

function add (d, file) {
  const { lines, secs, cpu, th, rss } = measuredCurl(d, ['-F', `file=@${file};filename=${path.basename(file)}`, `${d.api}/api/v0/add?${query}`], 1 << 24)
  return { mibs: SIZE / 1048576 / secs, cpu, cid: JSON.parse(lines.at(-1)).Hash, th, rss }
}

/** one directory of dirFiles x 1 KiB (seeded: the same bytes for every daemon) -> files/s, CPU per file */
function addDir (d, body) {
  const { lines, secs, cpu, th, rss } = measuredCurl(d, ['-H', `Content-Type: multipart/form-data; boundary=${body.boundary}`,
    '--data-binary', `@${body.file}`, `${d.api}/api/v0/add?${query}`], 1 << 26)
  if (lines.length < dirFiles + 1) throw new Error(`${d.label}: only ${lines.length} rows`)
  const cid = JSON.parse(lines.find(l => l.includes(`"${body.dir}"`))).Hash
  return { rate: dirFiles / secs, cpu, cid, th, rss }
}

const files = dirFiles != null ? [] : Array.from({ length: runs }, (_, i) => path.join(dataDir, `rand256-${i + 1}.bin`))
for (const f of files) if (!fs.existsSync(f)) throw new Error(`missing ${f} (bash ../shared/bench/gen-data.sh)`)
const bodies = []
if (dirFiles != null) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'add-dir-'))
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }))
  for (let i = 1; i <= runs; i++) {
    const file = path.join(tmp, `body-${i}`)
    const r = spawnSync(process.execPath, [sharedMultipart, file, String(dirFiles), '1024', `r${i}`], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`make-multipart: ${r.stderr}`)
    bodies.push({ file, boundary: r.stdout.trim(), dir: `bench-r${i}` })
  }
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }
for (const sync of syncs) {
  const daemons = []
  for (const [i, t] of trees.entries()) {
    // --env I:KEY=VALUE: environment of the I-th tsipfs daemon (0: this checkout)
    const extra = Object.fromEntries(values('--env').filter(e => e.startsWith(`${i}:`)).map(e => { const kv = e.slice(e.indexOf(':') + 1); return [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] }))
    daemons.push(await start(i === 0 ? 'tsipfs' : `tsipfs${i}-${path.basename(t)}`, t, sync, extra))
  }
  if (kubo != null) daemons.push(await start('kubo', undefined, sync))
  const res = new Map(daemons.map(d => [d.label, []]))
  try {
    for (const body of bodies) {
      for (const d of daemons) {
        const r = addDir(d, body)
        res.get(d.label).push(r)
        process.stderr.write(`sync=${sync} ${d.label} ${body.dir} ${r.rate.toFixed(0)} files/s cpu ${(r.cpu * 1e6 / dirFiles).toFixed(0)} us/file (main u/s ${r.th.mainUser.toFixed(2)}/${r.th.mainSys.toFixed(2)}, others u/s ${r.th.otherUser.toFixed(2)}/${r.th.otherSys.toFixed(2)}, RSS after ${r.rss.toFixed(0)} MiB) ${r.cid} load ${os.loadavg()[0].toFixed(1)}\n`)
      }
    }
    for (const f of files) {
      for (const d of daemons) {
        const r = add(d, f)
        res.get(d.label).push(r)
        process.stderr.write(`sync=${sync} ${d.label} ${path.basename(f)} ${r.mibs.toFixed(0)} MiB/s cpu ${r.cpu.toFixed(2)} s (main u/s ${r.th.mainUser.toFixed(2)}/${r.th.mainSys.toFixed(2)}, others u/s ${r.th.otherUser.toFixed(2)}/${r.th.otherSys.toFixed(2)}, RSS after ${r.rss.toFixed(0)} MiB) ${r.cid} load ${os.loadavg()[0].toFixed(1)}\n`)
      }
    }
  } finally {
    for (const d of daemons) await stopDaemon(d)
  }
  for (const [label, rs] of res) {
    if (dirFiles != null) {
      const us = rs.map(r => r.cpu * 1e6 / dirFiles)
      console.log(`sync=${sync} ${label.padEnd(16)} files/s ${rs.map(r => r.rate.toFixed(0)).join(' ')} (median ${med(rs.map(r => r.rate)).toFixed(0)})  CPU us/file ${us.map(u => u.toFixed(0)).join(' ')} (median ${med(us).toFixed(0)})`)
      continue
    }
    console.log(`sync=${sync}${raw ? ' raw' : ''} ${label.padEnd(16)} MiB/s ${rs.map(r => r.mibs.toFixed(0)).join(' ')} (median ${med(rs.map(r => r.mibs)).toFixed(0)})  CPU s/256MiB ${rs.map(r => r.cpu.toFixed(2)).join(' ')} (median ${med(rs.map(r => r.cpu)).toFixed(2)})`)
  }
  const cids = [...res.values()].map(rs => rs.map(r => r.cid).join(','))
  if (new Set(cids).size > 1) console.log('CID MISMATCH', cids)
}
