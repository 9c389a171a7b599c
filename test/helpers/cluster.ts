// The multi-node harness every networked test family uses: tsipfs daemons (online), Kubo daemons
// (scripts/kubo.sh builds the reference binary when it is missing) and Helia peers (test/helpers/helia-peer.ts,
// a spawned process), on loopback or each in its own network namespace (test/helpers/netns.ts); connect them,
// wait for conditions, collect logs (.test-artifacts/net/<label>/), clean up (processes, repos, namespaces)
// whatever happens, also when the test process exits early.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CLI, ROOT, runCli } from './daemon.js'
import { KUBO_ENV, kuboBinary } from './kubo.js'
import { NetnsNetwork, type Namespace } from './netns.js'
import { sleep, waitFor } from './wait.js'

export { waitFor }
import { multipart, rpc, type RpcResponse } from './rpc.js'

export type PeerKind = 'tsipfs' | 'kubo' | 'helia'
export type Transport = 'tcp' | 'quic'

/** An RPC error answered by a daemon: Kubo's {Message, Code} and the HTTP status. */
export class RpcCallError extends Error {
  constructor (readonly status: number, message: string, readonly path: string) {
    super(message)
    this.name = 'RpcCallError'
  }
}

export interface PeerInit {
  name?: string
  /** config keys set before start (dotted paths, values as JSON): { 'Swarm.ConnMgr': {...} } */
  config?: Record<string, unknown>
  /** extra `daemon` flags (tsipfs, Kubo) */
  args?: string[]
  /** namespace mode: 10.<net>.<zone>.<n> (default 1) */
  zone?: number
  /** Helia: which DHT to run */
  dht?: 'wan' | 'lan' | 'none'
  /** extra environment of the daemon process (tsipfs, Kubo) */
  env?: Record<string, string>
  /** Helia: run js-libp2p gossipsub (ops subscribe, publish, messages, subscribers through `call`) */
  pubsub?: boolean
}

export interface Peer {
  kind: PeerKind
  name: string
  /** peer ID */
  id: string
  /** host the peer listens on (127.0.0.1 or its namespace address) */
  host: string
  ns?: Namespace
  /** RPC base URL (tsipfs, Kubo) */
  api?: string
  repo?: string
  proc: ChildProcess
  /** listen addresses with /p2p/<id>, refreshed by refresh() */
  addrs: string[]
  /** a dialable address for a transport */
  addr: (transport?: Transport) => string
  /** call an RPC command: JSON value, NDJSON values as an array, or bytes */
  call: (cmd: string, args?: string[], options?: Record<string, string | number | boolean>, file?: Buffer) => Promise<any>
  add: (data: Buffer | string) => Promise<string>
  cat: (cid: string, timeoutMs?: number) => Promise<Buffer>
  /** dial another peer (swarm connect) */
  connect: (to: Peer, transport?: Transport) => Promise<void>
  /** peer IDs this peer is connected to */
  peers: () => Promise<string[]>
  /** the AgentVersion this peer learned from another by identify */
  agentOf: (peerId: string) => Promise<string | null>
  refresh: () => Promise<void>
  log: () => string
  /** resident memory of the daemon process, bytes */
  rss: () => number
  stop: () => Promise<void>
}

/** The Node that npm brought (libp2p and Helia need >= 22); the running one when it is missing. */
const NODE = existsSync(path.join(ROOT, 'node_modules', 'node', 'bin', 'node')) ? path.join(ROOT, 'node_modules', 'node', 'bin', 'node') : process.execPath

function setPath (obj: Record<string, any>, key: string, value: unknown): void {
  const parts = key.split('.')
  let o = obj
  for (const p of parts.slice(0, -1)) o = (o[p] != null && typeof o[p] === 'object') ? o[p] : (o[p] = {})
  o[parts[parts.length - 1]] = value
}

