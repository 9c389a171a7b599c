// The Kubo reference binary for interop tests: scripts/kubo.sh builds it once into .cache/kubo (flocked, so
// parallel callers wait for one build). Tests never skip for lack of Kubo: the set-up builds it.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { ROOT } from './daemon.js'

let cached: string | undefined

/** Path of the Kubo binary, building it when missing (can take minutes the first time: give the hook time). */
export function kuboBinary (): string {
  if (cached != null) return cached
  if (process.env.TSIPFS_KUBO_BIN != null && process.env.TSIPFS_KUBO_BIN !== '') return (cached = process.env.TSIPFS_KUBO_BIN)
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'kubo.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 30 * 60_000 })
  const bin = r.stdout?.trim().split('\n').pop() ?? ''
  if (r.status !== 0 || bin === '') throw new Error(`scripts/kubo.sh failed (status ${String(r.status)})`)
  return (cached = bin)
}

/** Environment for every Kubo process a test starts: no telemetry, no tracking. */
export const KUBO_ENV = { IPFS_TELEMETRY: 'off', DO_NOT_TRACK: '1' }
