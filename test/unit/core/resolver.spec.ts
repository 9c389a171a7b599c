import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { createResolver, goPathClean, parsePath, type Resolver } from '../../../core/resolver/index.js'
import { importBytes, importEntries, putBlock } from '../plugins/unixfs-helper.js'

use(chaiAsPromised)

const REFS_ROOT = 'QmU6xujRsYzcrkocuR3fhfnkZBB8eyUFFq4WKRGw2aS15h'
/** t0095's tree: A/{1.txt, B/{1.txt, D/2.txt}, C/B/{1.txt, D/2.txt}, D/2.txt} */
const REFS_TREE = [
  ['A/1.txt', '1\n'], ['A/B/1.txt', '1\n'], ['A/B/D/2.txt', '2\n'],
  ['A/C/B/1.txt', '1\n'], ['A/C/B/D/2.txt', '2\n'], ['A/D/2.txt', '2\n']
].map(([path, content]) => ({ path, content }))

const FOO = 'QmYNmQKp6SuaVrpgWRsPTgCQCnpxUYGq76YEKBXuj2N4H6'
const BAR = 'QmTz3oc4gdpRMKP2sdGUPZTAGRngqjsi99BPoztyP53JMM'
const BAZ = 'QmWLdkp93sNxGRjnFHPaYg8tCQ35NBY3XPn6KiETd3Z4WR'
/** behaviour.md §7: the t0053 dag-cbor object */
const CBOR_ROOT = 'bafyreiblwimnjbqcdoeafiobk6q27jcw64ew7n2fmmhdpldd63edmjecde'

