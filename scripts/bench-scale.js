#!/usr/bin/env node
// `npm run bench:scale [-- --max 1000000 --big-gib 4]` (issue 15 part 3, not in CI): how the cost grows
// with the work, tsipfs beside Kubo on the same data, each offline on a fresh repo per size:
//  - a directory of N entries (HAMT) added in one request, then listed (`ls`);
//  - N unpinned 1 KiB blocks (one file added with pin=false, size-1024 chunks, raw leaves), then
//    `pin ls`, `repo stat` and `repo gc` (blocks removed per second); the HAMT stays pinned (recursively: N indirect
//    pins) and its first --direct-max (10,000) entries are pinned directly too before `pin ls` (--skip direct: none);
//  - once, a file of --big-gib GiB added with the daemon's RSS sampled every 100 ms throughout.
// N runs over 10,000, 100,000 and 1,000,000 up to --max (default 1,000,000; use --max 100000 or 10000
// on a shared machine). Data is generated while sending (deterministic, nothing written to disk first).
// Both daemons get the same flatfs `sync` (--sync, default false as Kubo's init writes); the blocks
// are flushed (`sync`) before `repo gc`, and the machine's own unlink rate is measured beside it.
// Every row states the daemon's CPU time per item (utime + stime), steadier than rates under load.
// Results: .cache/bench-results/scale-<time>.md
import { spawn, spawnSync } from 'node:child_process'
import { createCipheriv, createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { root, runUnderNode22 } from './lib/node22.js'
import { setFlatfsSync } from './bench/flatfs-sync.js'

const argv = process.argv.slice(2)
if (argv.includes('--help')) {
  const head = fs.readFileSync(new URL(import.meta.url), 'utf8').split('\n').slice(1).filter(l => l.startsWith('//'))
  console.log(head.map(l => l.slice(3)).join('\n') + '\nOptions: --max N, --min N, --big-gib G (0: none), --only tsipfs,kubo, --skip dir,blocks,direct,pins (--skip blocks keeps the pin rows unless pins), --direct-max N, --sync true, --prof DIR')
  process.exit(0)
}
runUnderNode22(import.meta.url)
const value = (name, dflt) => { const i = argv.indexOf(name); return i < 0 ? dflt : argv[i + 1] }
const max = Number(value('--max', '1000000'))
const bigGiB = Number(value('--big-gib', '4'))
const only = value('--only', 'tsipfs,kubo').split(',')
/** --prof <dir>: the tsipfs daemon writes a CPU profile there when it stops; --skip dir,blocks: leave steps out */
const profDir = value('--prof', '')
const skip = value('--skip', '').split(',')
/** flatfs `sync` for both subjects alike (default false: what Kubo's init writes; tsipfs's init writes true) */
const flatfsSync = value('--sync', 'false') === 'true'
process.env.UV_THREADPOOL_SIZE ??= '64' // the unlink limit below runs as many unlinks at once as the daemon
/** --min 1000000: leave the smaller sizes out */
const min = Number(value('--min', '0'))
/** --direct-max 10000: how many of the HAMT's entries get a direct pin (Kubo pins ~125/s under load: 1M would take hours) */
const directMax = Number(value('--direct-max', '10000'))
const sizes = [10_000, 100_000, 1_000_000].filter(n => n <= max && n >= min)
const log = (m) => process.stderr.write(`[scale ${new Date().toTimeString().slice(0, 8)}] ${m}\n`)
const loadavg = () => os.loadavg().map(x => x.toFixed(2)).join(' ')
const kubo = spawnSync('bash', [path.join(root, 'scripts', 'kubo.sh')], { encoding: 'utf8' }).stdout.trim()

const subjects = {
  tsipfs: { cmd: process.execPath, pre: [path.join(root, 'bin', 'tsipfs.js')] },
  kubo: { cmd: kubo, pre: [] }
}

/**
 * The machine's limit for a GC sweep: unlinking `n` small files spread over 1,024 folders (as flatfs
 * shards), 256 at once through the thread pool, after `sync` (on disk, as a repo's blocks are).
 * On a file system mounted with `discard` every unlink waits for the discard of the freed block.
 */
async function unlinkLimit (n) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-unlink-'))
  try {
    const files = []
    for (let s = 0; s < 1024; s++) fs.mkdirSync(path.join(dir, String(s)))
    for (let i = 0; i < n; i++) { const f = path.join(dir, String(i % 1024), `${i}.data`); fs.writeFileSync(f, `block ${i}`); files.push(f) }
    spawnSync('sync')
    const t0 = performance.now()
    let next = 0
    await new Promise((resolve, reject) => {
      let active = 0
      const pump = () => {
        while (active < 256 && next < n) {
          active++
          fs.unlink(files[next++], (err) => { if (err != null) { reject(err); return } active--; if (next === n && active === 0) resolve(); else pump() })
        }
      }
      pump()
    })
    return n / ((performance.now() - t0) / 1000)
  } finally { fs.rmSync(dir, { recursive: true, force: true }) }
}

