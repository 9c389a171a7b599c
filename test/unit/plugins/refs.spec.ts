import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { textCall } from '../../../registry/execute.js'
import type { InvokeInput } from '../../../registry/registry.js'
import { refsPlugin } from '../../../plugins/refs/index.js'
import type { RefWrapper } from '../../../plugins/refs/output.js'
import { importEntries, putBlock } from './unixfs-helper.js'

use(chaiAsPromised)

// t0095-refs.sh
const ROOT = 'QmU6xujRsYzcrkocuR3fhfnkZBB8eyUFFq4WKRGw2aS15h'
const ONE = 'QmdytmR4wULMd3SLo6ePF4s3WcRHWcpnJZ7bHhoj3QB13v'
const TWO = 'QmSFxnK675wQ9Kc1uqWKyJUaNxvSc2BP5DbXCD3x93oq61'
const D = 'QmSanP5DpxpqfDdS4yekHY1MqrVge47gtxQcp2e2yZ4UwS'
const B = 'QmNkQvpiyAEtbeLviC7kqfifYoK1GXPcsSxTpP1yS3ykLa'
const C = 'QmXXazTjeNCKFnpW1D65vTKsTs8fbgkCWTv8Em4pdK2coH'
const TREE = [
  ['A/1.txt', '1\n'], ['A/B/1.txt', '1\n'], ['A/B/D/2.txt', '2\n'],
  ['A/C/B/1.txt', '1\n'], ['A/C/B/D/2.txt', '2\n'], ['A/D/2.txt', '2\n']
].map(([path, content]) => ({ path, content }))

const RECURSIVE = [ONE, B, ONE, D, TWO, C, B, ONE, D, TWO, D, TWO]

async function refs (node: TestNode, args: string[], options: InvokeInput['options'] = {}): Promise<string[]> {
  const out: RefWrapper[] = await node.invoke('refs', { args, options })
  return out.map(r => r.Err !== '' ? `Err: ${r.Err}` : r.Ref)
}

