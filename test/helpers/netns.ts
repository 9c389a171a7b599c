// Network namespaces for multi-node tests: one Linux bridge in the root namespace and, per node, a namespace
// joined to it by a veth pair. Nodes get 10.<net>.<zone>.<n>/16 (one L2 segment, so zones are only address
// ranges that `swarm filters` can tell apart); the bridge has 10.<net>.0.1, so the test process reaches every
// node's API directly. Names carry the owner's PID: namespaces left by a dead test run are removed next time.
// Needs root and iproute2 (scripts/ensure-debs.sh ip=iproute2 installs it).
import { execFileSync, spawnSync } from 'node:child_process'
import { ensureDebs } from './debs.js'

const PREFIX = 'tsnet'

function ip (...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
}

const alive = (pid: number): boolean => {
  try { process.kill(pid, 0); return true } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM' }
}

/** Why namespaces cannot be used here (null when they can): not root, or `ip netns` fails. On CI (root,
 * iproute2 installed by the set-up) that is an error, not a reason to skip. */
export function netnsUnavailable (): string | null {
  const why = netnsProblem()
  if (why != null && process.env.CI != null && process.env.CI !== '' && process.env.CI !== 'false') throw new Error(why)
  return why
}

function netnsProblem (): string | null {
  if (process.platform !== 'linux') return 'network namespaces need Linux'
  if (process.getuid?.() !== 0) return 'network namespaces need root'
  const missing = ensureDebs({ ip: 'iproute2' })
  if (missing != null) return missing
  const probe = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
  return probe.status === 0 ? null : `ip netns does not work: ${probe.stderr}`
}

/** Removes namespaces and bridges whose owning test process is gone. */
export function removeStale (): void {
  const re = new RegExp(`^${PREFIX}(\\d+)`)
  for (const line of spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout?.split('\n') ?? []) {
    const name = line.split(' ')[0]
    const m = re.exec(name)
    if (m != null && !alive(Number(m[1]))) spawnSync('ip', ['netns', 'del', name])
  }
  for (const line of spawnSync('ip', ['-o', 'link', 'show', 'type', 'bridge'], { encoding: 'utf8' }).stdout?.split('\n') ?? []) {
    const name = line.split(': ')[1]?.split('@')[0]
    const m = name != null ? /^tsbr(\d+)-/.exec(name) : null
    if (m != null && !alive(Number(m[1]))) spawnSync('ip', ['link', 'del', name])
  }
}

export interface Namespace {
  name: string
  /** the node's address, e.g. 10.93.1.2 */
  addr: string
  /** argv prefix running a command inside the namespace */
  exec: string[]
}

/** A bridge plus namespaces made on demand; remove() (also run at process exit) deletes them all. */
export class NetnsNetwork {
  readonly bridge: string
  /** 3 random characters naming this network's links and namespaces */
  readonly tag: string
  readonly net: number
  private readonly namespaces: Namespace[] = []
  private count = 0
  private removed = false
  private readonly onExit = (): void => { this.remove() }

  constructor () {
    removeStale()
    this.tag = Math.random().toString(36).slice(2, 5).padEnd(3, '0')
    this.bridge = `tsbr${process.pid}-${this.tag}`
    // a 10.x.0.0/16 no route of this machine uses yet
    const routes = spawnSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' }).stdout ?? ''
    let net = 0
    for (let i = 0; i < 50; i++) {
      net = 20 + Math.floor(Math.random() * 200)
      if (!routes.includes(`10.${net}.`)) break
    }
    this.net = net
    ip('link', 'add', this.bridge, 'type', 'bridge')
    process.once('exit', this.onExit)
    ip('addr', 'add', `10.${net}.0.1/16`, 'dev', this.bridge)
    ip('link', 'set', this.bridge, 'up')
  }

  /** A namespace joined to the bridge with address 10.<net>.<zone>.<n>. */
  add (zone = 1): Namespace {
    const n = ++this.count
    const name = `${PREFIX}${process.pid}-${this.tag}-${n}`
    const veth = { host: `tv${this.tag}${n}a`, peer: `tv${this.tag}${n}b` }
    const addr = `10.${this.net}.${zone}.${n + 1}`
    ip('netns', 'add', name)
    const ns: Namespace = { name, addr, exec: ['ip', 'netns', 'exec', name] }
    this.namespaces.push(ns)
    ip('link', 'add', veth.host, 'type', 'veth', 'peer', 'name', veth.peer)
    ip('link', 'set', veth.host, 'master', this.bridge)
    ip('link', 'set', veth.host, 'up')
    ip('link', 'set', veth.peer, 'netns', name)
    ip('-n', name, 'addr', 'add', `${addr}/16`, 'dev', veth.peer)
    ip('-n', name, 'link', 'set', veth.peer, 'up')
    ip('-n', name, 'link', 'set', 'lo', 'up')
    return ns
  }

  /** Deletes every namespace (their veth ends go with them) and the bridge. Safe to call twice. */
  remove (): void {
    if (this.removed) return
    this.removed = true
    process.removeListener('exit', this.onExit)
    for (const ns of this.namespaces) spawnSync('ip', ['netns', 'del', ns.name])
    spawnSync('ip', ['link', 'del', this.bridge])
  }

  /** Namespaces of this network still present (for the clean-up test). */
  existing (): string[] {
    const list = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? ''
    return this.namespaces.map(n => n.name).filter(n => list.split('\n').some(l => l.split(' ')[0] === n))
  }
}
