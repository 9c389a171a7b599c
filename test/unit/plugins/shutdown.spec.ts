import { expect } from 'chai'
import { withTestNode } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { shutdownPlugin } from '../../../plugins/shutdown/index.js'

describe('shutdown plugin', () => {
  it('not a daemon: client error "daemon not running"', async () => {
    await withTestNode({ plugins: [shutdownPlugin()] }, async (node) => {
      const err = await rejection(node.invoke('shutdown'))
      expect(err.message).to.equal('daemon not running')
      expect(err.name).to.equal('InvalidArgumentError')
      expect((err as Error & { code: number }).code).to.equal(1)
    })
  })

  it('in a daemon: stops the node and answers an empty stream', async () => {
    let calls = 0
    await withTestNode({ plugins: [shutdownPlugin()], daemon: true, shutdown: () => { calls++ } }, async (node) => {
      expect(node.registry.prepare(['shutdown'], {}).output).to.equal('ndjson')
      expect(await node.invoke('shutdown')).to.deep.equal([])
      expect(calls).to.equal(1)
    })
  })

  it('errors while closing are only logged', async () => {
    await withTestNode({ plugins: [shutdownPlugin()], daemon: true, shutdown: () => { throw new Error('boom') } }, async (node) => {
      expect(await node.invoke('shutdown')).to.deep.equal([])
    })
  })
})
