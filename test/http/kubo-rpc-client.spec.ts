// kubo-rpc-client (the maintained JS client) against a spawned daemon.
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { create, type KuboRPCClient } from 'kubo-rpc-client'
import { startDaemon, type Daemon } from '../helpers/daemon.js'
import { KUBO_VERSION } from '../../core/version.js'

use(chaiAsPromised)

describe('kubo-rpc-client', function () {
  this.timeout(60_000)
  let d: Daemon
  let client: KuboRPCClient
  before(async () => {
    d = await startDaemon()
    client = create({ url: `${d.url}/api/v0` })
  })
  after(async () => { await d?.stop() })

  it('version', async () => {
    const v = await client.version()
    expect(v.version).to.equal(KUBO_VERSION)
    expect(v.repo).to.equal('18')
  })

  it('id', async () => {
    const id = await client.id()
    expect(id.id.toString()).to.match(/^12D3KooW/)
    expect(id.agentVersion).to.match(/^tsipfs\//)
  })

  it('config get/set/getAll', async () => {
    await client.config.set('Gateway.RootRedirect', '/ipfs/x')
    expect(await client.config.get('Gateway.RootRedirect')).to.equal('/ipfs/x')
    await client.config.set('Datastore.StorageGCWatermark', 80)
    expect(await client.config.get('Datastore.StorageGCWatermark')).to.equal(80)
    await expect(client.config.set('Foo.Bar', 'baz')).to.be.rejectedWith('failed to set config value: Foo not found (maybe use --json?)')
    const all = await client.config.getAll()
    expect(all).to.have.property('Addresses')
    expect((all as any).Identity?.PrivKey).to.equal(undefined)
  })

  it('bootstrap list/add/rm', async () => {
    const addr = '/ip4/1.2.3.4/tcp/4001/p2p/QmaCpDMGvV2BGHeYERUEnRQAwe3N8SzbUtfsmvsqQLuvuJ'
    const added = await client.bootstrap.add(addr as any)
    expect(added.Peers.map(String)).to.deep.equal([addr])
    expect((await client.bootstrap.list()).Peers.map(String)).to.include(addr)
    await client.bootstrap.rm(addr as any)
    expect((await client.bootstrap.list()).Peers.map(String)).to.not.include(addr)
  })

  it('key gen/list/rename/rm', async () => {
    const k = await client.key.gen('k1', { type: 'ed25519' })
    expect(k.name).to.equal('k1')
    expect(k.id).to.match(/^k51/)
    expect((await client.key.list()).map(x => x.name)).to.include.members(['self', 'k1'])
    const r = await client.key.rename('k1', 'k2')
    expect(r.now).to.equal('k2')
    const removed = await client.key.rm('k2')
    expect(removed.name).to.equal('k2')
  })
})
