// Faults and long runs against a spawned daemon, shared by scripts/kill-loop.js, scripts/soak.js and
// test/http/soak.spec.ts: a kill -9 loop checking every acknowledged write after each restart, and a
// mixed-load soak sampling the daemon's RSS and open file descriptors.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { initTestRepo, startDaemon, waitExit, type Daemon } from './daemon.js'
import { multipart, ndjsonLines, rpc, streamPost } from './rpc.js'
import { chachaBytes } from '../unit/core/unixfs-helpers.js'
import { carSection, carV1Header } from '../../plugins/dag/car.js'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'

type Log = (line: string) => void
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex')
const sleep = async (ms: number): Promise<void> => { await new Promise(resolve => setTimeout(resolve, ms)) }

/** Commands the daemon has (`/api/v0/commands`), as "a/b" paths. */
export async function commandPaths (d: Daemon): Promise<Set<string>> {
  const out = new Set<string>()
  const walk = (c: { Name: string, Subcommands?: any[] }, p: string): void => { out.add(p); for (const s of c.Subcommands ?? []) walk(s, p === '' ? s.Name : `${p}/${s.Name}`) }
  walk((await rpc(d.url, '/api/v0/commands')).json(), '')
  return out
}

/** `repo verify` and `pin verify` are clean; returns the problems found. */
export async function verifyRepo (d: Daemon): Promise<string[]> {
  const bad: string[] = []
  const rv = await rpc(d.url, '/api/v0/repo/verify')
  if (rv.status !== 200) bad.push(`repo verify ${rv.status}: ${rv.body}`)
  else bad.push(...ndjsonLines(rv.body).filter(r => r.Msg !== '' && r.Msg !== 'verify complete, all blocks validated.').map(r => `repo verify: ${String(r.Msg)}`))
  if ((rv.trailers['x-stream-error'] ?? '') !== '') bad.push(`repo verify: ${rv.trailers['x-stream-error'] as string}`)
  const pv = await rpc(d.url, '/api/v0/pin/verify')
  if (pv.status !== 200 || pv.body !== '') bad.push(`pin verify ${pv.status}: ${pv.body.slice(0, 500)}`)
  return bad
}

// ---- the kill loop ----

/** What the daemon acknowledged (a 200 received before the kill): it must survive every later kill. */
interface Acked {
  /** cid -> sha256 of the bytes added (pinned recursively) */
  added: Map<string, string>
  /** CAR roots imported with pin-roots */
  imported: Set<string>
  /** cids whose pin rm was acknowledged (and not pinned again since) */
  unpinned: Set<string>
  /** MFS path -> sha256 of its content */
  files: Map<string, string>
  /** cids whose pin add or rm was sent but not answered: either state is right (pin verify checks them whole) */
  either: Set<string>
}

export interface KillLoopResult { rounds: number, acknowledged: number, lost: string[], problems: string[], ops: Record<string, number> }

async function carOf (seed: string, blocks: number, size: number): Promise<{ root: string, parts: Uint8Array[] }> {
  const parts: Uint8Array[] = []
  const links: CID[] = []
  for (let i = 0; i < blocks; i++) {
    const b = chachaBytes(`${seed}/${i}`, size)
    const cid = CID.createV1(0x55, await sha256.digest(b))
    links.push(cid)
    parts.push(...carSection(cid, b))
  }
  const { encode } = await import('@ipld/dag-cbor')
  const rootBytes = encode({ links })
  const root = CID.createV1(0x71, await sha256.digest(rootBytes))
  parts.push(...carSection(root, rootBytes))
  return { root: root.toString(), parts: [carV1Header([root]), ...parts] }
}

/**
 * `rounds` times: start a few random writes at once (add, pin add/rm, gc, dag import, files write, and
 * name publish / remote pin when the daemon has them), kill -9 the daemon at a random moment, restart
 * it on the same repo, and check `repo verify`, `pin verify` and every acknowledged write.
 */
