#!/usr/bin/env node
// `npm run bench [-- --runs 3]`: the daemon benchmarks of /work/shared/bench (rpc-bench.sh) plus a wrk
// run on a 1 MiB file through the gateway, against tsipfs on a fresh temp repo and, in the same
// invocation, against js-ipfs 0.66.1 (set up as jsipfs.sh does), then the in-process benches in
// bench/*.mjs. Prints both daemons side by side with the targets.
//
// Options:  --runs N        runs per figure (default 3)
//           --no-jsipfs     skip js-ipfs (default: run it when /tmp/jsipfs-bench is there, or BENCH_JSIPFS=1)
//           --no-tsipfs     skip our daemon
//           --no-inproc     skip bench/*.mjs
//           --gateway-only  only the gateway runs (wrk on 1 KiB, 1 KiB bypassing our response cache, 1 MiB)
//           --cpu-prof DIR  run our daemon under `node --cpu-prof --cpu-prof-dir=DIR`
//           --baseline DIR  also measure the daemon of another built checkout (e.g. a git worktree of an
//                           older commit), shown as a "baseline" column: before/after in one run
//           --net-only      only the networking section (scripts/bench-net.js: bitswap 256 MiB transfers
//                           tsipfs/Kubo each way over loopback, RSS with 50 connected peers)
//           --no-net        leave the networking section out
//           --no-kubo       leave Kubo out (default: scripts/kubo.sh's binary, flatfs sync false and true)
//           --no-nosync     measure tsipfs with sync: true only (default: also with Datastore.Spec sync: false)
//           --no-physical   leave the machine limits out (../shared/bench/physical.sh and scripts/bench/limits.js)
//           --no-startup    leave the start-up section out; --startup-only runs only it
// Environment: BENCH_DIR (default /work/shared/bench), DATA (default /tmp/bench-data),
//           JSIPFS_DIR (default /tmp/jsipfs-bench), API_PORT / GW_PORT (ours, default 45101 / 48181),
//           JS_API_PORT / JS_GW_PORT / JS_RPC_PORT (js-ipfs, default 45002 / 49090 / 45003).
// Results: .cache/bench-results/<time>/{tsipfs,jsipfs,inproc}.txt and summary.md (latest -> last run).
import { spawn, spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const benchDir = process.env.BENCH_DIR ?? '/work/shared/bench'
const dataDir = process.env.DATA ?? '/tmp/bench-data'
const jsipfsDir = process.env.JSIPFS_DIR ?? path.join(root, '.cache', 'jsipfs-bench')

// ---- arguments ----
const argv = process.argv.slice(2)
const flag = (name) => argv.includes(name)
const value = (name, dflt) => {
  const i = argv.findIndex(a => a === name || a.startsWith(name + '='))
  if (i < 0) return dflt
  return argv[i].includes('=') ? argv[i].slice(argv[i].indexOf('=') + 1) : argv[i + 1]
}
const runs = Number(value('--runs', '3'))
if (!Number.isInteger(runs) || runs < 1) { console.error('--runs must be a positive integer'); process.exit(2) }
const cpuProf = value('--cpu-prof', process.env.BENCH_CPU_PROF)
const doTsipfs = !flag('--no-tsipfs')
const jsipfsCli = path.join(jsipfsDir, 'node_modules', 'ipfs', 'src', 'cli.js')
const doJsipfs = !flag('--no-jsipfs')
const doKubo = !flag('--no-kubo')
const doNosync = !flag('--no-nosync')
const doPhysical = !flag('--no-physical')
const startupOnly = flag('--startup-only')
const doStartup = !flag('--no-startup')
const doInproc = !flag('--no-inproc')
const baseline = value('--baseline', undefined)
const gatewayOnly = flag('--gateway-only')
const netOnly = flag('--net-only')
const doNet = !flag('--no-net') && !gatewayOnly

// the Node that runs the daemon itself (bin/tsipfs.js re-spawns under an old Node, and then the PID we
// would measure RSS of is only the launcher)
const localNode = path.join(root, 'node_modules', 'node', 'bin', 'node')
const node22 = Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : (fs.existsSync(localNode) ? localNode : process.execPath)
// js-ipfs runs on the machine's own Node, as for the reference figures: the first `node` on PATH that is
// not ours (`npm run` puts node_modules/.bin, with our Node 22, first)
const systemNode = (process.env.PATH ?? '').split(':').filter(d => d !== '' && !path.resolve(d).startsWith(root + path.sep))
  .map(d => path.join(d, 'node')).find(f => fs.existsSync(f)) ?? 'node'

const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)
const resultsRoot = path.join(root, '.cache', 'bench-results')
const results = path.join(resultsRoot, stamp)
fs.mkdirSync(results, { recursive: true })
try { fs.rmSync(path.join(resultsRoot, 'latest'), { force: true }); fs.symlinkSync(stamp, path.join(resultsRoot, 'latest')) } catch {}