function editConfig (repo: string, keys: Record<string, unknown>): void {
  const file = path.join(repo, 'config')
  const cfg = JSON.parse(readFileSync(file, 'utf8'))
  for (const [k, v] of Object.entries(keys)) setPath(cfg, k, v)
  writeFileSync(file, JSON.stringify(cfg, null, 2))
}

const query = (args: string[], options: Record<string, string | number | boolean>): string => {
  const q = new URLSearchParams()
  for (const a of args) q.append('arg', a)
  for (const [k, v] of Object.entries(options)) q.append(k, String(v))
  const s = q.toString()
  return s === '' ? '' : `?${s}`
}

function decode (res: RpcResponse, cmd: string): any {
  if (res.status !== 200) {
    let msg = res.body
    try { msg = res.json().Message ?? msg } catch {}
    throw new RpcCallError(res.status, msg, cmd)
  }
  if (res.trailers['x-stream-error'] != null && res.trailers['x-stream-error'] !== '') throw new RpcCallError(500, res.trailers['x-stream-error'], cmd)
  if (res.headers['x-stream-output'] === '1') return res.bytes
  if (res.headers['x-chunked-output'] === '1') return res.ndjson()
  if (res.body.trim() === '') return null
  try { return res.json() } catch { return res.body }
}

/** Spawns a daemon process (inside a namespace when given), keeps its output, resolves once `ready` is printed. */
async function spawnDaemon (argv: string[], env: Record<string, string>, ns: Namespace | undefined, ready: string, timeoutMs: number): Promise<{ proc: ChildProcess, log: () => string }> {
  const full = ns != null ? [...ns.exec, ...argv] : argv
  let out = ''
  const proc = spawn(full[0], full.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const keep = (c: Buffer): void => { out += c.toString(); if (out.length > 4_000_000) out = out.slice(-2_000_000) }
  proc.stdout?.on('data', keep)
  proc.stderr?.on('data', keep)
  const deadline = Date.now() + timeoutMs
  while (!out.includes(ready)) {
    if (proc.exitCode != null || proc.signalCode != null) throw new Error(`${argv.join(' ')} exited: ${out}`)
    if (Date.now() > deadline) { killGroup(proc, 'SIGKILL'); throw new Error(`${argv.join(' ')} did not start: ${out}`) }
    await sleep(50)
  }
  return { proc, log: () => out }
}

function killGroup (proc: ChildProcess, signal: NodeJS.Signals): void {
  if (proc.pid == null || proc.exitCode != null || proc.signalCode != null) return
  try { process.kill(-proc.pid, signal) } catch { try { proc.kill(signal) } catch {} }
}

async function stopProc (proc: ChildProcess): Promise<void> {
  if (proc.exitCode != null || proc.signalCode != null) return
  const exited = new Promise(resolve => proc.once('exit', resolve))
  killGroup(proc, 'SIGTERM')
  const t = setTimeout(() => { killGroup(proc, 'SIGKILL') }, 8_000)
  await exited
  clearTimeout(t)
}

function rssOf (pid: number | undefined): number {
  if (pid == null) return 0
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m == null ? 0 : Number(m[1]) * 1024
  } catch { return 0 }
}

export interface ClusterInit {
  /** label for the logs folder */
  label?: string
  /** each node in its own network namespace (root + iproute2; see netnsUnavailable()) */
  netns?: boolean
}

/** The config both kinds of daemon start with: API, gateway and swarm (TCP + QUIC) on the peer's host (fixed
 * ports inside a namespace, random ones on loopback), no bootstrap peers, no mDNS. */
function peerAddresses (host: string, ns: Namespace | undefined): Record<string, unknown> {
  const port = (p: number): number => ns != null ? p : 0
  return {
    'Addresses.API': `/ip4/${host}/tcp/${port(15001)}`,
    'Addresses.Gateway': `/ip4/${host}/tcp/${port(18080)}`,
    'Addresses.Swarm': [`/ip4/${host}/tcp/${port(14001)}`, `/ip4/${host}/udp/${port(14001)}/quic-v1`],
    Bootstrap: [],
    'Discovery.MDNS.Enabled': false
  }
}

