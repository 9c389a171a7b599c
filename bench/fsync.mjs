// What the disk allows durable block writes to do: fsync latency, and the rate of the crash-safe
// write (temp file + fsync + rename + folder fsync) when blocks come one at a time, in groups as a
// client with 4 connections makes them (block/put at c4), and in big batches (add).
// No project code: plain node:fs on the same file system as the repo.
// Usage: node bench/fsync.mjs [dir=os.tmpdir()]   (UV_THREADPOOL_SIZE=64 as the daemon sets it)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { randomBytes } from 'node:crypto'

process.env.UV_THREADPOOL_SIZE ??= '64'
const fsync = promisify(fs.fsync)
const base = fs.mkdtempSync(path.join(process.argv[2] ?? os.tmpdir(), 'tsipfs-fsync-'))
const temp = path.join(base, '.temp')
fs.mkdirSync(temp)
const SHARDS = 1024 // flatfs next-to-last/2
for (let s = 0; s < SHARDS; s++) fs.mkdirSync(path.join(base, String(s)))
const data = randomBytes(1024)
const now = () => performance.now()
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const mean = s.reduce((a, b) => a + b, 0) / s.length
  return `p50 ${s[Math.floor(s.length / 2)].toFixed(2)} ms, p99 ${s[Math.floor(s.length * 0.99)].toFixed(2)} ms, mean ${mean.toFixed(2)} ms`
}
let seq = 0

/** one crash-safe write of a group of blocks: temps written + fsynced together, renamed, folders fsynced */
async function group (n) {
  const items = Array.from({ length: n }, () => ({ tmp: path.join(temp, `t${seq}`), dir: path.join(base, String(Math.floor(Math.random() * SHARDS))), name: `b${seq++}` }))
  await Promise.all(items.map(async (it) => {
    const fd = fs.openSync(it.tmp, 'wx')
    fs.writeSync(fd, data)
    await fsync(fd)
    fs.closeSync(fd)
  }))
  for (const it of items) fs.renameSync(it.tmp, path.join(it.dir, it.name))
  await Promise.all([...new Set(items.map(it => it.dir))].map(async (d) => {
    const fd = fs.openSync(d, 'r')
    await fsync(fd)
    fs.closeSync(fd)
  }))
}

const lines = []
// latencies, one at a time
{
  const file = []
  const dir = []
  for (let i = 0; i < 300; i++) {
    const tmp = path.join(temp, `l${i}`)
    const fd = fs.openSync(tmp, 'wx')
    fs.writeSync(fd, data)
    let t = now()
    await fsync(fd)
    file.push(now() - t)
    fs.closeSync(fd)
    const d = path.join(base, String(i % SHARDS))
    fs.renameSync(tmp, path.join(d, `l${i}`))
    const dfd = fs.openSync(d, 'r')
    t = now()
    await fsync(dfd)
    dir.push(now() - t)
    fs.closeSync(dfd)
  }
  lines.push(`fsync of a new 1 KiB file:          ${stats(file)}`)
  lines.push(`fsync of its folder after a rename: ${stats(dir)}`)
}
// crash-safe writes of 1 KiB blocks, by group size
for (const [n, total] of [[1, 300], [4, 1200], [16, 2400], [128, 5120], [1024, 8192]]) {
  const t = now()
  for (let done = 0; done < total; done += n) await group(n)
  const s = (now() - t) / 1000
  lines.push(`groups of ${String(n).padStart(4)}: ${String(Math.round(total / s)).padStart(5)} blocks/s, ${String(Math.round(total / n / s)).padStart(4)} groups/s`)
}
console.log(`dir ${base} (${SHARDS} shard folders), UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE}`)
for (const l of lines) console.log(l)
console.log('block/put at concurrency 4 waits for one group of <= 4 per round trip: its ceiling is the "groups of 4" rate')
fs.rmSync(base, { recursive: true, force: true })