const log = (msg) => { process.stderr.write(`[bench ${new Date().toTimeString().slice(0, 8)}] ${msg}\n`) }
const loadavg = () => os.loadavg().map(x => x.toFixed(2)).join(' ')

/** Run a command, inheriting stderr; resolves with its exit code. */
function run (cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', opts.stdout ?? 'inherit', 'inherit'], ...opts })
    child.on('exit', (code, signal) => resolve(code ?? (signal != null ? 1 : 0)))
  })
}

async function portFree (port) {
  return await new Promise((resolve) => {
    const s = net.createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })
}

async function pickPort (preferred) {
  for (let p = preferred; p < preferred + 50; p++) if (await portFree(p)) return p
  throw new Error(`no free port near ${preferred}`)
}

async function ensureData () {
  const missing = Array.from({ length: runs }, (_, i) => path.join(dataDir, `rand256-${i + 1}.bin`))
    .filter(f => !fs.existsSync(f) || fs.statSync(f).size !== 268435456)
  if (missing.length === 0) return
  log(`generating ${dataDir} (${Math.max(runs, 3)} x 256 MiB)`)
  const code = await run('bash', [path.join(benchDir, 'gen-data.sh'), String(Math.max(runs, 3))], { env: { ...process.env, DATA: dataDir } })
  if (code !== 0) throw new Error('gen-data.sh failed')
}

async function ensureBuilt () {
  if (fs.existsSync(path.join(root, 'dist', 'server', 'cli.js'))) return
  log('dist/ missing: building')
  const code = await run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.json')])
  if (!fs.existsSync(path.join(root, 'dist', 'server', 'cli.js'))) throw new Error(`build failed (tsc exit ${code})`)
}

// ---- the workload both daemons get ----
/** The wrk figures of one run: requests/s, p99 latency in ms, transfer MiB/s, non-2xx answers. */
function parseWrk (text) {
  const unitMs = { us: 1 / 1000, ms: 1, s: 1000, m: 60000 }
  const m99 = /^\s*99%\s+([\d.]+)(us|ms|s|m)\s*$/m.exec(text)
  const xfer = /Transfer\/sec:\s+([\d.]+)([KMG]?B)/.exec(text)
  const xferMiB = xfer == null ? undefined : Number(xfer[1]) * { B: 1 / 1048576, KB: 1 / 1024, MB: 1, GB: 1024 }[xfer[2]]
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]),
    p99: m99 == null ? undefined : Number(m99[1]) * unitMs[m99[2]],
    mibs: xferMiB,
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0)
  }
}

/** median/min/max/spread in lib.sh's `stats` format, so parse() reads both alike */
function stats (xs) {
  const s = xs.filter(x => x != null && !Number.isNaN(x)).sort((a, b) => a - b)
  if (s.length === 0) return 'n=0'
  const med = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
  return `median=${med.toFixed(2)} min=${s[0].toFixed(2)} max=${s[s.length - 1].toFixed(2)} n=${s.length} spread=${(med > 0 ? 100 * (s[s.length - 1] - s[0]) / med : 0).toFixed(1)}%`
}