/** A fresh repo and an offline daemon on it; resolves when /api/v0/id answers. */
async function startDaemon (name) {
  const { cmd, pre } = subjects[name]
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), `scale-${name}-`))
  const env = { ...process.env, IPFS_PATH: repo }
  const r = spawnSync(cmd, [...pre, 'init', '--profile=test'], { env, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${name} init: ${r.stderr}`)
  setFlatfsSync(repo, flatfsSync)
  const denv = name === 'tsipfs' && profDir !== '' ? { ...env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(profDir)}` } : env
  const daemon = spawn(cmd, [...pre, 'daemon', '--offline'], { env: denv, stdio: 'ignore' })
  for (let i = 0; i < 1200; i++) {
    const addr = fs.existsSync(path.join(repo, 'api')) ? fs.readFileSync(path.join(repo, 'api'), 'utf8') : ''
    const m = /^\/ip4\/([^/]+)\/tcp\/(\d+)/.exec(addr)
    if (m != null) {
      const api = `http://${m[1]}:${m[2]}`
      if (await fetch(`${api}/api/v0/id`, { method: 'POST' }).then(res => res.ok, () => false)) {
        return {
          api,
          pid: daemon.pid,
          stop: async () => {
            daemon.kill('SIGTERM')
            await new Promise(resolve => { if (daemon.exitCode != null) resolve(); else daemon.once('exit', resolve) })
            fs.rmSync(repo, { recursive: true, force: true })
          }
        }
      }
    }
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  daemon.kill('SIGKILL')
  throw new Error(`${name} daemon did not come up`)
}

const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

/** POST a multipart body made by `parts` (async generator of Buffers); the response text and seconds. */
async function postMultipart (url, boundary, parts) {
  const t0 = performance.now()
  const text = await new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } }, (res) => {
      const chunks = []
      res.on('data', c => chunks.push(c))
      res.on('end', () => res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`${url}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`)))
    })
    req.on('error', reject)
    ;(async () => {
      for await (const b of parts) if (!req.write(b)) await new Promise(resolve => req.once('drain', resolve))
      req.end()
    })().catch(reject)
  })
  return { text, s: (performance.now() - t0) / 1000 }
}

/** POST a command, draining the body; seconds and the body's line count. */
async function call (api, cmd) {
  const t0 = performance.now()
  const res = await fetch(`${api}/api/v0/${cmd}`, { method: 'POST' })
  const body = await res.text()
  if (!res.ok) throw new Error(`${cmd}: ${res.status} ${body.slice(0, 300)}`)
  return { s: (performance.now() - t0) / 1000, lines: body.split('\n').filter(Boolean).length, body }
}

