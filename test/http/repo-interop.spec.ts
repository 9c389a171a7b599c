// Repositories move both ways between Kubo 0.40.1 and tsipfs (issue 13 part 5). A repo made and used by one
// (adds with raw leaves and CIDv1, named recursive and direct pins, MFS, ed25519 and rsa keys, offline IPNS
// publishes, config edits) is opened by the other, whose commands must give the same answers; `repo verify` and
// `pin verify` are clean on each side; then a round trip with writes on each side. Also: a datastore tsipfs cannot
// run (pebbleds) is refused with nothing changed on disk, and repo.lock keeps a Kubo daemon and a tsipfs daemon off
// each other's open repo. Kubo is built by scripts/kubo.sh when missing (never skipped).
import { spawn, spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { CLI, runCli, startDaemon, type Daemon } from '../helpers/daemon.js'
import { KUBO_ENV, kuboBinary } from '../helpers/kubo.js'

interface Run { status: number | null, stdout: string, stderr: string }
type Cli = (args: string[], input?: string) => Run

/** Kubo's CLI on a repo: in-process (offline), or through a daemon's API (a tsipfs daemon answers: its writes, its answers). */
const kuboCli = (repo: string, api?: string): Cli => (args, input) => {
  const r = spawnSync(kuboBinary(), [...(api != null ? [`--api=${api}`] : []), ...args], { env: { ...process.env, ...KUBO_ENV, IPFS_PATH: repo }, input: input ?? '', encoding: 'utf8', timeout: 120_000 })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}
const tsCli = (repo: string): Cli => (args, input) => runCli(repo, args, { input })

/** stdout of a command that must succeed */
function ok (cli: Cli, args: string[], input?: string): string {
  const r = cli(args, input)
  expect(r.status, `${args.join(' ')}: ${r.stderr}`).to.equal(0)
  return r.stdout
}
const lines = (text: string): string[] => text.split('\n').map(l => l.trim().split(/\s+/).join(' ')).filter(l => l !== '').sort()

/** Loopback-only addresses, so a daemon on a default-profile repo binds nothing shared. */
function loopbackOnly (cli: Cli): void {
  ok(cli, ['config', 'Addresses.API', '/ip4/127.0.0.1/tcp/0'])
  ok(cli, ['config', 'Addresses.Gateway', '/ip4/127.0.0.1/tcp/0'])
  ok(cli, ['config', '--json', 'Addresses.Swarm', '[]'])
}

interface Made { a: string, d: string, b: string, c: string, marker: string }

/** Files of their own for each round (a second add of the same file would keep the first pin's name). */
function sources (root: string, marker: string): string {
  const src = path.join(root, marker)
  mkdirSync(path.join(src, 'd', 'sub'), { recursive: true })
  writeFileSync(path.join(src, 'a.txt'), `hello ${marker}\n`)
  writeFileSync(path.join(src, 'd', 'b.txt'), `world ${marker}\n`)
  let x = marker.length // text (the CLI output is read as text), several blocks
  writeFileSync(path.join(src, 'd', 'sub', 'big.bin'), Buffer.from(Array.from({ length: 300_000 }, () => 97 + ((x = (x * 1103515245 + 12345) & 0x7fffffff) >> 16) % 26)))
  return src
}

/** The same operations through a CLI: Kubo's in-process, or any CLI through the daemon that does the writes. */
function populate (cli: Cli, root: string, marker: string): Made {
  const src = sources(root, marker)
  const a = ok(cli, ['add', '-Q', `--pin-name=fileA-${marker}`, path.join(src, 'a.txt')]).trim()
  const d = ok(cli, ['add', '-Q', '-r', '--raw-leaves', '--cid-version=1', `--pin-name=dirD-${marker}`, path.join(src, 'd')]).trim()
  const b = ok(cli, ['add', '-Q', '--pin=false'], `direct ${marker}\n`).trim()
  ok(cli, ['pin', 'add', '--recursive=false', `--name=direct-${marker}`, b])
  const c = ok(cli, ['add', '-Q', '--pin=false'], `published ${marker}\n`).trim()
  ok(cli, ['files', 'mkdir', '-p', `/mfs-${marker}/dir`])
  ok(cli, ['files', 'write', '--create', `/mfs-${marker}/dir/f.txt`], `mfs content ${marker}\n`)
  ok(cli, ['files', 'cp', `/ipfs/${d}`, `/mfs-${marker}/d`])
  ok(cli, ['key', 'gen', `ed-${marker}`, '--type=ed25519'])
  ok(cli, ['key', 'gen', `rsa-${marker}`, '--type=rsa', '--size=2048'])
  ok(cli, ['name', 'publish', '--allow-offline', `/ipfs/${c}`])
  ok(cli, ['name', 'publish', '--allow-offline', `--key=ed-${marker}`, `/ipfs/${d}`])
  ok(cli, ['config', '--json', 'Bootstrap', JSON.stringify([`/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWEyoppNCUx8Yx66oV9fJnriXwCcXwDDUA2kj6vnc6iDEp`])])
  ok(cli, ['config', 'Datastore.StorageMax', `${marker.length}GB`])
  ok(cli, ['config', '--json', 'API.HTTPHeaders', JSON.stringify({ 'X-Marker': [marker] })])
  return { a, d, b, c, marker }
}

/** What the repo answers, through one CLI: everything `populate` made (for each of `made`). */
function snapshot (cli: Cli, made: Made[]): Record<string, unknown> {
  const keys = lines(ok(cli, ['key', 'ls', '-l']))
  const out: Record<string, unknown> = {
    pins: lines(ok(cli, ['pin', 'ls', '--names'])),
    keys,
    id: ok(cli, ['id', '-f', '<id>']).trim(),
    self: ok(cli, ['name', 'resolve']).trim(),
    root: ok(cli, ['files', 'stat', '--hash', '/']).trim(),
    bootstrap: JSON.parse(ok(cli, ['config', 'Bootstrap'])),
    storageMax: ok(cli, ['config', 'Datastore.StorageMax']).trim(),
    headers: JSON.parse(ok(cli, ['config', 'API.HTTPHeaders']))
  }
  for (const m of made) {
    const ed = keys.find(l => l.endsWith(` ed-${m.marker}`))?.split(' ')[0]
    expect(ed, `key ed-${m.marker} listed`).to.be.a('string')
    out[`ed-${m.marker}`] = ok(cli, ['name', 'resolve', ed as string]).trim()
    out[`mfs-${m.marker}`] = lines(ok(cli, ['files', 'ls', '-l', `/mfs-${m.marker}/d`]))
    out[`read-${m.marker}`] = ok(cli, ['files', 'read', `/mfs-${m.marker}/dir/f.txt`])
    out[`cat-${m.marker}`] = ok(cli, ['cat', m.a])
    out[`catd-${m.marker}`] = ok(cli, ['cat', `/ipfs/${m.d}/sub/big.bin`]).length
  }
  return out
}

/** repo verify, pin verify and repo stat through one CLI. */
function healthy (cli: Cli): { numObjects: number } {
  expect(ok(cli, ['repo', 'verify'])).to.include('verify complete, all blocks validated.')
  expect(ok(cli, ['pin', 'verify']).trim(), 'pin verify lists only broken pins').to.equal('')
  const stat = ok(cli, ['repo', 'stat'])
  expect(stat).to.match(/Version:\s+fs-repo@18/)
  const size = Number(/RepoSize:\s+(\d+)/.exec(stat)?.[1])
  expect(size).to.be.greaterThan(300_000)
  return { numObjects: Number(/NumObjects:\s+(\d+)/.exec(stat)?.[1]) }
}

/** The facts populate made, checked against a snapshot. */
function expectMade (snap: Record<string, unknown>, made: Made[], peerId: string): void {
  expect(snap.id).to.equal(peerId)
  const pins = snap.pins as string[]
  for (const m of made) {
    expect(pins).to.include(`${m.a} recursive fileA-${m.marker}`)
    expect(pins).to.include(`${m.d} recursive dirD-${m.marker}`)
    expect(pins).to.include(`${m.b} direct direct-${m.marker}`)
    expect(snap[`ed-${m.marker}`]).to.equal(`/ipfs/${m.d}`)
    expect(snap[`read-${m.marker}`]).to.equal(`mfs content ${m.marker}\n`)
    expect(snap[`cat-${m.marker}`]).to.equal(`hello ${m.marker}\n`)
    expect(snap[`catd-${m.marker}`]).to.equal(300_000)
    expect((snap.keys as string[]).some(l => l.endsWith(` rsa-${m.marker}`))).to.equal(true)
  }
  const last = made[made.length - 1]
  expect(snap.self).to.equal(`/ipfs/${last.c}`)
  expect(snap.storageMax).to.equal(`${last.marker.length}GB`)
  expect(snap.headers).to.deep.equal({ 'X-Marker': [last.marker] })
  expect(snap.bootstrap).to.deep.equal(['/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWEyoppNCUx8Yx66oV9fJnriXwCcXwDDUA2kj6vnc6iDEp'])
}

/** A Kubo daemon on a repo (offline), until stop(). */
async function startKubo (repo: string): Promise<{ stop: () => Promise<void>, log: () => string }> {
  const proc = spawn(kuboBinary(), ['daemon', '--offline'], { env: { ...process.env, ...KUBO_ENV, IPFS_PATH: repo }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  proc.stdout.on('data', (c: Buffer) => { out += c.toString() })
  proc.stderr.on('data', (c: Buffer) => { out += c.toString() })
  const deadline = Date.now() + 120_000
  while (!out.includes('Daemon is ready')) {
    if (proc.exitCode != null) throw new Error(`kubo daemon exited: ${out}`)
    if (Date.now() > deadline) { proc.kill('SIGKILL'); throw new Error(`kubo daemon did not start: ${out}`) }
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  return {
    log: () => out,
    stop: async () => {
      if (proc.exitCode != null) return
      const exited = new Promise(resolve => proc.once('exit', resolve))
      proc.kill('SIGTERM')
      await exited
    }
  }
}

const peerIdOf = (repo: string): string => JSON.parse(ok(kuboCli(repo), ['config', 'show'])).Identity.PeerID

describe('repo interop with Kubo 0.40.1 (both directions)', function () {
  this.timeout(10 * 60_000)
  let dir: string
  let src: string
  const daemons: Array<{ stop: () => Promise<void> }> = []

  before(function () {
    this.timeout(30 * 60_000) // a fresh machine builds Kubo first
    kuboBinary()
    dir = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-repo-interop-'))
    src = path.join(dir, 'src')
  })
  afterEach(async () => { for (const d of daemons.splice(0)) await d.stop() })
  after(() => { if (dir != null) rmSync(dir, { recursive: true, force: true }) })

  it('A: a repo made and used by Kubo (default profile) opens in a tsipfs daemon with everything there; then A→B→A with writes on each side', async () => {
    const repo = path.join(dir, 'kubo-made')
    const kubo = kuboCli(repo)
    ok(kubo, ['init'])
    const made1 = populate(kubo, src, 'k1')
    loopbackOnly(kubo)
    const peerId = peerIdOf(repo)
    const kuboView = snapshot(kubo, [made1])
    expectMade(kuboView, [made1], peerId)
    const kuboStat = healthy(kubo)

    // a tsipfs daemon on Kubo's repo gives the same answers (asked with Kubo's CLI through its API) ...
    let d: Daemon = await startDaemon({ repo })
    daemons.push(d)
    let viaTs = kuboCli(repo, d.apiAddr)
    expect(snapshot(viaTs, [made1])).to.deep.equal(kuboView)
    expect(healthy(viaTs).numObjects).to.equal(kuboStat.numObjects)
    // ... and tsipfs's own CLI too
    expect(lines(ok(tsCli(repo), ['pin', 'ls', '--names']))).to.deep.equal(kuboView.pins)
    // tsipfs writes of its own
    const made2 = populate(viaTs, src, 'tsipfs2')
    await d.stop()
    daemons.pop()

    // back in Kubo: both rounds there (tsipfs's latest publish is what Kubo resolves)
    const view2 = snapshot(kubo, [made1, made2])
    expectMade(view2, [made1, made2], peerId)
    healthy(kubo)
    const made3 = populate(kubo, src, 'kubo3')

    // and tsipfs once more
    d = await startDaemon({ repo })
    daemons.push(d)
    viaTs = kuboCli(repo, d.apiAddr)
    const view3 = snapshot(viaTs, [made1, made2, made3])
    expectMade(view3, [made1, made2, made3], peerId)
    healthy(viaTs)
    await d.stop()
    daemons.pop()
    expect(snapshot(kubo, [made1, made2, made3])).to.deep.equal(view3)
  })

  it('B: a repo made and used by tsipfs opens in Kubo with everything there, and Kubo writes back', async () => {
    const repo = path.join(dir, 'tsipfs-made')
    const ts = tsCli(repo)
    const kubo = kuboCli(repo)
    ok(ts, ['init'])
    loopbackOnly(ts)
    const peerId = peerIdOf(repo)
    // tsipfs's in-process CLI writes too
    const offline = ok(ts, ['add', '-Q', '--pin-name=offline', path.join(sources(src, 'tsoff'), 'a.txt')]).trim()
    let d: Daemon = await startDaemon({ repo })
    daemons.push(d)
    const viaTs = kuboCli(repo, d.apiAddr)
    const made1 = populate(viaTs, src, 'ts1')
    const tsView = snapshot(viaTs, [made1])
    expectMade(tsView, [made1], peerId)
    expect(tsView.pins).to.include(`${offline} recursive offline`)
    const tsStat = healthy(viaTs)
    await d.stop()
    daemons.pop()

    const kuboView = snapshot(kubo, [made1])
    expect(kuboView).to.deep.equal(tsView)
    expect(healthy(kubo).numObjects).to.equal(tsStat.numObjects)
    // Kubo's daemon opens it too, and Kubo writes on it
    const k = await startKubo(repo)
    daemons.push(k)
    expect(ok(kubo, ['id', '-f', '<id>']).trim()).to.equal(peerId)
    await k.stop()
    daemons.pop()
    const made2 = populate(kubo, src, 'kubo22')
    d = await startDaemon({ repo })
    daemons.push(d)
    expectMade(snapshot(kuboCli(repo, d.apiAddr), [made1, made2]), [made1, made2], peerId)
  })

  it('Kubo\'s --profile=test repo opens in tsipfs; a pebbleds repo is refused with a clear error and left as it was', async () => {
    const testRepo = path.join(dir, 'kubo-test-profile')
    const kubo = kuboCli(testRepo)
    ok(kubo, ['init', '--profile=test'])
    const a = ok(kubo, ['add', '-Q', '--pin-name=t', path.join(sources(src, 'tp'), 'a.txt')]).trim()
    expect(lines(ok(tsCli(testRepo), ['pin', 'ls', '-t', 'recursive', '--names']))).to.include(`${a} recursive t`)

    const pebble = path.join(dir, 'kubo-pebble')
    ok(kuboCli(pebble), ['init', '--profile=pebbleds'])
    ok(kuboCli(pebble), ['add', '-Q', path.join(src, 'tp', 'a.txt')])
    const before = listing(pebble)
    for (const args of [['pin', 'ls'], ['daemon', '--offline'], ['repo', 'stat']]) {
      const r = tsCli(pebble)(args)
      expect(r.status, args.join(' ')).to.equal(1)
      expect(r.stderr).to.include('Error: unsupported datastore type "pebbleds": tsipfs opens flatfs + levelds repos')
    }
    expect(listing(pebble)).to.deep.equal(before)
    expect(ok(kuboCli(pebble), ['cat', a])).to.equal('hello tp\n')
  })

  it('repo migrate: a version-16 repo (old config keys) migrates as Kubo migrates it (same lines, same config), reverts with --allow-downgrade, and an unmigrated repo is refused with Kubo\'s error', async () => {
    const made = (name: string): string => {
      const repo = path.join(dir, name)
      ok(tsCli(repo), ['init', '--profile=test'])
      const cfgFile = path.join(repo, 'config')
      const cfg = JSON.parse(readFileSync(cfgFile, 'utf8'))
      delete cfg.Provide
      delete cfg.AutoConf
      cfg.Provider = { Enabled: false, WorkerCount: 16 }
      cfg.Reprovider = { Strategy: 'flat', Interval: '12h' }
      cfg.Bootstrap = ['/dnsaddr/bootstrap.libp2p.io/p2p/QmNnooDu7bfjPFoTZYxMNLWUQJyrVwtbZg5gBMjTezGAJN', '/ip4/1.2.3.4/tcp/4001/p2p/QmaCpDMGvV2BGHeYERUEnRQAwe3N8SzbUtfsmvsqQLuvuJ']
      cfg.DNS = { Resolvers: { 'eth.': 'https://dns.eth.limo/dns-query' } }
      cfg.Routing = { DelegatedRouters: ['https://cid.contact', 'https://x.example'] }
      cfg.Ipns = { DelegatedPublishers: [] }
      writeFileSync(cfgFile, JSON.stringify(cfg, null, 2))
      writeFileSync(path.join(repo, 'version'), '16')
      return repo
    }
    const tsRepo = made('migrate-ts')
    const kRepo = path.join(dir, 'migrate-kubo')
    cpSync(tsRepo, kRepo, { recursive: true })
    const original = readFileSync(path.join(tsRepo, 'config'), 'utf8')
    // not migrated: Kubo's error, from both
    for (const cli of [tsCli(tsRepo), kuboCli(kRepo)]) {
      const r = cli(['pin', 'ls'])
      expect(r.status).to.equal(1)
      expect(r.stderr).to.include('Error: ipfs repo needs migration, please run migration tool.')
    }
    const up = ok(tsCli(tsRepo), ['repo', 'migrate'])
    expect(up).to.equal(ok(kuboCli(kRepo), ['repo', 'migrate']))
    expect(up).to.include('Repository successfully migrated to version 18.')
    const cfgOf = (repo: string): unknown => JSON.parse(readFileSync(path.join(repo, 'config'), 'utf8'))
    expect(cfgOf(tsRepo)).to.deep.equal(cfgOf(kRepo))
    expect((cfgOf(tsRepo) as { Provide: unknown }).Provide).to.deep.equal({ DHT: { Interval: '12h', MaxWorkers: 16 }, Enabled: false, Strategy: 'all' })
    expect(readFileSync(path.join(tsRepo, 'version'), 'utf8').trim()).to.equal('18')
    // both open the migrated repo (Kubo reads the one tsipfs migrated)
    expect(lines(ok(kuboCli(tsRepo), ['pin', 'ls']))).to.deep.equal(lines(ok(tsCli(tsRepo), ['pin', 'ls'])))
    // down again, as Kubo
    const down = ok(tsCli(tsRepo), ['repo', 'migrate', '--to=16', '--allow-downgrade'])
    expect(down).to.equal(ok(kuboCli(kRepo), ['repo', 'migrate', '--to=16', '--allow-downgrade']))
    expect(readFileSync(path.join(tsRepo, 'config'), 'utf8')).to.equal(original)
    const refused = tsCli(tsRepo)(['repo', 'migrate', '--to=15'])
    expect(refused.stderr).to.include('Error: downgrade from version 16 to 15 requires --allow-downgrade flag')
  })

  it('repo.lock: a Kubo daemon keeps tsipfs off its repo and a tsipfs daemon keeps Kubo off', async () => {
    const repo = path.join(dir, 'locked')
    ok(kuboCli(repo), ['init', '--profile=test'])
    const k = await startKubo(repo)
    daemons.push(k)
    const refused = spawnSync(process.execPath, [CLI, 'daemon', '--offline'], { env: { ...process.env, IPFS_PATH: repo }, encoding: 'utf8', timeout: 60_000 })
    expect(refused.status).to.equal(1)
    expect(refused.stderr).to.include(`lock ${path.join(repo, 'repo.lock')}: someone else has the lock`)
    // the CLI goes to Kubo's API meanwhile
    expect(ok(tsCli(repo), ['id', '-f', '<id>']).trim()).to.equal(peerIdOf(repo))
    await k.stop()
    daemons.pop()

    const d = await startDaemon({ repo })
    daemons.push(d)
    const r = spawnSync(kuboBinary(), ['daemon', '--offline'], { env: { ...process.env, ...KUBO_ENV, IPFS_PATH: repo }, encoding: 'utf8', timeout: 60_000 })
    expect(r.status).to.not.equal(0)
    expect(r.stderr).to.include('someone else has the lock')
    expect(statSync(path.join(repo, 'repo.lock')).size).to.equal(0)
    await d.stop()
    daemons.pop()
    expect(readdirSync(repo)).to.not.include('repo.lock')
    ok(kuboCli(repo), ['repo', 'stat'])
  })
})

function listing (root: string): string[] {
  const out: string[] = []
  const walk = (p: string): void => {
    for (const e of readdirSync(p, { withFileTypes: true })) {
      const f = path.join(p, e.name)
      if (e.isDirectory()) walk(f)
      else out.push(`${path.relative(root, f)} ${statSync(f).size}`)
    }
  }
  walk(root)
  return out.sort()
}
