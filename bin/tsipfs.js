#!/usr/bin/env node
// Launcher: runs the CLI on Node >= 22. When started by an older Node (the machine's), it re-runs
// itself with the Node that `npm install` brought (the `node` package in node_modules).
// `daemon` runs with V8 heap settings Node only takes on its command line (DAEMON_NODE_FLAGS) and glibc
// malloc settings read at process start (DAEMON_MALLOC_ENV), so it replaces this process (process.execve:
// same PID, stdio and signals) with one started with them.
// Other commands start as they are (no second start-up).
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

// block writes fsync many files at once: give libuv more threads than its default 4 (before first use)
process.env.UV_THREADPOOL_SIZE ??= '64'

/**
 * Node flags of a long-running daemon (TSIPFS_DAEMON_NODE_FLAGS replaces them; '' for none). With
 * them the daemon's RSS after the benchmark run went from ~300 to ~190 MiB, add/cat/gateway speed unchanged:
 * - old generation: after a full GC it may grow by half its live size (V8 allows up to 4x under a high
 *   allocation rate, and a daemon under load allocates fast), but no full GC is started below 48 MiB
 *   (without that floor the buffers of a large add, counted as external memory, force a full GC every
 *   few MiB and add slows down by a third; 48 instead of 64: 12-15 MiB less RSS after the 10,000-file add
 *   and gateway wrk, add and gateway CPU the same in A/B under load ~22); an online daemon (no --offline) gets 128 MiB: dead block and
 *   socket buffers count against that limit, and with 64 a 256 MiB bitswap transfer did ~20 full GCs on
 *   the receiver and ~13 on the sender (128: 5-6 and 0-3, a third less CPU per MiB on both sides);
 * - young generation: 4 MiB semi-spaces instead of 16 offline (8 MiB less RSS than 8 once a load grew it;
 *   gateway, add and 10,000-file add CPU the same, A/B under load ~25); online 8 (bitswap measured with 8);
 * - offline, scavenges on the main thread only: a parallel one waits for helper threads that a busy machine
 *   (or wrk beside it on 2 cores) has not scheduled: under gateway wrk, pauses per scavenge 0.5-2.7 ms ->
 *   0.2-0.9 and gateway CPU per request ~7 % less (same-minute A/Bs, load ~15).
 */
const DAEMON_NODE_FLAGS = ['--heap-growing-percent=50', '--initial-old-space-size=48', '--max-semi-space-size=4']
const OFFLINE_ONLY_FLAGS = ['--no-parallel-scavenge']
const ONLINE_OLD_SPACE = '--initial-old-space-size=128'
const ONLINE_SEMI_SPACE = '--max-semi-space-size=8'
/** an argument that makes the daemon offline as the CLI parses it: --offline, --local or -L, one or two dashes, =<Go true> */
const OFFLINE_ARG = /^--?(offline|local|L)(=(1|t|T|TRUE|true|True))?$/

/**
 * glibc malloc settings of a daemon (read by glibc at process start; a value already in the environment
 * wins): Node reads sockets into 64 KiB buffers, and a 256 MiB add left ~30 MiB of them freed in the
 * middle of the main heap, which glibc never gives back; mapped on their own they go back when freed
 * (the RSS after an add went from ~150 to ~127 MiB). 32 KiB, not 64: a request body chunk is a copy of one
 * socket read, often short of 64 KiB; those still filled the main arena to ~31 MiB (12 in use) over the
 * bench sequence, ~19 with 32 KiB (add, put and gateway CPU the same). Two arenas instead of one per busy thread.
 */
const DAEMON_MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: '32768', MALLOC_ARENA_MAX: '2' }

const args = process.argv.slice(2)
const script = fileURLToPath(import.meta.url)

/** The Node flags to start the command with: none for commands other than daemon. */
function nodeFlags () {
  // a false positive (a file named "daemon") only runs that command with the daemon's heap settings
  if (!args.includes('daemon')) return []
  const override = process.env.TSIPFS_DAEMON_NODE_FLAGS
  const online = !args.some(a => OFFLINE_ARG.test(a))
  const wanted = override != null
    ? override.split(/\s+/).filter(f => f !== '')
    : online
      ? DAEMON_NODE_FLAGS.map(f => f.startsWith('--initial-old-space-size=') ? ONLINE_OLD_SPACE : f.startsWith('--max-semi-space-size=') ? ONLINE_SEMI_SPACE : f)
      : [...DAEMON_NODE_FLAGS, ...OFFLINE_ONLY_FLAGS]
  // flags the user gave (command line or NODE_OPTIONS) win; after the re-exec ours are among them
  const name = (f) => f.split('=')[0].replace(/_/g, '-')
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map(name)
  return wanted.filter(f => !given.includes(name(f)))
}

/** The malloc settings to add to the environment: none for other commands or when all are set. */
function mallocEnv () {
  if (!args.includes('daemon') || process.platform !== 'linux') return {}
  return Object.fromEntries(Object.entries(DAEMON_MALLOC_ENV).filter(([k]) => process.env[k] == null))
}

const major = Number(process.versions.node.split('.')[0])
const here = path.dirname(script)
const flags = nodeFlags()
const extraEnv = mallocEnv()
if (major < 22) {
  const local = path.join(here, '..', 'node_modules', 'node', 'bin', 'node')
  if (!existsSync(local)) {
    process.stderr.write(`Error: tsipfs needs Node >= 22 (this is ${process.version}); run 'npm install' in ${path.join(here, '..')} first\n`)
    process.exit(1)
  }
  const { spawn } = await import('node:child_process')
  const { default: os } = await import('node:os')
  const child = spawn(local, [...flags, ...process.execArgv, script, ...args], { stdio: 'inherit', env: { ...process.env, ...extraEnv } })
  // the child shares our process group; forward signals only if it did not get them itself
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => { setTimeout(() => { if (child.exitCode == null) child.kill(sig) }, 200).unref() })
  }
  child.on('exit', (code, signal) => {
    if (signal != null) {
      // end as the child did (a SIGPIPE death is what the shell must see for `tsipfs cat … | head`)
      process.removeAllListeners(signal)
      process.on(signal, () => {})
      process.removeAllListeners(signal)
      process.kill(process.pid, signal)
      setTimeout(() => process.exit(128 + (os.constants.signals[signal] ?? 1)), 1000).unref()
      return
    }
    process.exit(code ?? 0)
  })
} else {
  // (Node 22 before 22.15 has no process.execve: the daemon then runs with Node's defaults)
  if ((flags.length > 0 || Object.keys(extraEnv).length > 0) && typeof process.execve === 'function') {
    process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, script, ...args], { ...process.env, ...extraEnv })
  }
  // V8's code cache for our modules and their dependencies, kept across runs (Node's default folder
  // under the temp dir; NODE_COMPILE_CACHE or NODE_DISABLE_COMPILE_CACHE=1 as Node documents)
  const { enableCompileCache } = await import('node:module')
  enableCompileCache?.()
  const { main } = await import('../dist/server/cli.js')
  process.exitCode = await main(process.argv.slice(2))
}
