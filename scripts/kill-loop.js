#!/usr/bin/env node
// `node scripts/kill-loop.js [--rounds N]` (default 50): kill -9 the daemon at random moments during add,
// pin add/rm, gc, dag import and files write (and name publish / remote pin when the daemon has them),
// restart it each time, and check `repo verify`, `pin verify` and that every acknowledged write (a CID
// or path answered 200 before the kill) is readable, the same bytes, and pinned as acknowledged.
// Prints each round and a summary; exits 1 on any lost write or repo problem. Needs a build (npm run build).
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { root, runUnderNode22 } from './lib/node22.js'

runUnderNode22(import.meta.url)
const argv = process.argv.slice(2)
const value = (name, dflt) => { const i = argv.indexOf(name); return i < 0 ? dflt : argv[i + 1] }
const rounds = Number(value('--rounds', value('-n', '50')))
const { killLoop } = await import(pathToFileURL(path.join(root, 'dist', 'test', 'helpers', 'faults.js')).href)

const started = Date.now()
const r = await killLoop({ rounds, log: (l) => console.log(l) })
console.log(`\nkill loop: ${r.rounds} kills in ${Math.round((Date.now() - started) / 1000)} s; operations interrupted: ${Object.entries(r.ops).map(([k, v]) => `${k} ${v}`).join(', ')}`)
console.log(`acknowledged writes checked at the end: ${r.acknowledged}; lost: ${r.lost.length}; repo/pin verify problems: ${r.problems.length}`)
for (const l of [...r.lost, ...r.problems]) console.log('  ' + l)
process.exit(r.lost.length + r.problems.length > 0 ? 1 : 0)