export async function killLoop (opts: { rounds: number, log?: Log, maxBytes?: number }): Promise<KillLoopResult> {
  const log = opts.log ?? (() => {})
  const maxBytes = opts.maxBytes ?? 3 << 20
  const repo = initTestRepo('tsipfs-killloop-')
  const acked: Acked = { added: new Map(), imported: new Set(), unpinned: new Set(), files: new Map(), either: new Set() }
  const result: KillLoopResult = { rounds: 0, acknowledged: 0, lost: [], problems: [], ops: {} }
  let d = await startDaemon({ repo })
  const cmds = await commandPaths(d)
  let n = 0
  const ops: Record<string, (d: Daemon) => Promise<void>> = {
    add: async (d) => {
      const bytes = chachaBytes(`add ${n++}`, 1 + Math.floor(Math.random() * maxBytes))
      const chunks: Buffer[] = []
      for (let o = 0; o < bytes.length; o += 256 << 10) chunks.push(bytes.subarray(o, o + (256 << 10)))
      const r = await streamPost(d.url, '/api/v0/add?pin=true&quieter=true', chunks, () => {}, 'f')
      if (r.status === 200) {
        const cid = ndjsonLines(r.body ?? '').at(-1).Hash as string
        acked.added.set(cid, sha(bytes))
        acked.unpinned.delete(cid)
      }
    },
    'pin rm': async (d) => {
      const cid = [...acked.added.keys()][Math.floor(Math.random() * acked.added.size)]
      if (cid == null) return
      acked.added.delete(cid)
      acked.either.add(cid)
      const r = await rpc(d.url, `/api/v0/pin/rm?arg=${cid}`).catch(() => undefined)
      if (r?.status === 200) { acked.either.delete(cid); acked.unpinned.add(cid) }
    },
    'pin add': async (d) => {
      const cid = [...acked.unpinned][0]
      if (cid == null) return
      acked.unpinned.delete(cid)
      acked.either.add(cid)
      const r = await rpc(d.url, `/api/v0/pin/add?arg=${cid}`).catch(() => undefined)
      // re-pinned: the content must still be whole (gc may have taken it: then the pin fails)
      if (r?.status === 200) { acked.either.delete(cid); acked.added.set(cid, '') } else if (r != null) { acked.either.delete(cid); acked.unpinned.add(cid) }
    },
    gc: async (d) => { await rpc(d.url, '/api/v0/repo/gc') },
    'dag import': async (d) => {
      const car = await carOf(`car ${n++}`, 8 + Math.floor(Math.random() * 64), 64 << 10)
      const r = await streamPost(d.url, '/api/v0/dag/import?pin-roots=true', car.parts, () => {})
      if (r.status === 200) acked.imported.add(car.root)
    },
    'files write': async (d) => {
      const p = `/kill/f${n++}`
      const bytes = chachaBytes(`mfs ${n}`, 1 + Math.floor(Math.random() * maxBytes))
      const r = await streamPost(d.url, `/api/v0/files/write?arg=${p}&create=true&parents=true&truncate=true`, [bytes], () => {}, 'data')
      if (r.status === 200) acked.files.set(p, sha(bytes))
    }
  }
  if (cmds.has('name/publish')) {
    ops['name publish'] = async (d) => {
      const cid = [...acked.added.keys()][0]
      if (cid != null) await rpc(d.url, `/api/v0/name/publish?arg=/ipfs/${cid}&allow-offline=true`)
    }
  }
  if (cmds.has('pin/remote/add')) ops['pin remote'] = async (d) => { await rpc(d.url, '/api/v0/pin/remote/service/ls') }
  const names = Object.keys(ops)
  try {
    for (let round = 1; round <= opts.rounds; round++) {
      const picked = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => names[Math.floor(Math.random() * names.length)])
      for (const p of picked) result.ops[p] = (result.ops[p] ?? 0) + 1
      const daemon = d
      const running = picked.map(async p => await ops[p](daemon).catch(() => {}))
      await sleep(Math.random() * 1500)
      daemon.proc.kill('SIGKILL')
      await Promise.all(running)
      await waitExit(daemon)
      d = await startDaemon({ repo })
      let problems: string[]
      let lost: string[] = []
      try {
        problems = await verifyRepo(d)
        lost = await checkAcked(d, acked)
      } catch (err) {
        // the restarted daemon stopped answering: a problem to report with its log, then go on
        const died = d
        problems = [`checks failed: ${(err as Error).message}; daemon exit ${String(died.proc.exitCode)} signal ${String(died.proc.signalCode)}; log: ${died.log().slice(-3000)}`]
        if (died.proc.exitCode == null && died.proc.signalCode == null) died.proc.kill('SIGKILL')
        await waitExit(died)
        d = await startDaemon({ repo })
      }
      result.rounds = round
      result.acknowledged = acked.added.size + acked.imported.size + acked.files.size + acked.unpinned.size
      result.problems.push(...problems.map(p => `round ${round}: ${p}`))
      result.lost.push(...lost.map(p => `round ${round}: ${p}`))
      log(`round ${round}/${opts.rounds}: ${picked.join(', ')}; acknowledged so far ${result.acknowledged}; ${problems.length} problems, ${lost.length} lost`)
      if (problems.length > 0 || lost.length > 0) log([...problems, ...lost].join('\n'))
    }
  } finally {
    if (d.proc.exitCode == null) await d.stop()
    rmSync(repo, { recursive: true, force: true })
  }
  return result
}