const B = 'scaleboundary7d3f'
/** deterministic bytes: AES-256-CTR keystream keyed by `seed` */
function * stream (seed, bytes, chunk = 1 << 20) {
  const c = createCipheriv('aes-256-ctr', createHash('sha256').update(seed).digest(), Buffer.alloc(16))
  const zero = Buffer.alloc(chunk)
  for (let done = 0; done < bytes; done += chunk) yield c.update(zero.subarray(0, Math.min(chunk, bytes - done)))
}
async function * fileBody (seed, bytes) {
  yield Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`)
  yield * stream(seed, bytes)
  yield Buffer.from(`\r\n--${B}--\r\n`)
}
async function * dirBody (n) {
  yield Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="dir"\r\nContent-Type: application/x-directory\r\n\r\n\r\n`)
  for (let i = 0; i < n; i++) {
    yield Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="dir%2Ff${i}"\r\nContent-Type: application/octet-stream\r\n\r\nentry ${i}\r\n`)
  }
  yield Buffer.from(`--${B}--\r\n`)
}
/** string arguments as a command's stdin (one per line), as the CLI sends them */
async function * argsBody (args) {
  yield Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename=""\r\nContent-Type: application/octet-stream\r\n\r\n${args.join('\n')}\n\r\n--${B}--\r\n`)
}
const lastHash = (text) => /"Hash":"([^"]+)"[^\n]*\n?$/.exec(text.trimEnd())?.[1]

/** the samples at 0 %, 10 %, … 100 % of the run, MiB */
const curve = (samples) => Array.from({ length: 11 }, (_, i) => samples[Math.min(samples.length - 1, Math.round(i * (samples.length - 1) / 10))]?.toFixed(0)).join(' ')
const rows = []
const note = (subject, n, figure, value, extra = '') => { rows.push({ subject, n, figure, value, extra }); log(`${subject} n=${n} ${figure}: ${value} ${extra}`) }

/** the daemon's CPU time so far, seconds (utime + stime of /proc/<pid>/stat; clock ticks of 10 ms) */
const cpuS = (pid) => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100 }
/** run a step, noting its rate (items/s), its wall time and the daemon CPU it took */
async function step (d, name, n, figure, items, fn, extra = () => '') {
  const c0 = cpuS(d.pid)
  const r = await fn()
  const cpu = cpuS(d.pid) - c0
  const count = typeof items === 'function' ? items(r) : items
  note(name, n, figure, (count / r.s).toFixed(0), `${r.s.toFixed(2)} s, daemon CPU ${cpu.toFixed(2)} s (${(cpu * 1e6 / Math.max(1, count)).toFixed(0)} µs/item); RSS after ${rssMiB(d.pid).toFixed(0)} MiB; ${extra(r)}`)
  return r
}
const roots = new Map()