/**
 * The gateway on a file of `size` bytes: wrk -t1 -c32 -d10s, as rpc-bench.sh does for its 1 KiB file
 * (that script is shared and measures only the small file). The file is fresh random bytes, added
 * through the API and read back once through the gateway before the runs.
 */
async function gatewayWrk (api, gw, name, size, label, headers = []) {
  const out = path.join(results, `${name}.txt`)
  const say = (line) => { fs.appendFileSync(out, line + '\n'); log(`${name}: ${line}`) }
  const bytes = crypto.randomBytes(size)
  const form = new FormData()
  form.append('file', new Blob([bytes]), 'large.bin')
  const added = await fetch(`${api}/api/v0/add?progress=false`, { method: 'POST', body: form })
  const cid = /"Hash":"([^"]+)"/.exec(await added.text())?.[1]
  if (!added.ok || cid == null) throw new Error(`${name}: adding the ${label} file failed (${added.status})`)
  const got = Buffer.from(await (await fetch(`${gw}/ipfs/${cid}`)).arrayBuffer())
  if (!got.equals(bytes)) throw new Error(`${name}: the gateway returned other bytes for ${cid}`)
  const rps = []; const p99 = []; const mibs = []
  for (let i = 0; i < runs; i++) {
    // not spawnSync: a blocked event loop keeps fetch's idle connections past the server's keep-alive
    const text = await new Promise((resolve, reject) => {
      const wrk = spawn('wrk', ['-t1', '-c32', '-d10s', '--latency', ...headers.flatMap(h => ['-H', h]), `${gw}/ipfs/${cid}`], { stdio: ['ignore', 'pipe', 'inherit'] })
      let stdout = ''
      wrk.stdout.setEncoding('utf8').on('data', (d) => { stdout += d })
      wrk.on('error', (err) => reject(new Error(`wrk: ${err.message} (apt-get install wrk)`)))
      wrk.on('close', () => resolve(stdout))
    })
    const w = parseWrk(text)
    log(`${name} wrk ${label}: ${w.rps} req/s p99 ${w.p99}ms ${w.mibs?.toFixed(0)} MiB/s non2xx=${w.non2xx}`)
    if (w.non2xx > 0) say(`gateway-${label}-c32 non-2xx: ${w.non2xx}`)
    rps.push(w.rps); p99.push(w.p99); mibs.push(w.mibs)
  }
  say(`gateway-${label}-c32 req/s: ${rps.join(' ')} -> ${stats(rps)}`)
  say(`gateway-${label}-c32 p99 ms: ${p99.join(' ')} -> ${stats(p99)}`)
  say(`gateway-${label}-c32 MiB/s: ${mibs.map(x => x?.toFixed(1)).join(' ')} -> ${stats(mibs)}`)
}

/** Wait for `POST /api/v0/id` to answer; false when the process ended or 60 s passed. */
async function waitUp (api, isExited) {
  for (let i = 0; i < 240 && !isExited(); i++) {
    try {
      const res = await fetch(`${api}/api/v0/id`, { method: 'POST' })
      await res.arrayBuffer()
      if (res.ok) return true
    } catch {}
    await new Promise(resolve => setTimeout(resolve, 250))
  }
  return false
}

/**
 * Start a daemon, run rpc-bench.sh and the 1 MiB gateway run against it, note its repo size, stop it.
 * `start` spawns it and returns the child, its API and gateway addresses.
 */
// Repos and limit folders are removed when the bench ends, not between daemons: on this machine's ext4 without a
// journal, creating a file scans past the inodes freed in the last minutes (recently_deleted), so a daemon started
// right after another's repo was deleted paid for it (session 10: the sync:false rows ran slower than sync:true)
const leftovers = []
const removeLeftovers = () => { for (const dir of leftovers.splice(0)) fs.rmSync(dir, { recursive: true, force: true }) }
process.on('exit', removeLeftovers)
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130))

