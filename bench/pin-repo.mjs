// dag import / dag export of a large CAR, pin ls over many pins, repo gc over many unpinned blocks:
// in-process through the registry, on an on-disk repo (flatfs with fsync, leveldb).
// Run after building:  npx tsc -p tsconfig.json && node bench/pin-repo.mjs [--car-mib 256] [--pins 100000] [--gc-blocks 100000] [dir]
// Setup that is not measured (the pins' blocks and records, the garbage blocks) is written directly,
// without fsync, to keep the run short; `sync` runs before the GC is timed.
// GC deletes are disk-bound on a cold cache: here `find -delete` of 300,000 files took as long as
// our GC of them with one unlink at a time (~2,300/s); 64 in flight ran ~3.5x faster.
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes, randomUUID } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import * as dagCbor from '@ipld/dag-cbor'
import { LevelDatastore } from 'datastore-level'
import { FlatfsBlockstore } from '../dist/core/blockstore/flatfs.js'
import { encodePinRecord } from '../dist/core/pins/index.js'
import { initRepo } from '../dist/core/repo/index.js'
import { createNode } from '../dist/server/node.js'
import { execute } from '../dist/registry/execute.js'
import { dagPlugin } from '../dist/plugins/dag/index.js'
import { pinPlugin } from '../dist/plugins/pin/index.js'
import { repoPlugin } from '../dist/plugins/repo/index.js'
import { carSection, carV1Header } from '../dist/plugins/dag/car.js'

const argv = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = argv.indexOf(name)
  if (i < 0) return dflt
  const v = Number(argv[i + 1])
  argv.splice(i, 2)
  return v
}
const carMib = opt('--car-mib', 256)
const pinCount = opt('--pins', 100_000)
const gcBlocks = opt('--gc-blocks', 100_000)
const base = argv[0] ?? os.tmpdir()
const repo = await fs.mkdtemp(path.join(base, 'tsipfs-bench-pinrepo-'))
await initRepo(repo)

const plugins = () => [dagPlugin(), pinPlugin(), repoPlugin()]
let node = await createNode({ repoPath: repo, online: false, noExternalPlugins: true, plugins: plugins() })
await node.start()

/** Run a command through the registry; consume its output without keeping it; returns items/bytes seen. */
async function run (cmd, input = {}) {
  const outcome = await execute(node.registry.prepare(cmd.split('/'), input), node.container, { signal: new AbortController().signal })
  let items = 0
  let bytes = 0
  if (outcome.kind === 'single') return { items: 1, bytes: 0, value: outcome.value }
  if (outcome.kind === 'ndjson') { for await (const _ of outcome.items) items++ } // eslint-disable-line no-unused-vars
  else for await (const c of outcome.body) bytes += c.length
  return { items, bytes }
}
const time = async (fn) => { const t = performance.now(); const r = await fn(); return { ms: performance.now() - t, r } }
const mibs = (bytes, ms) => `${(bytes / 1048576 / (ms / 1000)).toFixed(0)} MiB/s`
const rate = (n, ms) => `${Math.round(n / (ms / 1000)).toLocaleString('en-US')}/s`
const secs = (ms) => `${(ms / 1000).toFixed(2)} s`
const lines = []
const report = (...cells) => { const l = cells.join('  '); lines.push(l); console.log(l) }

// ---- dag import / export of a CAR of 256 KiB raw blocks under a dag-cbor tree ----
{
  const parts = []
  let level = []
  const n = carMib * 4
  for (let i = 0; i < n; i++) {
    const bytes = randomBytes(256 * 1024)
    const cid = CID.createV1(0x55, await sha256.digest(bytes))
    parts.push(...carSection(cid, bytes))
    level.push(cid)
  }
  while (level.length > 1) {
    const next = []
    for (let i = 0; i < level.length; i += 256) {
      const bytes = dagCbor.encode({ links: level.slice(i, i + 256) })
      const cid = CID.createV1(0x71, await sha256.digest(bytes))
      parts.push(...carSection(cid, bytes))
      next.push(cid)
    }
    level = next
  }
  const root = level[0]
  parts.unshift(carV1Header([root]))
  const size = parts.reduce((s, p) => s + p.length, 0)
  const files = async function * () { yield { path: '', type: 'file', content: (async function * () { yield * parts })() } }
  const imp = await time(() => run('dag/import', { files: files() }))
  report(`dag import, ${carMib} MiB CAR (${n} blocks of 256 KiB), pins the root:`, mibs(size, imp.ms), secs(imp.ms))
  const exp = await time(() => run('dag/export', { args: [root.toString()] }))
  if (exp.r.bytes !== size) throw new Error(`export gave ${exp.r.bytes} bytes, expected ${size}`)
  report(`dag export, same ${carMib} MiB DAG:`, mibs(size, exp.ms), secs(exp.ms))
  await run('pin/rm', { args: [root.toString()] })
  const gc = await time(() => run('repo/gc'))
  report(`repo gc of that unpinned DAG (${gc.r.items} blocks, ${carMib} MiB):`, rate(gc.r.items, gc.ms), secs(gc.ms))
}

