#!/usr/bin/env node
// Run ../shared/client-suite (interface-ipfs-core over ipfs-http-client) against this daemon.
// Usage: node scripts/client-suite.js [--results DIR] [family ...]   (default: the families delivered so far)
// The suite is copied to .cache/client-suite and installed there once (npm ci), so shared/ stays clean.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const shared = path.resolve(root, '..', 'shared', 'client-suite')
const cache = path.join(root, '.cache', 'client-suite')

/** Families that pass and must keep passing (CI runs these). */
export const DELIVERED = ['version', 'id', 'config', 'bootstrap', 'key', 'add', 'cat', 'get', 'ls', 'refs', 'block', 'dag', 'files', 'pin', 'repo']

if (!existsSync(shared)) {
  console.error(`client-suite: ${shared} not found`)
  process.exit(1)
}
const lock = readFileSync(path.join(shared, 'package-lock.json'), 'utf8')
const stamp = path.join(cache, '.installed-lock')
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
  rmSync(cache, { recursive: true, force: true })
  mkdirSync(cache, { recursive: true })
  cpSync(shared, cache, { recursive: true, filter: (src) => !src.includes(`${path.sep}node_modules`) && !src.includes(`${path.sep}results`) })
  console.log('client-suite: installing (npm ci)…')
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: cache, stdio: 'inherit' })
  if (r.status !== 0) process.exit(r.status ?? 1)
  writeFileSync(stamp, lock)
}

// `--results DIR` (another results folder, for runs side by side); every other argument is a family
const argv = process.argv.slice(2)
const at = argv.indexOf('--results')
const results = at >= 0 ? path.resolve(argv[at + 1]) : path.join(root, '.cache', 'client-suite-results')
if (at >= 0) argv.splice(at, 2)
const families = argv.length > 0 ? argv : DELIVERED
const node = process.execPath
const env = {
  ...process.env,
  PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  DAEMON_CMD: `${node} ${path.join(root, 'bin', 'tsipfs.js')}`,
  DAEMON_CONFIG_MODE: process.env.DAEMON_CONFIG_MODE ?? 'set'
}
const args = [
  path.join(cache, 'bin', 'run.js'),
  '--skip-file', path.join(cache, 'skip', 'kubo.txt'),
  '--skip-file', path.join(cache, 'skip', 'no-internet.txt'),
  '--skip-file', path.join(root, 'test', 'client-suite-skip.txt'),
  '--results', results,
  ...families
]
const r = spawnSync(node, args, { cwd: cache, env, stdio: 'inherit' })
process.exit(r.status ?? 1)
