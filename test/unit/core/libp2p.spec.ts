// The libp2p host runs only the services its config asks for (an unused one costs memory).
import { expect } from 'chai'
import { createNode } from '../../../server/node.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import type { KuboConfig } from '../../../core/config/index.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'
import { dhtMode, pubsubEnabled } from '../../../core/libp2p/index.js'

async function config (edit: (c: Record<string, any>) => void = () => {}): Promise<KuboConfig> {
  const c = defaultConfig(identityOf(await generateIdentity())) as Record<string, any>
  c.Addresses.Swarm = ['/ip4/127.0.0.1/tcp/0']
  c.Bootstrap = []
  edit(c)
  return c as KuboConfig
}

/** The names of the services of an online node built (not started) with this config. */
async function services (cfg: KuboConfig, init: { pubsub?: boolean, ipnsPubsub?: boolean, routingType?: string } = {}): Promise<string[]> {
  const node = await createNode({ online: true, plugins: [], noExternalPlugins: true, config: cfg, ...init })
  try {
    return Object.keys((node.container.cradle.libp2p as unknown as { services: Record<string, unknown> }).services).sort()
  } finally {
    await node.stop()
  }
}

describe('core/libp2p: configured services', function () {
  this.timeout(30_000)

  it('default config: Amino and LAN DHTs, delegated routing, AutoNAT, hole punching; no pubsub', async () => {
    expect(await services(await config())).to.deep.equal(['autoNAT', 'dcutr', 'delegatedRouting0', 'dht', 'identify', 'identifyPush', 'lanDHT', 'ping'])
  })

  it('Swarm.RelayService, AutoNAT.ServiceMode, EnableHolePunching, Routing.DelegatedRouters switch their services', async () => {
    const s = await services(await config(c => {
      c.Swarm.RelayService = { Enabled: true }
      c.AutoNAT = { ServiceMode: 'disabled' }
      c.Swarm.EnableHolePunching = false
      c.Routing.DelegatedRouters = []
    }))
    expect(s).to.include('relay')
    expect(s).to.not.include.members(['autoNAT'])
    expect(s).to.not.include('dcutr')
    expect(s).to.not.include('delegatedRouting0')
  })

  it('Routing.Type none or delegated: no DHT; --routing overrides the config', async () => {
    expect(await services(await config(c => { c.Routing.Type = 'none' }))).to.deep.equal(['autoNAT', 'dcutr', 'identify', 'identifyPush', 'ping'])
    expect(await services(await config(), { routingType: 'none' })).to.deep.equal(['autoNAT', 'dcutr', 'identify', 'identifyPush', 'ping'])
    expect(await services(await config(c => { c.Routing.Type = 'none' }), { routingType: 'dht' })).to.include('dht')
    const cfg = await config()
    expect(dhtMode(cfg)).to.equal('server')
    expect(dhtMode(cfg, 'delegated')).to.equal('none')
    expect(dhtMode(cfg, 'dhtclient')).to.equal('client')
    expect(dhtMode(cfg, 'autoclient')).to.equal('client')
    expect(dhtMode(cfg, 'dhtserver')).to.equal('server')
  })

  it('pubsub: Pubsub.Enabled, Ipns.UsePubsub or the daemon flags (which override the config)', async () => {
    expect(await services(await config(c => { c.Pubsub.Enabled = true }))).to.include('pubsub')
    expect(await services(await config(), { pubsub: true })).to.include('pubsub')
    expect(await services(await config(c => { c.Pubsub.Enabled = true }), { pubsub: false })).to.not.include('pubsub')
    expect(pubsubEnabled(await config(c => { c.Ipns.UsePubsub = true }))).to.equal(true)
    expect(pubsubEnabled(await config(), undefined, true)).to.equal(true)
    expect(pubsubEnabled(await config(c => { c.Ipns.UsePubsub = true }), false, false)).to.equal(false)
    expect(pubsubEnabled(await config())).to.equal(false)
  })
})
