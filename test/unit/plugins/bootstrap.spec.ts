import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { textCall } from '../../../registry/execute.js'
import type { InvokeInput } from '../../../registry/registry.js'
import { bootstrapPlugin } from '../../../plugins/bootstrap/index.js'
import { parseMultiaddr } from '../../../plugins/bootstrap/peers.js'
import { FALLBACK_BOOTSTRAP } from '../../../core/config/defaults.js'

use(chaiAsPromised)

const ID_A = 'QmSoLnSGccFuZQJzRadHn95W2CrSFmZuTdDWP8HXaHca9z'
const ID_B = 'QmXFX2P5ammdmXQgfqGkfswtEVFsZUJ5KeHRXQYCTdiTAb'
const PEER_A = `/ip4/104.236.176.52/tcp/4001/p2p/${ID_A}`
const PEER_A2 = `/ip6/::1/tcp/4001/p2p/${ID_A}`
const PEER_B = `/ip4/111.111.111.111/tcp/1001/p2p/${ID_B}`
const AUTOCONF_DISABLED = 'cannot add default bootstrap peers: AutoConf is disabled (AutoConf.Enabled=false). Enable AutoConf by setting AutoConf.Enabled=true in your config, or add specific peer addresses instead'
const AUTO_RM = "cannot remove individual bootstrap peers when using 'auto' placeholder: the 'auto' value is managed by AutoConf. Either disable AutoConf by setting AutoConf.Enabled=false and replace 'auto' with specific peer addresses, or use 'ipfs bootstrap rm --all' to remove all peers"

