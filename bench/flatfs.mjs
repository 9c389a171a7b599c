// Cost of crash-safe block writes (temp file + fsync + rename + folder fsync, batched).
// Run after building:  npx tsc -p tsconfig.json && node bench/flatfs.mjs [dir]
// UV_THREADPOOL_SIZE (default 4) bounds how many fsyncs run at once; try UV_THREADPOOL_SIZE=16.
// Figures on the dev VM (ext4 on virtio, heavily shared, so +-2x between runs):
//   1 KiB blocks, fsync:    put one at a time ~400-600/s, 64 concurrent ~1000-2200/s, putMany ~1500-4400/s
//   1 KiB blocks, no fsync: put one at a time ~1000-7000/s, putMany ~1700-13500/s
//   256 KiB blocks:         putMany ~200-480 MiB/s with or without fsync (write bandwidth bound)
//   pinRecursive (leveldb batch with sync): ~500-1900/s; block/put command: ~200-360/s serial, ~800-1270/s 32 concurrent
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { LevelDatastore } from 'datastore-level'
import { FlatfsBlockstore } from '../dist/core/blockstore/flatfs.js'
import { NodeBlockstore } from '../dist/core/blockstore/index.js'
import { createPins } from '../dist/core/pins/index.js'
import { initRepo } from '../dist/core/repo/index.js'
import { createNode } from '../dist/server/node.js'
import { blockPlugin } from '../dist/plugins/block/index.js'

const base = process.argv[2] ?? os.tmpdir()
const root = await fs.mkdtemp(path.join(base, 'tsipfs-bench-'))
let run = 0

async function blocks (n, size) {
  return await Promise.all(Array.from({ length: n }, async () => {
    const bytes = randomBytes(size)
    return { cid: CID.createV1(0x55, await sha256.digest(bytes)), bytes }
  }))
}

async function store (sync) {
  const s = new FlatfsBlockstore(path.join(root, `blocks-${run++}`), { sync })
  await s.open()
  return s
}

const rate = (n, ms) => `${Math.round(n / (ms / 1000))}/s`
const mibs = (bytes, ms) => `${(bytes / 1048576 / (ms / 1000)).toFixed(0)} MiB/s`

async function time (fn) {
  const t = performance.now()
  await fn()
  return performance.now() - t
}

const results = []
for (const sync of [true, false]) {
  const label = sync ? 'fsync' : 'no fsync'
  let s = await store(sync)
  let items = await blocks(1000, 1024)
  let ms = await time(async () => { for (const { cid, bytes } of items) await s.put(cid, bytes) })
  results.push([label, 'put, one at a time, 1 KiB', rate(items.length, ms)])

  s = await store(sync)
  items = await blocks(5000, 1024)
  ms = await time(async () => {
    let i = 0
    await Promise.all(Array.from({ length: 64 }, async () => { while (i < items.length) { const it = items[i++]; await s.put(it.cid, it.bytes) } }))
  })
  results.push([label, 'put, 64 concurrent, 1 KiB', rate(items.length, ms)])

  s = await store(sync)
  items = await blocks(10000, 1024)
  ms = await time(async () => { for await (const _ of s.putMany(items)) {} })
  results.push([label, 'putMany, 10000 x 1 KiB', rate(items.length, ms)])

  s = await store(sync)
  items = await blocks(1024, 262144)
  ms = await time(async () => { for await (const _ of s.putMany(items)) {} })
  results.push([label, 'putMany, 256 MiB in 256 KiB blocks', mibs(1024 * 262144, ms)])
}

// pin writes: one leveldb batch written with sync per pin
{
  const level = new LevelDatastore(path.join(root, 'datastore'))
  await level.open()
  const s = await store(true)
  const bs = new NodeBlockstore(s)
  const pins = createPins({ datastore: level, blockstore: bs })
  const items = await blocks(300, 64)
  for await (const _ of bs.putMany(items)) {}
  const ms = await time(async () => { for (const { cid } of items) await pins.pinRecursive(cid) })
  results.push(['sync', 'pinRecursive (raw block), one at a time', rate(items.length, ms)])
  await level.close()
}

// block/put through the command (registry, hashing, gc lock), on an initialised repo
{
  const repo = path.join(root, 'repo')
  await initRepo(repo)
  const node = await createNode({ repoPath: repo, online: false, noExternalPlugins: true, plugins: [blockPlugin()] })
  await node.start()
  const invoke = (bytes) => node.registry.invoke(['block', 'put'], { files: (async function * () { yield { path: '', type: 'file', content: (async function * () { yield bytes })() } })() }, node.container)
  const payloads = Array.from({ length: 1000 }, () => randomBytes(1024))
  let ms = await time(async () => { for (const p of payloads) await invoke(p) })
  results.push(['fsync', 'block/put command, one at a time', rate(payloads.length, ms)])
  const more = Array.from({ length: 5000 }, () => randomBytes(1024))
  ms = await time(async () => {
    let i = 0
    await Promise.all(Array.from({ length: 32 }, async () => { while (i < more.length) await invoke(more[i++]) }))
  })
  results.push(['fsync', 'block/put command, 32 concurrent', rate(more.length, ms)])
  await node.stop()
}

console.log(`dir ${base}, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? '4 (default)'}`)
for (const [a, b, c] of results) console.log(`${a.padEnd(9)} ${b.padEnd(42)} ${c}`)
await fs.rm(root, { recursive: true, force: true })
