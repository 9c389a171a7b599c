// DAG walks visit each block once: a DAG whose nodes link the same child many times (a few dozen blocks,
// 2^30 paths) must not make any command or response walk every path.
import { expect } from 'chai'
import sinon from 'sinon'
import { CarBlockIterator } from '@ipld/car'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { buildRepeatedDag, buildRepeatedFile, type RepeatedDag } from '../../helpers/repeated-dag.js'
import { dagPlugin } from '../../../plugins/dag/index.js'
import { filesPlugin } from '../../../plugins/files/index.js'
import { pinPlugin } from '../../../plugins/pin/index.js'
import { refsPlugin } from '../../../plugins/refs/index.js'
import { repoPlugin } from '../../../plugins/repo/index.js'
import { startGateway, type TestGateway } from '../gateway/helpers.js'

const DEPTH = 30

async function collect<T> (it: unknown): Promise<T[]> {
  if (Array.isArray(it)) return it as T[]
  if (it == null || typeof (it as AsyncIterable<T>)[Symbol.asyncIterator] !== 'function') return [it as T]
  const out: T[] = []
  for await (const x of it as AsyncIterable<T>) out.push(x)
  return out
}

async function carCids (bytes: Uint8Array): Promise<string[]> {
  const out: string[] = []
  for await (const b of await CarBlockIterator.fromIterable((async function * () { yield bytes })())) out.push(b.cid.toString())
  return out
}

describe('DAG walkers on a DAG with 2^30 paths', function () {
  this.timeout(60_000)
  let node: TestNode
  let dag: RepeatedDag
  let reads: sinon.SinonSpy
  before(async () => {
    node = await createTestNode({ plugins: [dagPlugin(), filesPlugin(), pinPlugin(), refsPlugin(), repoPlugin()] })
    dag = await buildRepeatedDag(node.container.cradle.blockstore, DEPTH, 2)
  })
  after(async () => { await node.stop() })
  beforeEach(() => { reads = sinon.spy(node.container.cradle.blockstore, 'get') })
  afterEach(() => { reads.restore() })
  /** reads of the blockstore: about one per block, never one per path */
  const bounded = (): void => { expect(reads.callCount).to.be.below(dag.blocks.length * 4 + 20) }

  it('files stat --with-local reads each block once and counts every path as Kubo does', async () => {
    const st = await node.invoke('files/stat', { args: [`/ipfs/${dag.root.toString()}`], options: { 'with-local': true } }) as Record<string, unknown>
    expect(st).to.include({ WithLocality: true, Local: true })
    expect(st.SizeLocal).to.equal(st.CumulativeSize)
    bounded()
  })

  it('dag stat', async () => {
    const rows = await collect<Record<string, unknown>>(await node.invoke('dag/stat', { args: [dag.root.toString()], options: { progress: false } }))
    const last = rows[rows.length - 1] as { TotalSize: number, DagStats: Array<{ NumBlocks: number }> }
    expect(last.DagStats[0].NumBlocks).to.equal(dag.blocks.length)
    bounded()
  })

  it('refs -r --unique', async () => {
    const refs = await collect<{ Ref: string }>(await node.invoke('refs', { args: [dag.root.toString()], options: { recursive: true, unique: true } }))
    expect(refs.map(r => r.Ref)).to.have.members(dag.blocks.slice(1).map(c => c.toString()))
    bounded()
  })

  it('dag export', async () => {
    const car = await node.invoke('dag/export', { args: [dag.root.toString()] }) as Uint8Array
    const bytes = car instanceof Uint8Array ? car : Buffer.concat(await collect<Uint8Array>(car))
    expect(await carCids(bytes)).to.deep.equal(dag.blocks.map(c => c.toString()))
    bounded()
  })

  it('pin add, pin verify, repo gc (marking)', async () => {
    await collect(await node.invoke('pin/add', { args: [dag.root.toString()] }))
    const verify = await collect<{ Cid: string, Ok: boolean }>(await node.invoke('pin/verify', { options: { verbose: true } }))
    expect(verify.every(v => v.Ok)).to.equal(true)
    await collect(await node.invoke('repo/gc', {}))
    expect(await node.container.cradle.blockstore.has(dag.file)).to.equal(true)
    bounded()
  })
})

describe('gateway CAR of DAGs with repeated links', function () {
  this.timeout(60_000)
  let gw: TestGateway
  let dir: RepeatedDag
  let file: RepeatedDag & { size: number }
  before(async () => {
    gw = await startGateway()
    dir = await buildRepeatedDag(gw.node.container.cradle.blockstore, DEPTH, 2)
    file = await buildRepeatedFile(gw.node.container.cradle.blockstore, 6, 100)
  })
  after(async () => { await gw.stop() })

  it('dag-scope=all sends each block once (dups=n)', async () => {
    const res = await gw.get(`/ipfs/${dir.root.toString()}?format=car`)
    expect(res.status).to.equal(200)
    expect(await carCids(res.body)).to.deep.equal(dir.blocks.map(c => c.toString()))
  })

  it('dag-scope=entity over a file of 10^12 bytes made of one chunk: each block once', async () => {
    for (const range of ['', '&entity-bytes=0:*', '&entity-bytes=7:-9']) {
      const res = await gw.get(`/ipfs/${file.root.toString()}?format=car&dag-scope=entity${range}`)
      expect(res.status).to.equal(200)
      expect(await carCids(res.body)).to.deep.equal(file.blocks.map(c => c.toString()))
    }
  })
})