export class Cluster {
  readonly peers: Peer[] = []
  readonly network?: NetnsNetwork
  private readonly label: string
  private readonly repos: string[] = []
  private stopped = false
  private readonly onExit = (): void => { for (const p of this.peers) killGroup(p.proc, 'SIGKILL') }

  constructor (init: ClusterInit = {}) {
    this.label = init.label ?? `cluster-${Date.now()}`
    if (init.netns === true) this.network = new NetnsNetwork()
    process.once('exit', this.onExit)
  }

  private place (init: PeerInit): { ns?: Namespace, host: string } {
    if (this.network == null) return { host: '127.0.0.1' }
    const ns = this.network.add(init.zone ?? 1)
    return { ns, host: ns.addr }
  }

  private tempRepo (prefix: string): string {
    const repo = mkdtempSync(path.join(os.tmpdir(), prefix))
    this.repos.push(repo)
    return repo
  }

  /** An online tsipfs daemon (`init --profile=test`, swarm on TCP and QUIC, random ports on loopback). */
  async tsipfs (init: PeerInit = {}): Promise<Peer> {
    const name = init.name ?? `tsipfs${this.peers.length}`
    const { ns, host } = this.place(init)
    const repo = this.tempRepo('tsipfs-net-')
    const i = runCli(repo, ['init', '--profile=test'])
    if (i.status !== 0) throw new Error(`tsipfs init failed: ${i.stderr}`)
    editConfig(repo, { ...peerAddresses(host, ns), ...init.config })
    const { proc, log } = await spawnDaemon([NODE, CLI, 'daemon', ...(init.args ?? [])], { ...init.env, IPFS_PATH: repo }, ns, 'Daemon is ready', 60_000)
    return await this.daemonPeer('tsipfs', name, host, ns, repo, proc, log)
  }

  /** A Kubo daemon: `init --profile=test`, AutoConf off, no Bootstrap, TCP and QUIC on loopback/namespace addresses. */
  async kubo (init: PeerInit = {}): Promise<Peer> {
    const bin = kuboBinary()
    const name = init.name ?? `kubo${this.peers.length}`
    const { ns, host } = this.place(init)
    const repo = this.tempRepo('kubo-net-')
    const env = { ...KUBO_ENV, IPFS_PATH: repo }
    const r = await new Promise<number | null>((resolve) => {
      const p = spawn(bin, ['init', '--profile=test'], { env: { ...process.env, ...env }, stdio: 'ignore' })
      p.on('exit', resolve)
    })
    if (r !== 0) throw new Error(`kubo init failed (${String(r)})`)
    editConfig(repo, {
      ...peerAddresses(host, ns),
      'AutoConf.Enabled': false,
      'Plugins.Plugins.telemetry.Disabled': true,
      ...init.config
    })
    const { proc, log } = await spawnDaemon([bin, 'daemon', ...(init.args ?? [])], { ...init.env, ...env }, ns, 'Daemon is ready', 60_000)
    return await this.daemonPeer('kubo', name, host, ns, repo, proc, log)
  }

