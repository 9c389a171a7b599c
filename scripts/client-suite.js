#!/usr/bin/env node
// Run ../shared/client-suite (interface-ipfs-core over ipfs-http-client) against this daemon.
// Usage: node scripts/client-suite.js [--results DIR] [--kubo] [family ...]   (default: the families delivered so far)
// The suite is copied to .cache/client-suite and installed there once (npm ci), so shared/ stays clean.
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const shared = path.resolve(root, '..', 'shared', 'client-suite')
const cache = path.join(root, '.cache', 'client-suite')

/** Families that pass and must keep passing (CI runs these). */
export const DELIVERED = ['version', 'id', 'config', 'bootstrap', 'key', 'add', 'cat', 'get', 'ls', 'refs', 'block', 'dag', 'files', 'pin', 'repo', 'name', 'resolve', 'name-pubsub', 'pubsub', 'swarm', 'bitswap', 'ping', 'stats', 'dht', 'object', 'dns', 'stop']

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
// The harness picks a node's API, Gateway and Swarm ports with three freePort() calls, each closing its socket
// before the next asks the kernel; once in a while two of them are the same port and the daemon fails at
// start with EADDRINUSE on its own swarm port (seen once in ~90 pubsub node starts). The installed copy gets
// a freePort that never hands out a port twice in one run.
const factoryFile = path.join(cache, 'lib', 'factory.js')
const factorySrc = readFileSync(factoryFile, 'utf8')
const PATCH = '// tsipfs scripts/client-suite.js: ports are never handed out twice'
if (!factorySrc.includes(PATCH)) {
  const head = 'export async function freePort () {'
  if (!factorySrc.includes(head)) throw new Error(`client-suite: ${factoryFile} has no freePort() to patch`)
  writeFileSync(factoryFile, factorySrc.replace(head, `${PATCH}
const handedOut = new Set()
export async function freePort () {
  for (;;) {
    const port = await anyFreePort()
    if (!handedOut.has(port)) { handedOut.add(port); return port }
  }
}
async function anyFreePort () {`))
}

// The suite's mock pinning service answers every pin with its default delegates (documentation addresses and
// example.net/org names), which a daemon dials as Kubo does: on this copy it answers with a loopback one (a
// refused port) instead, so that nothing leaves loopback
const services = path.join(cache, 'lib', 'services.js')
const servicesText = readFileSync(services, 'utf8')
const loopbackDelegates = "setup({ token, loglevel: 'error', delegates: '/ip4/127.0.0.1/tcp/1/p2p/QmaCpDMGvV2BGHeYERUEnRQAwe3N8SzbUtfsmvsqQLuvuJ' })"
if (!servicesText.includes(loopbackDelegates)) {
  const patched = servicesText.replace("setup({ token, loglevel: 'error' })", loopbackDelegates)
  if (patched === servicesText) {
    console.error(`client-suite: ${services} no longer starts the pinning service as expected; update scripts/client-suite.js`)
    process.exit(1)
  }
  writeFileSync(services, patched)
}

// `--results DIR` (another results folder, for runs side by side); `--kubo`: run the suite against the
// Kubo reference binary (scripts/kubo.sh builds it) instead, to compare; every other argument is a family
const argv = process.argv.slice(2)
const kubo = argv.includes('--kubo')
if (kubo) argv.splice(argv.indexOf('--kubo'), 1)
const at = argv.indexOf('--results')
const results = at >= 0 ? path.resolve(argv[at + 1]) : path.join(root, '.cache', kubo ? 'client-suite-results-kubo' : 'client-suite-results')
if (at >= 0) argv.splice(at, 2)
const families = argv.length > 0 ? argv : DELIVERED
const node = process.execPath
// tsipfs runs on Node >= 22: start the CLI with the Node that `npm install` brought when this one is older,
// instead of letting bin/tsipfs.js start a second Node for every CLI call
const node22 = path.join(root, 'node_modules', 'node', 'bin', 'node')
const cliNode = Number(process.versions.node.split('.')[0]) < 22 && existsSync(node22) ? node22 : node
let daemon = `${cliNode} ${path.join(root, 'bin', 'tsipfs.js')}`
if (kubo) {
  const k = spawnSync('bash', [path.join(root, 'scripts', 'kubo.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (k.status !== 0) process.exit(k.status ?? 1)
  daemon = k.stdout.trim().split('\n').pop()
}
const env = {
  ...process.env,
  PATH: `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  DAEMON_CMD: daemon,
  // Kubo's config is set one `config` call per key, as its users do; tsipfs's config file is written directly
  // (the same JSON file): each tsipfs CLI call costs about a second of CPU in module loading, and the eight
  // calls a node took made the two- and three-node set-ups (pubsub) overrun the suite's 80 s hooks under load.
  // `config` through the CLI is tested in test/http (cli) and the config family.
  DAEMON_CONFIG_MODE: process.env.DAEMON_CONFIG_MODE ?? (kubo ? 'set' : 'file'),
  // Kubo: no telemetry, no AutoConf fetches (the suite's nodes have no Bootstrap)
  ...(kubo ? { IPFS_TELEMETRY: 'off', DO_NOT_TRACK: '1', DAEMON_EXTRA_CONFIG: process.env.DAEMON_EXTRA_CONFIG ?? JSON.stringify({ AutoConf: { Enabled: false } }) } : {})
}
// tsipfs: the DNSLink names the suite resolves (ipfs.io, docs.ipfs.io) come from a DNS-over-HTTPS server on
// loopback (DNS.Resolvers), never real DNS, so the no-internet list's [name], [resolve] and [dns] entries run
// (dns then fails as against Kubo 0.40.1, which has no `dns` command: test/client-suite-skip.txt says so)
let noInternet = path.join(cache, 'skip', 'no-internet.txt')
let doh
if (!kubo && existsSync(path.join(root, 'dist', 'test', 'helpers', 'doh.js'))) {
  const { startDoh } = await import(path.join(root, 'dist', 'test', 'helpers', 'doh.js'))
  doh = await startDoh({ '_dnslink.ipfs.io': ['dnslink=/ipns/website.ipfs.io'], '_dnslink.website.ipfs.io': ['dnslink=/ipfs/bafkqaaa'], '_dnslink.docs.ipfs.io': ['dnslink=/ipfs/bafkqaaa'] })
  const extra = JSON.parse(process.env.DAEMON_EXTRA_CONFIG ?? '{}')
  // (suffix keys without dots: the suite's config writer splits keys on dots)
  env.DAEMON_EXTRA_CONFIG = JSON.stringify({ ...extra, DNS: { ...(extra.DNS ?? {}), Resolvers: { io: doh.url } } })
  const kept = []
  let section = ''
  for (const line of readFileSync(noInternet, 'utf8').split('\n')) {
    const m = /^\[(.+)\]$/.exec(line.trim())
    if (m != null) section = m[1]
    if (section !== 'name' && section !== 'resolve' && section !== 'dns') kept.push(line)
  }
  noInternet = path.join(cache, 'skip', 'no-internet-local-dns.txt')
  writeFileSync(noInternet, kept.join('\n'))
}
const args = [
  path.join(cache, 'bin', 'run.js'),
  '--skip-file', path.join(cache, 'skip', 'kubo.txt'),
  '--skip-file', noInternet,
  '--skip-file', path.join(root, 'test', 'client-suite-skip.txt'),
  '--results', results,
  ...families
]
// not spawnSync: the DoH server answers from this process
const status = await new Promise(resolve => spawn(node, args, { cwd: cache, env, stdio: 'inherit' }).on('exit', (code) => resolve(code ?? 1)))
await doh?.close()
process.exit(status)
