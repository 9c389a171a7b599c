// Machine limits measured in the bench's own run (issue 15's ratios): plain node:fs on the repos' file
// system, no project code. The rest (SHA-256, disk dd, loopback HTTP, trivial server) is physical.sh's.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { randomBytes } from 'node:crypto'

const fsync = promisify(fs.fsync)
const open = promisify(fs.open)
const write = promisify(fs.write)
const close = promisify(fs.close)
const rename = promisify(fs.rename)

/** `count` files of `data`, each created, written, fsynced and renamed into one of 256 folders, `concurrency` at once; files/s. */
async function durableWrites (dir, data, count, concurrency) {
  for (let s = 0; s < 256; s++) fs.mkdirSync(path.join(dir, String(s)), { recursive: true })
  let next = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++
      const tmp = path.join(dir, `.tmp-${i}`)
      const fd = await open(tmp, 'wx')
      await write(fd, data)
      await fsync(fd)
      await close(fd)
      await rename(tmp, path.join(dir, String(i % 256), `f${i}`))
    }
  }))
  return count / ((performance.now() - t0) / 1000)
}

/**
 * - naive durable put: 1 KiB blocks one file each (create, write, fsync, rename), 4 in flight (block/put's limit);
 * - durable 256 KiB files: 64 MiB as 256 KiB files with fsync and rename, 16 in flight (add's limit), MiB/s.
 */
export async function measureLimits (runs) {
  const out = { naivePut: [], files256k: [] }
  for (let r = 0; r < runs; r++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsipfs-bench-limits-'))
    try {
      out.naivePut.push(await durableWrites(path.join(dir, 'put'), randomBytes(1024), 4000, 4))
      out.files256k.push(await durableWrites(path.join(dir, 'add'), randomBytes(256 * 1024), 256, 16) / 4)
    } finally { fs.rmSync(dir, { recursive: true, force: true }) }
  }
  return out
}
