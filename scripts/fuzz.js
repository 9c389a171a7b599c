#!/usr/bin/env node
// `npm run fuzz -- --minutes N`: the hostile-input targets of test/fuzz with random seeds, round robin,
// for N minutes (default 5), against the RPC and gateway apps in this process (default) or one spawned
// daemon (--daemon). Prints cases tried, crashes (answers breaking Kubo's rules, a dead process) and
// hangs, with the seed and counterexample of each to replay (--target NAME --seed S --runs R).
// Targets awaiting a fix elsewhere (see test/fuzz/targets*.ts `awaiting`) run too and are counted apart.
// Options: --minutes N  --daemon  --target NAME (repeatable)  --seed S  --runs R (cases per batch, 50)
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { fileURLToPath, pathToFileURL } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const argv = process.argv.slice(2)
const value = (name, dflt) => { const i = argv.indexOf(name); return i < 0 ? dflt : argv[i + 1] }
const values = (name) => argv.flatMap((a, i) => a === name ? [argv[i + 1]] : [])
const minutes = Number(value('--minutes', '5'))
const runs = Number(value('--runs', '50'))
const fixedSeedArg = value('--seed', undefined)

if (argv.includes('--build') || !argv.includes('--no-build')) {
  const b = spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' })
  if (b.status !== 0) process.exit(1)
}
const dist = (p) => pathToFileURL(path.join(root, 'dist', p)).href
const { TARGETS } = await import(dist('test/fuzz/targets.js'))
const { inProcessNode, daemonNode, runTarget } = await import(dist('test/fuzz/nodes.js'))
const { healthy } = await import(dist('test/fuzz/harness.js'))

const only = values('--target')
const targets = only.length > 0 ? TARGETS.filter(t => only.includes(t.name)) : TARGETS
if (targets.length === 0) { console.error(`no such target: ${only.join(', ')} (have ${TARGETS.map(t => t.name).join(', ')})`); process.exit(2) }

// in process, a runtime error that escapes a request is a crash too (the daemon would die of it)
const escaped = []
process.on('uncaughtException', (err) => { escaped.push(err); console.error('UNCAUGHT', err) })
process.on('unhandledRejection', (err) => { escaped.push(err); console.error('UNHANDLED REJECTION', err) })

const useDaemon = argv.includes('--daemon')
let node = useDaemon ? await daemonNode() : await inProcessNode()
const deadline = Date.now() + minutes * 60_000
const per = new Map(targets.map(t => [t.name, { cases: 0, crashes: 0, hangs: 0, outcomes: { ok: 0, client: 0, server: 0 } }]))
const failures = []
let batches = 0

console.log(`fuzzing ${targets.length} targets for ${minutes} min against ${useDaemon ? 'a spawned daemon' : 'the apps in process'}, ${runs} cases a batch`)
outer: while (Date.now() < deadline) {
  for (const t of targets) {
    if (Date.now() >= deadline) break outer
    const s = per.get(t.name)
    const seed = fixedSeedArg != null ? Number(fixedSeedArg) : (Math.random() * 2 ** 31) | 0
    const before = { cases: s.cases }
    try {
      // the fixed big cases (a handful of runs in npm test) stay a handful a batch
      await runTarget(node, t, { seed, numRuns: (t.runs ?? 20) <= 5 ? t.runs : runs, stats: s })
    } catch (err) {
      const hang = err.name === 'Hang' || /no answer in \d+ ms/.test(String(err.message))
      if (hang) s.hangs++
      else s.crashes++
      failures.push({ target: t.name, awaiting: t.awaiting, seed, kind: hang ? 'hang' : 'crash', report: [...String(err.message).split('\n').filter(l => !l.startsWith('Hint') && l !== '').slice(0, 3), `cause: ${String(err.cause?.message ?? err.cause ?? '')}`].map(l => l.length > 600 ? l.slice(0, 600) + '…' : l).join('\n') })
      console.log(`\n${hang ? 'HANG' : 'CRASH'} in ${t.name}${t.awaiting != null ? ' (awaiting fix)' : ''} seed ${seed}:\n${failures.at(-1).report}\n`)
      // a dead or wedged node is replaced so the run goes on
      try { await healthy(node.ctx) } catch (e) {
        console.log(`node unhealthy after ${t.name}: ${e.message}; restarting`)
        await node.stop().catch(() => {})
        node = useDaemon ? await daemonNode() : await inProcessNode()
      }
    }
    if (node.daemon != null && node.daemon.proc.exitCode != null) {
      s.crashes++
      failures.push({ target: t.name, seed, kind: 'crash', report: `daemon exited ${node.daemon.proc.exitCode}: ${node.daemon.log().slice(-1000)}` })
      node = await daemonNode()
    }
    batches++
    if (s.cases === before.cases && fixedSeedArg != null) break outer
  }
  const total = [...per.values()].reduce((n, s) => n + s.cases, 0)
  process.stdout.write(`\r${Math.round((deadline - Date.now()) / 1000)} s left, ${total} cases, ${failures.length} failures   `)
}
await node.stop()

console.log('\n\ntarget            cases   ok  4xx  5xx  crashes  hangs')
for (const t of targets) {
  const s = per.get(t.name)
  console.log(`${(t.name + (t.awaiting != null ? '*' : '')).padEnd(16)} ${String(s.cases).padStart(6)} ${String(s.outcomes.ok).padStart(4)} ${String(s.outcomes.client).padStart(4)} ${String(s.outcomes.server).padStart(4)} ${String(s.crashes).padStart(8)} ${String(s.hangs).padStart(6)}`)
}
const total = [...per.values()].reduce((a, s) => ({ cases: a.cases + s.cases, crashes: a.crashes + s.crashes, hangs: a.hangs + s.hangs }), { cases: 0, crashes: 0, hangs: 0 })
const known = failures.filter(f => f.awaiting != null).length
console.log(`\ncases tried: ${total.cases}, crashes: ${total.crashes + escaped.length}, hangs: ${total.hangs} (${known} of them in targets awaiting a fix, marked *; ${escaped.length} escaped runtime errors), batches: ${batches}`)
process.exit(total.crashes + total.hangs - known + escaped.length > 0 ? 1 : 0)
