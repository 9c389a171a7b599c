import { expect } from 'chai'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { shutdownPlugin } from '../../../plugins/shutdown/index.js'

async function rejection (p: Promise<unknown>): Promise<Error> {
  try { await p } catch (err) { return err as Error }
  throw new Error('expected a rejection')
}

describe('shutdown plugin', () => {
  it('not a daemon: client error "daemon not running"', async () => {
    const node = await createTestNode({ plugins: [shutdownPlugin()] })
    try {
      const err = await rejection(node.invoke('shutdown'))
      expect(err.message).to.equal('daemon not running')
      expect(err.name).to.equal('InvalidArgumentError')
      expect((err as Error & { code: number }).code).to.equal(1)
    } finally {
      await node.stop()
    }
  })

  it('in a daemon: stops the node and answers an empty stream', async () => {
    let calls = 0
    const node = await createTestNode({ plugins: [shutdownPlugin()], daemon: true, shutdown: () => { calls++ } })
    try {
      expect(node.registry.prepare(['shutdown'], {}).output).to.equal('ndjson')
      expect(await node.invoke('shutdown')).to.deep.equal([])
      expect(calls).to.equal(1)
    } finally {
      await node.stop()
    }
  })

  it('errors while closing are only logged', async () => {
    const node = await createTestNode({ plugins: [shutdownPlugin()], daemon: true, shutdown: () => { throw new Error('boom') } })
    try {
      expect(await node.invoke('shutdown')).to.deep.equal([])
    } finally {
      await node.stop()
    }
  })
})
