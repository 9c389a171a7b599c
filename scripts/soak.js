#!/usr/bin/env node
// `node scripts/soak.js [--minutes N]` (default 60): mixed load on one daemon (adds, cats, gateway reads,
// pins, gc, pubsub when the command exists), sampling the daemon's RSS and open file descriptors
// (/proc/<pid>) every minute; prints the table and fails when, from the first minute to the end, RSS
// grew by more than --max-rss MiB (default 96) or fds by more than --max-fds (default 16).
// Options: --minutes N  --sample-seconds S (60)  --concurrency C (4)  --max-rss MiB  --max-fds N
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { root, runUnderNode22 } from './lib/node22.js'

runUnderNode22(import.meta.url)
const argv = process.argv.slice(2)
const value = (name, dflt) => { const i = argv.indexOf(name); return i < 0 ? dflt : argv[i + 1] }
const minutes = Number(value('--minutes', '60'))
const maxRss = Number(value('--max-rss', '96'))
const maxFds = Number(value('--max-fds', '16'))
const { soak, growth } = await import(pathToFileURL(path.join(root, 'dist', 'test', 'helpers', 'faults.js')).href)

console.log(`soak: ${minutes} min of mixed load\n  minute  RSS            fds        requests`)
const { samples } = await soak({ minutes, sampleMs: Number(value('--sample-seconds', '60')) * 1000, concurrency: Number(value('--concurrency', '4')), log: (l) => console.log(l) })
const g = growth(samples)
const last = samples.at(-1)
console.log(`\nRSS ${g.start.rssMiB} -> ${g.end.rssMiB} MiB (${g.rssMiB >= 0 ? '+' : ''}${g.rssMiB}, bound ${maxRss}); fds ${g.start.fds} -> ${g.end.fds} (${g.fds >= 0 ? '+' : ''}${g.fds}, bound ${maxFds}); ${last.requests} requests, ${last.errors} errors`)
process.exit(g.rssMiB > maxRss || g.fds > maxFds || last.errors > last.requests / 100 ? 1 : 0)