  private async daemonPeer (kind: PeerKind, name: string, host: string, ns: Namespace | undefined, repo: string, proc: ChildProcess, log: () => string): Promise<Peer> {
    const apiAddr = await waitFor(() => existsSync(path.join(repo, 'api')) && readFileSync(path.join(repo, 'api'), 'utf8').trim(), { what: `${name}'s api file`, timeout: 10_000 })
    const [, , apiHost, , apiPort] = apiAddr.split('/')
    const api = `http://${apiHost}:${apiPort}`
    const call: Peer['call'] = async (cmd, args = [], options = {}, file) => {
      const req = file != null ? multipart([{ name: 'file', filename: 'file', content: file }]) : undefined
      const res = await rpc(api, `/api/v0/${cmd}${query(args, options)}`, req != null ? { body: req.body, headers: { 'Content-Type': req.contentType } } : {})
      return decode(res, cmd)
    }
    const peer: Peer = {
      kind,
      name,
      id: '',
      host,
      ns,
      api,
      repo,
      proc,
      addrs: [],
      addr: (t = 'tcp') => pickAddr(peer, t),
      call,
      add: async (data) => {
        const out = await call('add', [], { 'cid-version': 1, 'raw-leaves': true, pin: true, quieter: true }, Buffer.from(data))
        return (Array.isArray(out) ? out[out.length - 1] : out).Hash
      },
      cat: async (cid, timeoutMs = 30_000) => await call('cat', [cid], { timeout: `${Math.ceil(timeoutMs / 1000)}s` }),
      connect: async (to, t = 'tcp') => { await call('swarm/connect', [to.addr(t)]) },
      peers: async () => ((await call('swarm/peers')).Peers ?? []).map((p: { Peer: string }) => p.Peer),
      agentOf: async (peerId) => (await call('id', [peerId])).AgentVersion ?? null,
      refresh: async () => {
        const id = await call('id')
        peer.id = id.ID
        peer.addrs = (id.Addresses ?? []).filter((a: string) => !/\/(tcp|udp)\/0(\/|$)/.test(a))
      },
      log,
      rss: () => rssOf(proc.pid),
      stop: async () => { await stopProc(proc) }
    }
    await peer.refresh()
    this.peers.push(peer)
    return peer
  }

