// Spawn the built daemon on a temp repo (API on 127.0.0.1:0, offline by default) and find its address.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
export const CLI = path.join(ROOT, 'bin', 'tsipfs.js')

export interface Daemon {
  repo: string
  /** http://127.0.0.1:PORT */
  url: string
  apiAddr: string
  proc: ChildProcess
  log: () => string
  /** run the CLI against this repo */
  cli: (args: string[], opts?: { input?: string | Buffer, env?: Record<string, string> }) => { status: number | null, stdout: string, stderr: string }
  stop: () => Promise<void>
}

export function runCli (repo: string, args: string[], opts: { input?: string | Buffer, env?: Record<string, string> } = {}): { status: number | null, stdout: string, stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, IPFS_PATH: repo, ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 60_000
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

export interface DaemonInit {
  /** config keys set with `config --json` before start */
  config?: Record<string, unknown>
  online?: boolean
  args?: string[]
  /** run on this existing repo (no init; stop() leaves it in place) */
  repo?: string
}

/** A new temp repo (`<tmp>/<prefix>XXXXXX`) initialised with `init --profile=test`. */
export function initTestRepo (prefix = 'tsipfs-test-'): string {
  const repo = mkdtempSync(path.join(os.tmpdir(), prefix))
  const i = runCli(repo, ['init', '--profile=test'])
  if (i.status !== 0) throw new Error(`init failed: ${i.stderr}`)
  return repo
}

/** Resolves when the daemon's process has exited (at once if it already has). */
export async function waitExit (d: Daemon): Promise<void> {
  if (d.proc.exitCode != null || d.proc.signalCode != null) return
  await new Promise(resolve => d.proc.once('exit', resolve))
}

export async function startDaemon (init: DaemonInit = {}): Promise<Daemon> {
  const repo = init.repo ?? initTestRepo()
  for (const [k, v] of Object.entries(init.config ?? {})) {
    const r = runCli(repo, ['config', '--json', k, JSON.stringify(v)])
    if (r.status !== 0) throw new Error(`config ${k} failed: ${r.stderr}`)
  }
  let out = ''
  const proc = spawn(process.execPath, [CLI, 'daemon', ...(init.online === true ? [] : ['--offline']), ...(init.args ?? [])], {
    env: { ...process.env, IPFS_PATH: repo },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  proc.stdout?.on('data', (c: Buffer) => { out += c.toString() })
  proc.stderr?.on('data', (c: Buffer) => { out += c.toString() })
  const deadline = Date.now() + 30_000
  while (!out.includes('Daemon is ready')) {
    if (proc.exitCode != null) throw new Error(`daemon exited: ${out}`)
    if (Date.now() > deadline) { proc.kill('SIGKILL'); throw new Error(`daemon did not start: ${out}`) }
    await new Promise(resolve => setTimeout(resolve, 50))
  }
  const apiAddr = readFileSync(path.join(repo, 'api'), 'utf8').trim()
  const [, , host, , port] = apiAddr.split('/')
  return {
    repo,
    url: `http://${host}:${port}`,
    apiAddr,
    proc,
    log: () => out,
    cli: (args, opts) => runCli(repo, args, opts),
    stop: async () => {
      if (proc.exitCode == null) {
        const exited = new Promise(resolve => proc.once('exit', resolve))
        proc.kill('SIGTERM')
        const t = setTimeout(() => proc.kill('SIGKILL'), 10_000)
        await exited
        clearTimeout(t)
      }
      if (init.repo == null && existsSync(repo)) rmSync(repo, { recursive: true, force: true })
    }
  }
}