/** Every acknowledged write is there: pinned as acknowledged, readable, the same bytes. */
async function checkAcked (d: Daemon, acked: Acked): Promise<string[]> {
  const lost: string[] = []
  const pins = (await rpc(d.url, '/api/v0/pin/ls?type=recursive')).json().Keys ?? {}
  for (const [cid, digest] of acked.added) {
    if (pins[cid]?.Type !== 'recursive') lost.push(`${cid}: acknowledged add, not pinned`)
    const cat = await rpc(d.url, `/api/v0/cat?arg=${cid}`)
    if (cat.status !== 200 || (cat.trailers['x-stream-error'] ?? '') !== '') lost.push(`${cid}: cat ${cat.status} ${cat.trailers['x-stream-error'] ?? cat.body.slice(0, 200)}`)
    else if (digest !== '' && sha(cat.bytes) !== digest) lost.push(`${cid}: content differs`)
  }
  for (const cid of acked.unpinned) if (pins[cid] != null) lost.push(`${cid}: acknowledged pin rm, still pinned`)
  for (const root of acked.imported) {
    if (pins[root]?.Type !== 'recursive') lost.push(`${root}: acknowledged dag import, root not pinned`)
    const st = await rpc(d.url, `/api/v0/dag/stat?arg=${root}&progress=false`)
    if (st.status !== 200) lost.push(`${root}: dag stat ${st.status} ${st.body.slice(0, 200)}`)
  }
  for (const [p, digest] of acked.files) {
    const r = await rpc(d.url, `/api/v0/files/read?arg=${p}`)
    if (r.status !== 200 || sha(r.bytes) !== digest) lost.push(`${p}: acknowledged files write, read ${r.status} ${r.status === 200 ? 'other bytes' : r.body.slice(0, 200)}`)
  }
  return lost
}

// ---- the soak ----

export interface Sample { minute: number, rssMiB: number, fds: number, requests: number, errors: number }

/** The daemon's resident set (MiB) and open descriptors, from /proc. */
export function processFigures (pid: number): { rssMiB: number, fds: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0)
  return { rssMiB: Math.round(rss / 1024), fds: readdirSync(`/proc/${pid}/fd`).length }
}

/**
 * Mixed load on one daemon for `minutes` (adds, cats, gateway reads, pins, gc, pubsub when the
 * command exists), `concurrency` clients, sampling RSS and fds every `sampleMs`.
 */
