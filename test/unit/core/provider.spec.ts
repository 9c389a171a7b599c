// The provide system (core/provider): what each Provide.Strategy announces, the queue, clear, the
// reprovide cycle and the sweep stats, over a real in-memory node (blocks, pins, MFS) with a routing
// that records what it was asked to provide (the network side is tested in test/unit/plugins/networking.spec.ts).
import { expect } from 'chai'
import type { CID } from 'multiformats/cid'
import type { Libp2p } from '@libp2p/interface'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { blockPlugin } from '../../../plugins/block/index.js'
import { pinPlugin } from '../../../plugins/pin/index.js'
import { filesPlugin } from '../../../plugins/files/index.js'
import { createProvider, parseProvideStrategy, shouldProvide, STRATEGY_ALL, STRATEGY_MFS, STRATEGY_PINNED, STRATEGY_ROOTS, PROVIDE_QUIET_MS, type Provider } from '../../../core/provider/index.js'
import { queryEvent, QueryEventType, type Routing } from '../../../core/routing/index.js'
import type { NodeBlockstore } from '../../../core/blockstore/index.js'

/** 40 bytes whose 16-byte chunks all differ (3 leaves + a root with size-16) */
const unique = (tag: string): string => (tag + Array.from({ length: 40 }, (_, i) => String.fromCharCode(65 + i)).join('')).slice(0, 40)

const sleep = async (ms: number): Promise<void> => { await new Promise(resolve => setTimeout(resolve, ms)) }

/** routing that records provides; `connected` says whether the fake host has peers */
function recorder (): { routing: Routing, provided: string[], libp2p: Libp2p, setConnected: (v: boolean) => void } {
  const provided: string[] = []
  let connected = true
  const listeners = new Set<() => void>()
  const routing = {
    dhts: () => [],
    async * provide (cid: CID, options: { onRecord?: () => void } = {}) {
      provided.push(cid.toString())
      options.onRecord?.()
      yield queryEvent(QueryEventType.SendingQuery, { ID: 'peer' })
    }
  } as unknown as Routing
  const libp2p = {
    getConnections: () => connected ? [{}] : [],
    getPeers: () => connected ? [{}] : [],
    addEventListener: (_: string, fn: () => void) => { listeners.add(fn) },
    removeEventListener: (_: string, fn: () => void) => { listeners.delete(fn) }
  } as unknown as Libp2p
  return { routing, provided, libp2p, setConnected: (v) => { connected = v; if (v) for (const fn of listeners) fn() } }
}

async function setup (strategy: string | undefined, extra: Record<string, unknown> = {}, lastTransfer?: () => number): Promise<{ node: TestNode, provider: Provider, provided: string[], setConnected: (v: boolean) => void }> {
  const node = await createTestNode({ plugins: [addPlugin(), blockPlugin(), pinPlugin(), filesPlugin()] })
  const { config, blockstore, pins } = node.container.cradle
  if (strategy != null) await config.setKey('Provide.Strategy', strategy)
  for (const [k, v] of Object.entries(extra)) await config.setKey(k, v as never)
  const r = recorder()
  const mfs = (node.container.cradle as unknown as { mfs: { roots: () => Promise<CID[]> } }).mfs
  const provider = createProvider({ libp2p: r.libp2p, routing: r.routing, blockstore: blockstore as NodeBlockstore, pins, config, mfsRoot: async () => (await mfs.roots())[0], lastTransfer })
  provider.start()
  return { node, provider, provided: r.provided, setConnected: r.setConnected }
}

const add = async (node: TestNode, content: string, options: Record<string, unknown> = {}): Promise<string[]> => {
  const rows = await node.invoke('add', { files: filesOf({ path: 'f', content }), options: { 'cid-version': 1, chunker: 'size-16', 'raw-leaves': true, ...options } })
  return rows.map((r: { Hash: string }) => r.Hash)
}

