import { expect } from 'chai'
import { PRODUCT_VERSION } from '../../../core/version.js'
import { createTestNode, type TestNode, renderText } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { versionPlugin } from '../../../plugins/version/index.js'
import { detectNewVersion, parseGoVersion } from '../../../plugins/version/check.js'
import { KUBO_VERSION } from '../../../core/version.js'

describe('version plugin', () => {
  let node: TestNode
  before(async () => { node = await createTestNode({ plugins: [versionPlugin()] }) })
  after(async () => { await node.stop() })

  describe('version', () => {
    it('answers Kubo’s VersionInfo fields in Go order', async () => {
      const out = await node.invoke('version')
      expect(Object.keys(out)).to.deep.equal(['Version', 'Commit', 'Repo', 'System', 'Golang'])
      expect(out.Version).to.equal('0.40.1').and.to.equal(KUBO_VERSION)
      expect(out.Repo).to.equal('18')
      expect(out.Commit).to.equal('')
      expect(out.System).to.match(/^[a-z0-9]+\/[a-z]+$/)
      if (process.arch === 'x64' && process.platform === 'linux') expect(out.System).to.equal('amd64/linux')
      expect(out.Golang).to.equal(`node-${process.version}`)
    })

    it('Version is strict semver, as the Kubo CLI requires', async () => {
      const out = await node.invoke('version')
      expect(out.Version).to.match(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/)
    })

    it('is a noRepo command', () => {
      expect(node.registry.noRepo(['version'])).to.equal(true)
    })

    it('text: default, --number, --commit, --repo, --all', async () => {
      expect(await renderText(node, 'version')).to.equal('ipfs version 0.40.1\n')
      expect(await renderText(node, 'version', { options: { number: true } })).to.equal('0.40.1\n')
      expect(await renderText(node, 'version', { query: [['n', ['true']]] })).to.equal('0.40.1\n')
      // no commit is embedded, so --commit adds nothing (as in Kubo builds without ldflags)
      expect(await renderText(node, 'version', { options: { commit: true } })).to.equal('ipfs version 0.40.1\n')
      expect(await renderText(node, 'version', { options: { repo: true } })).to.equal('18\n')
      const all = await renderText(node, 'version', { options: { all: true } })
      const sys = (await node.invoke('version')).System
      // Kubo's wording with this node's facts, the same lines as the daemon's banner
      expect(all).to.equal(`tsipfs version: ${PRODUCT_VERSION} (Kubo RPC API 0.40.1)\nRepo version: 18\nSystem version: ${sys}\nNode.js version: ${process.version}\n`)
    })

    it('--repo wins over --number (Kubo checks repo first)', async () => {
      expect(await renderText(node, 'version', { options: { repo: true, number: true } })).to.equal('18\n')
    })
  })

  describe('version/deps', () => {
    it('streams this package first, then its npm dependencies', async () => {
      const deps = await node.invoke('version/deps')
      expect(deps).to.be.an('array').with.length.greaterThan(1)
      expect(deps[0]).to.deep.equal({ Path: 'tsipfs', Version: deps[0].Version, ReplacedBy: '', Sum: '' })
      expect(Object.keys(deps[1])).to.deep.equal(['Path', 'Version', 'ReplacedBy', 'Sum'])
      const mf = deps.find((d: { Path: string }) => d.Path === 'multiformats')
      expect(mf.Version).to.match(/^14\.\d+\.\d+/)
      expect(mf.Sum).to.match(/^sha512-/)
    })

    it('text: path@version per line', async () => {
      const text = await renderText(node, 'version/deps')
      expect(text.split('\n')[0]).to.match(/^tsipfs@\d+\.\d+\.\d+/)
      expect(text).to.match(/\nmultiformats@14\.\d+\.\d+\n/)
    })
  })

  describe('version/check', () => {
    it('offline: Kubo’s not-online error', async () => {
      const err = await rejection(node.invoke('version/check'))
      expect(err.message).to.equal("this command must be run in online mode. Try running 'ipfs daemon' first")
      expect(err.name).to.equal('NotOnlineError')
    })

    it('min-percent defaults to 5 and coerces Kubo-style', () => {
      expect(node.registry.prepare(['version', 'check'], {}).values['min-percent']).to.equal(5)
      expect(node.registry.prepare(['version', 'check'], { query: [['t', ['20']]] }).values['min-percent']).to.equal(20)
      expect(() => node.registry.prepare(['version', 'check'], { query: [['t', ['x']]] })).to.throw('could not convert value "x" to type "int" (for option "-min-percent")')
    })

    it('counts only kubo/ release agents newer than ours', () => {
      const out = detectNewVersion(['kubo/0.41.0/abc', 'kubo/0.39.0', 'kubo/0.50.0-rc1', 'go-ipfs/0.99.0', 'kubo/garbage', 'tsipfs/0.1.0'], 0, '0.40.1')
      expect(out).to.deep.equal({ UpdateAvailable: true, RunningVersion: '0.40.1', GreatestVersion: '0.41.0', PeersSampled: 3, WithGreaterVersion: 1 })
    })

    it('with no peers: only ourselves sampled, no update', () => {
      expect(detectNewVersion([], 0, '0.44.0-dev')).to.deep.equal({ UpdateAvailable: false, RunningVersion: '0.44.0', GreatestVersion: '0.44.0', PeersSampled: 1, WithGreaterVersion: 0 })
    })

    it('the 5% threshold (greater / sampled >= 0.05, ourselves included)', () => {
      const agents = [...Array(19).fill('kubo/0.40.1'), 'kubo/0.41.0']
      expect(detectNewVersion(agents, 0, '0.40.1')).to.include({ PeersSampled: 21, WithGreaterVersion: 1, UpdateAvailable: false })
      expect(detectNewVersion(agents.slice(1), 0, '0.40.1')).to.include({ PeersSampled: 20, UpdateAvailable: true })
    })

    it('parses versions like hashicorp/go-version', () => {
      expect(parseGoVersion('v1.2')).to.deep.equal({ core: [1, 2, 0], prerelease: '', metadata: '' })
      expect(parseGoVersion('0.44.0-dev')?.prerelease).to.equal('dev')
      expect(parseGoVersion('1.0.0+meta')?.metadata).to.equal('meta')
      expect(parseGoVersion('x1')).to.equal(undefined)
    })
  })
})
