// files/write of a large file into MFS and files/read back, in-process through the registry, on an
// on-disk repo (flatfs with fsync, leveldb). Run after building:
//   npx tsc -p tsconfig.json && node bench/mfs.mjs [--mib 256] [dir]
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createCipheriv } from 'node:crypto'
import { initRepo } from '../dist/core/repo/index.js'
import { createNode } from '../dist/server/node.js'
import { execute } from '../dist/registry/execute.js'
import { filesPlugin } from '../dist/plugins/files/index.js'

const argv = process.argv.slice(2)
const i = argv.indexOf('--mib')
const mib = i >= 0 ? Number(argv.splice(i, 2)[1]) : 256
const repo = await fs.mkdtemp(path.join(argv[0] ?? os.tmpdir(), 'tsipfs-bench-mfs-'))
await initRepo(repo)
const node = await createNode({ repoPath: repo, online: false, noExternalPlugins: true, plugins: [filesPlugin()] })
await node.start()
const signal = new AbortController().signal
const run = async (cmd, input) => await execute(node.registry.prepare(cmd.split('/'), input), node.container, { signal })

// deterministic pseudo-random content, produced as it is consumed (1 MiB pieces)
async function * content () {
  const c = createCipheriv('aes-256-ctr', Buffer.alloc(32, 7), Buffer.alloc(16))
  const zero = Buffer.alloc(1 << 20)
  for (let n = 0; n < mib; n++) yield c.update(zero)
}
async function * files () { yield { path: 'data', type: 'file', content: content() } }

let t = performance.now()
const w = await run('files/write', { args: ['/big.bin'], options: { create: true }, files: files() })
if (w.kind === 'ndjson') for await (const _ of w.items) {} // eslint-disable-line no-unused-vars
const writeMs = performance.now() - t

t = performance.now()
const r = await run('files/read', { args: ['/big.bin'] })
let bytes = 0
for await (const chunk of r.body) bytes += chunk.length
const readMs = performance.now() - t
if (bytes !== mib << 20) throw new Error(`read ${bytes} bytes, wrote ${mib << 20}`)

console.log(`files/write ${mib} MiB: ${(mib / (writeMs / 1000)).toFixed(0)} MiB/s (${(writeMs / 1000).toFixed(2)} s)`)
console.log(`files/read  ${mib} MiB: ${(mib / (readMs / 1000)).toFixed(0)} MiB/s (${(readMs / 1000).toFixed(2)} s)`)
await node.stop()
await fs.rm(repo, { recursive: true, force: true })