async function benchDaemon ({ name, repo, start, blockputQuery, logFile }) {
  const t0 = performance.now()
  const { daemon, api, gw } = await start()
  let exited = false
  daemon.on('exit', () => { exited = true })
  try {
    if (!await waitUp(api, () => exited)) throw new Error(`${name} daemon did not come up:\n${fs.readFileSync(logFile, 'utf8').slice(-2000)}`)
    const rss = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${daemon.pid}/status`, 'utf8'))?.[1]
    log(`${name} daemon pid ${daemon.pid} up after ${((performance.now() - t0) / 1000).toFixed(2)}s, rss ${(Number(rss) / 1024).toFixed(0)} MiB, ${api} ${gw}`)
    fs.appendFileSync(path.join(results, `${name}.txt`), `daemon-rss at start: ${(Number(rss) / 1024).toFixed(0)} MiB\n`)
    if (gatewayOnly) {
      await gatewayWrk(api, gw, name, 1024, '1KiB')
    } else {
      const code = await run('bash', [path.join(benchDir, 'rpc-bench.sh'), String(runs)], {
        env: { ...process.env, API: api, GW: gw, DAEMON_PID: String(daemon.pid), NAME: name, BLOCKPUT_QUERY: blockputQuery, RESULTS: results, DATA: dataDir },
        stdout: 'ignore'
      })
      if (code !== 0) log(`rpc-bench.sh against ${name} exited ${code}`)
    }
    // tsipfs answers repeated small /ipfs/ requests from a response cache; a header outside its list of
    // neutral ones bypasses it, which shows what the whole request path costs
    await gatewayWrk(api, gw, name, 1024, '1KiB-uncached', ['X-Bench-Uncached: 1'])
    await gatewayWrk(api, gw, name, 1 << 20, '1MiB')
    if (gatewayOnly) {
      const status = fs.readFileSync(`/proc/${daemon.pid}/status`, 'utf8')
      fs.appendFileSync(path.join(results, `${name}.txt`), `daemon-rss after all: ${['VmRSS', 'VmHWM'].map(k => `${k}: ${Math.round(Number(new RegExp(k + ':\\s+(\\d+)').exec(status)?.[1]) / 1024)} MiB`).join('  ')}\n`)
    }
    // the RSS once the daemon has been idle for 2 s (tsipfs gives the heap grown under load back when quiet)
    await new Promise(resolve => setTimeout(resolve, 2000))
    const settled = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${daemon.pid}/status`, 'utf8'))?.[1]
    fs.appendFileSync(path.join(results, `${name}.txt`), `daemon-rss idle 2 s after the run: ${(Number(settled) / 1024).toFixed(0)} MiB\n`)
    const repoSize = spawnSync('du', ['-sh', repo], { encoding: 'utf8' }).stdout.split('\t')[0]
    fs.appendFileSync(path.join(results, `${name}.txt`), `repo size: ${repoSize}\n`)
  } finally {
    if (!exited) {
      daemon.kill('SIGTERM')
      const deadline = Date.now() + 15000
      while (!exited && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 100))
      if (!exited) daemon.kill('SIGKILL')
    }
    leftovers.push(repo)
  }
}

/** `init --profile=test`, loopback API and gateway ports, no swarm, flatfs `sync` as given: the same for each daemon. */
function initRepo (label, command, prefix, { env, repo, apiPort, gwPort, sync }) {
  const cli = (...args) => {
    const r = spawnSync(command, [...prefix, ...args], { env, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`${label} ${args.join(' ')} failed: ${r.stderr || r.stdout}`)
  }
  cli('init', '--profile=test')
  cli('config', 'Addresses.API', `/ip4/127.0.0.1/tcp/${apiPort}`)
  cli('config', 'Addresses.Gateway', `/ip4/127.0.0.1/tcp/${gwPort}`)
  cli('config', '--json', 'Addresses.Swarm', '[]')
  setFlatfsSync(repo, sync)
}

/** Kubo (scripts/kubo.sh) on a fresh temp repo, offline, loopback only, flatfs `sync` as given. */
async function benchKubo (kubo, sync, name) {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'kubo-bench-repo-'))
  const apiPort = await pickPort(Number(process.env.KUBO_API_PORT ?? 45201))
  const gwPort = await pickPort(Number(process.env.KUBO_GW_PORT ?? 48281))
  const env = { ...process.env, IPFS_PATH: repo }
  initRepo('ipfs', kubo, [], { env, repo, apiPort, gwPort, sync })
  const logFile = path.join(results, `${name}-daemon.log`)
  await benchDaemon({
    name,
    repo,
    logFile,
    blockputQuery: 'cid-codec=raw',
    start: async () => {
      const out = fs.openSync(logFile, 'w')
      const daemon = spawn(kubo, ['daemon', '--offline'], { env, stdio: ['ignore', out, out] })
      fs.closeSync(out)
      return { daemon, api: `http://127.0.0.1:${apiPort}`, gw: `http://127.0.0.1:${gwPort}` }
    }
  })
}