/** Write `count` small raw blocks straight into the repo's flatfs (no fsync); returns their CIDs. */
async function garbage (count, tag) {
  const store = new FlatfsBlockstore(path.join(repo, 'blocks'), { sync: false })
  const cids = []
  const batch = []
  const flush = async () => { for await (const c of store.putMany(batch.splice(0))) cids.push(c) } // eslint-disable-line no-unused-vars
  for (let i = 0; i < count; i++) {
    const bytes = Buffer.from(`${tag} ${i} ${randomBytes(8).toString('hex')}`)
    batch.push({ cid: CID.createV1(0x55, await sha256.digest(bytes)), bytes })
    if (batch.length >= 4096) await flush()
  }
  await flush()
  return cids
}

// ---- pin ls over many pins (blocks and pin records written directly, then the node reopened) ----
{
  const cids = await garbage(pinCount, 'pin')
  await node.stop()
  const level = new LevelDatastore(path.join(repo, 'datastore'))
  await level.open()
  const u = (b) => 'u' + Buffer.from(b).toString('base64url')
  let ops = []
  for (const cid of cids) {
    const id = randomUUID().replaceAll('-', '')
    ops.push({ type: 'put', key: `/pins/pin/${id}`, value: encodePinRecord(cid, 0, '') })
    ops.push({ type: 'put', key: `/pins/index/cidRindex/${u(cid.bytes)}/${u(Buffer.from(id))}`, value: new Uint8Array(0) })
    if (ops.length >= 20_000) { await level.db.batch(ops); ops = [] }
  }
  if (ops.length > 0) await level.db.batch(ops, { sync: true })
  await level.close()
  node = await createNode({ repoPath: repo, online: false, noExternalPlugins: true, plugins: plugins() })
  await node.start()
  const load = await time(() => run('pin/ls', { options: { type: 'recursive', quiet: true } }))
  report(`pin ls --type=recursive, ${pinCount.toLocaleString('en-US')} pins (first call, loads the index):`, secs(load.ms))
  const rec = await time(() => run('pin/ls', { options: { type: 'recursive' } }))
  if (Object.keys(rec.r.value.Keys).length !== pinCount + 1) throw new Error('wrong pin count')
  report(`pin ls --type=recursive, ${pinCount.toLocaleString('en-US')} pins:`, secs(rec.ms))
  const stream = await time(() => run('pin/ls', { options: { stream: true } }))
  report(`pin ls --stream (type all: walks every pin), ${stream.r.items.toLocaleString('en-US')} rows:`, secs(stream.ms))
  const all = await time(() => run('pin/ls'))
  report(`pin ls (type all, one JSON map), ${pinCount.toLocaleString('en-US')} pins:`, secs(all.ms))
}

// ---- repo gc over many unpinned blocks (the pins above are marked and kept) ----
{
  const t = performance.now()
  await garbage(gcBlocks, 'gc')
  spawnSync('sync') // the setup's files on disk, so the GC does not race their writeback
  const setup = performance.now() - t
  const gc = await time(() => run('repo/gc'))
  if (gc.r.items !== gcBlocks) throw new Error(`gc removed ${gc.r.items}, expected ${gcBlocks}`)
  report(`repo gc, ${gcBlocks.toLocaleString('en-US')} unpinned blocks among ${pinCount.toLocaleString('en-US')} pinned:`, rate(gcBlocks, gc.ms), secs(gc.ms), `(setup ${secs(setup)})`)
  const verify = await time(() => run('repo/verify'))
  report(`repo verify, ${(verify.r.items - 1).toLocaleString('en-US')} blocks:`, rate(verify.r.items - 1, verify.ms), secs(verify.ms))
  const stat = await time(() => run('repo/stat'))
  report(`repo stat, ${stat.r.value.NumObjects.toLocaleString('en-US')} blocks:`, secs(stat.ms))
}

await node.stop()
await fs.rm(repo, { recursive: true, force: true })