describe('refs plugin', () => {
  let node: TestNode
  before(async () => {
    node = await createTestNode({ plugins: [refsPlugin()] })
    const added = await importEntries(node.container.cradle.blockstore, TREE)
    expect(added.get('A')).to.equal(ROOT)
  })
  after(async () => { await node.stop() })

  it('lists direct links, then recursively in DFS pre-order with duplicates (t0095)', async () => {
    expect(await refs(node, [ROOT])).to.deep.equal([ONE, B, C, D])
    expect(await refs(node, [ROOT], { recursive: true })).to.deep.equal(RECURSIVE)
  })

  it('omits duplicates with --unique (t0095)', async () => {
    expect(await refs(node, [ROOT], { recursive: true, unique: true })).to.deep.equal([ONE, B, D, TWO, C])
  })

  it('limits the depth, re-exploring branches seen deeper (t0095)', async () => {
    expect(await refs(node, [ROOT], { recursive: true, 'max-depth': 0 })).to.deep.equal([])
    expect(await refs(node, [ROOT], { recursive: true, 'max-depth': 1 })).to.deep.equal(await refs(node, [ROOT]))
    expect(await refs(node, [ROOT], { recursive: true, 'max-depth': 2 })).to.deep.equal([ONE, B, ONE, D, C, B, D, TWO])
    expect(await refs(node, [ROOT], { recursive: true, unique: true, 'max-depth': 2 })).to.deep.equal([ONE, B, D, C, TWO])
  })

  it('writes CIDs in --cid-base (t0095 base32 run)', async () => {
    const out = await refs(node, [ROOT], { 'cid-base': 'base32' })
    expect(out).to.deep.equal([ONE, B, C, D].map(c => CID.parse(c).toV1().toString()))
  })

  it('formats edges and custom formats', async () => {
    expect(await refs(node, [ROOT], { edges: true })).to.deep.equal([ONE, B, C, D].map(c => `${ROOT} -> ${c}`))
    expect(await refs(node, [`${ROOT}/B`], { format: '<linkname>: <src> => <dst>' })).to.deep.equal([`1.txt: ${B} => ${ONE}`, `D: ${B} => ${D}`])
    await expect(refs(node, [ROOT], { edges: true, format: '<linkname>' })).to.be.rejectedWith('using format argument with edges is not allowed')
  })

  it('follows paths and takes several roots', async () => {
    expect(await refs(node, [`/ipfs/${ROOT}/C`, `${ROOT}/D`], { recursive: true, format: '<linkname>' })).to.deep.equal(['B', '1.txt', 'D', '2.txt', '2.txt'])
  })

  it('resolves every path before the first ref', async () => {
    await expect(refs(node, [ROOT, `${ROOT}/nope`])).to.be.rejectedWith(`no link named "nope" under ${ROOT}`)
    await expect(refs(node, ['notacid'])).to.be.rejectedWith('invalid path "notacid": path does not have enough components')
  })

  it('reports a missing block as an Err row and goes on with the next root', async () => {
    const missing = CID.parse('QmYmW4HiZhotsoSqnv2o1oSssvkRM8b9RweBoH7ao5nki2')
    const holder = await putBlock(node.container.cradle.blockstore, 'dag-pb', { Links: [{ Name: 'a', Hash: CID.parse(ONE), Tsize: 10 }, { Name: 'gone', Hash: missing, Tsize: 10 }] }, true)
    const out: RefWrapper[] = await node.invoke('refs', { args: [holder.toString(), missing.toString(), `${ROOT}/D`] })
    expect(out).to.deep.equal([
      { Ref: ONE, Err: '' },
      { Ref: '', Err: `block was not found locally (offline): ipld: could not find ${missing}` },
      { Ref: '', Err: `block was not found locally (offline): ipld: could not find ${missing}` },
      { Ref: TWO, Err: '' }
    ])
    const prepared = node.registry.prepare(['refs'], { args: [ROOT] })
    expect(prepared.command.text?.(out[0], textCall(prepared) as never)).to.equal(`${ONE}\n`)
    expect(() => prepared.command.text?.(out[1], textCall(prepared) as never)).to.throw(`ipld: could not find ${missing}`)
  })

  it('walks dag-cbor links and non-UnixFS dag-pb nodes (interface-ipfs-core refs)', async () => {
    const bs = node.container.cradle.blockstore
    const leaf = await putBlock(bs, 'dag-pb', { Data: Uint8Array.of(1, 2, 3), Links: [] }, true)
    const inner = await putBlock(bs, 'dag-cbor', { 'tropical.txt': leaf })
    const root = await putBlock(bs, 'dag-cbor', { fruits: inner, 'mushroom.txt': leaf })
    expect(await refs(node, [`/ipfs/${root}`], { recursive: true })).to.deep.equal([inner.toString(), leaf.toString(), leaf.toString()])
    // a links-only dag-pb node is walked by link name on /ipfs paths
    const pbDir = await putBlock(bs, 'dag-pb', { Links: [{ Name: 'fruits', Hash: leaf, Tsize: 8 }] }, true)
    const pbRoot = await putBlock(bs, 'dag-pb', { Links: [{ Name: 'animals', Hash: pbDir, Tsize: 8 }] }, true)
    expect(await refs(node, [`/ipfs/${pbRoot}/animals`], { format: '<linkname>' })).to.deep.equal(['fruits'])
  })

  it('lists every local block as CIDv1 raw (refs local)', async () => {
    const out: RefWrapper[] = await node.invoke('refs/local')
    const refsSet = new Set(out.map(r => r.Ref))
    for (const c of [ROOT, ONE, TWO, B, C, D]) expect(refsSet.has(CID.createV1(0x55, CID.parse(c).multihash).toString())).to.equal(true)
    expect(out.every(r => r.Err === '' && r.Ref.startsWith('bafkrei'))).to.equal(true)
    const base58: RefWrapper[] = await node.invoke('refs/local', { options: { 'cid-base': 'base58btc' } })
    expect(base58.every(r => r.Ref.startsWith('z'))).to.equal(true)
  })
})
