// Machine limits measured in the bench's own run (issue 15's ratios): plain node:fs on the repos' file
// system, no project code. The rest (SHA-256, disk dd, loopback HTTP, trivial server) is physical.sh's.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { randomBytes } from 'node:crypto'
import { spawn } from 'node:child_process'
import { readSendServer } from './read-send-server.js'

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
 * What `cat` of a 256 MiB file stored as 1,024 block files can reach with two copies per byte (page cache
 * -> buffer -> socket; Node has no sendfile to a socket): a node:http server that reads each file in
 * place into a few reused buffers and writes it as a chunk (4 MiB ahead of the socket), curl in its own
 * process as for the loopback limit; MiB/s per run.
 */
async function readSend (dir, runs) {
  fs.mkdirSync(dir, { recursive: true })
  const files = Array.from({ length: 1024 }, (_, i) => path.join(dir, `b${i}`))
  for (const f of files) fs.writeFileSync(f, randomBytes(256 * 1024))
  const server = readSendServer(files)
  await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/`
  const out = []
  try {
    for (let r = 0; r < runs; r++) {
      out.push(await new Promise((resolve, reject) => {
        const p = spawn('curl', ['-sS', '-o', '/dev/null', '-w', '%{speed_download}', url])
        let text = ''
        p.stdout.on('data', d => { text += d })
        p.on('error', reject)
        p.on('close', c => c !== 0 ? reject(new Error(`curl ${c}`)) : resolve(Number(text) / 1048576))
      }))
    }
  } finally { server.close() }
  return out
}

/**
 * - naive durable put: 1 KiB blocks one file each (create, write, fsync, rename), 4 in flight (block/put's limit);
 * - durable 256 KiB files: 64 MiB as 256 KiB files with fsync and rename, 16 in flight (add's limit), MiB/s;
 * - read+send: 256 MiB of 256 KiB files read and sent over loopback HTTP (see readSend), MiB/s.
 * `leave`: an array to put the run folders in instead of removing them (deleting thousands of files makes the next
 * creates in those block groups slower on this journal-less ext4, see bench.js); removed at once without it.
 */
export async function measureLimits (runs, leave) {
  const out = { naivePut: [], files256k: [], readSend: [] }
  for (let r = 0; r < runs; r++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsipfs-bench-limits-'))
    try {
      out.naivePut.push(await durableWrites(path.join(dir, 'put'), randomBytes(1024), 4000, 4))
      out.files256k.push(await durableWrites(path.join(dir, 'add'), randomBytes(256 * 1024), 256, 16) / 4)
      if (r === 0) out.readSend.push(...await readSend(path.join(dir, 'cat'), runs))
    } finally {
      if (leave != null) leave.push(dir)
      else fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  return out
}
