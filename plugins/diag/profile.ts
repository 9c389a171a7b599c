// ipfs diag profile (kubo core/commands/profile.go + profile/profile.go): the daemon's profiles in one zip,
// streamed as it is written. Kubo's collector names; each writes the Node counterpart of Go's file
// (README "diag profile" lists them). The CLI writes the zip to --output or ipfs-profile-<time>.zip.
import { createWriteStream } from 'node:fs'
import path from 'node:path'
import { PassThrough, type Readable } from 'node:stream'
import v8 from 'node:v8'
import { pipeline } from 'node:stream/promises'
import { ZipArchive } from 'archiver'
import { RpcError } from '../../core/errors.js'
import { parseGoDuration } from '../../core/util/duration.js'
import { cpuProfile, heapProfile, resourcesText } from '../../core/diag/profile.js'
import { defineCommand } from '../../registry/define.js'
import type { CliIO, Outcome, TextCall } from '../../registry/types.js'
import { versionInfo } from '../version/system.js'
import { sysInfo } from './sys.js'

/** Kubo's default list, and sysinfo */
export const DEFAULT_COLLECTORS = ['goroutines-stack', 'goroutines-pprof', 'version', 'heap', 'allocs', 'bin', 'cpu', 'mutex', 'block', 'trace', 'sysinfo']

interface Ctx { profileMs: number, signal: AbortSignal, repoPath: string, online: boolean }
interface Collector {
  file: string
  /** Kubo's enabledFunc: sampling profiles only with a profile time */
  enabled: (ctx: Ctx, o: { mutex: number, blockMs: number }) => boolean
  collect?: (ctx: Ctx) => Promise<Uint8Array | string | Readable>
}

const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n'

/** Kubo's collectors; those without a Node counterpart (goroutines-pprof, bin, mutex, block, trace) write nothing */
const COLLECTORS: Record<string, Collector> = {
  'goroutines-stack': { file: 'goroutines.stacks', enabled: () => true, collect: async () => resourcesText() },
  'goroutines-pprof': { file: 'goroutines.pprof', enabled: () => true },
  version: { file: 'version.json', enabled: () => true, collect: async () => json(versionInfo()) },
  // Go's heap profile is the live heap: V8's heap snapshot (streamed into the zip)
  heap: { file: 'heap.heapsnapshot', enabled: () => true, collect: async () => v8.getHeapSnapshot() },
  allocs: { file: 'allocs.heapprofile', enabled: (c) => c.profileMs > 0, collect: async (c) => await heapProfile(c.profileMs, c.signal) },
  bin: { file: 'ipfs', enabled: () => true },
  cpu: { file: 'cpu.cpuprofile', enabled: (c) => c.profileMs > 0, collect: async (c) => await cpuProfile(c.profileMs, c.signal) },
  mutex: { file: 'mutex.pprof', enabled: (c, o) => c.profileMs > 0 && o.mutex > 0 },
  block: { file: 'block.pprof', enabled: (c, o) => c.profileMs > 0 && o.blockMs > 0 },
  trace: { file: 'trace', enabled: (c) => c.profileMs > 0 },
  // beyond Kubo: `diag sys` (Kubo's sysinfo JSON) beside the profiles
  sysinfo: { file: 'sysinfo.json', enabled: () => true, collect: async (c) => json(await sysInfo(c.repoPath, c.online)) }
}

function duration (name: string, text: string): number {
  try {
    return Number(parseGoDuration(text) / 1_000_000n)
  } catch (err) {
    throw new RpcError(`failed to parse ${name} ${JSON.stringify(text)}: ${(err as Error).message}`)
  }
}

/** timeFormat: RFC 3339 with ':' replaced by '_' (Go's local time) */
export function profileFileName (now = new Date()): string {
  const pad = (n: number): string => String(n).padStart(2, '0')
  const off = -now.getTimezoneOffset()
  const zone = off === 0 ? 'Z' : `${off > 0 ? '+' : '-'}${pad(Math.floor(Math.abs(off) / 60))}_${pad(Math.abs(off) % 60)}`
  const t = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}_${pad(now.getMinutes())}_${pad(now.getSeconds())}${zone}`
  return `ipfs-profile-${t}.zip`
}

export const diagProfile = defineCommand({
  path: ['diag', 'profile'],
  description: 'Collect a performance profile for debugging.',
  help: `Collects profiles from a running tsipfs daemon into a single zip file.

Node counterparts of Kubo's Go profiles: a V8 CPU profile (cpu.cpuprofile), sampling heap
profiles (heap.heapsnapshot: the live heap now; allocs.heapprofile: sampled allocations during --profile-time), the
event loop's resources and stack (goroutines.stacks), version.json and sysinfo.json. Open the
.cpuprofile and .heapprofile files in Chrome DevTools or VS Code.

Privacy Notice: the output includes the process's stacks and the file names of its code, the
output of 'ipfs version --all' and 'ipfs diag sys'; none of your IPFS data, config or keys.`,
  options: {
    output: { type: 'string', aliases: ['o'], description: 'The path where the output .zip should be stored. Default: ./ipfs-profile-[timestamp].zip.' },
    collectors: { type: 'strings', delimiter: ',', default: DEFAULT_COLLECTORS, description: 'The list of collectors to use for collecting diagnostic data.' },
    'profile-time': { type: 'string', default: '30s', description: 'The amount of time spent profiling. If this is set to 0, then sampling profiles are skipped.' },
    'mutex-profile-fraction': { type: 'int', default: 4, description: 'The fraction 1/n of mutex contention events that are reported in the mutex profile.' },
    'block-profile-rate': { type: 'string', default: '1ms', description: 'The duration to wait between sampling goroutine-blocking events for the blocking profile.' }
  },
  output: 'bytes',
  contentType: 'application/zip',
  run: async ({ options, deps: { repoPath, node }, signal }): Promise<AsyncIterable<Uint8Array>> => {
    const profileMs = duration('profile duration', options.profileTime)
    const blockMs = duration('block profile rate', options.blockProfileRate)
    const names = options.collectors.length > 0 ? options.collectors : DEFAULT_COLLECTORS
    for (const name of names) if (!Object.hasOwn(COLLECTORS, name)) throw new RpcError(`unknown collector '${name}'`)
    const ctx: Ctx = { profileMs, signal, repoPath, online: node.online }
    const chosen = [...new Set(names)].map(n => COLLECTORS[n]).filter(c => c.collect != null && c.enabled(ctx, { mutex: options.mutexProfileFraction, blockMs }))
    const zip = new ZipArchive({ zlib: { level: 6 } })
    const out = new PassThrough()
    zip.pipe(out)
    // collectors run together (the CPU and allocation profiles share the profile time), entries are added as
    // they finish, the zip is closed when all are in
    void Promise.all(chosen.map(async c => {
      const data = await (c.collect as NonNullable<Collector['collect']>)(ctx)
      zip.append(data instanceof Uint8Array ? Buffer.from(data) : data, { name: c.file })
    })).then(async () => { await zip.finalize() }, (err: Error) => { out.destroy(new RpcError(`generating profile data: ${err.message}`)) })
    return out
  },
  cliRender: async (outcome: Outcome, call: TextCall<{ output?: string }>, io: CliIO) => {
    if (outcome.kind !== 'bytes') throw new Error('diag profile: expected a byte stream')
    const file = call.options.output != null && call.options.output !== '' ? call.options.output : profileFileName()
    await pipeline(outcome.body, createWriteStream(path.resolve(io.cwd, file)))
    io.stdout.write(`Wrote profiles to: ${file}\n`)
  }
})
