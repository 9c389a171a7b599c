#!/usr/bin/env node
// `npm run bench:scale [-- --max 1000000 --big-gib 4]` (issue 15 part 3, not in CI): how the cost grows
// with the work, tsipfs beside Kubo on the same data, each offline on a fresh repo per size:
//  - a directory of N entries (HAMT) added in one request, then listed (`ls`);
//  - N unpinned 1 KiB blocks (one file added with pin=false, size-1024 chunks, raw leaves), then
//    `pin ls`, `repo stat` and `repo gc` (blocks removed per second);
//  - once, a file of --big-gib GiB added with the daemon's RSS sampled every 100 ms throughout.
// N runs over 10,000, 100,000 and 1,000,000 up to --max (default 1,000,000; use --max 100000 or 10000
// on a shared machine). Data is generated while sending (deterministic, nothing written to disk first).
// Results: .cache/bench-results/scale-<time>.md
import { spawn, spawnSync } from 'node:child_process'
import { createCipheriv, createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { root, runUnderNode22 } from './lib/node22.js'

runUnderNode22(import.meta.url)
const argv = process.argv.slice(2)
const value = (name, dflt) => { const i = argv.indexOf(name); return i < 0 ? dflt : argv[i + 1] }
const max = Number(value('--max', '1000000'))
const bigGiB = Number(value('--big-gib', '4'))
const only = value('--only', 'tsipfs,kubo').split(',')
const sizes = [10_000, 100_000, 1_000_000].filter(n => n <= max)
const log = (m) => process.stderr.write(`[scale ${new Date().toTimeString().slice(0, 8)}] ${m}\n`)
const loadavg = () => os.loadavg().map(x => x.toFixed(2)).join(' ')
const kubo = spawnSync('bash', [path.join(root, 'scripts', 'kubo.sh')], { encoding: 'utf8' }).stdout.trim()

const subjects = {
  tsipfs: { cmd: process.execPath, pre: [path.join(root, 'bin', 'tsipfs.js')] },
  kubo: { cmd: kubo, pre: [] }
}

/** A fresh repo and an offline daemon on it; resolves when /api/v0/id answers. */
async function startDaemon (name) {
  const { cmd, pre } = subjects[name]
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), `scale-${name}-`))
  const env = { ...process.env, IPFS_PATH: repo }
  const r = spawnSync(cmd, [...pre, 'init', '--profile=test'], { env, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${name} init: ${r.stderr}`)
  const daemon = spawn(cmd, [...pre, 'daemon', '--offline'], { env, stdio: 'ignore' })
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
const lastHash = (text) => /"Hash":"([^"]+)"[^\n]*\n?$/.exec(text.trimEnd())?.[1]

const rows = []
const note = (subject, n, figure, value, extra = '') => { rows.push({ subject, n, figure, value, extra }); log(`${subject} n=${n} ${figure}: ${value} ${extra}`) }

for (const n of sizes) {
  for (const name of only) {
    const d = await startDaemon(name)
    try {
      const dir = await postMultipart(`${d.api}/api/v0/add?progress=false&quieter=true`, B, dirBody(n))
      const root = lastHash(dir.text)
      note(name, n, 'HAMT dir add, entries/s', (n / dir.s).toFixed(0), `${dir.s.toFixed(1)} s, ${root}`)
      const ls = await call(d.api, `ls?arg=${root}&size=false&resolve-type=false`)
      const entries = (ls.body.match(/"Name":/g) ?? []).length
      note(name, n, 'ls entries/s', (entries / ls.s).toFixed(0), `${ls.s.toFixed(1)} s, ${entries} entries`)
      const blocks = await postMultipart(`${d.api}/api/v0/add?progress=false&pin=false&chunker=size-1024&raw-leaves=true&quieter=true`, B, fileBody(`blocks-${n}`, n * 1024))
      note(name, n, `add ${n} × 1 KiB blocks unpinned, blocks/s`, (n / blocks.s).toFixed(0), `${blocks.s.toFixed(1)} s`)
      const pins = await call(d.api, 'pin/ls?type=recursive')
      note(name, n, 'pin ls, s', pins.s.toFixed(3))
      const stat = await call(d.api, 'repo/stat')
      note(name, n, 'repo stat, s', stat.s.toFixed(3), stat.body.trim().slice(0, 120))
      const gc = await call(d.api, 'repo/gc?quiet=true')
      const removed = gc.lines
      note(name, n, 'repo gc, blocks removed/s', (removed / gc.s).toFixed(0), `${gc.s.toFixed(1)} s, ${removed} removed (target ≥ 50,000/s)`)
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
      note(name, `${bigGiB} GiB`, 'daemon peak RSS during the add, MiB', peak.toFixed(0), `(target ≤ 200; ${samples.length} samples, last ${samples.at(-1)?.toFixed(0)})`)
    } finally { await d.stop() }
  }
}

const md = [`# bench:scale ${new Date().toISOString()} sizes ${sizes.join(', ')}, ${bigGiB} GiB add; load ${loadavg()} at the end`, '',
  '| subject | N | figure | value | notes |', '|---|---|---|---|---|',
  ...rows.map(r => `| ${r.subject} | ${r.n} | ${r.figure} | ${r.value} | ${r.extra} |`)].join('\n')
const out = path.join(root, '.cache', 'bench-results', `scale-${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}.md`)
fs.mkdirSync(path.dirname(out), { recursive: true })
fs.writeFileSync(out, md + '\n')
console.log(md)
