import { expect } from 'chai'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { removedPlugin } from '../../../plugins/removed/index.js'

const DHT = ['findpeer', 'findprovs', 'get', 'provide', 'put'].map(c => `dht/${c}`)
const OBJECT = ['data', 'get', 'links', 'new', 'put', 'stat', 'patch/append-data', 'patch/set-data'].map(c => `object/${c}`)

describe('removed plugin', () => {
  let node: TestNode
  before(async () => { node = await createTestNode({ plugins: [removedPlugin()] }) })
  after(async () => { await node.stop() })

  for (const path of DHT) {
    it(`${path} fails with Kubo’s message`, async () => {
      const err = await rejection(node.invoke(path))
      expect(err.message).to.equal("removed, use 'ipfs routing' instead")
      expect(err.name).to.equal('RemovedCommandError')
      expect(node.registry.status(path.split('/'))).to.equal('removed')
    })
  }

  for (const path of OBJECT) {
    it(`${path} fails with Kubo’s message`, async () => {
      const err = await rejection(node.invoke(path))
      expect(err.message).to.equal("removed, use 'ipfs dag' or 'ipfs files' instead")
      expect(node.registry.status(path.split('/'))).to.equal('removed')
    })
  }

  it('removed commands still answer over HTTP (routed, then fail) and take no arguments or options', () => {
    for (const path of [...DHT, ...OBJECT]) {
      const segments = path.split('/')
      expect(node.registry.resolveHttp(segments)?.node.path).to.deep.equal(segments)
      const cmd = node.registry.node(segments)?.command
      expect(cmd?.args ?? []).to.deep.equal([])
      expect(Object.keys(cmd?.options ?? {})).to.deep.equal([])
    }
  })

  it('dht, object and object/patch are deprecated groups; object/patch carries allow-big-block', () => {
    expect(node.registry.status(['dht'])).to.equal('deprecated')
    expect(node.registry.status(['object'])).to.equal('deprecated')
    expect(node.registry.status(['object', 'patch'])).to.equal('deprecated')
    expect(node.registry.node(['dht'])?.command).to.equal(undefined)
    const patch = node.registry.tree().Subcommands.find(c => c.Name === 'object')?.Subcommands.find(c => c.Name === 'patch')
    expect(patch?.Options).to.deep.equal([{ Names: ['allow-big-block'] }])
    expect(node.registry.prepare(['object', 'patch', 'set-data'], {}).values['allow-big-block']).to.equal(false)
  })

  it('leaves the working deprecated commands to their own plugin', () => {
    expect(node.registry.node(['dht', 'query'])).to.equal(undefined)
    expect(node.registry.node(['object', 'diff'])).to.equal(undefined)
    expect(node.registry.node(['object', 'patch', 'add-link'])).to.equal(undefined)
    expect(node.registry.node(['object', 'patch', 'rm-link'])).to.equal(undefined)
  })

  it('the registry validates clean', () => {
    expect(node.registry.validate()).to.deep.equal([])
  })
})
