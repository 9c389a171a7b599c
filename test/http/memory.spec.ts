// The daemon's memory settings, seen from outside: what an offline daemon loads (a module-load hook
// records every ES module it imports) and the Node flags the launcher starts it with.
import { expect } from 'chai'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { startDaemon, runCli, type Daemon } from '../helpers/daemon.js'
import { skipWithReason } from '../helpers/debs.js'

/** Run `fn` with extra environment variables for the processes it spawns. */
async function withEnv<T> (vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map(k => [k, process.env[k]]))
  Object.assign(process.env, vars)
  try {
    return await fn()
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v == null) delete process.env[k]
      else process.env[k] = v
    }
  }
}

describe('daemon memory (spawned)', function () {
  this.timeout(60_000)
  let dir: string
  let hook: string
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-modlog-'))
    hook = path.join(dir, 'hook.mjs')
    // every module URL a process loads goes to $TSIPFS_TEST_MODLOG.<pid>
    writeFileSync(hook, `import { register } from 'node:module'
const out = process.env.TSIPFS_TEST_MODLOG + '.' + process.pid
if (process.env.TSIPFS_TEST_MODLOG != null) register('data:text/javascript,' + encodeURIComponent(\`
import fs from 'node:fs'
export async function load (url, context, next) { fs.appendFileSync(\${JSON.stringify(out)}, url + '\\\\n'); return await next(url, context) }
\`))
process.on('exit', () => { if (process.env.TSIPFS_TEST_EXECARGV != null) process.stderr.write('EXECARGV ' + process.execArgv.join(' ') + '\\n') })
`)
  })
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  const modules = (d: Daemon): string[] => {
    const file = path.join(dir, `modlog.${d.proc.pid ?? 0}`)
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(l => l !== '') : []
  }
  const networking = /\/node_modules\/(libp2p|@libp2p\/(tcp|kad-dht|gossipsub|identify|tls|websockets|circuit-relay-v2|autonat|dcutr|upnp-nat|mdns)|@helia\/(bitswap|delegated-routing-v1-http-api-client)|@chainsafe\/(libp2p-(noise|yamux|quic)|netmask))\//

  it('an offline daemon loads neither libp2p nor bitswap', async () => {
    const d = await withEnv({ NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`, TSIPFS_TEST_MODLOG: path.join(dir, 'modlog') }, async () => await startDaemon())
    try {
      const loaded = modules(d)
      // the hook saw the daemon's own modules (so an absent module is really not loaded)
      expect(loaded.some(u => u.endsWith('/dist/server/daemon.js'))).to.equal(true)
      expect(loaded.some(u => u.endsWith('/dist/core/container.js'))).to.equal(true)
      expect(loaded.filter(u => networking.test(u) || /\/dist\/core\/(libp2p|bitswap)\//.test(u))).to.deep.equal([])
      // plugins that register services load those, not their commands (a command loads on its first request)
      expect(loaded.some(u => u.endsWith('/dist/plugins/files/services.js'))).to.equal(true)
      expect(loaded.filter(u => /\/dist\/plugins\/(files|pin-remote|filestore|p2p)\/(index|write|read|ls|add|verify|listen)\.js$/.test(u))).to.deep.equal([])
      const id = await fetch(`${d.url}/api/v0/id`, { method: 'POST' })
      expect(id.status).to.equal(200)
    } finally {
      await d.stop()
    }
  })

  it('an online daemon loads libp2p and bitswap, and no pubsub unless enabled', async () => {
    const d = await withEnv({ NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`, TSIPFS_TEST_MODLOG: path.join(dir, 'modlog') }, async () =>
      await startDaemon({ online: true, config: { 'Addresses.Swarm': ['/ip4/127.0.0.1/tcp/0'], Bootstrap: [] } }))
    try {
      const loaded = modules(d)
      expect(loaded.some(u => /\/node_modules\/libp2p\//.test(u))).to.equal(true)
      expect(loaded.some(u => /\/node_modules\/@helia\/bitswap\//.test(u))).to.equal(true)
      // an online daemon gets the bigger old-generation floor (bitswap's dead buffers trigger full GCs)
      if (process.platform === 'linux') {
        const args = readFileSync(`/proc/${d.proc.pid ?? 0}/cmdline`, 'utf8').split('\0')
        expect(args).to.include.members(['--heap-growing-percent=50', '--initial-old-space-size=128', '--max-semi-space-size=8'])
        expect(args).to.not.include('--initial-old-space-size=48')
        expect(args).to.not.include('--max-semi-space-size=4')
        // (parallel scavenges stay: bitswap was measured with them)
        expect(args).to.not.include('--no-parallel-scavenge')
      }
      expect(loaded.some(u => /\/node_modules\/@libp2p\/kad-dht\//.test(u))).to.equal(true)
      expect(loaded.some(u => /\/node_modules\/@libp2p\/gossipsub\//.test(u))).to.equal(false)
    } finally {
      await d.stop()
    }
  })

  it('the daemon runs in the spawned process with the heap flags and malloc settings; TSIPFS_DAEMON_NODE_FLAGS replaces them', async function () {
    if (process.platform !== 'linux') skipWithReason(this, `reads /proc/<pid>/cmdline: Linux only (this is ${process.platform})`)
    const cmdline = (d: Daemon): string[] => readFileSync(`/proc/${d.proc.pid ?? 0}/cmdline`, 'utf8').split('\0')
    const environ = (d: Daemon): string[] => readFileSync(`/proc/${d.proc.pid ?? 0}/environ`, 'utf8').split('\0')
    const d = await startDaemon()
    try {
      // the same PID answers the API (the launcher replaced itself), started with the flags
      const args = cmdline(d)
      expect(args).to.include.members(['--heap-growing-percent=50', '--initial-old-space-size=48', '--max-semi-space-size=4', '--no-parallel-scavenge'])
      expect(args.slice(-3, -1)).to.deep.equal(['daemon', '--offline'])
      expect(environ(d)).to.include.members(['MALLOC_MMAP_THRESHOLD_=32768', 'MALLOC_ARENA_MAX=2'])
      expect((await fetch(`${d.url}/api/v0/id`, { method: 'POST' })).status).to.equal(200)
    } finally {
      await d.stop()
    }
    const plain = await withEnv({ TSIPFS_DAEMON_NODE_FLAGS: '--max-semi-space-size=2', MALLOC_ARENA_MAX: '4' }, async () => await startDaemon())
    try {
      const args = cmdline(plain)
      expect(args).to.include('--max-semi-space-size=2')
      expect(args).to.not.include('--max-semi-space-size=4')
      // a malloc setting in the environment wins
      expect(environ(plain)).to.include.members(['MALLOC_ARENA_MAX=4', 'MALLOC_MMAP_THRESHOLD_=32768'])
      expect(args.some(a => a.startsWith('--heap-growing-percent') || a.startsWith('--initial-old-space-size') || a === '--no-parallel-scavenge')).to.equal(false)
    } finally {
      await plain.stop()
    }
  })

  it('the launcher tells an offline daemon by every form the CLI takes (--offline=1, -offline, --local, -L, ...)', function () {
    if (process.platform !== 'linux') skipWithReason(this, `the daemon re-exec needs process.execve (this is ${process.platform})`)
    this.timeout(120_000)
    const repo = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-test-'))
    try {
      // `daemon --help` is re-executed with the daemon's flags, prints the help and exits: its exit line has them
      const flagsOf = (args: string[]): string => {
        const r = runCli(repo, ['daemon', ...args, '--help'], { env: { NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`, TSIPFS_TEST_EXECARGV: '1' } })
        expect(r.status, args.join(' ')).to.equal(0)
        return r.stderr.match(/^EXECARGV .*$/m)?.[0] ?? ''
      }
      for (const offline of [['--offline=1'], ['-offline'], ['--local'], ['-L']]) {
        expect(flagsOf(offline), offline.join(' ')).to.include('--max-semi-space-size=4').and.include('--no-parallel-scavenge').and.not.include('--initial-old-space-size=128')
      }
      for (const online of [['--offline=false'], ['--local=f']]) {
        expect(flagsOf(online), online.join(' ')).to.include('--initial-old-space-size=128').and.not.include('--no-parallel-scavenge')
      }
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })

  it('other commands run without re-exec', () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-test-'))
    try {
      const r = runCli(repo, ['version'], { env: { NODE_OPTIONS: `--import=${pathToFileURL(hook).href}`, TSIPFS_TEST_EXECARGV: '1' } })
      expect(r.status).to.equal(0)
      // one process ran the command (one exit line), started without the daemon's flags
      expect(r.stderr.match(/^EXECARGV .*$/mg)).to.have.length(1)
      expect(r.stderr).to.not.include('--heap-growing-percent')
      expect(r.stdout).to.match(/version/)
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })
})
