// Kubo 0.40.1's embedded repo migrations (repo/fsrepo/migrations): config rewrites, each keeping the config it
// replaced in config.<from>-to-<to>.bak (a revert puts that file back). Their output lines are Kubo's, checked
// against its binary. Repos older than 16 need Kubo's downloaded migrations, which tsipfs does not have.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { writeFileAtomic } from '../util/fs.js'
import { FALLBACK_BOOTSTRAP } from '../config/defaults.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => v != null && typeof v === 'object' && !Array.isArray(v)

interface Migration { from: number, apply: (cfg: Obj, log: (line: string) => void) => void, banner: string }

// fs-repo-16-to-17: the AutoConf system; Kubo's built-in bootstrap peers, DNS resolvers and delegated routers become "auto"
// Kubo's built-in list before AutoConf: the same peers as the offline fallback for "auto"
const DEFAULT_BOOTSTRAP = FALLBACK_BOOTSTRAP
const DEFAULT_RESOLVERS = ['https://dns.eth.limo/dns-query', 'https://dns.eth.link/dns-query', 'https://resolver.cloudflare-eth.com/dns-query']
const emptyList = (v: unknown): boolean => v == null || (Array.isArray(v) && v.length === 0)

function to17 (cfg: Obj): void {
  if (!('AutoConf' in cfg)) cfg.AutoConf = {}
  const boot = cfg.Bootstrap
  if (!Array.isArray(boot) || boot.length === 0) {
    cfg.Bootstrap = ['auto']
  } else {
    const peers = boot.filter((p): p is string => typeof p === 'string')
    const custom = peers.filter(p => !DEFAULT_BOOTSTRAP.includes(p))
    cfg.Bootstrap = custom.length < peers.length ? ['auto', ...custom] : peers
  }
  const dns = isObj(cfg.DNS) ? cfg.DNS : (cfg.DNS = {}) as Obj
  const resolvers: Record<string, string> = {}
  if (isObj(dns.Resolvers)) {
    for (const [k, v] of Object.entries(dns.Resolvers)) if (typeof v === 'string') resolvers[k] = DEFAULT_RESOLVERS.includes(v) ? 'auto' : v
  }
  resolvers['.'] ??= 'auto'
  dns.Resolvers = resolvers
  const routing = isObj(cfg.Routing) ? cfg.Routing : (cfg.Routing = {}) as Obj
  if (emptyList(routing.DelegatedRouters)) {
    routing.DelegatedRouters = ['auto']
  } else if (Array.isArray(routing.DelegatedRouters)) {
    const out: string[] = []
    for (const r of routing.DelegatedRouters) {
      if (typeof r !== 'string') continue
      if (r === 'https://cid.contact') { if (!out.includes('auto')) out.push('auto') } else out.push(r)
    }
    routing.DelegatedRouters = out.length > 0 ? out : ['auto']
  }
  const ipns = isObj(cfg.Ipns) ? cfg.Ipns : (cfg.Ipns = {}) as Obj
  if (emptyList(ipns.DelegatedPublishers)) ipns.DelegatedPublishers = ['auto']
}

// fs-repo-17-to-18: Provider and Reprovider become the unified Provide section
function to18 (cfg: Obj, log: (line: string) => void): void {
  const provider = isObj(cfg.Provider) ? cfg.Provider : {}
  const reprovider = isObj(cfg.Reprovider) ? cfg.Reprovider : {}
  const provide = isObj(cfg.Provide) ? cfg.Provide : {}
  const dht = (): Obj => (isObj(provide.DHT) ? provide.DHT : (provide.DHT = {})) as Obj
  const show = (v: unknown): string => typeof v === 'string' ? JSON.stringify(v) : String(v)
  let migrated = false
  if ('Enabled' in provider) {
    provide.Enabled = provider.Enabled
    log(`  Migrated Provider.Enabled=${show(provider.Enabled)} to Provide.Enabled=${show(provider.Enabled)}`)
    migrated = true
  }
  if ('WorkerCount' in provider) {
    dht().MaxWorkers = provider.WorkerCount
    log(`  Migrated Provider.WorkerCount=${show(provider.WorkerCount)} to Provide.DHT.MaxWorkers=${show(provider.WorkerCount)}`)
    log('  ⚠️  For better resource utilization, consider enabling Provide.DHT.SweepEnabled=true')
    log('     and adjusting Provide.DHT.DedicatedBurstWorkers if announcement of new CIDs')
    log('     should take priority over periodic reprovide interval.')
    migrated = true
  }
  if ('Strategy' in reprovider) {
    if (reprovider.Strategy === 'flat') {
      provide.Strategy = 'all'
      log('  Migrated deprecated Reprovider.Strategy="flat" to Provide.Strategy="all"')
    } else {
      provide.Strategy = reprovider.Strategy
      log(`  Migrated Reprovider.Strategy=${show(reprovider.Strategy)} to Provide.Strategy=${show(reprovider.Strategy)}`)
    }
    migrated = true
  }
  if ('Interval' in reprovider) {
    dht().Interval = reprovider.Interval
    log(`  Migrated Reprovider.Interval=${show(reprovider.Interval)} to Provide.DHT.Interval=${show(reprovider.Interval)}`)
    migrated = true
  }
  if (migrated) log('  See: https://github.com/ipfs/kubo/blob/master/docs/config.md#provide')
  if (Object.keys(provide).length > 0) cfg.Provide = provide
  delete cfg.Provider
  delete cfg.Reprovider
}

