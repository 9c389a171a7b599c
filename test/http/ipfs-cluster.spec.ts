// IPFS Cluster (ipfs-cluster-service + ipfs-cluster-ctl, built from the Go module by scripts/cluster.sh) driving
// three tsipfs daemons: a 3-peer CRDT cluster on loopback whose IPFS connector and IPFS proxy point at tsipfs.
// Pins made through ipfs-cluster-ctl reach every tsipfs node (the blocks move by bitswap between them),
// `status` says PINNED everywhere, `pin rm` unpins everywhere, and `add` through the cluster's IPFS proxy works.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { expect } from 'chai'
import { Cluster, waitFor, type Peer } from '../helpers/cluster.js'
import { ROOT } from '../helpers/daemon.js'
import { multipart, rpc } from '../helpers/rpc.js'

const execFileP = promisify(execFile)

/** scripts/cluster.sh: builds the binaries once (minutes on a fresh machine), prints their folder */
function clusterBin (): string {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'cluster.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 40 * 60_000 })
  const dir = r.stdout?.trim().split('\n').pop() ?? ''
  if (r.status !== 0 || dir === '') throw new Error(`scripts/cluster.sh failed (status ${String(r.status)})`)
  return dir
}

async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => { resolve(port) })
    })
  })
}

/** ipfs-cluster-ctl --enc json prints indented JSON values one after another: each of them */
function jsonValues (text: string): any[] {
  const out: any[] = []
  let depth = 0
  let start = -1
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (inString) {
      if (ch === '\\') i++
      else if (ch === '"') inString = false
      continue
    }
    if (ch === '"') inString = true
    else if (ch === '{' || ch === '[') { if (depth++ === 0) start = i }
    else if ((ch === '}' || ch === ']') && --depth === 0) out.push(JSON.parse(text.slice(start, i + 1)))
  }
  return out
}

interface ClusterPeer {
  dir: string
  id: string
  swarm: number
  rest: number
  proxy: number
  ipfs: Peer
  proc?: ChildProcess
  out: string
}

