#!/usr/bin/env node
// Launcher: runs the CLI on Node >= 22. When started by an older Node (the machine's), it re-runs
// itself with the Node that `npm install` brought (the `node` package in node_modules).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

// block writes fsync many files at once: give libuv more threads than its default 4 (before first use)
process.env.UV_THREADPOOL_SIZE ??= '64'

const major = Number(process.versions.node.split('.')[0])
const here = path.dirname(fileURLToPath(import.meta.url))
if (major < 22) {
  const local = path.join(here, '..', 'node_modules', 'node', 'bin', 'node')
  if (!existsSync(local)) {
    process.stderr.write(`Error: tsipfs needs Node >= 22 (this is ${process.version}); run 'npm install' in ${path.join(here, '..')} first\n`)
    process.exit(1)
  }
  const child = spawn(local, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' })
  // the child shares our process group; forward signals only if it did not get them itself
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => { setTimeout(() => { if (child.exitCode == null) child.kill(sig) }, 200).unref() })
  }
  child.on('exit', (code, signal) => { process.exit(code ?? (signal != null ? 1 : 0)) })
} else {
  const { main } = await import('../dist/server/cli.js')
  process.exitCode = await main(process.argv.slice(2))
}
