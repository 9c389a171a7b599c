// Long CPU-bound work yields to the event loop and stops when its request is cancelled: a `files write`
// at a huge offset zero-fills millions of leaves, `add` with a 1-byte chunker cuts an input into a
// leaf per byte. While they run, other work (here a probe on the event loop) keeps running; an abort
// ends them without a partial write, and the MFS lock is free afterwards.
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { filesPlugin } from '../../../plugins/files/index.js'
import { Pacer } from '../../../core/util/pace.js'

use(chaiAsPromised)

/** Resolves after `turns` turns of the event loop (setImmediate): never, if the loop is starved. */
async function loopTurns (turns: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise(resolve => setImmediate(resolve))
}

describe('long CPU-bound work yields and honours cancellation', function () {
  this.timeout(120_000)
  let node: TestNode
  beforeEach(async () => { node = await createTestNode({ plugins: [filesPlugin(), addPlugin()] }) })
  afterEach(async () => { await node.stop() })

  const invoke = async (path: string, input: Parameters<TestNode['invoke']>[1], signal: AbortSignal): Promise<unknown> =>
    await node.registry.invoke(path.split('/'), input ?? {}, node.container, signal)

  it('files write at a 1 TiB offset lets the event loop run and stops on abort, writing nothing', async () => {
    const controller = new AbortController()
    const write = invoke('files/write', { args: ['/sparse'], files: filesOf({ content: 'x' }), options: { create: true, offset: 2 ** 40 } }, controller.signal)
    const settled = write.then(() => 'done', (err: Error) => err)
    await loopTurns(20) // other requests get their turn while the zero-fill runs
    controller.abort(new Error('context canceled'))
    const outcome = await settled
    expect(outcome).to.be.instanceOf(Error)
    expect((outcome as Error).message).to.equal('context canceled')
    // nothing half-written, and the MFS is usable at once
    const ls = await node.invoke('files/ls', { args: ['/'] }) as { Entries: Array<{ Name: string, Size: number }> | null }
    for (const e of ls.Entries ?? []) if (e.Name === 'sparse') expect(e.Size).to.equal(0)
    await node.invoke('files/write', { args: ['/other'], files: filesOf({ content: 'ok' }), options: { create: true } })
    expect((await node.invoke('files/read', { args: ['/other'] })).toString()).to.equal('ok')
  })

  it('add with chunker=size-1 over 4 MiB given in one piece yields and stops on abort', async () => {
    const controller = new AbortController()
    const big = new Uint8Array(4 << 20).fill(7)
    const add = invoke('add', { files: filesOf({ content: big }), options: { chunker: 'size-1', quiet: true } }, controller.signal)
    const settled = Promise.resolve(add).then(async (out) => {
      if (out != null && typeof (out as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') for await (const _ of out as AsyncIterable<unknown>) { /* drain */ }
      return 'done'
    }, (err: Error) => err).catch((err: Error) => err)
    await loopTurns(20)
    controller.abort(new Error('context canceled'))
    const outcome = await settled
    expect(outcome).to.be.instanceOf(Error)
  })

  it('Pacer: yields to the event loop within a slice and throws once aborted', async () => {
    const controller = new AbortController()
    const pacer = new Pacer(controller.signal, 0)
    let turned = false
    setImmediate(() => { turned = true })
    await pacer.tick()
    expect(turned).to.equal(true)
    controller.abort(new Error('stop'))
    await expect(pacer.tick()).to.be.rejectedWith('stop')
  })
})