/** Our daemon, on a fresh temp repo, offline, loopback only (flatfs `sync` as given). */
async function benchTsipfs (tree = root, name = 'tsipfs', sync = true) {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'tsipfs-bench-repo-'))
  const apiPort = await pickPort(Number(process.env.API_PORT ?? 45101))
  const gwPort = await pickPort(Number(process.env.GW_PORT ?? 48181))
  const env = { ...process.env, IPFS_PATH: repo, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? '64' }
  const bin = path.join(tree, 'bin', 'tsipfs.js')
  initRepo('tsipfs', node22, [bin], { env, repo, apiPort, gwPort, sync })
  const nodeArgs = []
  if (cpuProf != null) { fs.mkdirSync(cpuProf, { recursive: true }); nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${cpuProf}`) }
  const logFile = path.join(results, `${name}-daemon.log`)
  await benchDaemon({
    name,
    repo,
    logFile,
    blockputQuery: 'cid-codec=raw',
    start: async () => {
      const out = fs.openSync(logFile, 'w')
      const daemon = spawn(node22, [...nodeArgs, bin, 'daemon', '--offline'], { env, stdio: ['ignore', out, out] })
      fs.closeSync(out)
      return { daemon, api: `http://127.0.0.1:${apiPort}`, gw: `http://127.0.0.1:${gwPort}` }
    }
  })
}

/**
 * js-ipfs 0.66.1 as ../shared/bench/jsipfs.sh sets it up (fresh repo, loopback only, no swarm,
 * bootstrap, discovery or pubsub, offline), run by the machine's own Node (the one the reference
 * figures were measured with) with the bench's Node 20 polyfill.
 */
async function benchJsipfs () {
  if (!fs.existsSync(jsipfsCli)) {
    // as ../shared/bench/install.sh does (its lockfile, optional dependencies left out), into .cache/
    log(`installing js-ipfs 0.66.1 into ${jsipfsDir}`)
    await run('bash', [path.join(benchDir, 'install.sh'), 'jsipfs'], { env: { ...process.env, JSIPFS_DIR: jsipfsDir }, stdout: 'ignore' })
  }
  if (!fs.existsSync(jsipfsCli)) {
    log(`js-ipfs did not install into ${jsipfsDir} (no ${jsipfsCli}); skipping`)
    return false
  }
  const apiPort = await pickPort(Number(process.env.JS_API_PORT ?? 45002))
  const gwPort = await pickPort(Number(process.env.JS_GW_PORT ?? 49090))
  const rpcPort = await pickPort(Number(process.env.JS_RPC_PORT ?? 45003))
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'jsipfs-repo-'))
  const env = { ...process.env, IPFS_PATH: repo }
  const jsArgs = ['--import', path.join(benchDir, 'node20-polyfill.mjs'), jsipfsCli]
  const cli = (...args) => {
    const r = spawnSync(systemNode, [...jsArgs, ...args], { env, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`jsipfs ${args.join(' ')} failed: ${r.stderr || r.stdout}`)
  }
  cli('init', '--empty-repo')
  cli('config', 'Addresses.API', `/ip4/127.0.0.1/tcp/${apiPort}`)
  cli('config', 'Addresses.Gateway', `/ip4/127.0.0.1/tcp/${gwPort}`)
  cli('config', 'Addresses.RPC', `/ip4/127.0.0.1/tcp/${rpcPort}`)
  for (const [key, value] of [['Addresses.Swarm', '[]'], ['Addresses.Delegates', '[]'], ['Bootstrap', '[]'],
    ['Discovery.MDNS.Enabled', 'false'], ['Discovery.webRTCStar.Enabled', 'false'], ['Pubsub.Enabled', 'false']]) {
    cli('config', '--json', key, value)
  }
  const logFile = path.join(results, 'jsipfs-daemon.log')
  await benchDaemon({
    name: 'jsipfs',
    repo,
    logFile,
    blockputQuery: 'format=raw&cid-codec=raw',
    start: async () => {
      const out = fs.openSync(logFile, 'w')
      const daemon = spawn(systemNode, [...jsArgs, 'daemon', '--offline', '--enable-preload=false'], { env, stdio: ['ignore', out, out] })
      fs.closeSync(out)
      return { daemon, api: `http://127.0.0.1:${apiPort}`, gw: `http://127.0.0.1:${gwPort}` }
    }
  })
  return true
}

