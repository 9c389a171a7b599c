// Offline daemons on fresh repos for the per-row bench scripts (add-daemon.mjs, cat-daemon.mjs): tsipfs from a
// checkout (bin/tsipfs.js) or Kubo, loopback API and gateway on free ports, no swarm, flatfs `sync` as given.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { setFlatfsSync } from './flatfs-sync.js'

export const freePort = async () => await new Promise((resolve) => {
  const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)) })
})

/** the Node a daemon of the checkout at root runs on: this one if >= 22, else the project's own (bin/tsipfs.js
 * re-spawns that one, so flags such as --cpu-prof given to an older Node would profile only the launcher) */
export function daemonNode (root) {
  const local = path.join(root, 'node_modules', 'node', 'bin', 'node')
  return Number(process.versions.node.split('.')[0]) >= 22 || !fs.existsSync(local) ? process.execPath : local
}

/**
 * Init and start one offline daemon on a fresh temp repo: tsipfs of the checkout `tree` run by `node`, or the
 * `kubo` binary when tree is null; `flags` go to tsipfs's node; resolves once /api/v0/id answers.
 * -> { label, daemon, api, repo }
 */
export async function startOffline ({ label, tree, kubo, node, sync, prefix = 'bench', extraEnv = {}, flags = [] }) {
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-${label}-`))
  const apiPort = await freePort()
  const gwPort = await freePort()
  const env = { ...process.env, ...extraEnv, IPFS_PATH: repo }
  const [cmd, pre] = tree == null ? [kubo, []] : [node, [path.join(tree, 'bin', 'tsipfs.js')]]
  const cli = (...a) => { const r = spawnSync(cmd, [...pre, ...a], { env, encoding: 'utf8' }); if (r.status !== 0) throw new Error(`${label} ${a.join(' ')}: ${r.stderr}`) }
  cli('init', '--profile=test')
  cli('config', 'Addresses.API', `/ip4/127.0.0.1/tcp/${apiPort}`)
  cli('config', 'Addresses.Gateway', `/ip4/127.0.0.1/tcp/${gwPort}`)
  cli('config', '--json', 'Addresses.Swarm', '[]')
  setFlatfsSync(repo, sync)
  const log = fs.openSync(path.join(repo, 'daemon.log'), 'w')
  const daemon = spawn(cmd, [...(tree == null ? [] : flags), ...pre, 'daemon', '--offline'], { env, stdio: ['ignore', log, log] })
  const api = `http://127.0.0.1:${apiPort}`
  for (let i = 0; ; i++) {
    try { const r = await fetch(`${api}/api/v0/id`, { method: 'POST' }); await r.arrayBuffer(); if (r.ok) break } catch {}
    if (i > 200 || daemon.exitCode != null) throw new Error(`${label} did not start: ${fs.readFileSync(path.join(repo, 'daemon.log'), 'utf8')}`)
    await new Promise(resolve => setTimeout(resolve, 200))
  }
  return { label, daemon, api, repo }
}

/** SIGINT, SIGKILL after 15 s, then the repo is removed */
export async function stopDaemon (d) {
  const exited = new Promise(resolve => d.daemon.once('exit', resolve))
  d.daemon.kill('SIGINT')
  await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 15000))])
  if (d.daemon.exitCode == null && d.daemon.signalCode == null) { d.daemon.kill('SIGKILL'); await exited }
  fs.rmSync(d.repo, { recursive: true, force: true })
}
