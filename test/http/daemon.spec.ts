// Integration: a spawned daemon over real HTTP, and the CLI against it.
import { expect } from 'chai'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { startDaemon, runCli, type Daemon } from '../helpers/daemon.js'
import { rpc } from '../helpers/rpc.js'
import { KUBO_VERSION } from '../../core/version.js'

describe('daemon (spawned)', function () {
  this.timeout(60_000)
  let d: Daemon
  before(async () => { d = await startDaemon() })
  after(async () => { await d?.stop() })

  it('writes the api file and answers /api/v0/version as Kubo', async () => {
    expect(d.apiAddr).to.match(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+$/)
    const r = await rpc(d.url, '/api/v0/version')
    expect(r.status).to.equal(200)
    const v = r.json()
    expect(Object.keys(v)).to.deep.equal(['Version', 'Commit', 'Repo', 'System', 'Golang'])
    expect(v.Version).to.equal(KUBO_VERSION)
    expect(v.Repo).to.equal('18')
    expect(r.headers.server).to.match(/^tsipfs\//)
  })

  it('error and streamed answers print no MaxListenersExceededWarning in the daemon log', async () => {
    const bad = await rpc(d.url, '/api/v0/cat?arg=bafybadcid')
    expect(bad.status).to.equal(500)
    expect((await rpc(d.url, '/api/v0/block/get?arg=QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG')).status).to.equal(500)
    expect((await rpc(d.url, '/api/v0/refs/local')).status).to.equal(200)
    await new Promise(resolve => setTimeout(resolve, 200))
    expect(d.log()).to.not.include('MaxListenersExceededWarning')
  })

  it('id offline: Addresses and Protocols are null', async () => {
    const r = await rpc(d.url, '/api/v0/id')
    const id = r.json()
    expect(id.ID).to.match(/^12D3KooW/)
    expect(id.PublicKey).to.match(/^CAESI/)
    expect(id.Addresses).to.equal(null)
    expect(id.AgentVersion).to.match(/^tsipfs\//)
  })

  it('/api/v0/commands lists the tree without daemon/init', async () => {
    const r = await rpc(d.url, '/api/v0/commands')
    const tree = r.json()
    expect(tree.Name).to.equal('ipfs')
    const names = tree.Subcommands.map((s: { Name: string }) => s.Name)
    expect(names).to.include.members(['version', 'id', 'config', 'key'])
    expect(names).to.not.include('daemon')
  })

  it('the CLI goes through the daemon (diag/cmds sees it)', async () => {
    const r = d.cli(['config', 'Addresses.API'])
    expect(r.status, r.stderr).to.equal(0)
    expect(r.stdout.trim()).to.equal('/ip4/127.0.0.1/tcp/0')
    const cmds = (await rpc(d.url, '/api/v0/diag/cmds')).json()
    expect(cmds.map((c: { Command: string }) => c.Command)).to.include('config')
  })

  it('the CLI reports errors as "Error: <msg>" with exit 1', () => {
    const r = d.cli(['config', 'No.Such.Key'])
    expect(r.status).to.equal(1)
    expect(r.stderr).to.match(/^Error: /)
  })

  it('a second daemon on the same repo fails with a clear lock error', () => {
    const r = d.cli(['daemon', '--offline'])
    expect(r.status).to.equal(1)
    expect(r.stderr).to.include('someone else has the lock')
  })
})

describe('daemon lifecycle', function () {
  this.timeout(60_000)

  it('stops cleanly on SIGTERM and removes the api file', async () => {
    const d = await startDaemon()
    const exited = new Promise<number | null>(resolve => d.proc.once('exit', code => resolve(code)))
    d.proc.kill('SIGTERM')
    expect(await exited).to.equal(0)
    expect(existsSync(path.join(d.repo, 'api'))).to.equal(false)
    expect(existsSync(path.join(d.repo, 'repo.lock'))).to.equal(false)
    await d.stop()
  })

  it('/api/v0/shutdown answers 200 empty, then the daemon exits', async () => {
    const d = await startDaemon()
    const exited = new Promise<number | null>(resolve => d.proc.once('exit', code => resolve(code)))
    const r = await rpc(d.url, '/api/v0/shutdown')
    expect(r.status).to.equal(200)
    expect(r.body).to.equal('')
    expect(await exited).to.equal(0)
    await d.stop()
  })

  it('an address that is both Addresses.API and Addresses.Gateway serves both on one listener', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port
        srv.close(() => resolve(p))
      })
    })
    const addr = `/ip4/127.0.0.1/tcp/${port}`
    const d = await startDaemon({ config: { 'Addresses.API': addr, 'Addresses.Gateway': addr } })
    try {
      expect(d.log()).to.include(`RPC API server listening on ${addr}`)
        .and.include(`Gateway server listening on ${addr}\nRouting V1 API exposed at http://127.0.0.1:${port}/routing/v1\n`)
      expect(readFileSync(path.join(d.repo, 'gateway'), 'utf8').trim()).to.equal(`http://127.0.0.1:${port}`)
      const added = d.cli(['add', '-Q', '--pin=false'], { input: 'shared listener\n' })
      expect(added.status, added.stderr).to.equal(0)
      const cid = added.stdout.trim()
      const got = await fetch(`http://127.0.0.1:${port}/ipfs/${cid}`)
      expect(got.status).to.equal(200)
      expect(await got.text()).to.equal('shared listener\n')
      // the RPC contract is unchanged on that port: POST only
      expect((await fetch(`http://127.0.0.1:${port}/api/v0/version`)).status).to.equal(405)
      expect((await rpc(d.url, '/api/v0/version')).status).to.equal(200)
    } finally {
      await d.stop()
    }
  })

  it('init writes Kubo\'s repo layout and refuses to run twice', () => {
    const repo = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-init-'))
    try {
      const r = runCli(repo, ['init'])
      expect(r.status, r.stderr).to.equal(0)
      expect(r.stdout).to.match(/^generating ED25519 keypair\.\.\.done\npeer identity: 12D3KooW\w+\ninitializing IPFS node at /)
      expect(readFileSync(path.join(repo, 'version'), 'utf8')).to.equal('18\n')
      expect(readFileSync(path.join(repo, 'datastore_spec'), 'utf8')).to.equal('{"mounts":[{"mountpoint":"/blocks","path":"blocks","shardFunc":"/repo/flatfs/shard/v1/next-to-last/2","type":"flatfs"},{"mountpoint":"/","path":"datastore","type":"levelds"}],"type":"mount"}')
      expect(readFileSync(path.join(repo, 'blocks', 'SHARDING'), 'utf8')).to.equal('/repo/flatfs/shard/v1/next-to-last/2\n')
      const cfg = JSON.parse(readFileSync(path.join(repo, 'config'), 'utf8'))
      expect(Object.keys(cfg).slice(0, 4)).to.deep.equal(['Identity', 'Datastore', 'Addresses', 'Mounts'])
      const again = runCli(repo, ['init'])
      expect(again.status).to.equal(1)
      expect(again.stderr).to.include('ipfs configuration file already exists!')
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })

  it('commands need an initialised repo', () => {
    const repo = path.join(os.tmpdir(), `tsipfs-none-${process.pid}`)
    const r = runCli(repo, ['config', 'show'])
    expect(r.status).to.equal(1)
    expect(r.stderr).to.include('please run: \'ipfs init\'')
  })
})