describe('core/resolver', () => {
  describe('parsePath (boxo path + Kubo PathOrCidPath)', () => {
    it('accepts content paths, bare CIDs with sub-paths and IPFS URIs', () => {
      expect(parsePath(`/ipfs/${FOO}/a/b`)).to.include({ namespace: 'ipfs', root: FOO, text: `/ipfs/${FOO}/a/b` })
      expect(parsePath(`/ipfs/${FOO}/a/b`).segments).to.deep.equal(['a', 'b'])
      expect(parsePath(`${FOO}/a//b/`)).to.include({ text: `/ipfs/${FOO}/a/b/` })
      expect(parsePath(`${FOO}/a//b/`).segments).to.deep.equal(['a', 'b'])
      expect(parsePath(`ipfs://${FOO}/x`).text).to.equal(`/ipfs/${FOO}/x`)
      expect(parsePath(`IPLD:${CBOR_ROOT}`).namespace).to.equal('ipld')
      expect(parsePath('/ipns/example.com/x')).to.include({ namespace: 'ipns', root: 'example.com' })
      expect(parsePath(FOO).cid?.toString()).to.equal(FOO)
    })

    it('fails with boxo ErrInvalidPath texts', () => {
      expect(() => parsePath('somethingNotMultihash')).to.throw('invalid path "somethingNotMultihash": path does not have enough components')
      expect(() => parsePath('../..')).to.throw('invalid path "../..": path does not have enough components')
      expect(() => parsePath('/ipfs/')).to.throw('invalid path "/ipfs/": path does not have enough components')
      expect(() => parsePath('/ipfs/foo')).to.throw('invalid path "/ipfs/foo": invalid cid: encoding/hex: invalid byte: U+006F \'o\'')
      expect(() => parsePath('/foo/bar')).to.throw('invalid path "/foo/bar": unknown namespace: "foo"')
    })

    it('cleans like Go path.Clean', () => {
      expect(goPathClean('a/b/../c/./d/')).to.equal('a/c/d')
      expect(goPathClean('/../a//b')).to.equal('/a/b')
      expect(goPathClean('../../x')).to.equal('../../x')
      expect(goPathClean('')).to.equal('.')
      expect(goPathClean('a/..')).to.equal('.')
    })
  })

  describe('resolve', () => {
    let node: TestNode
    let resolver: Resolver
    before(async () => {
      node = await createTestNode({ plugins: [] })
      resolver = node.container.cradle.resolver
      const added = await importEntries(node.container.cradle.blockstore, REFS_TREE)
      expect(added.get('A')).to.equal(REFS_ROOT)
      for (const text of ['foo\n', 'bar\n', 'baz\n']) await importBytes(node.container.cradle.blockstore, text)
    })
    after(async () => { await node.stop() })

    it('is registered in the container', () => {
      expect(resolver.resolve).to.be.a('function')
    })

    it('walks UnixFS directories', async () => {
      const r = await resolver.resolve(`/ipfs/${REFS_ROOT}/C/B/D/2.txt`)
      expect(r.cid.toString()).to.equal('QmSFxnK675wQ9Kc1uqWKyJUaNxvSc2BP5DbXCD3x93oq61')
      expect(r.remainder).to.deep.equal([])
      expect((await resolver.resolve(`${REFS_ROOT}/B`)).cid.toString()).to.equal('QmNkQvpiyAEtbeLviC7kqfifYoK1GXPcsSxTpP1yS3ykLa')
    })

    it('does not fetch the block of a bare CID (ResolveToLastNode)', async () => {
      const missing = 'QmYmW4HiZhotsoSqnv2o1oSssvkRM8b9RweBoH7ao5nki2'
      expect((await resolver.resolve(missing)).cid.toString()).to.equal(missing)
      await expect(resolver.resolveNode(missing)).to.be.rejectedWith(`block was not found locally (offline): ipld: could not find ${missing}`)
      await expect(resolver.resolve(`${missing}/x`)).to.be.rejectedWith(`block was not found locally (offline): ipld: could not find ${missing}`)
    })

    it('reports a missing name with the block it was looked up in', async () => {
      await expect(resolver.resolve(`/ipfs/${REFS_ROOT}/nope`)).to.be.rejectedWith(`no link named "nope" under ${REFS_ROOT}`)
      await expect(resolver.resolve(`/ipfs/${REFS_ROOT}/B/nope/x`)).to.be.rejectedWith('no link named "nope" under QmNkQvpiyAEtbeLviC7kqfifYoK1GXPcsSxTpP1yS3ykLa')
      // a file has no links (interface-ipfs-core cat: "should error on unknown path")
      await expect(resolver.resolve(`${FOO}/does-not-exist`)).to.be.rejectedWith(`no link named "does-not-exist" under ${FOO}`)
    })

    it('accepts a CID of the same multihash in another version', async () => {
      const v1 = CID.parse(REFS_ROOT).toV1().toString()
      expect((await resolver.resolve(`/ipfs/${v1}/D`)).cid.toString()).to.equal('QmSanP5DpxpqfDdS4yekHY1MqrVge47gtxQcp2e2yZ4UwS')
    })

    it('fails /ipns names while no name system is plugged in', async () => {
      await expect(resolver.resolve('/ipns/example.com')).to.be.rejectedWith('could not resolve name')
    })

    it('follows dag-cbor paths, into UnixFS and inside values (t0053 object)', async () => {
      const bs = node.container.cradle.blockstore
      const obj = {
        hello: 'world',
        cats: [CID.parse(FOO), { water: CID.parse(BAR) }],
        magic: CID.parse(BAZ),
        sub: { dict: 'ionary', beep: [0, 'bop'] }
      }
      const cid = await putBlock(bs, 'dag-cbor', obj)
      expect(cid.toString()).to.equal(CBOR_ROOT)
      expect((await resolver.resolve(`/ipfs/${CBOR_ROOT}/cats/0`)).cid.toString()).to.equal(FOO)
      expect((await resolver.resolve(`/ipfs/${CBOR_ROOT}/cats/1/water`)).cid.toString()).to.equal(BAR)
      const inside = await resolver.resolve(`${CBOR_ROOT}/sub/beep/1`)
      expect(inside.cid.toString()).to.equal(CBOR_ROOT)
      expect(inside.remainder).to.deep.equal(['sub', 'beep', '1'])
      await expect(resolver.resolve(`${CBOR_ROOT}/sub/nope`)).to.be.rejectedWith('key not found: "nope"')
      await expect(resolver.resolve(`${CBOR_ROOT}/nope/x`)).to.be.rejectedWith(`no link named "nope" under ${CBOR_ROOT}`)
      await expect(resolver.resolve(`${CBOR_ROOT}/cats/5`)).to.be.rejectedWith('key not found: "5"')
      await expect(resolver.resolve(`${CBOR_ROOT}/cats/x`)).to.be.rejectedWith('invalid segment for lookup on a list: "x": strconv.ParseInt: parsing "x": invalid syntax')
      await expect(resolver.resolve(`${CBOR_ROOT}/hello/x`)).to.be.rejectedWith('func called on wrong kind: "LookupBySegment" called on a string node (kind: string), but only makes sense on map or list')
    })

    it('keeps the remainder inside the last block crossed (behaviour.md §7 nested objects)', async () => {
      const bs = node.container.cradle.blockstore
      const nested = await putBlock(bs, 'dag-cbor', { data: 123 })
      expect(nested.toString()).to.equal('bafyreifwqmfi3n2yiifk5dzft3pr364om75tmlyh6cqsqp7f7f5q3zpey4')
      const outer = await putBlock(bs, 'dag-cbor', { obj: nested })
      expect(outer.toString()).to.equal('bafyreiemnev652yh4frouyhczbttipm2vbfnxr7juwwhwy5xcj5pidikb4')
      const r = await resolver.resolve(`${outer}/obj/data`)
      expect(r.cid.toString()).to.equal(nested.toString())
      expect(r.remainder).to.deep.equal(['data'])
    })

    it('wraps a missing intermediate block as the IPLD traversal does', async () => {
      const bs = node.container.cradle.blockstore
      const missing = CID.parse('QmYmW4HiZhotsoSqnv2o1oSssvkRM8b9RweBoH7ao5nki2')
      const holder = await putBlock(bs, 'dag-cbor', { a: missing })
      await expect(resolver.resolve(`${holder}/a/b`)).to.be.rejectedWith(
        `error traversing node at "a": could not load link "${missing}": block was not found locally (offline): ipld: could not find ${missing}`)
    })

    it('sees dag-pb as UnixFS on /ipfs and as the data model on /ipld', async () => {
      const bs = node.container.cradle.blockstore
      // a dag-pb node without UnixFS data: looked up by link name on /ipfs
      const pb = await putBlock(bs, 'dag-pb', { Data: Uint8Array.of(0, 1, 2, 3, 4), Links: [{ Name: 'foo', Hash: CID.parse(FOO), Tsize: 12 }] })
      expect((await resolver.resolve(`/ipfs/${pb}/foo`)).cid.toString()).to.equal(FOO)
      expect((await resolver.resolve(`/ipld/${pb}/Links/0/Hash`)).cid.toString()).to.equal(FOO)
      const data = await resolver.resolve(`/ipld/${pb}/Data`)
      expect(data.cid.toString()).to.equal(pb.toString())
      expect(data.remainder).to.deep.equal(['Data'])
      await expect(resolver.resolve(`/ipld/${pb}/foo`)).to.be.rejectedWith(`no link named "foo" under ${pb}`)
    })

    it('looks names up in HAMT shards (t0260 vectors)', async function () {
      this.timeout(60000)
      const files = []
      for (let i = 1; i <= 2000; i++) files.push({ path: `testdata/file${i}`, content: `${i}\n` })
      const added = await importEntries(node.container.cradle.blockstore, files, { shardSplitThresholdBytes: 1 })
      const sharded = 'QmSCJD1KYLhVVHqBK3YyXuoEqHt7vggyJhzoFYbT8v1XYL'
      expect(added.get('testdata')).to.equal(sharded)
      expect((await resolver.resolve(`/ipfs/${sharded}/file100`)).cid.toString()).to.equal('QmZ3RfWk1u5LEGYLHA633B5TNJy3Du27K6Fny9wcxpowGS')
      await expect(resolver.resolve(`/ipfs/${sharded}/file2001`)).to.be.rejectedWith(`no link named "file2001" under ${sharded}`)
    })

    it('serves identity CIDs without the store', async () => {
      const standalone = createResolver({ blockstore: { get: () => { throw new Error('no store') } } })
      const id = CID.parse('bafkqac3imvwgy3zao5xxe3de') // "hello world" inlined
      expect(new TextDecoder().decode(await standalone.getBlock(id))).to.equal('hello world')
    })
  })
})