const MIGRATIONS: Migration[] = [
  { from: 16, apply: to17, banner: '> Upgrading config to use AutoConf system' },
  { from: 17, apply: to18, banner: '> Migrating Provider and Reprovider configuration to unified Provide configuration' }
]

/** The repo's version file as a number (migrations.RepoVersion). */
export async function repoVersionOf (dir: string): Promise<number> {
  await fs.stat(dir).catch((err: NodeJS.ErrnoException) => { throw new Error(`stat ${dir}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`) })
  const file = path.join(dir, 'version')
  const text = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`open ${file}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`)
  })
  const v = text.trim()
  if (!/^[+-]?\d+$/.test(v)) throw new Error('invalid data in repo version file')
  return Number(v)
}

const writeVersion = async (dir: string, v: number): Promise<void> => { await writeFileAtomic(path.join(dir, 'version'), String(v)) }

async function apply (dir: string, m: Migration, log: (line: string) => void): Promise<void> {
  const name = `${m.from}-to-${m.from + 1}`
  log(`applying ${name} repo migration`)
  if (await repoVersionOf(dir) !== m.from) throw new Error(`expected version ${m.from}, got ${await repoVersionOf(dir)}`)
  log(m.banner)
  const file = path.join(dir, 'config')
  const text = await fs.readFile(file, 'utf8')
  const cfg = JSON.parse(text) as Obj
  m.apply(cfg, log)
  await writeFileAtomic(`${file}.${name}.bak`, text, 0o600)
  await writeFileAtomic(file, JSON.stringify(cfg, null, 2) + '\n', 0o600)
  await writeVersion(dir, m.from + 1)
  log('updated version file')
  log(`Migration ${name} succeeded`)
}

async function revert (dir: string, m: Migration, log: (line: string) => void): Promise<void> {
  const name = `${m.from}-to-${m.from + 1}`
  log('reverting migration')
  if (await repoVersionOf(dir) !== m.from + 1) throw new Error(`expected version ${m.from + 1}, got ${await repoVersionOf(dir)}`)
  const file = path.join(dir, 'config')
  await fs.rename(`${file}.${name}.bak`, file).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`rename ${file}.${name}.bak ${file}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`)
  })
  await writeVersion(dir, m.from)
  log(`lowered version number to ${m.from}`)
}

/**
 * migrations.RunEmbeddedMigrations: every step from the repo's version to `target` (reverts when going down), each
 * line of output through `log`. Throws Kubo's errors; a step that fails leaves the steps before it done.
 */
export async function runMigrations (dir: string, target: number, log: (line: string) => void): Promise<void> {
  const from = await repoVersionOf(dir)
  if (from === target) return
  log('Looking for embedded migrations.')
  const down = from > target
  const steps: Migration[] = []
  for (let v = down ? target : from; v < (down ? from : target); v++) {
    const m = MIGRATIONS.find(x => x.from === v)
    if (m == null) throw new Error(`no embedded migrations found for version ${from} to ${target}`)
    steps.push(m)
  }
  if (down) steps.reverse()
  for (const m of steps) {
    const name = `fs-repo-${m.from}-to-${m.from + 1}`
    log(`Running embedded migration ${name}...`)
    try {
      if (down) await revert(dir, m, log)
      else await apply(dir, m, log)
    } catch (err) {
      throw new Error(`embedded migration ${name} failed: ${(err as Error).message}`)
    }
    log(`Embedded migration ${name} completed successfully`)
  }
  log(`Success: fs-repo migrated to version ${target} using embedded migrations.`)
}