describe('core/provider', function () {
  this.timeout(20_000)

  it('parses Provide.Strategy as Kubo does', () => {
    expect(parseProvideStrategy('')).to.equal(STRATEGY_ALL)
    expect(parseProvideStrategy('flat')).to.equal(STRATEGY_ALL)
    expect(parseProvideStrategy('pinned+mfs')).to.equal(STRATEGY_PINNED | STRATEGY_MFS)
    expect(() => parseProvideStrategy('all+pinned')).to.throw('"all" strategy cannot be combined with other strategies in "all+pinned"')
    expect(() => parseProvideStrategy('bogus')).to.throw('unknown provide strategy token: "bogus" in "bogus"')
    expect(() => parseProvideStrategy('pinned+')).to.throw('invalid provide strategy: empty token in "pinned+"')
    expect(shouldProvide(STRATEGY_ROOTS, { pinned: true, pinnedRoot: false })).to.equal(false)
    expect(shouldProvide(STRATEGY_ROOTS | STRATEGY_MFS, { mfs: true })).to.equal(true)
  })

  it('"all" announces every block put, including unpinned ones', async () => {
    const { node, provider, provided } = await setup('all')
    try {
      const [root] = await add(node, unique('x'), { pin: false })
      await sleep(50)
      // 3 raw leaves of 16/16/8 bytes and the root
      expect(provided).to.include(root)
      expect(provided.length).to.be.at.least(4)
      expect(provider.stat().operations.past.keys_provided).to.equal(provided.length)
      expect(provider.stat().operations.past.records_provided).to.equal(provided.length)
    } finally { provider.stop(); await node.stop() }
  })

  it('"roots" announces only pinned roots', async () => {
    const { node, provider, provided } = await setup('roots')
    try {
      await add(node, 'unpinned content here!', { pin: false })
      await sleep(50)
      expect(provided).to.deep.equal([])
      const [root] = await add(node, unique('y'))
      await sleep(50)
      expect(provided).to.deep.equal([root])
    } finally { provider.stop(); await node.stop() }
  })

  it('"pinned" announces every block of a pinned DAG once pinned', async () => {
    const { node, provider, provided } = await setup('pinned')
    try {
      const [root] = await add(node, unique('z'), { pin: false })
      await sleep(50)
      expect(provided).to.deep.equal([])
      await node.invoke('pin/add', { args: [root] })
      await sleep(100)
      expect(provided).to.include(root)
      expect(provided.length).to.equal(4)
    } finally { provider.stop(); await node.stop() }
  })

  it('"mfs" announces what is written into MFS, not other adds', async () => {
    const { node, provider, provided } = await setup('mfs')
    try {
      const [other] = await add(node, 'not in mfs at all', { pin: false })
      await node.invoke('files/write', { args: ['/note'], options: { create: true }, files: filesOf({ content: 'in mfs' }) })
      const stat = await node.invoke('files/stat', { args: ['/'] })
      await sleep(1300) // the MFS check is debounced by a second
      expect(provided).to.include(stat.Hash)
      const file = await node.invoke('files/stat', { args: ['/note'] })
      expect(provided).to.include(file.Hash)
      expect(provided).to.not.include(other)
    } finally { provider.stop(); await node.stop() }
  })

  it('waits in the queue while offline; clear empties it', async () => {
    const { node, provider, provided, setConnected } = await setup('all')
    try {
      setConnected(false)
      await add(node, unique('q'), { pin: false })
      await sleep(20)
      expect(provided).to.deep.equal([])
      // 3 raw leaves, the root and the adder's MFS root {<root>: root} (stored and, with "all", provided as Kubo)
      const queued = provider.stat().queues.pending_key_provides
      expect(queued).to.equal(5)
      expect(provider.stat().connectivity.status).to.equal('offline')
      expect(provider.clear()).to.equal(5)
      expect(provider.stat().queues.pending_key_provides).to.equal(0)
      await add(node, unique('r'), { pin: false })
      setConnected(true)
      await sleep(50)
      expect(provided).to.have.length(5)
      expect(provider.stat().connectivity.status).to.equal('online')
    } finally { provider.stop(); await node.stop() }
  })

  it('new announcements wait while bitswap moves blocks and go once it is quiet', async () => {
    let last = Date.now() + 3_600_000 // a transfer under way
    const { node, provider, provided } = await setup('all', {}, () => last)
    try {
      const [root] = await add(node, unique('q'), { pin: false })
      await sleep(50)
      expect(provided).to.deep.equal([])
      // 3 raw leaves, the root and the adder's MFS root wait
      expect(provider.stat().queues.pending_key_provides).to.equal(5)
      last = Date.now() - 2 * PROVIDE_QUIET_MS // the transfer ended
      for (let i = 0; i < 200 && provided.length < 5; i++) await sleep(25)
      expect(provided).to.have.length(5)
      expect(provided).to.include(root)
      expect(provider.stat().queues.pending_key_provides).to.equal(0)
    } finally {
      provider.stop()
      await node.stop()
    }
  })

  it('a reprovide cycle announces the strategy set again; Provide.Enabled=false announces nothing', async () => {
    const { node, provider, provided } = await setup('roots')
    try {
      const [root] = await add(node, unique('w'))
      await sleep(50)
      await provider.reprovide()
      // the pinned root, and the empty directory an in-memory repo pins at init
      expect(provided.filter(c => c === root)).to.have.length(2)
      const s = provider.stat()
      expect(s.schedule.keys).to.equal(2)
      expect(s.operations.past.avg_keys_per_reprovide).to.equal(2)
      expect(s.timing.reprovides_interval).to.equal(22 * 3600e9)
    } finally { provider.stop(); await node.stop() }
    const off = await setup('all', { 'Provide.Enabled': false })
    try {
      await add(off.node, unique('v'), { pin: false })
      await off.provider.reprovide()
      expect(off.provided).to.deep.equal([])
    } finally { off.provider.stop(); await off.node.stop() }
  })
})