export async function soak (opts: { minutes: number, sampleMs?: number, concurrency?: number, log?: Log }): Promise<{ samples: Sample[], daemon: string }> {
  const log = opts.log ?? (() => {})
  const sampleMs = opts.sampleMs ?? 60_000
  const d = await startDaemon()
  const gateway = readFileSync(path.join(d.repo, 'gateway'), 'utf8').trim()
  const cmds = await commandPaths(d)
  const cids: string[] = []
  let requests = 0
  let errors = 0
  let n = 0
  const count = (status: number): void => { requests++; if (status !== 200) errors++ }
  // every request is one that must succeed: reads and pins only of content still pinned (gc runs too)
  const pick = (): string | undefined => cids[Math.floor(Math.random() * cids.length)]
  const work: Array<() => Promise<void>> = [
    async () => {
      const mp = multipart([{ filename: 'f', content: chachaBytes(`soak ${n++}`, 1024 + Math.floor(Math.random() * (512 << 10))) }])
      const r = await rpc(d.url, '/api/v0/add?pin=true', { body: mp.body, headers: { 'Content-Type': mp.contentType } })
      count(r.status)
      if (r.status === 200) cids.push(r.ndjson().at(-1).Hash)
    },
    async () => { const c = pick(); if (c != null) count((await rpc(d.url, `/api/v0/cat?arg=${c}`)).status) },
    async () => { const c = pick(); if (c != null) { const r = await fetch(`${gateway}/ipfs/${c}`); await r.arrayBuffer(); count(r.status) } },
    async () => { const c = pick(); if (c != null) count((await rpc(d.url, `/api/v0/pin/add?arg=${c}`)).status) },
    async () => {
      // unpin the oldest beyond 100 pinned: taken from the list first, so nothing reads it after
      if (cids.length <= 100) return
      const c = cids.shift() as string
      count((await rpc(d.url, `/api/v0/pin/rm?arg=${c}`)).status)
    },
    async () => { if (Math.random() < 0.05) count((await rpc(d.url, '/api/v0/repo/gc')).status) },
    async () => { count((await rpc(d.url, '/api/v0/repo/stat')).status) }
  ]
  if (cmds.has('pubsub/pub')) {
    const pub = async (): Promise<number> => {
      const mp = multipart([{ filename: 'data', content: 'soak' }])
      const r = await rpc(d.url, '/api/v0/pubsub/pub?arg=soak', { body: mp.body, headers: { 'Content-Type': mp.contentType } })
      if (r.status !== 200) log(`pubsub left out of the mix: ${r.body.trim()}`)
      return r.status
    }
    // the soak's daemon is offline: pubsub joins the mix only where it answers there
    if (await pub() === 200) work.push(async () => { count(await pub()) })
  }
  const pid = d.proc.pid as number
  const start = Date.now()
  const end = start + opts.minutes * 60_000
  const samples: Sample[] = []
  const sample = (): void => {
    const f = processFigures(pid)
    samples.push({ minute: Math.round((Date.now() - start) / 6000) / 10, ...f, requests, errors })
    log(`${String(samples.at(-1)?.minute).padStart(6)} min  RSS ${String(f.rssMiB).padStart(5)} MiB  fds ${String(f.fds).padStart(4)}  requests ${requests}  errors ${errors}`)
  }
  sample()
  const timer = setInterval(sample, sampleMs)
  try {
    await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, async () => {
      while (Date.now() < end && d.proc.exitCode == null) {
        await work[Math.floor(Math.random() * work.length)]().catch(() => { requests++; errors++ })
      }
    }))
    if (d.proc.exitCode != null) throw new Error(`the daemon exited during the soak: ${d.log().slice(-2000)}`)
    sample()
  } finally {
    clearInterval(timer)
    await d.stop()
  }
  return { samples, daemon: d.log().slice(-2000) }
}

/** Growth of RSS and fds from the first sample after warm-up to the end. */
export function growth (samples: Sample[]): { rssMiB: number, fds: number, start: Sample, end: Sample } {
  const start = samples[Math.min(1, samples.length - 1)]
  const end = samples[samples.length - 1]
  return { rssMiB: end.rssMiB - start.rssMiB, fds: end.fds - start.fds, start, end }
}