for (const n of sizes) {
  if (!skip.includes('blocks')) {
    const m = Math.min(n, 20_000)
    note('machine', n, 'unlink limit (256 in flight), files/s', (await unlinkLimit(m)).toFixed(0), `${m} files of ~10 bytes; load ${loadavg()}`)
  }
  for (const name of only) {
    const d = await startDaemon(name)
    let entryCids = []
    try {
      if (!skip.includes('dir')) {
        const dir = await step(d, name, n, 'HAMT dir add, entries/s', n, async () => await postMultipart(`${d.api}/api/v0/add?progress=false&quieter=true`, B, dirBody(n)), r => lastHash(r.text))
        const root = lastHash(dir.text)
        if (roots.has(n) && roots.get(n) !== root) note(name, n, 'HAMT dir CID differs', root, `other: ${roots.get(n)}`)
        roots.set(n, root)
        const ls = await step(d, name, n, 'ls, entries/s', r => (r.body.match(/"Name":/g) ?? []).length, async () => await call(d.api, `ls?arg=${root}&size=false&resolve-type=false`), r => `${(r.body.match(/"Name":/g) ?? []).length} entries`)
        entryCids = Array.from(ls.body.matchAll(/"Hash":"([^"]+)"/g), m => m[1]).filter(c => c !== root).slice(0, directMax)
        ls.body = ''
        await call(d.api, `files/cp?arg=/ipfs/${root}&arg=/big`)
        await step(d, name, n, 'files ls, entries/s', r => (r.body.match(/"Name":/g) ?? []).length, async () => await call(d.api, 'files/ls?arg=/big&U=true'), r => `${(r.body.match(/"Name":/g) ?? []).length} entries`)
        await call(d.api, 'files/rm?arg=/big&r=true')
      }
      if (!skip.includes('blocks')) {
        await step(d, name, n, `add ${n} × 1 KiB blocks unpinned, blocks/s`, n, async () => await postMultipart(`${d.api}/api/v0/add?progress=false&pin=false&chunker=size-1024&raw-leaves=true&quieter=true`, B, fileBody(`blocks-${n}`, n * 1024)))
      }
      if (!skip.includes('blocks') || !skip.includes('pins')) {
        if (entryCids.length > 0 && !skip.includes('direct')) {
          // the HAMT's first --direct-max entries pinned directly too (they stay indirect as well), 10,000 per call as stdin lines
          await step(d, name, n, `pin add --recursive=false (${entryCids.length} entries, 10,000 per call), pins/s`, entryCids.length, async () => {
            const t0 = performance.now()
            for (let i = 0; i < entryCids.length; i += 10_000) {
              await postMultipart(`${d.api}/api/v0/pin/add?recursive=false`, B, argsBody(entryCids.slice(i, i + 10_000)))
            }
            return { s: (performance.now() - t0) / 1000 }
          })
        }
        await step(d, name, n, 'pin ls (all), pins/s', r => r.lines, async () => await call(d.api, 'pin/ls?stream=true'), r => `${r.lines} pins`)
        await step(d, name, n, 'pin ls (all, one JSON answer), pins/s', r => Object.keys(JSON.parse(r.body).Keys).length, async () => await call(d.api, 'pin/ls'), r => `${Object.keys(JSON.parse(r.body).Keys).length} pins, ${(r.body.length / 2 ** 20).toFixed(0)} MiB`)
        await step(d, name, n, 'pin ls --type=recursive, pins/s', r => r.lines, async () => await call(d.api, 'pin/ls?stream=true&type=recursive'), r => `${r.lines} pins`)
        await step(d, name, n, 'pin ls --type=direct --stream, pins/s', r => r.lines, async () => await call(d.api, 'pin/ls?stream=true&type=direct'), r => `${r.lines} pins`)
      }
      if (!skip.includes('blocks')) {
        await step(d, name, n, 'repo stat, objects/s', r => JSON.parse(r.body).NumObjects, async () => await call(d.api, 'repo/stat'), r => `NumObjects ${JSON.parse(r.body).NumObjects}`)
        await step(d, name, n, 'refs local, refs/s', r => r.lines, async () => await call(d.api, 'refs/local'), r => `${r.lines} refs`)
        spawnSync('sync') // the blocks on disk (written back), as in a repo that has been in use
        await step(d, name, n, 'repo gc, blocks removed/s', r => r.lines, async () => await call(d.api, 'repo/gc?quiet=true'), r => `${r.lines} removed (target ≥ 50,000/s)`)
      }
      note(name, n, 'daemon RSS after, MiB', rssMiB(d.pid).toFixed(0))
    } finally { await d.stop() }
  }
}

if (bigGiB > 0) {
  for (const name of only) {
    const d = await startDaemon(name)
    try {
      let peak = 0
      const samples = []
      const timer = setInterval(() => { const r = rssMiB(d.pid); peak = Math.max(peak, r); samples.push(r) }, 100)
      const big = await postMultipart(`${d.api}/api/v0/add?progress=false&quieter=true`, B, fileBody('big', bigGiB * 1024 ** 3))
      clearInterval(timer)
      note(name, `${bigGiB} GiB`, 'add MiB/s', (bigGiB * 1024 / big.s).toFixed(0), `${big.s.toFixed(0)} s`)
      note(name, `${bigGiB} GiB`, 'daemon peak RSS during the add, MiB', peak.toFixed(0), `(target ≤ 200; ${samples.length} samples; RSS at each tenth of the add: ${curve(samples)})`)
    } finally { await d.stop() }
  }
}

const md = [`# bench:scale ${new Date().toISOString()} sizes ${sizes.join(', ')}, ${bigGiB} GiB add, flatfs sync ${flatfsSync}; load ${loadavg()} at the end`, '',
  '| subject | N | figure | value | notes |', '|---|---|---|---|---|',
  ...rows.map(r => `| ${r.subject} | ${r.n} | ${r.figure} | ${r.value} | ${r.extra} |`)].join('\n')
const out = path.join(root, '.cache', 'bench-results', `scale-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.md`)
fs.mkdirSync(path.dirname(out), { recursive: true })
fs.writeFileSync(out, md + '\n')
console.log(md)
