// Start-up figures (issue 15 part 4), hyperfine-style: one warm-up, then N timed runs of each command,
// median and min of the wall times; and the time from spawning an offline daemon on a fresh repo to
// its first answered request. tsipfs beside Kubo and `node -e 0` (the floor of any Node CLI).
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2 }

// CPU time (user + sys) through GNU time when present: on a loaded machine it moves far less than wall time
const gnuTime = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined

/** Wall ms of `runs` runs after `warmup` (prepare() runs before each, untimed), and their CPU ms. */
function repeat (cmd, args, { env, runs, warmup = 1, prepare }) {
  const times = []
  const cpu = []
  for (let i = 0; i < warmup + runs; i++) {
    prepare?.()
    const t0 = performance.now()
    const r = gnuTime != null
      ? spawnSync(gnuTime, ['-f', '@cpu %U %S', cmd, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
      : spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' })
    const ms = performance.now() - t0
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
    const m = /@cpu ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '')
    if (i >= warmup) { times.push(ms); if (m != null) cpu.push((Number(m[1]) + Number(m[2])) * 1000) }
  }
  return { median: median(times), min: Math.min(...times), max: Math.max(...times), n: times.length, cpu: cpu.length > 0 ? median(cpu) : undefined }
}

/** CPU ms (user + sys) a process has used so far (Linux), undefined elsewhere. */
function cpuMs (pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(f[11]) + Number(f[12])) * 1000 / 100 // clock ticks (USER_HZ 100)
  } catch { return undefined }
}

/** Spawn `daemon --offline` on an initialised repo; ms until POST /api/v0/id answers 200, and the CPU ms it took. */
async function daemonStart (cmd, args, env, repo) {
  const apiFile = path.join(repo, 'api')
  fs.rmSync(apiFile, { force: true })
  const t0 = performance.now()
  const child = spawn(cmd, [...args, 'daemon', '--offline'], { env, stdio: 'ignore' })
  let exited = false
  child.on('exit', () => { exited = true })
  try {
    while (!exited && performance.now() - t0 < 60_000) {
      const addr = fs.existsSync(apiFile) ? fs.readFileSync(apiFile, 'utf8').trim() : ''
      const m = /^\/ip4\/([^/]+)\/tcp\/(\d+)/.exec(addr)
      if (m != null) {
        try {
          const res = await fetch(`http://${m[1]}:${m[2]}/api/v0/id`, { method: 'POST' })
          await res.arrayBuffer()
          if (res.ok) return { ms: performance.now() - t0, cpu: cpuMs(child.pid) }
        } catch {}
      }
      await new Promise(resolve => setTimeout(resolve, 5))
    }
    throw new Error(`${cmd} daemon did not answer`)
  } finally {
    child.kill('SIGTERM')
    const deadline = Date.now() + 15_000
    while (!exited && Date.now() < deadline) await new Promise(resolve => setTimeout(resolve, 50))
    if (!exited) child.kill('SIGKILL')
  }
}

/**
 * @param {{ node22: string, bin: string, kubo?: string, runs: number, log: (m: string) => void }} o
 * @returns {Promise<{ rows: Array<[string, object|undefined, object|undefined]>, load: string }>} [figure, tsipfs, kubo] in ms
 */
export async function benchStartup ({ node22, bin, kubo, runs, log }) {
  const n = Math.max(runs, 5)
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tsipfs-bench-startup-'))
  const repos = { ts: path.join(tmp, 'ts'), kubo: path.join(tmp, 'kubo') }
  const envOf = (repo) => ({ ...process.env, IPFS_PATH: repo })
  const ts = (...args) => [node22, [bin, ...args]]
  const ku = (...args) => [kubo, args]
  const both = (name, tsArgs, kuboArgs, opts = {}) => {
    log(`start-up: ${name}`)
    const a = repeat(...ts(...tsArgs), { env: envOf(repos.ts), runs: n, ...opts, prepare: opts.prepare?.(repos.ts) })
    const b = kubo != null ? repeat(...ku(...kuboArgs), { env: envOf(repos.kubo), runs: n, ...opts, prepare: opts.prepare?.(repos.kubo) }) : undefined
    return [name, a, b]
  }
  const fresh = (repo) => () => fs.rmSync(repo, { recursive: true, force: true })
  try {
    const rows = []
    rows.push(['node -e 0 (floor)', repeat(node22, ['-e', '0'], { env: process.env, runs: n }), undefined])
    rows.push(both('version (CLI, no daemon)', ['version'], ['version']))
    rows.push(both('init --profile=test (fresh repo)', ['init', '--profile=test'], ['init', '--profile=test'], { prepare: fresh }))
    rows.push(both('config Addresses.API (in-process)', ['config', 'Addresses.API'], ['config', 'Addresses.API']))
    const starts = { ts: [], kubo: [] }
    for (let i = 0; i < Math.max(runs, 3) + 1; i++) {
      const t = await daemonStart(node22, [bin], envOf(repos.ts), repos.ts)
      const k = kubo != null ? await daemonStart(kubo, [], envOf(repos.kubo), repos.kubo) : undefined
      if (i === 0) continue // warm-up
      starts.ts.push(t); if (k != null) starts.kubo.push(k)
    }
    const st = (xs) => {
      if (xs.length === 0) return undefined
      const ms = xs.map(x => x.ms); const cpu = xs.map(x => x.cpu).filter(c => c != null)
      return { median: median(ms), min: Math.min(...ms), max: Math.max(...ms), n: ms.length, cpu: cpu.length > 0 ? median(cpu) : undefined }
    }
    rows.push(['offline daemon start → first answer', st(starts.ts), st(starts.kubo)])
    return { rows, load: os.loadavg().map(x => x.toFixed(2)).join(' ') }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

/** The start-up table (markdown), with the issue's targets as ratios and absolute limits. */
export function startupTable ({ rows, load }) {
  const f = (s) => s == null ? '—' : `${s.median.toFixed(0)} (${s.min.toFixed(0)}–${s.max.toFixed(0)})${s.cpu != null ? `, CPU ${s.cpu.toFixed(0)}` : ''}`
  const floor = rows[0][1].median
  const out = ['| start-up, wall ms (median, min–max), CPU ms (user+sys, median) | tsipfs | Kubo 0.40.1 | tsipfs ÷ node -e 0 | target | met |', '|---|---|---|---|---|---|']
  for (const [name, a, b] of rows) {
    let target = ''; let met = ''
    if (name.startsWith('version')) { target = '≤ 100 ms and ≤ 5 × node -e 0'; met = a.median <= 100 && a.median <= 5 * floor ? 'yes' : a.median <= 5 * floor ? 'ratio yes, ms NO' : 'NO' }
    if (name.startsWith('offline daemon')) { target = '≤ 300 ms'; met = a != null && a.median <= 300 ? 'yes' : 'NO' }
    const cpuRatio = a?.cpu != null && rows[0][1].cpu ? ` (CPU ${(a.cpu / rows[0][1].cpu).toFixed(1)})` : ''
    out.push(`| ${name} | ${f(a)} | ${f(b)} | ${a != null && name !== rows[0][0] ? (a.median / floor).toFixed(1) + cpuRatio : ''} | ${target} | ${met} |`)
  }
  out.push('', `load average after the start-up runs: ${load}`)
  return out.join('\n')
}
