import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { createTestNode, filesOf, renderText, type TestNode } from '../../helpers/node.js'
import { startPinningService, type MockPinningService } from '../../helpers/pinning-service.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { configPlugin } from '../../../plugins/config/index.js'
import { filesPlugin } from '../../../plugins/files/index.js'
import { pinRemotePlugin } from '../../../plugins/pin-remote/index.js'
import { normalizeEndpoint } from '../../../plugins/pin-remote/common.js'
import { MfsPinPolicy } from '../../../plugins/pin-remote/mfs-policy.js'

use(chaiAsPromised)

const ALL = ['queued', 'pinning', 'pinned', 'failed']

describe('plugins/pin-remote', function () {
  this.timeout(60_000)
  let svc: MockPinningService
  let node: TestNode

  before(async () => { svc = await startPinningService() })
  after(async () => { await svc.stop() })
  beforeEach(async () => {
    svc.state().pins.clear()
    node = await createTestNode({ plugins: [pinRemotePlugin(), addPlugin(), filesPlugin(), configPlugin()] })
  })
  afterEach(async () => { await node.stop() })

  const addService = async (name = 'mock', endpoint = svc.url, key = svc.token): Promise<unknown> =>
    await node.invoke('pin/remote/service/add', { args: [name, endpoint, key] })
  const addFile = async (content: string): Promise<string> =>
    (await node.invoke('add', { files: filesOf({ path: 'f', content }), options: { pin: true } }))[0].Hash

  describe('service add|ls|rm', () => {
    it('stores the service under Pinning.RemoteServices with an empty MFS policy, and lists it', async () => {
      await addService('mock', `${svc.url}//api/./`)
      expect(node.container.cradle.config.get().Pinning).to.deep.equal({
        RemoteServices: { mock: { API: { Endpoint: `${svc.url}/api`, Key: 'secret' }, Policies: { MFS: { Enable: false, PinName: '', RepinInterval: '' } } } }
      })
      expect(await node.invoke('pin/remote/service/ls')).to.deep.equal({ RemoteServices: [{ Service: 'mock', ApiEndpoint: `${svc.url}/api` }] })
    })

    it('refuses a name already present and bad endpoints with Kubo\'s errors', async () => {
      await addService()
      await expect(addService()).to.be.rejectedWith(/^service already present$/)
      await expect(addService('q', 'http://127.0.0.1:1/?a=1')).to.be.rejectedWith(/^service endpoint should be provided without any query parameters$/)
      await expect(addService('p', 'http://127.0.0.1:1/v1/pins/')).to.be.rejectedWith(/^service endpoint should be provided without the \/pins suffix$/)
      for (const bad of ['ftp://127.0.0.1/', 'notaurl', '/just/a/path', 'http:/x']) {
        await expect(addService('b', bad), bad).to.be.rejectedWith(/^service endpoint must be a valid HTTP URL$/)
      }
      expect((await node.invoke('pin/remote/service/ls')).RemoteServices).to.have.length(1)
    })

    it('normalises endpoints as Kubo does', () => {
      expect(normalizeEndpoint('https://pin.example/')).to.equal('https://pin.example')
      expect(normalizeEndpoint('http://127.0.0.1:9//x/./')).to.equal('http://127.0.0.1:9/x')
      expect(normalizeEndpoint('http://127.0.0.1:9/a/../b/.')).to.equal('http://127.0.0.1:9/b')
    })

    it('lists sorted by name; --stat counts per status and marks services that do not answer invalid', async () => {
      await addService('zeta')
      await addService('alpha', 'http://127.0.0.1:1', 'k')
      await addService('wrongkey', svc.url, 'not-the-token')
      const cid = await addFile('stat me')
      await node.invoke('pin/remote/add', { args: [cid], options: { service: 'zeta', background: true, name: 'pinning-a' } })
      const out = await node.invoke('pin/remote/service/ls', { options: { stat: true } })
      expect(out).to.deep.equal({
        RemoteServices: [
          { Service: 'alpha', ApiEndpoint: 'http://127.0.0.1:1', Stat: { Status: 'invalid' } },
          { Service: 'wrongkey', ApiEndpoint: svc.url, Stat: { Status: 'invalid' } },
          { Service: 'zeta', ApiEndpoint: svc.url, Stat: { Status: 'valid', PinCount: { Queued: 0, Pinning: 1, Pinned: 0, Failed: 0 } } }
        ]
      })
      // Go's tabwriter: each column as wide as its widest cell plus one space
      const w = svc.url.length + 1
      expect(await renderText(node, 'pin/remote/service/ls', { options: { stat: true } })).to.equal(
        `alpha    ${'http://127.0.0.1:1'.padEnd(w)}invalid\n` +
        `wrongkey ${svc.url} invalid\n` +
        `zeta     ${svc.url} 0/1/0/0\n`)
    })

    it('rm forgets a service; an unknown name is not an error', async () => {
      await addService('a')
      await addService('b')
      // concurrent removals (the client suite's clearServices) both land
      await Promise.all([node.invoke('pin/remote/service/rm', { args: ['a'] }), node.invoke('pin/remote/service/rm', { args: ['b'] })])
      await node.invoke('pin/remote/service/rm', { args: ['nope'] })
      expect(await node.invoke('pin/remote/service/ls')).to.deep.equal({ RemoteServices: [] })
    })

    it('config show hides the keys; config get/set of them is refused', async () => {
      await addService()
      const shown = await node.invoke('config/show')
      expect(shown.Pinning.RemoteServices.mock.API).to.deep.equal({ Endpoint: svc.url })
      await expect(node.invoke('config', { args: ['Pinning.RemoteServices.mock.API.Key'] })).to.be.rejectedWith('cannot show or change pinning services credentials')
      await expect(node.invoke('config', { args: ['Pinning.RemoteServices'] })).to.be.rejectedWith('cannot show or change pinning services credentials')
      await expect(node.invoke('config', { args: ['Pinning.RemoteServices.mock.API.Key', 'x'] })).to.be.rejectedWith('cannot show or change pinning services credentials')
    })
  })

  describe('add|ls|rm', () => {
    beforeEach(async () => { await addService() })

    it('add --background returns the queued status at once', async () => {
      const cid = await addFile('background')
      const out = await node.invoke('pin/remote/add', { args: [cid], options: { service: 'mock', background: true, name: 'bg' } })
      expect(out).to.deep.equal([{ Status: 'queued', Cid: cid, Name: 'bg' }])
      const stored = svc.state().pins.get(cid)
      expect(stored?.pin).to.deep.include({ cid, name: 'bg' })
      // offline here: no origins to give
      expect(stored?.pin.origins).to.equal(undefined)
    })

    it('add without --background waits until the service reports pinned', async () => {
      const cid = await addFile('wait')
      const queued = await node.invoke('pin/remote/add', { args: [cid], options: { service: 'mock', background: true, name: 'later' } })
      expect(queued[0].Status).to.equal('queued')
      const requestid = svc.state().pins.get(cid)?.requestid
      // the service pins it after a while: the waiting add sees it on a later poll
      const waiting = node.invoke('pin/remote/add', { args: [cid], options: { service: 'mock', name: 'later' } })
      const polled = (): number => svc.requests.filter(r => r.method === 'GET' && r.url === `/pins/${requestid ?? ''}`).length
      while (polled() < 2) await new Promise(resolve => setTimeout(resolve, 50))
      const entry = svc.state().pins.get(cid)
      if (entry != null) entry.status = 'pinned'
      expect(await waiting).to.deep.equal([{ Status: 'pinned', Cid: cid, Name: 'later' }])
      expect(await renderText(node, 'pin/remote/add', { args: [cid], options: { service: 'mock', name: 'pinned-x' } })).to.equal(`CID:    ${cid}\nName:   later\nStatus: pinned\n`)
    })

    it('add fails when the service fails the pin, and for unknown services, bad paths and long names', async () => {
      const cid = await addFile('fail')
      await expect(node.invoke('pin/remote/add', { args: [cid], options: { service: 'mock', name: 'failed-1' } })).to.be.rejectedWith(/^remote service failed to pin requestid="req-\d+"$/)
      await expect(node.invoke('pin/remote/add', { args: [cid], options: { service: 'nope' } })).to.be.rejectedWith(/^service not known$/)
      await expect(node.invoke('pin/remote/add', { args: [cid] })).to.be.rejectedWith(/^a service name must be passed$/)
      await expect(node.invoke('pin/remote/add', { args: [cid], options: { service: '' } })).to.be.rejectedWith(/^remote pinning service name not specified$/)
      await expect(node.invoke('pin/remote/add', { args: ['notacid'], options: { service: 'mock' } })).to.be.rejectedWith('invalid path "notacid"')
      await expect(node.invoke('pin/remote/add', { args: [cid], options: { service: 'mock', name: 'x'.repeat(256) } })).to.be.rejectedWith('pin name is 256 bytes (max 255 bytes)')
    })

    it('reports the service\'s own errors as Kubo\'s client words them', async () => {
      const cid = await addFile('errors')
      await addService('wrongkey', svc.url, 'nope')
      await addService('down', 'http://127.0.0.1:1/api', 'k')
      await expect(node.invoke('pin/remote/add', { args: [cid], options: { service: 'wrongkey' } })).to.be.rejectedWith('reason: "access token is invalid", details: "": 401 Unauthorized')
      await expect(node.invoke('pin/remote/add', { args: [cid], options: { service: 'down' } })).to.be.rejectedWith('empty response from remote pinning service: Post "http://127.0.0.1:1/api/pins": dial tcp 127.0.0.1:1: connect: connection refused')
      await expect(node.invoke('pin/remote/ls', { options: { service: 'down' } })).to.be.rejectedWith('empty response from remote pinning service: Get "http://127.0.0.1:1/api/pins?limit=10&status=pinned": dial tcp 127.0.0.1:1: connect: connection refused')
    })

    it('ls filters by status (default pinned), cid and name', async () => {
      const cids: string[] = []
      for (let i = 0; i < 8; i++) {
        const cid = await addFile(`many ${i}`)
        cids.push(cid)
        await node.invoke('pin/remote/add', { args: [cid], options: { service: 'mock', background: true, name: i % 2 === 0 ? `pinned-${i}` : `queued-${i}` } })
      }
      const pinned = await node.invoke('pin/remote/ls', { options: { service: 'mock' } })
      expect(pinned.map((p: { Cid: string }) => p.Cid)).to.have.members(cids.filter((_, i) => i % 2 === 0))
      expect(await node.invoke('pin/remote/ls', { options: { service: 'mock', status: ALL } })).to.have.length(8)
      expect(await node.invoke('pin/remote/ls', { options: { service: 'mock', status: ['queued'], name: 'queued-3' } })).to.deep.equal([{ Status: 'queued', Cid: cids[3], Name: 'queued-3' }])
      expect(await node.invoke('pin/remote/ls', { options: { service: 'mock', status: ALL, cid: [cids[0], cids[1]] } })).to.have.deep.members([
        { Status: 'pinned', Cid: cids[0], Name: 'pinned-0' }, { Status: 'queued', Cid: cids[1], Name: 'queued-1' }])
      expect(await renderText(node, 'pin/remote/ls', { options: { service: 'mock', cid: [cids[0]] } })).to.equal(`${cids[0]}\tpinned\tpinned-0\n`)
      await expect(node.invoke('pin/remote/ls', { options: { service: 'mock', status: ['bogus'] } })).to.be.rejectedWith(/^status "bogus" is not valid$/)
      await expect(node.invoke('pin/remote/ls', { options: { service: 'mock', cid: ['zzz'] } })).to.be.rejectedWith(/^CID "zzz" cannot be parsed: invalid cid: /)
    })

    it('ls gives CIDs in the requested --cid-base', async () => {
      const cid = await addFile('base')
      await node.invoke('pin/remote/add', { args: [cid], options: { service: 'mock', background: true, name: 'pinned-b' } })
      const [out] = await node.invoke('pin/remote/ls', { options: { service: 'mock', 'cid-base': 'base32' } })
      expect(out.Cid).to.match(/^bafy/)
    })

    it('rm removes one match, refuses several without --force, removes all with it', async () => {
      const a = await addFile('rm a')
      const b = await addFile('rm b')
      await node.invoke('pin/remote/add', { args: [a], options: { service: 'mock', background: true, name: 'pinned-a' } })
      await node.invoke('pin/remote/add', { args: [b], options: { service: 'mock', background: true, name: 'queued-b' } })
      await expect(node.invoke('pin/remote/rm', { options: { service: 'mock', status: ALL } })).to.be.rejectedWith(/^multiple remote pins are matching this query, add --force to confirm the bulk removal$/)
      expect(svc.state().pins.size).to.equal(2)
      // default status pinned: only a
      expect(await node.invoke('pin/remote/rm', { options: { service: 'mock' } })).to.deep.equal([])
      expect([...svc.state().pins.keys()]).to.deep.equal([b])
      await node.invoke('pin/remote/add', { args: [a], options: { service: 'mock', background: true, name: 'failed-a' } })
      await node.invoke('pin/remote/rm', { options: { service: 'mock', status: ALL, force: true } })
      expect(svc.state().pins.size).to.equal(0)
      await expect(node.invoke('pin/remote/rm', { options: { service: 'mock', status: ['nope'] } })).to.be.rejectedWith(/^error while listing remote pins: status "nope" is not valid$/)
    })
  })

  it('ls pages through batches of 10 with `before` = the oldest created seen', async () => {
    // the mock's count is its batch size, so a listing never pages there: a service that counts all
    const created = Array.from({ length: 23 }, (_, i) => new Date(Date.UTC(2026, 0, 1, 0, 0, 23 - i)).toISOString())
    const cid = await addFile('paged')
    const seen: string[] = []
    const server = http.createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://x').searchParams
      seen.push(q.toString())
      const before = q.get('before')
      const matching = created.filter(c => before == null || c < before)
      const results = matching.slice(0, Number(q.get('limit'))).map((c, i) => ({ requestid: `r-${c}`, status: 'pinned', created: c, pin: { cid, name: `n${i}` }, delegates: [] }))
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify({ count: matching.length, results }))
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    try {
      await addService('paged', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'k')
      expect(await node.invoke('pin/remote/ls', { options: { service: 'paged' } })).to.have.length(23)
      expect(seen).to.deep.equal([
        'limit=10&status=pinned',
        `before=${encodeURIComponent(created[9])}&limit=10&status=pinned`,
        `before=${encodeURIComponent(created[19])}&limit=10&status=pinned`
      ])
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  describe('MFS policy', () => {
    const mfsPolicy = (): MfsPinPolicy => node.container.cradle.remotePinMfs
    const setPolicy = async (mfs: Record<string, unknown>): Promise<void> => {
      const cfg = node.container.cradle.config
      const services = cfg.get().Pinning as { RemoteServices: Record<string, { Policies: { MFS: Record<string, unknown> } }> }
      Object.assign(services.RemoteServices.mock.Policies.MFS, mfs)
      await cfg.setKey('Pinning.RemoteServices', services.RemoteServices as never)
    }

    beforeEach(async () => { await addService() })

    it('pins nothing while the policy is off', async () => {
      await mfsPolicy().pinAll()
      expect(svc.state().pins.size).to.equal(0)
    })

    it('pins the MFS root under policy/<peerID>/mfs, replaces it when MFS changes, keeps it while it does not', async () => {
      await setPolicy({ Enable: true, RepinInterval: '1ns' })
      await mfsPolicy().pinAll()
      const peerId = (node.container.cradle.config.get().Identity as { PeerID: string }).PeerID
      const root1 = (await node.invoke('files/stat', { args: ['/'] })).Hash
      expect([...svc.state().pins.values()].map(p => p.pin)).to.deep.equal([{ cid: root1, name: `policy/${peerId}/mfs` }])

      // unchanged root: the service is not asked again
      svc.requests.length = 0
      await mfsPolicy().pinAll()
      expect(svc.requests).to.deep.equal([])

      await node.invoke('files/mkdir', { args: ['/changed'] })
      await mfsPolicy().pinAll()
      const root2 = (await node.invoke('files/stat', { args: ['/'] })).Hash
      expect(root2).to.not.equal(root1)
      expect([...svc.state().pins.values()].map(p => p.pin.cid)).to.deep.equal([root2])
      expect(svc.requests.some(r => r.method === 'POST' && /^\/pins\/req-\d+$/.test(r.url)), 'a replace').to.equal(true)
    })

    it('uses PinName, and waits RepinInterval before asking again', async () => {
      await setPolicy({ Enable: true, PinName: 'my-mfs', RepinInterval: '1h' })
      await mfsPolicy().pinAll()
      expect([...svc.state().pins.values()].map(p => p.pin.name)).to.deep.equal(['my-mfs'])
      await node.invoke('files/mkdir', { args: ['/later'] })
      svc.requests.length = 0
      await mfsPolicy().pinAll()
      expect(svc.requests).to.deep.equal([])
    })

    it('skips a service with a bad RepinInterval', async () => {
      await setPolicy({ Enable: true, RepinInterval: 'soon' })
      await mfsPolicy().pinAll()
      expect(svc.state().pins.size).to.equal(0)
    })

    it('runs on its own only in the daemon', () => {
      expect(node.container.cradle.node.daemon).to.equal(false)
      expect(mfsPolicy().rounds).to.equal(0)
    })
  })
})