  /** A Helia peer (npm `helia`) in its own process; `dht` runs kad-dht in server mode. */
  async helia (init: PeerInit = {}): Promise<Peer> {
    const name = init.name ?? `helia${this.peers.length}`
    const { ns, host } = this.place(init)
    const script = path.join(ROOT, 'dist', 'test', 'helpers', 'helia-peer.js')
    const argv = [NODE, script, JSON.stringify({ host, dht: init.dht ?? 'none', pubsub: init.pubsub === true })]
    const full = ns != null ? [...ns.exec, ...argv] : argv
    const proc = spawn(full[0], full.slice(1), { stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    let errOut = ''
    proc.stderr?.on('data', (c: Buffer) => { errOut += c.toString() })
    const pending = new Map<number, { resolve: (v: any) => void, reject: (e: Error) => void }>()
    let nextId = 1
    let buf = ''
    let first: ((v: any) => void) | undefined
    const firstLine = new Promise<any>((resolve) => { first = resolve })
    proc.stdout?.on('data', (c: Buffer) => {
      buf += c.toString()
      let nl
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        let msg: any
        try { msg = JSON.parse(line) } catch { errOut += line + '\n'; continue }
        if (msg.ready === true) { first?.(msg); continue }
        const p = pending.get(msg.id)
        pending.delete(msg.id)
        if (msg.error != null) p?.reject(new Error(msg.error)); else p?.resolve(msg.result)
      }
    })
    const exited = new Promise<never>((_resolve, reject) => proc.once('exit', (code) => { reject(new Error(`helia peer exited (${String(code)}): ${errOut}`)) }))
    exited.catch(() => {})
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new Error(`helia peer did not start: ${errOut}`)) }, 60_000) })
    const ready = await Promise.race([firstLine, exited, late]).finally(() => { clearTimeout(timer) })
    const send = async (op: string, req: Record<string, unknown> = {}): Promise<any> => {
      const id = nextId++
      const answer = new Promise((resolve, reject) => pending.set(id, { resolve, reject }))
      proc.stdin?.write(JSON.stringify({ id, op, ...req }) + '\n')
      return await Promise.race([answer, exited])
    }
    const peer: Peer = {
      kind: 'helia',
      name,
      id: ready.id,
      host,
      ns,
      proc,
      addrs: ready.addrs.filter((a: string) => a.includes(host)),
      addr: (t = 'tcp') => pickAddr(peer, t),
      call: async (op, args = [], options = {}) => await send(op, { args, ...options }),
      add: async (data) => await send('add', { data: Buffer.from(data).toString('base64') }),
      cat: async (cid, timeout = 30_000) => Buffer.from(await send('cat', { cid, timeout }), 'base64'),
      connect: async (to, t = 'tcp') => { await send('dial', { addr: to.addr(t) }) },
      peers: async () => (await send('peers')).map((c: { peer: string }) => c.peer),
      agentOf: async (peerId) => await send('agent', { peer: peerId }),
      refresh: async () => { peer.addrs = (await send('info')).addrs.filter((a: string) => a.includes(host)) },
      log: () => errOut,
      rss: () => rssOf(proc.pid),
      stop: async () => {
        if (proc.exitCode != null || proc.signalCode != null) return
        let t: NodeJS.Timeout | undefined
        await Promise.race([send('stop').catch(() => {}), new Promise(resolve => { t = setTimeout(resolve, 5_000) })])
        clearTimeout(t)
        await stopProc(proc)
      }
    }
    this.peers.push(peer)
    return peer
  }

  /** Starts `n` peers of a kind one after the other (2 cores: parallel starts only slow each other). */
  async many (n: number, make: (i: number) => Promise<Peer>): Promise<Peer[]> {
    const out: Peer[] = []
    for (let i = 0; i < n; i++) out.push(await make(i))
    return out
  }

  /** Connects `a` to `b` and waits until both list each other. */
  async connect (a: Peer, b: Peer, transport: Transport = 'tcp'): Promise<void> {
    await a.connect(b, transport)
    await waitFor(async () => await lists(a, b) && await lists(b, a), { what: `${a.name} <-> ${b.name} connected`, timeout: 15_000 })
  }

  /** Writes every peer's output to .test-artifacts/net/<label>/<name>.log; returns the folder. */
  saveLogs (): string {
    const dir = path.join(ROOT, '.test-artifacts', 'net', this.label)
    mkdirSync(dir, { recursive: true })
    for (const p of this.peers) writeFileSync(path.join(dir, `${p.name}.log`), `${p.kind} ${p.id} ${p.host}\n${p.log()}`)
    return dir
  }

  /** Stops every peer, saves logs, removes repos and namespaces (also when a stop fails). */
  async stop (): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    try {
      await Promise.allSettled(this.peers.map(async p => { await p.stop() }))
      try { this.saveLogs() } catch {}
    } finally {
      for (const p of this.peers) killGroup(p.proc, 'SIGKILL')
      for (const r of this.repos) rmSync(r, { recursive: true, force: true })
      this.network?.remove()
      process.removeListener('exit', this.onExit)
    }
  }
}

/** Does `a` list `b` among its connections? (true when `a` cannot tell: no `swarm peers` yet) */
async function lists (a: Peer, b: Peer): Promise<boolean> {
  try {
    return (await a.peers()).includes(b.id)
  } catch (err) {
    if (err instanceof RpcCallError && err.status === 404) return true
    throw err
  }
}

/** An address of a peer for a transport: its own host, never 0.0.0.0. */
function pickAddr (peer: Peer, transport: Transport): string {
  const want = transport === 'quic' ? /\/udp\/\d+\/quic-v1\/p2p\// : /\/tcp\/\d+\/p2p\//
  const found = peer.addrs.find(a => a.includes(`/${peer.host}/`) && want.test(a)) ??
    peer.addrs.map(a => a.includes('/p2p/') ? a : `${a}/p2p/${peer.id}`).find(a => a.includes(`/${peer.host}/`) && want.test(a))
  if (found == null) throw new Error(`${peer.name} has no ${transport} address (${peer.addrs.join(', ')})`)
  return found
}
