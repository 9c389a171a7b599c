import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { textCall } from '../../../registry/execute.js'
import type { InvokeInput } from '../../../registry/registry.js'
import { configPlugin } from '../../../plugins/config/index.js'
import { formatJsonDiff } from '../../../plugins/config/jsondiff.js'
import { goJsonParse } from '../../../plugins/config/gojson.js'
import { DEFAULT_SWARM, FALLBACK_BOOTSTRAP, defaultConfig } from '../../../core/config/defaults.js'
import { checkKey, normalizeConfig } from '../../../core/config/schema.js'
import { SERVER_FILTERS, applyProfiles } from '../../../core/config/profiles.js'
import { initRepo } from '../../../core/repo/index.js'

use(chaiAsPromised)

const YELLOW = '\x1b[0;33m'
const RED = '\x1b[0;31m'
const GREEN = '\x1b[0;32m'
const RESET = '\x1b[0m'

describe('config plugin', () => {
  let node: TestNode
  let peerId: string

  /** run a command and render it with its text encoder, as the CLI does */
  async function text (p: string, input: InvokeInput = {}): Promise<string> {
    const prepared = node.registry.prepare(p.split('/'), input)
    const value = await node.invoke(p, input)
    return prepared.command.text?.(value, textCall(prepared) as never) ?? ''
  }

  beforeEach(async () => {
    node = await createTestNode({ plugins: [configPlugin()] })
    peerId = (node.container.cradle.config.get().Identity as { PeerID: string }).PeerID
  })
  afterEach(async () => { await node.stop() })

  describe('config <key>', () => {
    it('gets a value', async () => {
      expect(await node.invoke('config', { args: ['Identity.PeerID'] })).to.deep.equal({ Key: 'Identity.PeerID', Value: peerId })
      expect(await node.invoke('config', { args: ['Addresses.Swarm'] })).to.deep.equal({ Key: 'Addresses.Swarm', Value: DEFAULT_SWARM })
    })

    it('gets an object with its keys sorted, printed as indented JSON', async () => {
      const out = await node.invoke('config', { args: ['Discovery'] })
      expect(out).to.deep.equal({ Key: 'Discovery', Value: { MDNS: { Enabled: true } } })
      await expect(node.invoke('config', { args: ['Datastore.Spec.mounts.0'] }))
        .to.be.rejectedWith('failed to get config value: "Datastore.Spec.mounts key is not a map"')
      expect(await text('config', { args: ['Discovery'] })).to.equal('{\n  "MDNS": {\n    "Enabled": true\n  }\n}\n')
      expect(Object.keys((await node.invoke('config', { args: ['Gateway'] })).Value)).to.deep.equal([
        'AllowCodecConversion', 'DeserializedResponses', 'DisableHTMLErrors', 'ExposeRoutingAPI', 'HTTPHeaders',
        'NoDNSLink', 'NoFetch', 'PublicGateways', 'RootRedirect'
      ])
    })

    it('prints strings bare, null as null', async () => {
      expect(await text('config', { args: ['Addresses.API'] })).to.equal('/ip4/127.0.0.1/tcp/5001\n')
      expect(await text('config', { args: ['Peering.Peers'] })).to.equal('null\n')
    })

    it('fails on missing keys with Kubo\'s texts', async () => {
      await expect(node.invoke('config', { args: ['Bananas'] })).to.be.rejectedWith('failed to get config value: "Bananas not found"')
      await expect(node.invoke('config', { args: ['Discovery.Foo'] })).to.be.rejectedWith('failed to get config value: "Discovery.Foo not found"')
      await expect(node.invoke('config', { args: ['Addresses.Swarm.Foo'] })).to.be.rejectedWith('failed to get config value: "Addresses.Swarm key is not a map"')
      // key lookups are case-sensitive
      await expect(node.invoke('config', { args: ['addresses.api'] })).to.be.rejectedWith('failed to get config value: "addresses not found"')
      // %q is strconv.Quote: runes Go does not print (U+200B, U+0085) are escaped
      await expect(node.invoke('config', { args: ['Ban\u200bana\u0085s'] })).to.be.rejectedWith('failed to get config value: "Ban\\u200bana\\u0085s not found"')
    })

    it('refuses the private key, in any case', async () => {
      for (const key of ['Identity', 'Identity.PrivKey', 'identity.privkey', 'IDENTITY']) {
        await expect(node.invoke('config', { args: [key] })).to.be.rejectedWith('cannot show or change private key through API')
      }
      await expect(node.invoke('config', { args: ['Identity.PrivKey', 'x'] })).to.be.rejectedWith('cannot show or change private key through API')
      await expect(node.invoke('config', { args: ['Pinning.RemoteServices'] })).to.be.rejectedWith('cannot show or change pinning services credentials')
      await expect(node.invoke('config', { args: ['Pinning.RemoteServices.x.API.Key'] })).to.be.rejectedWith('cannot show or change pinning services credentials')
    })
  })

  describe('config <key> <value>', () => {
    it('sets a string and prints nothing', async () => {
      expect(await node.invoke('config', { args: ['Addresses.API', 'foo'] })).to.deep.equal({ Key: 'Addresses.API', Value: 'foo' })
      expect(await text('config', { args: ['Addresses.Gateway', 'bar'] })).to.equal('')
      expect(await text('config', { args: ['Addresses.Gateway'] })).to.equal('bar\n')
      expect((node.container.cradle.config.get().Addresses as Record<string, unknown>).API).to.equal('foo')
    })

    it('sets booleans with --bool (anything but "true" is false)', async () => {
      expect(await node.invoke('config', { args: ['Discovery.MDNS.Enabled', 'false'], options: { bool: true } })).to.deep.equal({ Key: 'Discovery.MDNS.Enabled', Value: false })
      expect(await node.invoke('config', { args: ['Discovery.MDNS.Enabled', 'true'], query: [['bool', ['']]] })).to.deep.equal({ Key: 'Discovery.MDNS.Enabled', Value: true })
      expect(await node.invoke('config', { args: ['Discovery.MDNS.Enabled', 'yes'], options: { bool: true } })).to.deep.equal({ Key: 'Discovery.MDNS.Enabled', Value: false })
    })

    it('sets JSON values with --json', async () => {
      expect(await node.invoke('config', { args: ['Datastore.HashOnRead', 'true'], options: { json: true } })).to.deep.equal({ Key: 'Datastore.HashOnRead', Value: true })
      expect(await node.invoke('config', { args: ['Experimental.OptimisticProvideJobsPoolSize', '1337'], query: [['json', ['true']]] })).to.deep.equal({ Key: 'Experimental.OptimisticProvideJobsPoolSize', Value: 1337 })
      expect(await node.invoke('config', { args: ['Addresses.Swarm', '["/ip4/0.0.0.0/tcp/1","/ip4/0.0.0.0/tcp/2"]'], options: { json: true } }))
        .to.deep.equal({ Key: 'Addresses.Swarm', Value: ['/ip4/0.0.0.0/tcp/1', '/ip4/0.0.0.0/tcp/2'] })
      expect(await node.invoke('config', { args: ['Import.BatchMaxSize', 'null'], options: { json: true } })).to.deep.equal({ Key: 'Import.BatchMaxSize', Value: null })
      expect(await node.invoke('config', { args: ['API.HTTPHeaders.Access-Control-Allow-Origin', '["http://example.io"]'], options: { json: true } }))
        .to.deep.equal({ Key: 'API.HTTPHeaders.Access-Control-Allow-Origin', Value: ['http://example.io'] })
    })

    it('sets nested keys, creating objects on the way', async () => {
      await node.invoke('config', { args: ['Gateway.PublicGateways.Foo', '{"UseSubdomains":true,"Paths":["/ipfs"]}'], options: { json: true } })
      await node.invoke('config', { args: ['Gateway.PublicGateways.Foo.UseSubdomains', 'false'], options: { bool: true } })
      expect(await node.invoke('config', { args: ['Gateway.PublicGateways'] })).to.deep.equal({
        Key: 'Gateway.PublicGateways', Value: { Foo: { Paths: ['/ipfs'], UseSubdomains: false } }
      })
      await node.invoke('config', { args: ['Routing.Routers.Test', '{"Parameters":"Test","Type":"Test"}'], options: { json: true } })
      expect((await node.invoke('config', { args: ['Routing.Routers.Test.Type'] })).Value).to.equal('Test')
    })

    it('rejects keys outside Kubo\'s config struct', async () => {
      await expect(node.invoke('config', { args: ['Fruit', 'banana'] })).to.be.rejectedWith('failed to set config value: Fruit not found (maybe use --json?)')
      await expect(node.invoke('config', { args: ['Discovery.MDNS.Interval', '11'], options: { json: true } }))
        .to.be.rejectedWith('failed to set config value: Discovery.MDNS.Interval not found (maybe use --json?)')
      await expect(node.invoke('config', { args: ['Addresses.Swarm.x', 'y'] })).to.be.rejectedWith('failed to set config value: Addresses.Swarm key is not a map (maybe use --json?)')
      await expect(node.invoke('config', { args: ['Mounts.FuseAllowOther.x', 'y'] })).to.be.rejectedWith('failed to set config value: Mounts.FuseAllowOther key is not a map (maybe use --json?)')
    })

    it('rejects values of the wrong type with Go\'s decoder texts', async () => {
      await expect(node.invoke('config', { args: ['Discovery.MDNS.Enabled', 'true'] }))
        .to.be.rejectedWith('failed to set config value: failure to decode config: json: cannot unmarshal string into Go struct field MDNS.Discovery.MDNS.Enabled of type bool (maybe use --json?)')
      await expect(node.invoke('config', { args: ['Bootstrap', '/ip4/1.2.3.4/tcp/1'] }))
        .to.be.rejectedWith('failed to set config value: failure to decode config: json: cannot unmarshal string into Go struct field Config.Bootstrap of type []string (maybe use --json?)')
      await expect(node.invoke('config', { args: ['Mounts.FuseAllowOther', '"yes"'], options: { json: true } }))
        .to.be.rejectedWith('failed to set config value: failure to decode config: failed to unmarshal "\\"yes\\"" into a flag: must be null/undefined, true, or false (maybe use --json?)')
      await expect(node.invoke('config', { args: ['Swarm.ConnMgr.GracePeriod', 'soon'] }))
        .to.be.rejectedWith('failed to set config value: failure to decode config: time: invalid duration "soon" (maybe use --json?)')
      // nothing was written
      expect((await node.invoke('config', { args: ['Discovery.MDNS.Enabled'] })).Value).to.equal(true)
    })

    it('reports JSON syntax errors as Go does', async () => {
      await expect(node.invoke('config', { args: ['Addresses.Swarm', 'bar'], options: { json: true } }))
        .to.be.rejectedWith('failed to unmarshal json. invalid character \'b\' looking for beginning of value')
      await expect(node.invoke('config', { args: ['Addresses.Swarm', '["a"'], options: { json: true } }))
        .to.be.rejectedWith('failed to unmarshal json. unexpected end of JSON input')
      expect(() => goJsonParse('{"a" 1}')).to.throw('invalid character \'1\' after object key')
      expect(() => goJsonParse('[1,]')).to.throw('invalid character \']\' looking for beginning of value')
      expect(() => goJsonParse('12a')).to.throw('invalid character \'a\' after top-level value')
      expect(() => goJsonParse('tru')).to.throw('unexpected end of JSON input')
      expect(() => goJsonParse('nul!')).to.throw('invalid character \'!\' in literal null (expecting \'l\')')
    })

    it('keeps the private key whatever is set', async () => {
      const before = node.container.cradle.config.get().Identity
      await node.invoke('config', { args: ['Datastore.StorageMax', '20GB'] })
      expect(node.container.cradle.config.get().Identity).to.deep.equal(before)
    })

    it('accepts only the node\'s own Identity.PeerID', async () => {
      await expect(node.invoke('config', { args: ['Identity.PeerID', 'QmSoLnSGccFuZQJzRadHn95W2CrSFmZuTdDWP8HXaHca9z'] }))
        .to.be.rejectedWith("cannot set Identity.PeerID to a value that does not match the node's private key; use 'ipfs key rotate' to change the node identity")
      const { peerIdFromString } = await import('@libp2p/peer-id')
      const asCid = peerIdFromString(peerId).toCID().toString()
      expect(await node.invoke('config', { args: ['Identity.PeerID', JSON.stringify(asCid)], options: { json: true } }))
        .to.deep.equal({ Key: 'Identity.PeerID', Value: peerId })
    })

    it('--expand-auto is for reading only', async () => {
      await expect(node.invoke('config', { args: ['Bootstrap', '[]'], options: { 'expand-auto': true, json: true } }))
        .to.be.rejectedWith('--expand-auto can only be used for reading config values, not for setting them')
    })
  })

  describe('config --expand-auto', () => {
    it('expands "auto" placeholders from the offline fallbacks', async () => {
      expect((await node.invoke('config', { args: ['Bootstrap'] })).Value).to.deep.equal(['auto'])
      expect((await node.invoke('config', { args: ['Bootstrap'], options: { 'expand-auto': true } })).Value).to.deep.equal(FALLBACK_BOOTSTRAP)
      expect((await node.invoke('config', { args: ['Routing.DelegatedRouters'], options: { 'expand-auto': true } })).Value)
        .to.deep.equal(['https://cid.contact/routing/v1/providers'])
      expect((await node.invoke('config', { args: ['Ipns.DelegatedPublishers'], options: { 'expand-auto': true } })).Value).to.deep.equal([])
      const dns = (await node.invoke('config', { args: ['DNS.Resolvers'], options: { 'expand-auto': true } })).Value
      expect(Object.keys(dns)).to.deep.equal(['eth.'])
      expect(['https://dns.eth.limo/dns-query', 'https://dns.eth.link/dns-query']).to.include(dns['eth.'])
      // other keys are left alone
      expect((await node.invoke('config', { args: ['Addresses.API'], options: { 'expand-auto': true } })).Value).to.equal('/ip4/127.0.0.1/tcp/5001')
    })

    it('drops "auto" when AutoConf is disabled', async () => {
      await node.invoke('config', { args: ['AutoConf.Enabled', 'false'], options: { bool: true } })
      expect((await node.invoke('config', { args: ['Bootstrap'], options: { 'expand-auto': true } })).Value).to.deep.equal([])
    })
  })

  describe('config show', () => {
    it('shows the config without the private key, keys sorted', async () => {
      const out = await node.invoke('config/show')
      expect(out.Identity).to.deep.equal({ PeerID: peerId })
      expect(Object.keys(out)).to.deep.equal([...Object.keys(out)].sort())
      expect(Object.keys(out)).to.include.members(['Addresses', 'Bootstrap', 'Datastore', 'Swarm'])
      expect(out.Bootstrap).to.deep.equal(['auto'])
    })

    it('prints 2-space indented JSON', async () => {
      const t = await text('config/show')
      expect(t).to.match(/^\{\n {2}"API": \{\n {4}"HTTPHeaders": \{\}\n {2}\},\n/)
      expect(t.endsWith('}\n')).to.equal(true)
      expect(t).to.not.include('PrivKey')
    })

    it('hides API authorizations and remote pinning keys', async () => {
      await node.invoke('config', { args: ['API.Authorizations', '{"alice":{"AuthSecret":"bearer:x","AllowedPaths":["/api/v0"]}}'], options: { json: true } })
      const cfg = node.container.cradle.config.get()
      cfg.Pinning = { RemoteServices: { svc: { API: { Endpoint: 'https://x', Key: 'secret' }, Policies: { MFS: { Enable: false, PinName: '', RepinInterval: '' } } } } }
      await node.container.cradle.config.replace(cfg)
      const out = await node.invoke('config/show')
      expect(out.API).to.deep.equal({ Authorizations: {}, HTTPHeaders: {} })
      expect(out.Pinning.RemoteServices.svc.API).to.deep.equal({ Endpoint: 'https://x' })
    })

    it('expands "auto" with the inherited --expand-auto', async () => {
      const out = await node.invoke('config/show', { options: { 'expand-auto': true } })
      expect(out.Bootstrap).to.deep.equal(FALLBACK_BOOTSTRAP)
      expect(out.Routing.DelegatedRouters).to.deep.equal(['https://cid.contact/routing/v1/providers'])
    })
  })

  describe('config replace', () => {
    it('replaces the config but keeps the identity', async () => {
      const next = node.container.cradle.config.get()
      delete (next.Identity as Record<string, unknown>).PrivKey
      ;(next.Identity as Record<string, unknown>).PeerID = 'QmSoLnSGccFuZQJzRadHn95W2CrSFmZuTdDWP8HXaHca9z'
      ;(next.Addresses as Record<string, unknown>).API = '/ip4/127.0.0.1/tcp/5002'
      const before = node.container.cradle.config.get().Identity
      expect(await node.invoke('config/replace', { files: filesOf({ content: JSON.stringify(next) }) })).to.deep.equal([])
      const cfg = node.container.cradle.config.get()
      expect(cfg.Identity).to.deep.equal(before)
      expect((cfg.Addresses as Record<string, unknown>).API).to.equal('/ip4/127.0.0.1/tcp/5002')
    })

    it('merges into the stored config as Kubo does (unknown keys stay)', async () => {
      const cfg = node.container.cradle.config.get()
      cfg.Fruit = 'banana'
      await node.container.cradle.config.replace(cfg)
      await node.invoke('config/replace', { files: filesOf({ content: '{"Addresses":{"API":""}}' }) })
      const after = node.container.cradle.config.get()
      expect(after.Fruit).to.equal('banana')
      expect(after.Addresses).to.deep.equal({ API: null, Announce: null, AppendAnnounce: null, Gateway: null, NoAnnounce: null, Swarm: null })
      expect(after.Bootstrap).to.equal(null)
    })

    it('fails with Kubo\'s errors', async () => {
      await expect(node.invoke('config/replace', { files: filesOf({ content: '{"Identity":{"PrivKey":"abc"}}' }) }))
        .to.be.rejectedWith('setting private key with API is not supported')
      await expect(node.invoke('config/replace', { files: filesOf({ content: 'not json' }) })).to.be.rejectedWith('failed to decode file as config')
      await expect(node.invoke('config/replace', { files: filesOf({ content: '{"Bootstrap":"x"}' }) })).to.be.rejectedWith('failed to decode file as config')
      await expect(node.invoke('config/replace', { files: filesOf({ content: '' }) })).to.be.rejectedWith('failed to decode file as config')
      await expect(node.invoke('config/replace', { files: filesOf({ content: '{"Pinning":{"RemoteServices":{"x":{}}}}' }) }))
        .to.be.rejectedWith("cannot add or remove remote pinning services with 'config replace'")
    })
  })

  describe('config profile apply', () => {
    it('applies the test profile and reports old and new config without the private key', async () => {
      const out = await node.invoke('config/profile/apply', { args: ['test'] })
      expect(Object.keys(out)).to.deep.equal(['OldCfg', 'NewCfg'])
      expect(out.OldCfg.Identity).to.deep.equal({ PeerID: peerId })
      expect(out.NewCfg.Identity).to.deep.equal({ PeerID: peerId })
      expect(out.OldCfg.Addresses.API).to.equal('/ip4/127.0.0.1/tcp/5001')
      expect(out.NewCfg.Addresses).to.deep.equal({
        API: '/ip4/127.0.0.1/tcp/0', Announce: [], AppendAnnounce: [], Gateway: '/ip4/127.0.0.1/tcp/0', NoAnnounce: [], Swarm: ['/ip4/127.0.0.1/tcp/0']
      })
      expect(out.NewCfg.Routing).to.deep.equal({ DelegatedRouters: [], LoopbackAddressesOnLanDHT: true })
      expect(out.NewCfg.Bootstrap).to.deep.equal([])
      expect(out.NewCfg.AutoConf).to.deep.equal({ Enabled: false })
      expect(out.NewCfg.DNS).to.deep.equal({ Resolvers: {} })
      const cfg = node.container.cradle.config.get()
      expect((cfg.Addresses as Record<string, unknown>).API).to.equal('/ip4/127.0.0.1/tcp/0')
      expect(typeof (cfg.Identity as Record<string, unknown>).PrivKey).to.equal('string')
    })

    it('server --dry-run reports the change but writes nothing', async () => {
      const before = node.container.cradle.config.get()
      const out = await node.invoke('config/profile/apply', { args: ['server'], options: { 'dry-run': true } })
      expect(out.NewCfg.Swarm.AddrFilters).to.deep.equal(SERVER_FILTERS)
      expect(out.NewCfg.Addresses.NoAnnounce).to.deep.equal(SERVER_FILTERS)
      expect(out.NewCfg.Discovery.MDNS.Enabled).to.equal(false)
      expect(out.NewCfg.Swarm.DisableNatPortMap).to.equal(true)
      expect(out.OldCfg.Swarm.AddrFilters).to.equal(null)
      expect(node.container.cradle.config.get()).to.deep.equal(before)
    })

    it('lowpower writes Kubo\'s marshalled values', async () => {
      const out = await node.invoke('config/profile/apply', { args: ['lowpower'] })
      expect(out.NewCfg.Swarm.ConnMgr).to.deep.equal({ GracePeriod: '1m0s', HighWater: 40, LowWater: 20, Type: 'basic' })
      expect(out.NewCfg.AutoNAT).to.deep.equal({ ServiceMode: 'disabled' })
      expect(out.NewCfg.Routing.Type).to.equal('autoclient')
      expect((await node.invoke('config/show')).Swarm.ConnMgr.LowWater).to.equal(20)
    })

    it('prints a coloured JSON diff', async () => {
      const t = await text('config/profile/apply', { args: ['announce-off'], options: { 'dry-run': true } })
      expect(t).to.include(`\n"Provide": {\n    "DHT": {\n${GREEN}        << "Interval": "0s"${RESET}\n        },\n${GREEN}    << "Enabled": false${RESET}\n    },\n"Provider": {},\n`)
      expect(t.startsWith('{\n"API": {"HTTPHeaders":{}},\n')).to.equal(true)
    })

    it('fails on unknown profiles', async () => {
      await expect(node.invoke('config/profile/apply', { args: ['foo'] })).to.be.rejectedWith('foo is not a profile')
    })

    it('writes a backup of the config in the repo', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-config-'))
      try {
        await initRepo(dir)
        const original = await fs.readFile(path.join(dir, 'config'), 'utf8')
        const disk = await createTestNode({ repoPath: dir, plugins: [configPlugin()] })
        try {
          await disk.invoke('config/profile/apply', { args: ['server'] })
          await disk.invoke('config/profile/apply', { args: ['randomports'], options: { 'dry-run': true } })
        } finally { await disk.stop() }
        const backups = (await fs.readdir(dir)).filter(f => f.startsWith('config-'))
        expect(backups).to.have.length(1)
        expect(backups[0]).to.match(/^config-pre-server-\d+$/)
        expect(await fs.readFile(path.join(dir, backups[0]), 'utf8')).to.equal(original)
        const now = JSON.parse(await fs.readFile(path.join(dir, 'config'), 'utf8'))
        expect(now.Swarm.AddrFilters).to.deep.equal(SERVER_FILTERS)
        expect(Object.keys(now)).to.deep.equal([...Object.keys(now)].sort())
      } finally {
        await fs.rm(dir, { recursive: true, force: true })
      }
    })
  })

  describe('config edit', () => {
    let saved: string | undefined
    beforeEach(() => { saved = process.env.EDITOR })
    afterEach(() => { if (saved === undefined) delete process.env.EDITOR; else process.env.EDITOR = saved })

    it('is NoRemote', () => {
      expect(node.registry.httpAllowed(['config', 'edit'])).to.equal(false)
    })

    it('needs $EDITOR', async () => {
      delete process.env.EDITOR
      await expect(node.invoke('config/edit', { options: { 'repo-dir': '/nonexistent' } })).to.be.rejectedWith('ENV variable $EDITOR not set')
    })

    it('runs $EDITOR (shell words) on the repo\'s config file', async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-edit-'))
      try {
        await fs.writeFile(path.join(dir, 'config'), '{}')
        process.env.EDITOR = `${process.execPath} -e "require('fs').appendFileSync(process.argv[1], ' edited')"`
        expect(await node.invoke('config/edit', { options: { 'repo-dir': dir } })).to.deep.equal([])
        expect(await fs.readFile(path.join(dir, 'config'), 'utf8')).to.equal('{} edited')
        process.env.EDITOR = 'false'
        await expect(node.invoke('config/edit', { options: { 'repo-dir': dir } })).to.be.rejectedWith('exit status 1')
      } finally {
        await fs.rm(dir, { recursive: true, force: true })
      }
    })
  })
})

