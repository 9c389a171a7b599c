// Integration: every `daemon` and `init` flag of Kubo 0.40.1, through spawned daemons and the CLI.
import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CLI, initTestRepo, runCli, startDaemon, type Daemon } from '../helpers/daemon.js'
import { AGENT_VERSION } from '../../core/version.js'
import { ensureDebs, skipWithReason } from '../helpers/debs.js'

interface Exit { status: number | null, out: string }

/** Run `daemon <args>` until it exits (or says it is ready, then SIGTERM): everything it printed. */
async function daemonRun (repo: string, args: string[], o: { stdin?: string, wrap?: string[] } = {}): Promise<Exit & { ready: boolean }> {
  const cmd = [...(o.wrap ?? []), process.execPath, CLI, 'daemon', ...args]
  const proc = spawn(cmd[0], cmd.slice(1), { env: { ...process.env, IPFS_PATH: repo }, stdio: ['pipe', 'pipe', 'pipe'] })
  proc.stdin.end(o.stdin ?? '')
  let out = ''
  let ready = false
  const onData = (c: Buffer): void => {
    out += c.toString()
    if (!ready && out.includes('Daemon is ready')) { ready = true; proc.kill('SIGTERM') }
  }
  proc.stdout.on('data', onData)
  proc.stderr.on('data', onData)
  const status = await new Promise<number | null>(resolve => proc.once('exit', (code) => resolve(code)))
  return { status, out, ready }
}

const tmp = (prefix: string): string => mkdtempSync(path.join(os.tmpdir(), prefix))