// ---- in-process benches (bench/*.mjs) ----
async function benchInproc () {
  const dir = path.join(root, 'bench')
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter(f => f.endsWith('.mjs')).sort() : []
  const outFile = path.join(results, 'inproc.txt')
  for (const f of files) {
    log(`bench/${f}`)
    const fd = fs.openSync(outFile, 'a')
    fs.writeSync(fd, `## bench/${f} (load ${loadavg()})\n`)
    const code = await run(node22, [path.join(dir, f)], { cwd: root, env: { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? '64' }, stdout: fd })
    if (code !== 0) fs.writeSync(fd, `(exit ${code})\n`)
    fs.writeSync(fd, '\n')
    fs.closeSync(fd)
  }
  return fs.existsSync(outFile) ? fs.readFileSync(outFile, 'utf8') : ''
}

import { cidCheck, parse, parsePhysical, table } from './bench/table.js'
import { setFlatfsSync } from './bench/flatfs-sync.js'

// ---- main ----
log(`runs=${runs} results=${path.relative(root, results)} load ${loadavg()}`)
/** the networking section (Kubo from scripts/kubo.sh, the multi-node test harness from dist/) */
async function netSection () {
  const { benchNet } = await import('./bench-net.js')
  log('networking: bitswap transfers and RSS with 50 peers')
  return await benchNet({ runs, results, file: path.join(dataDir, 'rand256-1.bin'), log })
}
if (netOnly) {
  await ensureData()
  await ensureBuilt()
  const section = await netSection()
  fs.writeFileSync(path.join(results, 'summary.md'), section + '\n')
  console.log(section)
  process.exit(0)
}
// wrk drives the gateway rows (here and in rpc-bench.sh): install it when missing, as the test set-ups do
if (spawnSync('bash', [path.join(root, 'scripts', 'ensure-debs.sh'), 'wrk=wrk'], { stdio: 'inherit' }).status !== 0) log('wrk is missing and could not be installed: the gateway rows will be empty')
const kuboBin = doKubo ? spawnSync('bash', [path.join(root, 'scripts', 'kubo.sh')], { encoding: 'utf8' }).stdout.trim() : ''
const kubo = kuboBin !== '' && fs.existsSync(kuboBin) ? kuboBin : undefined
if (doKubo && kubo == null) log('Kubo: scripts/kubo.sh gave no binary; leaving Kubo out')
let startupMd = ''
if (doStartup || startupOnly) {
  await ensureBuilt()
  const { benchStartup, startupTable } = await import('./bench/startup.js')
  startupMd = startupTable(await benchStartup({ node22, bin: path.join(root, 'bin', 'tsipfs.js'), kubo, runs, log }))
  fs.writeFileSync(path.join(results, 'startup.md'), startupMd + '\n')
  if (startupOnly) { console.log(startupMd); process.exit(0) }
}
if (!gatewayOnly) await ensureData()
const limits = {}
if (doPhysical && !gatewayOnly) {
  log('machine limits: physical.sh, then durable-write limits')
  await run('bash', [path.join(benchDir, 'physical.sh'), String(runs)], { env: { ...process.env, RESULTS: results }, stdout: 'ignore' })
  Object.assign(limits, parsePhysical(path.join(results, 'physical.txt')))
  const { measureLimits } = await import('./bench/limits.js')
  Object.assign(limits, await measureLimits(runs, leftovers))
  fs.writeFileSync(path.join(results, 'limits.json'), JSON.stringify(limits) + '\n')
}
if (doTsipfs) {
  await ensureBuilt()
  log('tsipfs (sync: true): rpc-bench.sh')
  await benchTsipfs(root, 'tsipfs', true)
  if (doNosync) {
    log('tsipfs (sync: false): rpc-bench.sh')
    await benchTsipfs(root, 'tsipfs-nosync', false)
  }
}
if (kubo != null) {
  log('Kubo (sync: false, as its init writes): rpc-bench.sh')
  await benchKubo(kubo, false, 'kubo')
  if (doNosync) {
    log('Kubo (sync: true): rpc-bench.sh')
    await benchKubo(kubo, true, 'kubo-sync')
  }
}
if (baseline != null) {
  if (!fs.existsSync(path.join(baseline, 'dist', 'server', 'cli.js'))) throw new Error(`--baseline ${baseline}: not a built checkout (no dist/server/cli.js)`)
  log(`baseline (${baseline}): rpc-bench.sh`)
  await benchTsipfs(path.resolve(baseline), 'baseline')
}
let jsRan = false
if (doJsipfs) {
  log('js-ipfs: rpc-bench.sh')
  jsRan = await benchJsipfs()
}
let inproc = ''
if (doInproc && doTsipfs && !gatewayOnly) inproc = await benchInproc()