describe('config schema (Kubo config struct)', () => {
  it('re-encodes the default config unchanged, in struct order', () => {
    const cfg = defaultConfig({ PeerID: 'id', PrivKey: 'key' })
    expect(JSON.stringify(normalizeConfig(cfg))).to.equal(JSON.stringify(cfg))
  })

  it('checks keys like config.CheckKey', () => {
    expect(() => { checkKey('Gateway.PublicGateways.example.UseSubdomains') }).to.not.throw()
    expect(() => { checkKey('Plugins.Plugins.x.Config.anything.below') }).to.not.throw()
    expect(() => { checkKey('Datastore.Spec.mounts') }).to.not.throw()
    expect(() => { checkKey('Routing.Type.x') }).to.throw('Routing.Type.x not found')
    expect(() => { checkKey('Bootstrap.0') }).to.throw('Bootstrap key is not a map')
  })

  it('init profiles come out in Kubo\'s field order', () => {
    const cfg = defaultConfig({ PeerID: 'id', PrivKey: 'key' })
    applyProfiles(cfg, 'test')
    expect(Object.keys(cfg.Routing as object)).to.deep.equal(['LoopbackAddressesOnLanDHT', 'DelegatedRouters'])
    expect(Object.keys(cfg).slice(0, 3)).to.deep.equal(['Identity', 'Datastore', 'Addresses'])
    expect(() => { applyProfiles(cfg, 'test,nope') }).to.throw('invalid configuration profile: nope')
  })
})

describe('jsondiff format', () => {
  it('matches elgris/jsondiff output', () => {
    const t = formatJsonDiff({ a: 1, b: [1, 2], c: { d: true } }, { a: 2, b: [1], c: { d: true, e: null } })
    expect(t).to.equal(
      '{\n' +
      `${YELLOW}<> "a": 1,\n** "a": 2,${RESET}\n` +
      '"b": {\n    "": 1,\n' + `${RED}    >> "": 2${RESET}\n    },\n` +
      '"c": {\n    "d": true,\n' + `${GREEN}    << "e": null${RESET}\n    }\n` +
      '}')
  })
})
