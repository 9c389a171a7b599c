// repo gc over N unpinned small blocks in a flatfs store, in-process (core/gc runGc), with the
// machine's own limit beside it (unlinking the same number of files with `find -delete`).
// Run after building:  npx tsc -p tsconfig.json && node [--cpu-prof] bench/gc.mjs [--blocks 100000] [dir]
// Setup (not measured) writes the block files directly, then `sync`s.
// Session 5 profile (ext4 mounted with `discard`, 2 cores shared, load 10-25): an unlink of a block
// file waits for the discard of its freed block (kernel stack: ext4_evict_inode → ext4_free_blocks →
// blkdev_issue_discard → submit_bio_wait), so `find -delete` ran at 700-1,300 files/s and 256
// unlinks in flight at 9,000-18,000/s, ~40-50 µs of kernel CPU each. runGc took ~90-100 µs of CPU
// per block in all (~20 µs on the main thread: listing ~5, the delete calls ~15), the rest the unlinks.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHash } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import { FlatfsBlockstore } from '../dist/core/blockstore/flatfs.js'
import { blockKey, shardOf } from '../dist/core/blockstore/flatfs-layout.js'
import { runGc } from '../dist/core/gc/index.js'
import { RwLock } from '../dist/core/util/rwlock.js'

const argv = process.argv.slice(2)
const opt = (name, dflt) => { const i = argv.indexOf(name); if (i < 0) return dflt; const v = argv[i + 1]; argv.splice(i, 2); return v }
const n = Number(opt('--blocks', '100000'))
const skipFind = opt('--find', 'yes') === 'no'
const deleteConcurrency = Number(opt('--delete-concurrency', '0')) || undefined
const base = argv[0] ?? os.tmpdir()

function fill (dir) {
  fs.mkdirSync(dir, { recursive: true })
  const made = new Set()
  for (let i = 0; i < n; i++) {
    const bytes = Buffer.from(`gc block ${i}`)
    const cid = CID.createV1(0x55, Digest.create(0x12, createHash('sha256').update(bytes).digest()))
    const key = blockKey(cid)
    const shard = path.join(dir, shardOf(key))
    if (!made.has(shard)) { fs.mkdirSync(shard, { recursive: true }); made.add(shard) }
    fs.writeFileSync(path.join(shard, key + '.data'), bytes)
  }
  spawnSync('sync')
}
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000 }
const load = () => os.loadavg().map(x => x.toFixed(2)).join(' ')

const dir = fs.mkdtempSync(path.join(base, 'tsipfs-bench-gc-'))
try {
  if (!skipFind) {
    fill(path.join(dir, 'find'))
    const t = performance.now()
    spawnSync('find', [path.join(dir, 'find'), '-name', '*.data', '-delete'])
    const ms = performance.now() - t
    console.log(`find -delete, ${n} files: ${Math.round(n / ms * 1000)}/s (${(ms / 1000).toFixed(2)} s) load ${load()}`)
  }
  fill(path.join(dir, 'blocks'))
  const store = new FlatfsBlockstore(path.join(dir, 'blocks'))
  const pins = { recursiveKeys: async function * () {}, directKeys: async function * () {} }
  const t = performance.now()
  const c0 = cpu()
  let removed = 0
  for await (const e of runGc({ blockstore: store, pins, gcLock: new RwLock(), deleteConcurrency })) {
    if (e.error != null) throw e.error
    removed++
  }
  const ms = performance.now() - t
  if (removed !== n) throw new Error(`removed ${removed}, expected ${n}`)
  console.log(`runGc (${deleteConcurrency ?? 'default'} deletes in flight, UV_THREADPOOL_SIZE ${process.env.UV_THREADPOOL_SIZE}), ${n} unpinned blocks: ${Math.round(n / ms * 1000)}/s (${(ms / 1000).toFixed(2)} s, CPU ${(cpu() - c0).toFixed(0)} ms = ${((cpu() - c0) * 1000 / n).toFixed(1)} µs/block; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB) load ${load()}`)
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
