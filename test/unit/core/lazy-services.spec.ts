import { expect } from 'chai'
import { createCoreContainer } from '../../../core/container.js'
import { createNameSystem, NameSystem } from '../../../core/namesys/index.js'
import { dnsResolverFor } from '../../../core/lazy-services.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'
import { EMPTY_DIR_CID } from '../../../core/mfs/index.js'
import { Registry } from '../../../registry/registry.js'

describe('core/lazy-services', () => {
  it('an offline node publishes and resolves through the name system it loads on first use', async () => {
    const config = defaultConfig(identityOf(await generateIdentity()))
    config.Ipns = { DelegatedPublishers: ['https://a.example/', 'not a url', 'http://b.example'] }
    const core = await createCoreContainer({ config, registry: new Registry() })
    try {
      const { nameSystem, keystore, datastore, config: store, logging } = core.container.cradle
      expect(nameSystem).to.not.be.instanceOf(NameSystem)
      expect(nameSystem.online).to.equal(false)
      expect(nameSystem.pubsub).to.equal(null)
      const real = createNameSystem({ datastore, keystore, config: store, libp2p: null, routing: null, dns: core.container.cradle.dns, logger: logging.forComponent('namesys') })
      expect(nameSystem.delegatedPublishers()).to.deep.equal(real.delegatedPublishers())
      const value = `/ipfs/${EMPTY_DIR_CID.toString()}`
      const { name } = await nameSystem.publish(keystore.self(), value, { network: false })
      expect((await nameSystem.resolve(`/ipns/${name}`, { offline: true })).path).to.equal(value)
      // the real one reads the same record
      expect((await real.resolve(`/ipns/${name}`, { offline: true })).path).to.equal(value)
    } finally {
      await core.close()
    }
  })

  it('a DNS resolver named in DNS.Resolvers is built at start: a bad URL fails it', async () => {
    const config = defaultConfig(identityOf(await generateIdentity()))
    config.DNS = { Resolvers: { 'eth.': 'ftp://bad.example' } }
    let error: Error | undefined
    try { await dnsResolverFor(config) } catch (err) { error = err as Error }
    expect(error?.message).to.equal('invalid DNS resolver URL for eth.: ftp://bad.example')
    config.DNS = { Resolvers: {} }
    const lazy = await dnsResolverFor(config)
    expect(lazy.txt).to.be.a('function')
    expect(lazy.dnslink).to.be.a('function')
  })
})