describe('daemon flags (spawned)', function () {
  this.timeout(120_000)
  const cleanup: string[] = []
  after(() => { for (const d of cleanup) rmSync(d, { recursive: true, force: true }) })

  describe('--agent-version-suffix, --unrestricted-api, --routing', () => {
    let a: Daemon
    let b: Daemon
    before(async () => {
      a = await startDaemon({ online: true, args: ['--agent-version-suffix=ci-suffix', '--unrestricted-api', '--routing=none'] })
      b = await startDaemon({ online: true })
    })
    after(async () => { await a?.stop(); await b?.stop() })

    it('id shows the suffix after the agent version, and so does identify to a peer', async () => {
      const self = JSON.parse(a.cli(['id', '--enc=json']).stdout) as { ID: string, AgentVersion: string, Addresses: string[] }
      expect(self.AgentVersion).to.equal(`${AGENT_VERSION}/ci-suffix`)
      const addr = self.Addresses.find(x => x.includes('/tcp/') && !x.includes('/ws'))
      expect(addr, 'a TCP address').to.be.a('string')
      const c = b.cli(['swarm', 'connect', addr as string])
      expect(c.status, c.stderr).to.equal(0)
      // identify runs right after the connection: wait until b's peer store has a's agent
      let agent = ''
      for (let i = 0; i < 100 && agent === ''; i++) {
        agent = (JSON.parse(b.cli(['id', self.ID, '--enc=json']).stdout) as { AgentVersion: string }).AgentVersion
        if (agent === '') await new Promise(resolve => setTimeout(resolve, 100))
      }
      expect(agent).to.equal(`${AGENT_VERSION}/ci-suffix`)
      const plain = JSON.parse(b.cli(['id', '--enc=json']).stdout) as { AgentVersion: string }
      expect(plain.AgentVersion).to.equal(AGENT_VERSION)
    })

    it('--unrestricted-api serves /ipfs/ paths on the API port; without it they are 404', async () => {
      const cid = a.cli(['add', '-Q'], { input: 'unrestricted\n' }).stdout.trim()
      b.cli(['add', '-Q'], { input: 'unrestricted\n' })
      const onA = await fetch(`${a.url}/ipfs/${cid}`)
      expect(onA.status).to.equal(200)
      expect(await onA.text()).to.equal('unrestricted\n')
      const onB = await fetch(`${b.url}/ipfs/${cid}`)
      expect(onB.status).to.equal(404)
      expect(await onB.text()).to.equal('404 page not found\n')
      // the RPC API is unchanged beside it
      expect((await fetch(`${a.url}/api/v0/version`, { method: 'POST' })).status).to.equal(200)
    })

    it('--routing=none runs no DHT (stats dht has none to show), where Routing.Type does', () => {
      expect(a.cli(['stats', 'dht']).status).to.equal(1)
      const withDht = b.cli(['stats', 'dht'])
      expect(withDht.status, withDht.stderr).to.equal(0)
    })
  })

  it('--routing refuses what Kubo refuses, with its texts', async () => {
    const repo = initTestRepo(); cleanup.push(repo)
    const bogus = await daemonRun(repo, ['--offline', '--routing=bogus'])
    expect(bogus.status).to.equal(1)
    expect(bogus.out).to.include('Error: unrecognized routing option: bogus')
    const supernode = await daemonRun(repo, ['--offline', '--routing=supernode'])
    expect(supernode.out).to.include('Error: supernode routing was never fully implemented and has been removed')
  })

  it('--mount: Kubo\'s offline error, its mount-point checks, then its no-FUSE error', async () => {
    const repo = initTestRepo(); cleanup.push(repo)
    const offline = await daemonRun(repo, ['--offline', '--mount'])
    expect(offline.status).to.equal(1)
    expect(offline.out).to.include('Error: mount is not currently supported in offline mode')
    const missing = path.join(repo, 'no-such-dir')
    const noDir = await daemonRun(repo, ['--routing=none', '--mount', `--mount-ipfs=${missing}`])
    expect(noDir.status).to.equal(1)
    expect(noDir.out).to.include(`Error: Mounts.IPFS path ("${missing}") does not exist`)
    const dirs = ['ipfs', 'ipns', 'mfs'].map(n => path.join(repo, 'mnt-' + n))
    for (const d of dirs) mkdirSync(d)
    const noFuse = await daemonRun(repo, ['--routing=none', '--mount', `--mount-ipfs=${dirs[0]}`, `--mount-ipns=${dirs[1]}`, `--mount-mfs=${dirs[2]}`])
    expect(noFuse.status).to.equal(1)
    expect(noFuse.out).to.include('Error: not compiled in')
    expect(noFuse.out).to.include('RPC API server listening on')
  })

  it('--manage-fdlimit logs Kubo\'s error when the hard limit keeps nofile below 2048; =false says nothing', async function () {
    const why = ensureDebs({ prlimit: 'util-linux' })
    if (why != null) skipWithReason(this, why)
    const repo = initTestRepo(); cleanup.push(repo)
    const wrap = ['prlimit', '--nofile=1024:1024', '--']
    const managed = await daemonRun(repo, ['--offline'], { wrap })
    expect(managed.ready, managed.out).to.equal(true)
    expect(managed.out).to.match(/ERROR\tcmd\/ipfs\tsetting file descriptor limit: failed to raise ulimit to minimum 2048: set to 1024/)
    const off = await daemonRun(repo, ['--offline', '--manage-fdlimit=false'], { wrap })
    expect(off.ready, off.out).to.equal(true)
    expect(off.out).to.not.include('setting file descriptor limit')
  })

  it('--migrate: an older repo is refused with Kubo\'s lines unless --migrate (or y at the prompt)', async () => {
    const repo = initTestRepo(); cleanup.push(repo)
    writeFileSync(path.join(repo, 'version'), '17\n')
    const no = await daemonRun(repo, ['--offline', '--migrate=false'])
    expect(no.status).to.equal(1)
    expect(no.out).to.include(`Kubo repository at ${repo} has version 17 and needs to be migrated to version 18.`)
    expect(no.out).to.include(`Not running migrations on repository at ${repo}. Re-run daemon with --migrate or see 'ipfs repo migrate --help'`)
    expect(no.out).to.include('Error: fs-repo requires migration')
    const prompted = await daemonRun(repo, ['--offline'], { stdin: 'n\n' })
    expect(prompted.out).to.include('Run migrations now? [y/N]')
    expect(prompted.out).to.include('Error: fs-repo requires migration')
    // yes: the migration runs (repo migrate's own lines), whatever it concludes
    const yes = await daemonRun(repo, ['--offline', '--migrate'])
    expect(yes.out).to.not.include('Not running migrations')
    expect(yes.out).to.match(/[Mm]igrat(ing|ion)/)
  })

  it('--init with --init-config and --init-profile: the file\'s identity and keys, the profile on top, the help files', async () => {
    const source = initTestRepo(); cleanup.push(source)
    const cfg = JSON.parse(readFileSync(path.join(source, 'config'), 'utf8')) as Record<string, any>
    cfg.Datastore.StorageMax = '7GB'
    const file = path.join(source, 'seed-config.json')
    writeFileSync(file, JSON.stringify(cfg))
    const repo = path.join(tmp('tsipfs-init-'), 'repo'); cleanup.push(path.dirname(repo))
    const run = await daemonRun(repo, ['--offline', '--init', `--init-config=${file}`, '--init-profile=lowpower'])
    expect(run.ready, run.out).to.equal(true)
    expect(run.out).to.not.include('generating')
    expect(run.out).to.include(`initializing IPFS node at ${repo}`)
    expect(run.out).to.include(`PeerID: ${cfg.Identity.PeerID as string}`)
    expect(runCli(repo, ['config', 'Datastore.StorageMax']).stdout.trim()).to.equal('7GB')
    expect(runCli(repo, ['config', 'Swarm.ConnMgr.LowWater']).stdout.trim()).to.equal('20')
    const root = /ipfs cat \/ipfs\/(\S+)\/readme/.exec(run.out)?.[1]
    expect(root, run.out).to.be.a('string')
    expect(runCli(repo, ['pin', 'ls', '--type=recursive']).stdout).to.include(`${root as string} recursive`)
  })
})

