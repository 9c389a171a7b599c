// Debian packages tests need: the set-up installs what is missing (scripts/ensure-debs.sh: as root,
// serialised), so CI runs these tests instead of skipping them on a fresh machine.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { ROOT } from './daemon.js'

/** Whether `cmd` is on PATH. */
export function hasCommand (cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0
}

/**
 * Install the packages of the commands missing (`{ command: package }`), then return why a command is
 * still missing (undefined when all are there). Only a machine where installing is impossible (not
 * root, no package manager) gets a reason; callers print it with their skip.
 */
export function ensureDebs (pairs: Record<string, string>): string | undefined {
  const missing = Object.keys(pairs).filter(c => !hasCommand(c))
  if (missing.length === 0) return undefined
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'ensure-debs.sh'), ...missing.map(c => `${c}=${pairs[c]}`)], {
    encoding: 'utf8',
    timeout: 900_000,
    stdio: ['ignore', 'inherit', 'pipe']
  })
  const still = missing.filter(c => !hasCommand(c))
  if (still.length === 0) return undefined
  const reason = `${still.join(', ')} missing and could not be installed (scripts/ensure-debs.sh exit ${String(r.status)}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' | ')})`
  // CI runs as root on a machine that reaches Debian's mirrors: there a failed install is a failure
  if (process.env.CI != null && process.env.CI !== '' && process.env.CI !== 'false') throw new Error(reason)
  return reason
}

/** Skip the mocha test or hook with the reason printed (the only kind of skip tests may do). */
export function skipWithReason (ctx: Mocha.Context, reason: string): never {
  console.log(`      SKIPPED: ${reason}`)
  ctx.skip()
}
