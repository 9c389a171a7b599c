// Scripts that kill or measure the daemon need it to be their Node's own child with the same PID: bin/tsipfs.js
// re-execs itself in place only on Node >= 22 (under an older Node it starts a child, and a kill -9 or an RSS
// sample would hit the launcher). Call at the top of such a script: under an older Node it re-runs the script
// with the Node that `npm install` brought and exits with its status.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

/** @param {string} scriptUrl the calling script's import.meta.url */
export function runUnderNode22 (scriptUrl) {
  if (Number(process.versions.node.split('.')[0]) >= 22) return
  const local = path.join(root, 'node_modules', 'node', 'bin', 'node')
  process.exit(spawnSync(local, [fileURLToPath(scriptUrl), ...process.argv.slice(2)], { stdio: 'inherit' }).status ?? 1)
}