describe('init flags (CLI)', function () {
  this.timeout(60_000)
  const dirs: string[] = []
  after(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })
  const fresh = (): string => { const d = tmp('tsipfs-initflags-'); dirs.push(d); return path.join(d, 'repo') }

  it('--empty-repo=false adds and pins the help files and prints how to read them', () => {
    const repo = fresh()
    const r = runCli(repo, ['init', '--profile=test', '--empty-repo=false'])
    expect(r.status, r.stderr).to.equal(0)
    const root = /\n\n\tipfs cat \/ipfs\/(\S+)\/readme\n\n$/.exec(r.stdout)?.[1]
    expect(root, r.stdout).to.be.a('string')
    expect(runCli(repo, ['pin', 'ls', '--type=recursive']).stdout).to.include(`${root as string} recursive`)
    expect(runCli(repo, ['cat', `/ipfs/${root as string}/readme`]).stdout).to.include('tsipfs')
    const names = runCli(repo, ['ls', root as string]).stdout.split('\n').filter(Boolean).map(l => l.split(/\s+/).pop())
    expect(names).to.deep.equal(['about', 'contact', 'help', 'quick-start', 'readme', 'security-notes'])
  })

  it('by default (--empty-repo) only the empty directory is pinned', () => {
    const repo = fresh()
    const r = runCli(repo, ['init', '--profile=test'])
    expect(r.stdout).to.not.include('to get started')
    expect(runCli(repo, ['pin', 'ls', '--type=recursive']).stdout.trim().split('\n')).to.have.length(1)
  })

  it('--algorithm/--bits errors as Kubo prints them', () => {
    const rsa = runCli(fresh(), ['init', '-a', 'rsa', '-b', '1024'])
    expect(rsa.status).to.equal(1)
    expect(rsa.stdout).to.equal('generating 1024-bit RSA keypair...')
    expect(rsa.stderr).to.equal('Error: rsa keys must be >= 2048 bits to be useful\n')
    const ed = runCli(fresh(), ['init', '-a', 'ed25519', '-b', '256'])
    expect(ed.stderr).to.equal('Error: number of key bits does not apply when using ed25519 keys\n')
    expect(runCli(fresh(), ['init', '-a', 'bogus']).stderr).to.equal('Error: unrecognized key type: bogus\n')
  })

  it('an existing repo: the identity lines first, then Kubo\'s refusal', () => {
    const repo = fresh()
    runCli(repo, ['init', '--profile=test'])
    const again = runCli(repo, ['init'])
    expect(again.stdout).to.match(/^generating ED25519 keypair\.\.\.done\npeer identity: \S+\ninitializing IPFS node at /)
    expect(again.stderr).to.equal('Error: ipfs configuration file already exists!\nReinitializing would overwrite your keys\n')
  })
})