describe('bootstrap plugin', () => {
  let node: TestNode

  async function text (p: string, input: InvokeInput = {}): Promise<string> {
    const prepared = node.registry.prepare(p.split('/'), input)
    const value = await node.invoke(p, input)
    return prepared.command.text?.(value, textCall(prepared) as never) ?? ''
  }
  const bootstrapConfig = (): unknown => node.container.cradle.config.get().Bootstrap
  async function setBootstrap (list: string[] | null): Promise<void> {
    const cfg = node.container.cradle.config.get()
    cfg.Bootstrap = list
    await node.container.cradle.config.replace(cfg)
  }

  beforeEach(async () => { node = await createTestNode({ plugins: [bootstrapPlugin()] }) })
  afterEach(async () => { await node.stop() })

  describe('list', () => {
    it('shows the configured list, "auto" included', async () => {
      expect(await node.invoke('bootstrap/list')).to.deep.equal({ Peers: ['auto'] })
      expect(await node.invoke('bootstrap')).to.deep.equal({ Peers: ['auto'] })
      expect(await text('bootstrap/list')).to.equal('auto\n')
    })

    it('--expand-auto uses the AutoConf fallback peers', async () => {
      expect(await node.invoke('bootstrap/list', { options: { 'expand-auto': true } })).to.deep.equal({ Peers: FALLBACK_BOOTSTRAP })
      expect(await node.invoke('bootstrap/list', { query: [['expand-auto', ['true']]] })).to.deep.equal({ Peers: FALLBACK_BOOTSTRAP })
      // custom entries stay, a second "auto" vanishes
      await setBootstrap([PEER_B, 'auto', 'auto'])
      expect((await node.invoke('bootstrap/list', { options: { 'expand-auto': true } })).Peers).to.deep.equal([PEER_B, ...FALLBACK_BOOTSTRAP])
    })

    it('answers null for an unset list, [] for an empty one', async () => {
      await setBootstrap(null)
      expect(await node.invoke('bootstrap/list')).to.deep.equal({ Peers: null })
      expect(await text('bootstrap/list')).to.equal('')
      await setBootstrap([])
      expect(await node.invoke('bootstrap/list')).to.deep.equal({ Peers: [] })
      expect(await node.invoke('bootstrap/list', { options: { 'expand-auto': true } })).to.deep.equal({ Peers: null })
    })

    it('prints one peer per line, sorted', async () => {
      await setBootstrap([PEER_B, PEER_A])
      expect(await text('bootstrap')).to.equal(`${PEER_A}\n${PEER_B}\n`)
    })
  })

  describe('add', () => {
    beforeEach(async () => { await setBootstrap([]) })

    it('adds a peer and returns what was added', async () => {
      expect(await node.invoke('bootstrap/add', { args: [PEER_A] })).to.deep.equal({ Peers: [PEER_A] })
      expect(await node.invoke('bootstrap/list')).to.deep.equal({ Peers: [PEER_A] })
      expect(await text('bootstrap/add', { args: [PEER_B] })).to.equal(`added ${PEER_B}\n`)
    })

    it('does not duplicate peers; the added ones come first', async () => {
      await node.invoke('bootstrap/add', { args: [PEER_A] })
      expect(await node.invoke('bootstrap/add', { args: [PEER_A] })).to.deep.equal({ Peers: [PEER_A] })
      expect(await node.invoke('bootstrap/add', { args: [PEER_B, PEER_B] })).to.deep.equal({ Peers: [PEER_B] })
      expect(bootstrapConfig()).to.deep.equal([PEER_B, PEER_A])
    })

    it('reads peers from the body (stdin)', async () => {
      expect(await node.invoke('bootstrap/add', { stdin: [PEER_A, PEER_B] })).to.deep.equal({ Peers: [PEER_A, PEER_B] })
    })

    it('"default" adds the "auto" placeholder', async () => {
      expect(await node.invoke('bootstrap/add', { args: ['default'] })).to.deep.equal({ Peers: ['auto'] })
      expect(bootstrapConfig()).to.deep.equal(['auto'])
    })

    it('refuses "auto" when AutoConf is disabled', async () => {
      const cfg = node.container.cradle.config.get()
      cfg.AutoConf = { Enabled: false }
      await node.container.cradle.config.replace(cfg)
      await expect(node.invoke('bootstrap/add', { args: ['auto'] })).to.be.rejectedWith(AUTOCONF_DISABLED)
    })

    it('fails with Kubo\'s errors', async () => {
      await expect(node.invoke('bootstrap/add', {})).to.be.rejectedWith('no bootstrap peers to add')
      await expect(node.invoke('bootstrap/add', { args: ['this/Is/So/Invalid/'] }))
        .to.be.rejectedWith('failed to parse multiaddr "this/Is/So/Invalid": must begin with /')
      await expect(node.invoke('bootstrap/add', { args: ['/ip4/1.2.3.4/tcp/1'] })).to.be.rejectedWith('invalid bootstrap address: /ip4/1.2.3.4/tcp/1')
      await expect(node.invoke('bootstrap/add', { args: [`/p2p/${ID_A}`] })).to.be.rejectedWith(`bootstrap address without a transport: /p2p/${ID_A}`)
      await expect(node.invoke('bootstrap/add', { args: [`/ip4/1.2.3.4/foo/1/p2p/${ID_A}`] }))
        .to.be.rejectedWith(`failed to parse multiaddr "/ip4/1.2.3.4/foo/1/p2p/${ID_A}": unknown protocol foo`)
      await expect(node.invoke('bootstrap/add', { args: [`/ip4/1.2.3/tcp/1/p2p/${ID_A}`] }))
        .to.be.rejectedWith(`failed to parse multiaddr "/ip4/1.2.3/tcp/1/p2p/${ID_A}": invalid value "1.2.3" for protocol ip4: failed to parse ip4 addr: 1.2.3`)
      await expect(node.invoke('bootstrap/add', { args: ['/ip4/1.2.3.4/tcp'] }))
        .to.be.rejectedWith('failed to parse multiaddr "/ip4/1.2.3.4/tcp": unexpected end of multiaddr')
      // nothing was added by the failures
      expect(bootstrapConfig()).to.deep.equal([])
    })
  })

  describe('rm', () => {
    it('refuses to pick peers out of "auto"', async () => {
      await expect(node.invoke('bootstrap/rm', { args: [PEER_A] })).to.be.rejectedWith(AUTO_RM)
    })

    it('removes whole peers or single addresses, output in /p2p/ form', async () => {
      await setBootstrap([PEER_A, PEER_A2.replace('/p2p/', '/ipfs/'), PEER_B])
      expect(await node.invoke('bootstrap/rm', { args: [PEER_A2] })).to.deep.equal({ Peers: [PEER_A2] })
      expect(bootstrapConfig()).to.deep.equal([PEER_A, PEER_B])
      expect(await node.invoke('bootstrap/rm', { args: [`/p2p/${ID_B}`] })).to.deep.equal({ Peers: [PEER_B] })
      expect(bootstrapConfig()).to.deep.equal([PEER_A])
      expect(await text('bootstrap/rm', { args: [PEER_A] })).to.equal(`removed ${PEER_A}\n`)
      expect(bootstrapConfig()).to.deep.equal([])
    })

    it('removes nothing for unknown peers', async () => {
      await setBootstrap([PEER_A])
      expect(await node.invoke('bootstrap/rm', { args: [PEER_B] })).to.deep.equal({ Peers: [] })
      expect(bootstrapConfig()).to.deep.equal([PEER_A])
    })

    it('needs /p2p/ addresses', async () => {
      await setBootstrap([PEER_A])
      await expect(node.invoke('bootstrap/rm', { args: ['/ip4/1.2.3.4/tcp/1'] })).to.be.rejectedWith('invalid p2p multiaddr')
      await expect(node.invoke('bootstrap/rm', { args: ['nope'] })).to.be.rejectedWith('failed to parse multiaddr "nope": must begin with /')
    })

    it('--all and rm/all remove everything', async () => {
      expect(await node.invoke('bootstrap/rm', { options: { all: true } })).to.deep.equal({ Peers: ['auto'] })
      expect(bootstrapConfig()).to.equal(null)
      await setBootstrap([PEER_B, PEER_A])
      expect(await text('bootstrap/rm/all')).to.equal(`removed ${PEER_A}\nremoved ${PEER_B}\n`)
      expect(await node.invoke('bootstrap/list')).to.deep.equal({ Peers: null })
      expect(await node.invoke('bootstrap/rm', { query: [['all', ['true']]] })).to.deep.equal({ Peers: [] })
    })
  })

  describe('multiaddr parsing (go-multiaddr)', () => {
    it('prints the canonical form', () => {
      expect(parseMultiaddr(`/ip4/1.2.3.4/tcp/0080/ipfs/${ID_A}/`).toString()).to.equal(`/ip4/1.2.3.4/tcp/80/p2p/${ID_A}`)
      expect(parseMultiaddr('/dnsaddr/bootstrap.libp2p.io/p2p/bafzbeigtlcj6javurwbqyzjucxtbkbqsqgmcejqftwh4wznn2f4mxomqx4').toString())
        .to.equal('/dnsaddr/bootstrap.libp2p.io/p2p/QmcZf59bWwK5XFi76CZX8cbJ4BhTzzA3gU1ZjYZcYW3dwt')
    })

    it('reports go-multiaddr errors', () => {
      expect(() => parseMultiaddr('')).to.throw('failed to parse multiaddr "": empty multiaddr')
      expect(() => parseMultiaddr('/ip4/1.2.3.4/tcp/x')).to.throw('failed to parse multiaddr "/ip4/1.2.3.4/tcp/x": invalid value "x" for protocol tcp: failed to parse port addr: strconv.ParseUint: parsing "x": invalid syntax')
    })
  })
})