describe('IPFS Cluster over tsipfs daemons', function () {
  this.timeout(180_000)
  let bin: string
  let c: Cluster
  const peers: ClusterPeer[] = []
  const root = mkdtempSync(path.join(os.tmpdir(), 'tsipfs-ipfs-cluster-'))

  /** ipfs-cluster-ctl against peer i's REST API, JSON output */
  const ctl = async (i: number, args: string[]): Promise<any> => {
    const { stdout } = await execFileP(path.join(bin, 'ipfs-cluster-ctl'), ['--host', `/ip4/127.0.0.1/tcp/${peers[i].rest}`, '--enc', 'json', ...args], { timeout: 120_000 })
    const values = jsonValues(stdout)
    return values.length === 1 ? values[0] : values
  }
  const pinnedOn = async (p: ClusterPeer, cid: string): Promise<boolean> => {
    try {
      const out = await p.ipfs.call('pin/ls', [cid], { type: 'recursive' })
      return (Array.isArray(out) ? out[0] : out)?.Keys?.[cid] != null
    } catch { return false }
  }
  /** ctl status <cid>: the status per peer (peer_map) */
  const statuses = async (cid: string): Promise<string[]> => {
    const out = await ctl(0, ['status', cid])
    const one = Array.isArray(out) ? out[0] : out
    return Object.values(one?.peer_map ?? {}).map((s: any) => String(s.status))
  }

  before(async function () {
    this.timeout(45 * 60_000) // a fresh machine builds the cluster binaries first
    bin = clusterBin()
    c = new Cluster({ label: 'ipfs-cluster' })
    const nodes = await c.many(3, async (i) => await c.tsipfs({ name: `tsipfs${i}` }))
    // the IPFS daemons are peered with each other, as a cluster's daemons usually are
    await c.connect(nodes[0], nodes[1])
    await c.connect(nodes[1], nodes[2])
    await c.connect(nodes[0], nodes[2])

    let secret = ''
    for (let i = 0; i < 3; i++) {
      const dir = path.join(root, `peer${i}`)
      const init = spawnSync(path.join(bin, 'ipfs-cluster-service'), ['init', '--consensus', 'crdt'], { env: { ...process.env, IPFS_CLUSTER_PATH: dir }, encoding: 'utf8' })
      if (init.status !== 0) throw new Error(`ipfs-cluster-service init: ${init.stderr}`)
      const id = JSON.parse(readFileSync(path.join(dir, 'identity.json'), 'utf8')).id as string
      peers.push({ dir, id, swarm: await freePort(), rest: await freePort(), proxy: await freePort(), ipfs: nodes[i], out: '' })
    }
    for (const [i, p] of peers.entries()) {
      const file = path.join(p.dir, 'service.json')
      const cfg = JSON.parse(readFileSync(file, 'utf8'))
      if (i === 0) secret = cfg.cluster.secret
      const api = p.ipfs.api ?? ''
      const apiAddr = `/ip4/127.0.0.1/tcp/${new URL(api).port}`
      Object.assign(cfg.cluster, {
        peername: `peer${i}`,
        secret,
        listen_multiaddress: [`/ip4/127.0.0.1/tcp/${p.swarm}`],
        peer_addresses: peers.filter(o => o !== p).map(o => `/ip4/127.0.0.1/tcp/${o.swarm}/p2p/${o.id}`),
        mdns_interval: '0s',
        enable_relay_hop: false,
        monitor_ping_interval: '2s',
        peer_watch_interval: '2s'
      })
      cfg.api.restapi.http_listen_multiaddress = `/ip4/127.0.0.1/tcp/${p.rest}`
      cfg.api.ipfsproxy.listen_multiaddress = `/ip4/127.0.0.1/tcp/${p.proxy}`
      cfg.api.ipfsproxy.node_multiaddress = apiAddr
      cfg.api.pinsvcapi.http_listen_multiaddress = `/ip4/127.0.0.1/tcp/${await freePort()}`
      cfg.ipfs_connector.ipfshttp.node_multiaddress = apiAddr
      cfg.informer.disk.metric_ttl = '5s'
      cfg.informer.pinqueue.metric_ttl = '5s'
      cfg.informer.tags.metric_ttl = '5s'
      cfg.monitor.pubsubmon.check_interval = '2s'
      writeFileSync(file, JSON.stringify(cfg, null, 2))
    }
    for (const p of peers) {
      const proc = spawn(path.join(bin, 'ipfs-cluster-service'), ['daemon'], { env: { ...process.env, IPFS_CLUSTER_PATH: p.dir }, stdio: ['ignore', 'pipe', 'pipe'] })
      proc.stdout?.on('data', (b: Buffer) => { p.out += b.toString() })
      proc.stderr?.on('data', (b: Buffer) => { p.out += b.toString() })
      p.proc = proc
    }
    for (const p of peers) {
      await waitFor(() => p.out.includes('IPFS Cluster is READY') || (p.proc?.exitCode != null ? Promise.reject(new Error(p.out)) : false), { what: `cluster ${p.id} ready`, timeout: 120_000 })
    }
    await waitFor(async () => [await ctl(0, ['peers', 'ls'])].flat().length === 3, { what: 'the three cluster peers see each other', timeout: 120_000 })
  })

  after(async function () {
    this.timeout(60_000)
    for (const p of peers) {
      if (p.proc != null && p.proc.exitCode == null) {
        const exited = new Promise(resolve => p.proc?.once('exit', resolve))
        p.proc.kill('SIGTERM')
        const t = setTimeout(() => p.proc?.kill('SIGKILL'), 20_000)
        await exited
        clearTimeout(t)
      }
    }
    if (this.currentTest?.state === 'failed' || process.env.CLUSTER_LOGS === '1') {
      for (const p of peers) console.log(`--- cluster peer ${p.id}\n${p.out.slice(-6000)}`)
    }
    await c?.stop()
    rmSync(root, { recursive: true, force: true })
  })

  it('the cluster peers see tsipfs as their IPFS daemon', async () => {
    const ls = [await ctl(0, ['peers', 'ls'])].flat()
    expect(ls).to.have.length(3)
    for (const p of ls) {
      expect(p.error ?? '').to.equal('')
      const ipfs = peers.find(q => q.id === p.id)?.ipfs
      expect(p.ipfs.id, 'the peer ID of its tsipfs daemon').to.equal(ipfs?.id)
    }
  })

  it('pin add replicates to every tsipfs node (data by bitswap), status PINNED everywhere, pin rm unpins everywhere', async () => {
    const cid = await peers[0].ipfs.add(`cluster pin ${Date.now()} ${'x'.repeat(300_000)}`)
    await peers[0].ipfs.call('pin/rm', [cid])
    await ctl(0, ['pin', 'add', cid])
    await waitFor(async () => { const s = await statuses(cid); return s.length === 3 && s.every(x => x === 'pinned') }, { what: 'PINNED on the three peers', timeout: 120_000 })
    for (const p of peers) expect(await pinnedOn(p, cid), `pinned on ${p.ipfs.name}`).to.equal(true)
    // the other nodes fetched the blocks
    for (const p of peers.slice(1)) expect((await p.ipfs.cat(cid)).length).to.be.greaterThan(300_000)
    const ls = await ctl(1, ['pin', 'ls', cid])
    expect((Array.isArray(ls) ? ls[0] : ls).cid).to.equal(cid)

    await ctl(2, ['pin', 'rm', cid])
    for (const p of peers) await waitFor(async () => !await pinnedOn(p, cid), { what: `unpinned on ${p.ipfs.name}`, timeout: 60_000 })
  })

  it('ipfs-cluster-ctl add puts the blocks into every tsipfs node (block/put) with the CID tsipfs add gives', async () => {
    const file = path.join(root, 'ctl-add.bin')
    const data = Buffer.alloc(700_000)
    for (let i = 0; i < data.length; i++) data[i] = (i * 7 + Date.now()) % 251
    writeFileSync(file, data)
    const { stdout } = await execFileP(path.join(bin, 'ipfs-cluster-ctl'), ['--host', `/ip4/127.0.0.1/tcp/${peers[0].rest}`, 'add', '-Q', file], { timeout: 120_000 })
    const cid = stdout.trim()
    const body = multipart([{ name: 'file', filename: 'ctl-add.bin', content: data }])
    const direct = await rpc(peers[0].ipfs.api ?? '', '/api/v0/add?only-hash=true', { body: body.body, headers: { 'Content-Type': body.contentType } })
    expect(cid).to.equal(direct.ndjson().pop().Hash)
    await waitFor(async () => { const s = await statuses(cid); return s.length === 3 && s.every(x => x === 'pinned') }, { what: 'the ctl-added CID PINNED on the three peers', timeout: 120_000 })
    for (const p of peers) {
      expect(await pinnedOn(p, cid)).to.equal(true)
      expect(Buffer.compare(await p.ipfs.cat(cid), data)).to.equal(0)
    }
  })

  it('pin update pins the new CID where the old one is (tsipfs pin/update), and ipfs gc runs on every node', async () => {
    const a = await peers[0].ipfs.add(`update from ${Date.now()}`)
    const b = await peers[0].ipfs.add(`update to ${Date.now()}`)
    await ctl(0, ['pin', 'add', a])
    await waitFor(async () => { const s = await statuses(a); return s.length === 3 && s.every(x => x === 'pinned') }, { what: 'a PINNED on the three peers', timeout: 120_000 })
    await ctl(0, ['pin', 'update', a, b])
    await waitFor(async () => { const s = await statuses(b); return s.length === 3 && s.every(x => x === 'pinned') }, { what: 'b PINNED on the three peers', timeout: 120_000 })
    for (const p of peers) expect(await pinnedOn(p, b)).to.equal(true)
    const gc = [await ctl(0, ['ipfs', 'gc'])].flat()
    const results = Object.values(gc[0]?.peer_map ?? {}) as Array<{ error?: string }>
    expect(results).to.have.length(3)
    for (const r of results) expect(r.error ?? '').to.equal('')
  })

  it('the IPFS proxy adds through tsipfs and the cluster pins the result everywhere', async () => {
    const content = `through the proxy ${Date.now()}`
    const body = multipart([{ name: 'file', filename: 'x.txt', content }])
    const res = await rpc(`http://127.0.0.1:${peers[1].proxy}`, '/api/v0/add', { body: body.body, headers: { 'Content-Type': body.contentType } })
    expect(res.status, res.body).to.equal(200)
    const added = res.ndjson().pop()
    expect(added.Name).to.equal('x.txt')
    const direct = await rpc(peers[1].ipfs.api ?? '', '/api/v0/add?only-hash=true', { body: body.body, headers: { 'Content-Type': body.contentType } })
    expect(added.Hash).to.equal(direct.ndjson().pop().Hash)
    await waitFor(async () => { const s = await statuses(added.Hash); return s.length === 3 && s.every(x => x === 'pinned') }, { what: 'the proxy-added CID PINNED on the three peers', timeout: 120_000 })
    for (const p of peers) expect(await pinnedOn(p, added.Hash)).to.equal(true)
    // the proxy also forwards other calls to tsipfs unchanged
    const id = await rpc(`http://127.0.0.1:${peers[1].proxy}`, '/api/v0/id')
    expect(id.json().ID).to.equal(peers[1].ipfs.id)
  })
})