const netMd = doNet && doTsipfs ? await netSection() : ''

const by = {}
for (const name of ['tsipfs', 'tsipfs-nosync', 'kubo', 'kubo-sync', 'jsipfs', 'baseline']) {
  if (name === 'jsipfs' && !jsRan) continue
  const r = parse(path.join(results, `${name}.txt`))
  if (r != null) by[name] = r
}
const ours = by.tsipfs
const summary = [
  `# bench ${stamp}: ${runs} run(s) per figure, ${os.cpus().length} CPUs, node ${process.versions.node} (daemon: ${node22 === process.execPath ? process.version : 'node_modules/node'}), load ${loadavg()} at the end`,
  '',
  table(by, limits),
  ...(baseline != null ? [`baseline: ${path.resolve(baseline)}`] : []),
  '',
  `machine limits (same run): SHA-256 ${limits.sha256 ?? '—'} MiB/s, disk write+fsync ${limits.disk ?? '—'} MiB/s, loopback HTTP ${limits.loopback ?? '—'} MiB/s, trivial Node server ${limits.smallServer ?? '—'} req/s, naive durable put ${(limits.naivePut ?? []).map(x => x.toFixed(0)).join(' ')} ops/s, durable 256 KiB files ${(limits.files256k ?? []).map(x => x.toFixed(0)).join(' ')} MiB/s, 256 KiB files read+sent over loopback HTTP ${(limits.readSend ?? []).map(x => x.toFixed(0)).join(' ')} MiB/s`,
  ...(await cidCheck(ours, by.jsipfs)),
  ...Object.entries(by).map(([name, r]) => `${name}: rss at start ${r.rssStart ?? '—'} MiB; block/put errors ${r.blockputErrors}; load ${r.load.join(' → ')}`),
  '',
  ...(startupMd !== '' ? ['## start-up', '', startupMd, ''] : []),
  ...(inproc !== '' ? ['## in-process benches', '', '```', inproc.trimEnd(), '```', ''] : []),
  ...(netMd !== '' ? [netMd] : []),
  `raw results: ${path.relative(root, results)}/`
].join('\n')
fs.writeFileSync(path.join(results, 'summary.md'), summary + '\n')
console.log(summary)
