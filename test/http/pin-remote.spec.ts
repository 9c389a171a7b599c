// pin remote against spawned daemons: a tsipfs daemon and a Kubo daemon, each with its own mock pinning
// service (npm mock-ipfs-pinning-service on loopback, loopback delegates), answer the same requests the
// same way; tsipfs sends its addresses as origins, and its MFS policy pins the MFS root on its own.
import { expect } from 'chai'
import { Cluster, waitFor, type Peer } from '../helpers/cluster.js'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { CLI } from '../helpers/daemon.js'
import { kuboBinary } from '../helpers/kubo.js'
import { rpc, type RpcResponse } from '../helpers/rpc.js'
import { startPinningService, type MockPinningService } from '../helpers/pinning-service.js'

/** every status, as repeated options (over HTTP Kubo splits no commas) */
const execFileP = promisify(execFile)

const ALL = 'queued&status=pinning&status=pinned&status=failed'

describe('pin remote: tsipfs and Kubo against a pinning service', function () {
  this.timeout(120_000)
  let c: Cluster
  let t: Peer
  let k: Peer
  let tsvc: MockPinningService
  let ksvc: MockPinningService
  const env = { MFS_PIN_POLL_INTERVAL: '300ms' }

  before(async function () {
    this.timeout(30 * 60_000) // a fresh machine builds Kubo first
    kuboBinary()
    tsvc = await startPinningService()
    ksvc = await startPinningService()
    c = new Cluster({ label: 'pin-remote' })
    ;[t, k] = await Promise.all([c.tsipfs({ name: 'tsipfs', env }), c.kubo({ name: 'kubo', env })])
  })
  after(async () => {
    await c?.stop()
    await tsvc?.stop()
    await ksvc?.stop()
  })

  /** one raw request to a daemon, the mock's URL written MOCK */
  const call = async (peer: Peer, pathAndQuery: string): Promise<{ status: number, chunked: boolean, type: string, body: string }> => {
    const svc = peer === t ? tsvc : ksvc
    const res: RpcResponse = await rpc(peer.api ?? '', pathAndQuery.replaceAll('MOCK', encodeURIComponent(svc.url)))
    return {
      status: res.status,
      chunked: res.headers['x-chunked-output'] === '1',
      type: String(res.headers['content-type']),
      body: res.body.replaceAll(svc.url, 'MOCK').replace(/req-\d+/g, 'req-N')
    }
  }
  /** the same request to both daemons: the same answer */
  const same = async (pathAndQuery: string): Promise<{ status: number, body: string }> => {
    const [ours, kubos] = await Promise.all([call(t, pathAndQuery), call(k, pathAndQuery)])
    expect(ours, pathAndQuery).to.deep.equal(kubos)
    return ours
  }

  it('service add|ls|rm and their errors', async () => {
    expect((await same('/api/v0/pin/remote/service/add?arg=mock&arg=MOCK&arg=secret')).body).to.equal('')
    expect((await same('/api/v0/pin/remote/service/add?arg=wrongkey&arg=MOCK&arg=nope')).status).to.equal(200)
    await same('/api/v0/pin/remote/service/add?arg=down&arg=http%3A%2F%2F127.0.0.1%3A1%2Fapi%2F&arg=k')
    expect((await same('/api/v0/pin/remote/service/add?arg=mock&arg=MOCK&arg=secret')).body).to.include('service already present')
    await same('/api/v0/pin/remote/service/add?arg=q&arg=http%3A%2F%2F127.0.0.1%3A1%2F%3Fa%3D1&arg=k')
    await same('/api/v0/pin/remote/service/add?arg=p&arg=http%3A%2F%2F127.0.0.1%3A1%2Fpins&arg=k')
    await same('/api/v0/pin/remote/service/add?arg=f&arg=ftp%3A%2F%2F127.0.0.1&arg=k')
    await same('/api/v0/pin/remote/service/add?arg=only-name')
    expect(JSON.parse((await same('/api/v0/pin/remote/service/ls')).body).RemoteServices.map((s: { Service: string }) => s.Service)).to.deep.equal(['down', 'mock', 'wrongkey'])
    const stat = JSON.parse((await same('/api/v0/pin/remote/service/ls?stat=true')).body)
    expect(stat.RemoteServices.map((s: { Stat: { Status: string } }) => s.Stat.Status)).to.deep.equal(['invalid', 'valid', 'invalid'])
    await same('/api/v0/pin/remote/service/ls?stat=true&encoding=text')
    await same('/api/v0/pin/remote/service/rm?arg=wrongkey')
    await same('/api/v0/pin/remote/service/rm?arg=never-added')
    await same('/api/v0/pin/remote/service/rm')
    // config show hides the keys; reading or writing them is refused
    const [ours, kubos] = await Promise.all([t.call('config/show'), k.call('config/show')])
    expect(ours.Pinning.RemoteServices.mock).to.deep.equal(JSON.parse(JSON.stringify(kubos.Pinning.RemoteServices.mock).replaceAll(ksvc.url, tsvc.url)))
    expect(ours.Pinning.RemoteServices.mock.API).to.deep.equal({ Endpoint: tsvc.url })
    await same('/api/v0/config?arg=Pinning.RemoteServices.mock.API.Key')
    await same('/api/v0/config?arg=Pinning.RemoteServices.mock.API.Key&arg=stolen')
  })

  it('add (--background and waiting), ls filters, rm --force: the same answers', async () => {
    const data = `pin remote ${Date.now()}`
    const [tc, kc] = await Promise.all([t.add(data), k.add(data)])
    expect(tc).to.equal(kc)
    const bg = await same(`/api/v0/pin/remote/add?arg=${tc}&service=mock&background=true&name=queued-one`)
    expect(JSON.parse(bg.body)).to.deep.equal({ Status: 'queued', Cid: tc, Name: 'queued-one' })
    expect(bg.status).to.equal(200)
    // tsipfs has the block and is online: its addresses go as origins
    const origins = tsvc.state().pins.get(tc)?.pin.origins ?? []
    expect(origins.length).to.be.greaterThan(0)
    for (const o of origins) expect(o).to.match(new RegExp(`/p2p/${t.id}$`))

    // waiting: the mock pins a name starting with pinned- at once, fails failed-
    expect(JSON.parse((await same(`/api/v0/pin/remote/add?arg=${tc}&service=mock&name=pinned-now`)).body).Status).to.equal('pinned')
    await same(`/api/v0/pin/remote/add?arg=${tc}&service=mock&name=pinned-now&encoding=text`)
    const other = await Promise.all([t.add(data + ' 2'), k.add(data + ' 2')])
    expect((await same(`/api/v0/pin/remote/add?arg=${other[0]}&service=mock&name=failed-x`)).body).to.include('remote service failed to pin requestid=')
    await same(`/api/v0/pin/remote/add?arg=${tc}&service=nope`)
    await same(`/api/v0/pin/remote/add?arg=${tc}`)
    await same(`/api/v0/pin/remote/add?arg=${tc}&service=down`)
    await same('/api/v0/pin/remote/add?arg=notacid&service=mock')
    await same('/api/v0/pin/remote/add?service=mock')

    await same('/api/v0/pin/remote/ls?service=mock')
    expect((await same(`/api/v0/pin/remote/ls?service=mock&status=${ALL}`)).body.trim().split('\n')).to.have.length(2)
    await same('/api/v0/pin/remote/ls?service=mock&status=failed&encoding=text')
    await same(`/api/v0/pin/remote/ls?service=mock&status=${ALL}&cid=${other[0]}`)
    await same('/api/v0/pin/remote/ls?service=mock&status=bogus')
    await same('/api/v0/pin/remote/ls?service=mock&status=pinned,failed')
    await same('/api/v0/pin/remote/ls?service=mock&cid=zzz')
    await same('/api/v0/pin/remote/ls?service=down')

    // the CLI splits comma lists (Kubo's DelimitedStringsOption) and prints Kubo's lines
    // (not spawnSync: the mock service answers from this process)
    const cli = await execFileP(process.execPath, [CLI, 'pin', 'remote', 'ls', '--service=mock', '--status=queued,pinning,pinned,failed'], { env: { ...process.env, IPFS_PATH: t.repo } })
    expect(cli.stderr).to.equal('')
    expect(cli.stdout.trim().split('\n')).to.have.members([`${other[0]}\tfailed\tfailed-x`, `${tc}\tpinned\tqueued-one`])

    expect((await same(`/api/v0/pin/remote/rm?service=mock&status=${ALL}`)).body).to.include('multiple remote pins are matching this query, add --force to confirm the bulk removal')
    expect((await same(`/api/v0/pin/remote/rm?service=mock&status=${ALL}&force=true`)).body).to.equal('')
    expect(tsvc.state().pins.size).to.equal(0)
    expect(ksvc.state().pins.size).to.equal(0)
  })

  it('the MFS policy pins the MFS root to the service, and re-pins it when MFS changes', async () => {
    const policy = { Enable: true, PinName: '', RepinInterval: '1s' }
    await Promise.all([t, k].map(async p => { await p.call('config', ['Pinning.RemoteServices.mock.Policies.MFS', JSON.stringify(policy)], { json: true }) }))
    const mfsPin = async (peer: Peer, svc: MockPinningService): Promise<{ cid: string, name?: string } | undefined> => {
      const root = (await peer.call('files/stat', ['/'])).Hash as string
      return [...svc.state().pins.values()].map(p => p.pin).find(p => p.cid === root)
    }
    const first = await Promise.all([
      waitFor(async () => await mfsPin(t, tsvc), { what: 'tsipfs pins its MFS root', timeout: 30_000 }),
      waitFor(async () => await mfsPin(k, ksvc), { what: 'Kubo pins its MFS root', timeout: 30_000 })
    ])
    expect(first[0].name).to.equal(`policy/${t.id}/mfs`)
    expect(first[1].name).to.equal(`policy/${k.id}/mfs`)

    await t.call('files/mkdir', ['/changed'])
    const second = await waitFor(async () => { const p = await mfsPin(t, tsvc); return p != null && p.cid !== first[0].cid && p }, { what: 'tsipfs re-pins the new root', timeout: 30_000 })
    expect(second.name).to.equal(`policy/${t.id}/mfs`)
    // replaced, not added beside: one pin of that name
    expect([...tsvc.state().pins.values()].filter(p => p.pin.name === `policy/${t.id}/mfs`)).to.have.length(1)
  })
})
