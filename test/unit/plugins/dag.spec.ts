import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { sha256 } from 'multiformats/hashes/sha2'
import * as dagPb from '@ipld/dag-pb'
import * as dagCbor from '@ipld/dag-cbor'
import { createTestNode, filesOf, type TestNode, withTestNode } from '../../helpers/node.js'
import { dagPlugin } from '../../../plugins/dag/index.js'
import { dagPut } from '../../../plugins/dag/put.js'
import { dagResolve } from '../../../plugins/dag/resolve.js'
import { dagImport } from '../../../plugins/dag/import.js'
import { dagStat, humanizeBytes, float32Value } from '../../../plugins/dag/stat.js'
import { carSection, carV1Header } from '../../../plugins/dag/car.js'
import { getBlock } from '../../../core/blockstore/index.js'

use(chaiAsPromised)

// behaviour.md §3.1: CIDv0 of foo\n, bar\n, baz\n and their UnixFS leaf blocks (dag-json form)
const FOO = 'QmYNmQKp6SuaVrpgWRsPTgCQCnpxUYGq76YEKBXuj2N4H6'
const BAR = 'QmTz3oc4gdpRMKP2sdGUPZTAGRngqjsi99BPoztyP53JMM'
const BAZ = 'QmWLdkp93sNxGRjnFHPaYg8tCQ35NBY3XPn6KiETd3Z4WR'
const FOO_JSON = '{"Data":{"/":{"bytes":"CAISBGZvbwoYBA"}},"Links":[]}'
const FOOBAR_JSON = '{"Data":{"/":{"bytes":"CAISB2Zvb2JhcgoYBw"}},"Links":[]}'
const T0053 = `{"hello":"world","cats":[{"/":"${FOO}"},{"water":{"/":"${BAR}"}}],"magic":{"/":"${BAZ}"},"sub":{"dict":"ionary","beep":[0,"bop"]}}`
const T0053_CID = 'bafyreiblwimnjbqcdoeafiobk6q27jcw64ew7n2fmmhdpldd63edmjecde'

// interface-ipfs-core's CAR fixtures (go-car test data), copied into test/fixtures/car
const CAR_FIXTURES = new URL('../../../../test/fixtures/car/', import.meta.url)
const fixture = (name: string): Buffer => readFileSync(new URL(name, CAR_FIXTURES))

const utf8 = (b: Buffer): string => b.toString('utf8')

describe('dag plugin', function () {
  this.timeout(60_000)
  let node: TestNode

  before(async () => { node = await createTestNode({ plugins: [dagPlugin()] }) })
  after(async () => { await node.stop() })

  const put = async (content: string | Uint8Array | Array<string | Uint8Array>, options: Record<string, unknown> = {}): Promise<string[]> => {
    const list = Array.isArray(content) ? content : [content]
    const rows = await node.invoke('dag/put', { files: filesOf(...list.map(c => ({ content: c }))), options })
    return rows.map((r: { Cid: { '/': string } }) => r.Cid['/'])
  }
  const get = async (ref: string, options: Record<string, unknown> = {}): Promise<Buffer> => await node.invoke('dag/get', { args: [ref], options })
  const importCar = async (cars: Uint8Array[], options: Record<string, unknown> = {}): Promise<any[]> =>
    await node.invoke('dag/import', { files: filesOf(...cars.map(c => ({ content: c }))), options })
  const exportCar = async (root: string, options: Record<string, unknown> = {}): Promise<Buffer> => await node.invoke('dag/export', { args: [root], options })

  describe('put', () => {
    before(async () => {
      // the UnixFS leaves the t0053 object links to
      await put([FOO_JSON, '{"Data":{"/":{"bytes":"CAISBGJhcgoYBA"}},"Links":[]}', '{"Data":{"/":{"bytes":"CAISBGJhegoYBA"}},"Links":[]}'], { 'store-codec': 'dag-pb' })
    })

    it('stores the t0053 object as dag-cbor (default codecs)', async () => {
      expect(await put(T0053)).to.deep.equal([T0053_CID])
    })

    it('answers {"Cid":{"/":…}} rows, text follows --cid-base', async () => {
      const rows = await node.invoke('dag/put', { files: filesOf({ content: T0053 }), options: { 'cid-base': 'base58btc' } })
      expect(rows).to.deep.equal([{ Cid: { '/': T0053_CID } }])
      const call = { path: dagPut.path, args: [], options: { cidBase: 'base58btc' } } as any
      expect(dagPut.text?.(rows[0], call)).to.equal('zdpuAoN1XJ3GsrxEzMuCbRKZzRUVJekJUCbPVgCgE4D9yYqVi\n')
      expect(dagPut.text?.(rows[0], { ...call, options: {} })).to.equal(`${T0053_CID}\n`)
    })

    it('--store-codec dag-json stores keys sorted bytewise', async () => {
      const [cid] = await put(T0053, { 'store-codec': 'dag-json' })
      expect(cid).to.equal('baguqeera6gviseelmbzn2ugoddo5vulxlshqs3kw5ymgsb6w4cabnoh4ldpa')
      const block = await getBlock(node.container.cradle.blockstore, CID.parse(cid))
      expect(utf8(Buffer.from(block))).to.equal(`{"cats":[{"/":"${FOO}"},{"water":{"/":"${BAR}"}}],"hello":"world","magic":{"/":"${BAZ}"},"sub":{"beep":[0,"bop"],"dict":"ionary"}}`)
    })

    it('--hash sha3-512', async () => {
      expect(await put(T0053, { hash: 'sha3-512' })).to.deep.equal(['bafyriqforjma7y7akqz7nhuu73r6liggj5zhkbfiqgicywe3fgkna2ijlhod2af3ue7doj56tlzt5hh6iu5esafc4msr3sd53jol5m2o25ucy'])
    })

    it('the same node from dag-cbor, dag-pb or dag-json input gives the same CID', async () => {
      const cbor = Buffer.from('omREYXRhRQABAgMEZUxpbmtzgA==', 'base64')
      const pb = Buffer.from('CgUAAQIDBA==', 'base64')
      const json = '{"Data":{"/":{"bytes":"AAECAwQ"}},"Links":[]}'
      const asCbor = 'bafyreieculsmrexh3ty5jentbvuku452o27mst4h2tq2rb2zntqhgcstji'
      const asPb = 'bafybeibazl2z4vqp2tmwcfag6wirmtpnomxknqcgrauj7m2yisrz3qjbom'
      const asJson = 'baguqeerajwksxu3lxpomdwxvosl542zl3xknhjgxtq3277gafrhl6vdw5tcq'
      for (const [input, codec] of [[cbor, 'dag-cbor'], [pb, 'dag-pb'], [json, 'dag-json']] as const) {
        expect(await put(input, { 'input-codec': codec, 'store-codec': 'dag-cbor' })).to.deep.equal([asCbor])
        expect(await put(input, { 'input-codec': codec, 'store-codec': 'dag-pb' })).to.deep.equal([asPb])
        expect(await put(input, { 'input-codec': codec, 'store-codec': 'dag-json' })).to.deep.equal([asJson])
      }
    })

    it('{"data":1234} with or without a newline; dag get gives it back without one', async () => {
      const cid = 'bafyreidbm2zncsc3j25zn7lofgd4woeh6eygdy73thfosuni2rwr3bhcvu'
      expect(await put('{"data":1234}')).to.deep.equal([cid])
      expect(await put('{"data":1234}\n')).to.deep.equal([cid])
      expect(utf8(await get(cid))).to.equal('{"data":1234}')
    })

    it('several objects in one call: one row each', async () => {
      expect(await put(['{"foo":"bar"}', '{"foo":"baz"}'])).to.deep.equal([
        'bafyreiblaotetvwobe7cu2uqvnddr6ew2q3cu75qsoweulzku2egca4dxq',
        'bafyreibqp7zvp6dvrqhtkbwuzzk7jhtmfmngtiqjajqpm6gtw55o7kqzfi'
      ])
    })

    it('re-encodes non-canonical dag-cbor canonically', async () => {
      const input = Buffer.from('a265616c696e6bd82a58250001711220659650fc3443c916428048efc5ba4558dc863594980a59f5cb3c4d84867e6d316361727280', 'hex')
      const [cid] = await put(input, { 'input-codec': 'dag-cbor', 'store-codec': 'dag-cbor' })
      expect(cid).to.equal('bafyreiawx7ona7oa2ptcoh6vwq4q6bmd7x2ibtkykld327bgb7t73ayrqm')
      const block = await getBlock(node.container.cradle.blockstore, CID.parse(cid))
      // keys length-first: arr before alink
      expect(Buffer.from(block).subarray(0, 5).toString('hex')).to.equal('a263617272')
    })

    it('raw in, raw out', async () => {
      expect(await put('foo bar\n', { 'input-codec': 'raw', 'store-codec': 'raw' })).to.deep.equal(['bafkreia7f3csw52dnb4bx3i5d6yubkjob23djaeqmgojfepzuwr4r2grke'])
    })

    it('--hash=blake3', async () => {
      expect(await put('foo\n', { 'input-codec': 'raw', 'store-codec': 'raw', hash: 'blake3' })).to.deep.equal(['bafkr4icj3sdq34o6p7lapfgoxtset5om3lsxll72uz5cjnrkzmb6aoo3si'])
    })

    it('nested objects: dag resolve crosses the link', async () => {
      const [nested] = await put('{"data":123}')
      expect(nested).to.equal('bafyreifwqmfi3n2yiifk5dzft3pr364om75tmlyh6cqsqp7f7f5q3zpey4')
      const [outer] = await put(`{"obj":{"/":"${nested}"}}`)
      expect(outer).to.equal('bafyreiemnev652yh4frouyhczbttipm2vbfnxr7juwwhwy5xcj5pidikb4')
      const out = await node.invoke('dag/resolve', { args: [`${outer}/obj/data`] })
      expect(out).to.deep.equal({ Cid: { '/': nested }, RemPath: 'data' })
      expect(dagResolve.text?.(out, { path: dagResolve.path, args: [`${outer}/obj/data`], options: {} } as any)).to.equal(`${nested}/data`)
    })

    it('the dag-json of a `add -w` wrapper round-trips to the same dag-pb CID', async () => {
      const wrapper = `{"Data":{"/":{"bytes":"CAE"}},"Links":[{"Hash":{"/":"${FOO}"},"Name":"test_file","Tsize":12}]}`
      expect(await put(wrapper, { 'store-codec': 'dag-pb' })).to.deep.equal(['bafybeifwvr7sihx2nm3e5s6xih5jdjafdo37b36ueolmon5qqirkl7unmm'])
      expect(utf8(await get('QmadjU4iL79FzCZva8c5KEiDz7qbntEsPv1AqHt2ZtnWZQ'))).to.equal(wrapper)
    })

    it('empty dag-pb objects (t0051)', async () => {
      const [bare] = await put('{"Links":[]}', { 'store-codec': 'dag-pb' })
      expect(utf8(await get(bare))).to.equal('{"Links":[]}')
      const [dir] = await put('{"Data":{"/":{"bytes":"CAE"}},"Links":[]}', { 'store-codec': 'dag-pb' })
      expect(CID.parse(dir).toV0().toString()).to.equal('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')
    })

    it('--pin pins the objects recursively', async () => {
      const [cid] = await put('{"pinned":true}', { pin: true })
      expect(await node.container.cradle.pins.isPinned(CID.parse(cid))).to.deep.equal({ pinned: true, type: 'recursive' })
      const [unpinned] = await put('{"pinned":false}')
      expect((await node.container.cradle.pins.isPinned(CID.parse(unpinned))).pinned).to.equal(false)
    })

    it('the 2 MiB block limit, and --allow-big-block', async () => {
      await put(new Uint8Array(2097152), { 'input-codec': 'raw', 'store-codec': 'raw' })
      await expect(put(new Uint8Array(2097153), { 'input-codec': 'raw', 'store-codec': 'raw' })).to.be.rejectedWith(
        "produced block is over 2MiB: big blocks can't be exchanged with other peers. consider using UnixFS for automatic chunking of bigger files, or pass --allow-big-block to override")
      expect(await put(new Uint8Array(2097153), { 'input-codec': 'raw', 'store-codec': 'raw', 'allow-big-block': true })).to.have.lengthOf(1)
    })

    it('unknown codecs and hashes', async () => {
      await expect(put('{}', { 'input-codec': 'nope' })).to.be.rejectedWith('unknown multicodec: "nope"')
      await expect(put('{}', { 'store-codec': 'nope' })).to.be.rejectedWith('unknown multicodec: "nope"')
      await expect(put('{}', { hash: 'sha3' })).to.be.rejectedWith('unknown multicodec: "sha3"')
      await expect(put('{}', { 'store-codec': 'git-raw' })).to.be.rejectedWith('no encoder registered for multicodec code 120 (0x78)')
      await expect(put('{}', { 'input-codec': 'libp2p-key' })).to.be.rejectedWith('no decoder registered for multicodec code 114 (0x72)')
    })

    it('malformed input', async () => {
      await expect(put('{"a":')).to.be.rejectedWith('unexpected EOF')
      await expect(put('{"a":1} x')).to.be.rejectedWith('unexpected content after end of json object')
      await expect(put('{"a":1,"a":2}')).to.be.rejectedWith('cannot repeat map key "a"')
      await expect(put('{"a" 1}')).to.be.rejectedWith('expected colon after map key; got 0x31')
      await expect(put('{"/":"nope"}')).to.be.rejectedWith('invalid cid')
      await expect(put(Buffer.from('a16161', 'hex'), { 'input-codec': 'dag-cbor' })).to.be.rejectedWith('unexpected EOF')
      await expect(put(Buffer.from('a1616101ff', 'hex'), { 'input-codec': 'dag-cbor' })).to.be.rejectedWith('unexpected content after end of cbor object')
      await expect(put('{"Links":[],"Foo":1}', { 'store-codec': 'dag-pb' })).to.be.rejectedWith('no such field')
      await expect(put('{"Data":{"/":{"bytes":"AA"}}}', { 'store-codec': 'dag-pb' })).to.be.rejectedWith('missing required fields: Links')
      await expect(put('{"a":1}', { 'store-codec': 'raw' })).to.be.rejectedWith('func called on wrong kind: "AsBytes" called on a map node, but only makes sense on bytes')
      await expect(put('{"a":{"/":{"bytes":"AA"}}}', { 'store-codec': 'json' })).to.be.rejectedWith('cannot marshal IPLD bytes to this codec')
      await expect(put(`{"a":{"/":"${FOO}"}}`, { 'store-codec': 'cbor' })).to.be.rejectedWith('cannot Marshal ipld links to CBOR')
    })

    it('checks the hash function when the blocks are written (after the row, as Kubo\'s batch)', async () => {
      await expect(put('{"x":"md5"}', { hash: 'md5' })).to.be.rejectedWith('potentially insecure hash functions not allowed')
      await expect(put('{"x":"murmur"}', { hash: 'dag-pb' })).to.be.rejectedWith('no such hash registered')
    })

    it('dag-jose: stored as its dag-cbor form, read back with the payload link', async () => {
      const payload = CID.parse(FOO).toV1().bytes
      const jws = dagCbor.encode({ payload, signatures: [{ protected: new Uint8Array([1, 2]), signature: new Uint8Array([3, 4]) }] })
      const [cid] = await put(jws, { 'input-codec': 'dag-jose', 'store-codec': 'dag-jose' })
      expect(cid).to.equal(CID.createV1(0x85, await sha256.digest(jws)).toString())
      const json = JSON.parse(utf8(await get(cid)))
      expect(json.link).to.deep.equal({ '/': CID.parse(FOO).toV1().toString() })
      expect(Object.keys(json)).to.deep.equal(['link', 'payload', 'signatures'])
    })

    it('keeps floats as floats (1.0 is not 1)', async () => {
      const [f] = await put('{"x":1.0}')
      const [i] = await put('{"x":1}')
      expect(f).to.not.equal(i)
      const block = await getBlock(node.container.cradle.blockstore, CID.parse(f))
      expect(Buffer.from(block).toString('hex')).to.equal('a16178fb3ff0000000000000')
      expect(utf8(await get(f))).to.equal('{"x":1}')
    })
  })

  describe('get', () => {
    before(async () => {
      await put([FOO_JSON, '{"Data":{"/":{"bytes":"CAISBGJhcgoYBA"}},"Links":[]}', '{"Data":{"/":{"bytes":"CAISBGJhegoYBA"}},"Links":[]}', FOOBAR_JSON], { 'store-codec': 'dag-pb' })
      await put(T0053)
    })

    it('returns dag-json by default, compact and sorted', async () => {
      expect(utf8(await get(T0053_CID))).to.equal(`{"cats":[{"/":"${FOO}"},{"water":{"/":"${BAR}"}}],"hello":"world","magic":{"/":"${BAZ}"},"sub":{"beep":[0,"bop"],"dict":"ionary"}}`)
    })

    it('dag-pb UnixFS leaves as dag-json', async () => {
      expect(utf8(await get(FOO))).to.equal(FOO_JSON)
      expect(utf8(await get('QmRgutAxd8t7oGkSm4wmeuByG6M51wcTso6cubDdQtuEfL'))).to.equal(FOOBAR_JSON)
    })

    it('paths inside a block and across links', async () => {
      expect(utf8(await get(`${T0053_CID}/sub/beep/1`))).to.equal('"bop"')
      expect(utf8(await get(`/ipfs/${T0053_CID}/sub`))).to.equal('{"beep":[0,"bop"],"dict":"ionary"}')
      expect(utf8(await get(`${T0053_CID}/cats/1/water`))).to.equal('{"Data":{"/":{"bytes":"CAISBGJhcgoYBA"}},"Links":[]}')
      const [pb] = await put('{"Data":{"/":{"bytes":"AAECAwQ"}},"Links":[]}', { 'store-codec': 'dag-pb' })
      expect(utf8(await get(`/ipld/${pb}/Data`))).to.equal('{"/":{"bytes":"AAECAwQ"}}')
      const [bare] = await put('{"Links":[]}', { 'store-codec': 'dag-pb' })
      expect(utf8(await get(`/ipld/${bare}/Data`))).to.equal('null')
    })

    it('--output-codec dag-cbor of the dag-pb node (sha2-256 vector)', async () => {
      const [pb] = await put('{"Data":{"/":{"bytes":"AAECAwQ"}},"Links":[]}', { 'store-codec': 'dag-pb' })
      const out = await get(pb, { 'output-codec': 'dag-cbor' })
      expect('1220' + createHash('sha256').update(out).digest('hex')).to.equal('122082a2e4c892e7dcf1d491b30d68aa73ba76bec94f87d4e1a887596ce0730a534a')
    })

    it('--output-codec json is indented with tabs and ends with a newline', async () => {
      const [cid] = await put('{"b":[1,{"c":true}],"a":"x"}')
      expect(utf8(await get(cid, { 'output-codec': 'json' }))).to.equal('{\n\t"a": "x",\n\t"b": [\n\t\t1,\n\t\t{\n\t\t\t"c": true\n\t\t}\n\t]\n}\n')
      await expect(get(T0053_CID, { 'output-codec': 'json' })).to.be.rejectedWith('cannot marshal IPLD links to this codec')
    })

    it('--output-codec raw of a raw block gives its bytes', async () => {
      const [cid] = await put('hello raw', { 'input-codec': 'raw', 'store-codec': 'raw' })
      expect(utf8(await get(cid, { 'output-codec': 'raw' }))).to.equal('hello raw')
      expect(utf8(await get(cid))).to.equal('{"/":{"bytes":"aGVsbG8gcmF3"}}')
    })

    it('errors', async () => {
      await expect(get(T0053_CID, { 'output-codec': 'nope' })).to.be.rejectedWith('unknown multicodec: "nope"')
      await expect(get(T0053_CID, { 'output-codec': 'git-raw' })).to.be.rejectedWith('invalid encoding: git-raw - no encoder registered for multicodec code 120 (0x78)')
      const missing = CID.createV1(dagCbor.code, await sha256.digest(new TextEncoder().encode('missing block'))).toString()
      await expect(get(missing)).to.be.rejectedWith(`block was not found locally (offline): ipld: could not find ${missing}`)
      await expect(get(T0053_CID, { 'output-codec': 'raw' })).to.be.rejectedWith('func called on wrong kind: "AsBytes" called on a map node, but only makes sense on bytes')
    })
  })

  describe('resolve', () => {
    it('a path inside a block keeps the rest as RemPath', async () => {
      const [cid] = await put('{"a":1,"b":[1,2,3],"c":{"ca":[5,6,7],"cb":"foo"}}')
      expect(await node.invoke('dag/resolve', { args: [`${cid}/c/cb`] })).to.deep.equal({ Cid: { '/': cid }, RemPath: 'c/cb' })
      expect(await node.invoke('dag/resolve', { args: [cid] })).to.deep.equal({ Cid: { '/': cid }, RemPath: '' })
    })

    it('text: the CID in the base of the path, no newline', async () => {
      const [cid] = await put('{"c":{"cb":"foo"}}')
      const b58 = CID.parse(cid).toString(await import('multiformats/bases/base58').then(m => m.base58btc))
      const out = await node.invoke('dag/resolve', { args: [`${b58}/c/cb`] })
      const call = (arg: string, options = {}): any => ({ path: dagResolve.path, args: [arg], options })
      expect(dagResolve.text?.(out, call(`${b58}/c/cb`))).to.equal(`${b58}/c/cb`)
      expect(dagResolve.text?.(out, call(`/ipfs/${cid}/c/cb`))).to.equal(`${cid}/c/cb`)
      expect(dagResolve.text?.(out, call(`${b58}/c/cb`, { cidBase: 'base32' }))).to.equal(`${cid}/c/cb`)
    })

    it('a dag-pb link by name', async () => {
      const child = await put('{"Data":{"/":{"bytes":"c29tZSBvdGhlciBkYXRh"}},"Links":[]}', { 'store-codec': 'dag-pb' })
      const [parent] = await put(`{"Data":{"/":{"bytes":"ZGVycA"}},"Links":[{"Hash":{"/":"${child[0]}"},"Name":"foo","Tsize":17}]}`, { 'store-codec': 'dag-pb' })
      expect(await node.invoke('dag/resolve', { args: [`${parent}/foo`] })).to.deep.equal({ Cid: { '/': child[0] }, RemPath: '' })
    })
  })

  describe('export and import', () => {
    let root: CID
    let child: CID
    let grand: CID

    before(async () => {
      // a dag-cbor root over a dag-pb parent over a dag-pb child (interface-ipfs-core export test)
      const bs = node.container.cradle.blockstore
      const childBytes = dagPb.encode({ Data: new TextEncoder().encode('block-child'), Links: [] })
      child = CID.createV0(await sha256.digest(childBytes))
      const parentBytes = dagPb.encode({ Links: [{ Hash: child, Tsize: childBytes.length, Name: '' }] })
      const parent = CID.createV0(await sha256.digest(parentBytes))
      const rootBytes = dagCbor.encode({ parent, other: child })
      root = CID.createV1(dagCbor.code, await sha256.digest(rootBytes))
      grand = parent
      await bs.put(child, childBytes)
      await bs.put(parent, parentBytes)
      await bs.put(root, rootBytes)
    })

    const sizeOf = async (...cids: CID[]): Promise<number> => {
      let n = 0
      for (const c of cids) n += (await getBlock(node.container.cradle.blockstore, c)).length
      return n
    }

    it('exports a CARv1 in traversal order, each block once', async () => {
      const car = await exportCar(root.toString())
      // header, root, then "other" (length-first key order: other < parent) ... each once
      const expected = Buffer.concat([
        carV1Header([root]),
        ...carSection(root, await getBlock(node.container.cradle.blockstore, root)),
        ...carSection(child, await getBlock(node.container.cradle.blockstore, child)),
        ...carSection(grand, await getBlock(node.container.cradle.blockstore, grand))
      ])
      expect(car.toString('hex')).to.equal(expected.toString('hex'))
    })

    it('export → import round trip on a fresh node, roots pinned', async () => {
      const car = await exportCar(root.toString())
      await withTestNode({ plugins: [dagPlugin()] }, async (other) => {
        const rows = await other.invoke('dag/import', { files: filesOf({ content: car }), options: { stats: true } })
        expect(rows).to.deep.equal([
          { Root: { Cid: { '/': root.toString() }, PinErrorMsg: '' } },
          { Stats: { BlockCount: 3, BlockBytesCount: await sizeOf(root, child, grand) } }
        ])
        expect((await other.container.cradle.pins.isPinned(root)).pinned).to.equal(true)
        expect(await other.invoke('dag/export', { args: [root.toString()] })).to.deep.equal(car)
      })
    })

    it('exporting a missing root fails before any output', async () => {
      await expect(exportCar('QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG')).to.be.rejectedWith('block was not found locally (offline): ipld: could not find QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG')
    })

    it('an incomplete DAG fails the export with go-car\'s walk error', async () => {
      const missing = CID.createV1(raw.code, await sha256.digest(new TextEncoder().encode('not stored')))
      const [top] = await put(`{"x":{"/":"${missing.toString()}"}}`)
      await expect(exportCar(top)).to.be.rejectedWith(`walk failed: error traversing node at "x": could not load link "${missing.toString()}": block was not found locally (offline): ipld: could not find ${missing.toString()} (currently offline, perhaps retry after attaching to the network)`)
      // the path runs from the export root across blocks
      const [pb] = await put(`{"Links":[{"Hash":{"/":"${missing.toString()}"},"Name":"m"}]}`, { 'store-codec': 'dag-pb' })
      const [deep] = await put(`{"p":{"/":"${pb}"}}`)
      await expect(exportCar(deep)).to.be.rejectedWith(`walk failed: error traversing node at "p/Links/0/Hash": could not load link "${missing.toString()}"`)
      // --local-only skips it
      const partial = await exportCar(top, { 'local-only': true })
      const block = await getBlock(node.container.cradle.blockstore, CID.parse(top))
      expect(partial).to.deep.equal(Buffer.concat([carV1Header([CID.parse(top)]), ...carSection(CID.parse(top), block)]))
    })

    it('imports an incomplete DAG: blocks stored, pin failure in PinErrorMsg', async () => {
      await withTestNode({ plugins: [dagPlugin()] }, async (other) => {
        const missing = CID.createV1(raw.code, await sha256.digest(new TextEncoder().encode('not in the car')))
        const topBytes = dagCbor.encode({ x: missing })
        const top = CID.createV1(dagCbor.code, await sha256.digest(topBytes))
        const car = Buffer.concat([carV1Header([top]), ...carSection(top, topBytes)])
        const rows = await other.invoke('dag/import', { files: filesOf({ content: car }), options: { stats: true } })
        expect(rows).to.deep.equal([
          { Root: { Cid: { '/': top.toString() }, PinErrorMsg: `block was not found locally (offline): ipld: could not find ${missing.toString()}` } },
          { Stats: { BlockCount: 1, BlockBytesCount: topBytes.length } }
        ])
        expect(await other.container.cradle.blockstore.has(top)).to.equal(true)
        expect((await other.container.cradle.pins.isPinned(top)).pinned).to.equal(false)
        // the text encoder turns the pin failure into the command's error
        expect(() => dagImport.text?.(rows[0], { path: dagImport.path, args: [], options: {} } as any)).to.throw(`pinning root "${top.toString()}" FAILED: block was not found locally (offline): ipld: could not find ${missing.toString()}`)
        // a root that is not in the store at all
        const naked = Buffer.concat([carV1Header([missing])])
        expect(await other.invoke('dag/import', { files: filesOf({ content: naked }) })).to.deep.equal([
          { Root: { Cid: { '/': missing.toString() }, PinErrorMsg: `ipld: could not find ${missing.toString()}` } }
        ])
        // --pin-roots=false: no rows at all
        expect(await other.invoke('dag/import', { files: filesOf({ content: car }), options: { 'pin-roots': false } })).to.deep.equal([])
      })
    })

    it('imports a CARv2', async () => {
      await withTestNode({ plugins: [dagPlugin()] }, async (other) => {
        const v1 = await exportCar(root.toString())
        const pragma = Buffer.from('0aa16776657273696f6e02', 'hex')
        const header = Buffer.alloc(40)
        const padding = Buffer.alloc(7)
        header.writeBigUInt64LE(BigInt(pragma.length + 40 + padding.length), 16)
        header.writeBigUInt64LE(BigInt(v1.length), 24)
        header.writeBigUInt64LE(0n, 32)
        const index = Buffer.from('0102030405', 'hex') // whatever follows the payload is not read as blocks
        const car = Buffer.concat([pragma, header, padding, v1, index])
        const rows = await other.invoke('dag/import', { files: filesOf({ content: car }), options: { stats: true } })
        expect(rows[0]).to.deep.equal({ Root: { Cid: { '/': root.toString() }, PinErrorMsg: '' } })
        expect(rows[1].Stats.BlockCount).to.equal(3)
      })
    })

    it('reads CARs streamed in small pieces', async () => {
      const v1 = await exportCar(root.toString())
      const pragma = Buffer.from('0aa16776657273696f6e02', 'hex')
      const header = Buffer.alloc(40)
      header.writeBigUInt64LE(51n, 16)
      header.writeBigUInt64LE(BigInt(v1.length), 24)
      const v2 = Buffer.concat([pragma, header, v1])
      const pieces = (bytes: Uint8Array, n: number): AsyncIterable<Uint8Array> => (async function * () {
        for (let i = 0; i < bytes.length; i += n) yield bytes.subarray(i, i + n)
      })()
      const files = async function * (): AsyncGenerator<any> {
        yield { path: 'a.car', type: 'file', content: pieces(v1, 3) }
        yield { path: 'b.car', type: 'file', content: pieces(v2, 5) }
      }
      const rows = await node.invoke('dag/import', { files: files(), options: { stats: true, 'pin-roots': false } })
      expect(rows).to.deep.equal([{ Stats: { BlockCount: 6, BlockBytesCount: 2 * await sizeOf(root, child, grand) } }])
    })

    it('text output', () => {
      const call = (options: Record<string, unknown>): any => ({ path: dagImport.path, args: [], options })
      const row = { Root: { Cid: { '/': 'bafkqaaa' }, PinErrorMsg: '' } }
      expect(dagImport.text?.(row, call({}))).to.equal('Pinned root\tbafkqaaa\tsuccess\n')
      expect(dagImport.text?.(row, call({ silent: true }))).to.equal('')
      expect(dagImport.text?.({ Stats: { BlockCount: 1198, BlockBytesCount: 468513 } }, call({ stats: true }))).to.equal('Imported 1198 blocks (468513 bytes)\n')
    })

    it('malformed CARs', async () => {
      const block = new TextEncoder().encode('hello')
      const cid = CID.createV1(raw.code, await sha256.digest(block))
      const good = Buffer.concat([carV1Header([cid]), ...carSection(cid, block)])
      await expect(importCar([new Uint8Array(0)])).to.be.rejectedWith(/^EOF$/)
      await expect(importCar([good.subarray(0, good.length - 2)])).to.be.rejectedWith('import failed: unexpected EOF')
      const twice = Buffer.concat([good, ...carSection(cid, block)])
      await expect(importCar([twice.subarray(0, twice.length - 1)])).to.be.rejectedWith(`import failed after block "${cid.toString()}": unexpected EOF`)
      const bad = Buffer.concat([carV1Header([cid]), ...carSection(cid, new TextEncoder().encode('jello'))])
      await expect(importCar([bad])).to.be.rejectedWith(`import failed: mismatch in content integrity, expected: ${cid.toString()}, got: ${CID.createV1(raw.code, await sha256.digest(new TextEncoder().encode('jello'))).toString()}`)
      const v3 = Buffer.from('0aa16776657273696f6e03', 'hex')
      await expect(importCar([v3])).to.be.rejectedWith('invalid car version: 3')
      await expect(importCar([Buffer.from('02ffff', 'hex')])).to.be.rejectedWith(/^invalid header: /)
      // a dag-cbor block that does not decode
      const junk = Buffer.from('a16161', 'hex')
      const junkCid = CID.createV1(dagCbor.code, await sha256.digest(junk))
      await expect(importCar([Buffer.concat([carV1Header([junkCid]), ...carSection(junkCid, junk)])])).to.be.rejectedWith(`import failed at block "${junkCid.toString()}": unexpected EOF`)
      // big blocks
      const big = new Uint8Array(2097153)
      const bigCid = CID.createV1(raw.code, await sha256.digest(big))
      const bigCar = Buffer.concat([carV1Header([bigCid]), ...carSection(bigCid, big)])
      await expect(importCar([bigCar])).to.be.rejectedWith(`import failed at block "${bigCid.toString()}": produced block is over 2MiB`)
      expect(await importCar([bigCar], { 'allow-big-block': true })).to.have.lengthOf(1)
      // nothing half-imported was pinned
      expect((await node.container.cradle.pins.isPinned(junkCid)).pinned).to.equal(false)
      await expect(importCar([good], { 'local-only': true, 'pin-roots': true })).to.be.rejectedWith('--local-only implies --pin-roots=false and cannot be combined with --pin-roots=true; please drop one of them')
    })

    describe('Kubo sharness CAR fixtures', () => {
      it('multiroot import (t0054)', async function () {
        const car = fixture('lotus_testnet_export_256_multiroot.car')
        await withTestNode({ plugins: [dagPlugin()] }, async (other) => {
          const rows = await other.invoke('dag/import', { files: filesOf({ content: car }), options: { stats: true } })
          expect(rows.slice(0, 3).map((r: any) => r.Root.Cid['/']).sort()).to.deep.equal([
            'bafy2bzaceb55n7uxyfaelplulk3ev2xz7gnq6crncf3ahnvu46hqqmpucizcw',
            'bafy2bzacebedrc4n2ac6cqdkhs7lmj5e4xiif3gu7nmoborihajxn3fav3vdq',
            'bafy2bzacede2hsme6hparlbr4g2x6pylj43olp4uihwjq3plqdjyrdhrv7cp4'
          ])
          expect(rows.slice(0, 3).every((r: any) => r.Root.PinErrorMsg === '')).to.equal(true)
          expect(rows[3]).to.deep.equal({ Stats: { BlockCount: 2825, BlockBytesCount: 1339709 } })
        })
      })

      it('pin-less import, then canonical re-export of shuffled CARs (t0054)', async function () {
        const genesis = fixture('lotus_devnet_genesis.car')
        const testnet = fixture('lotus_testnet_export_128.car')
        const shuffled = fixture('lotus_devnet_genesis_shuffled_nulroot.car')
        const naked = fixture('combined_naked_roots_genesis_and_128.car')
        await withTestNode({ plugins: [dagPlugin()] }, async (other) => {
          expect(await other.invoke('dag/import', { files: filesOf({ content: genesis }, { content: testnet }), options: { stats: true, 'pin-roots': false } }))
            .to.deep.equal([{ Stats: { BlockCount: 1198, BlockBytesCount: 468513 } }])
          expect(await other.invoke('dag/export', { args: ['bafy2bzaceaxm23epjsmh75yvzcecsrbavlmkcxnva66bkdebdcnyw3bjrc74u'] })).to.deep.equal(genesis)
          expect(await other.invoke('dag/export', { args: ['bafy2bzaced4ueelaegfs5fqu4tzsh6ywbbpfk3cxppupmxfdhbpbhzawfw5oy'] })).to.deep.equal(testnet)
          // naked roots: everything present already
          expect(await other.invoke('dag/import', { files: filesOf({ content: naked }), options: { stats: true } })).to.deep.equal([
            { Root: { Cid: { '/': 'bafy2bzaceaxm23epjsmh75yvzcecsrbavlmkcxnva66bkdebdcnyw3bjrc74u' }, PinErrorMsg: '' } },
            { Root: { Cid: { '/': 'bafy2bzaced4ueelaegfs5fqu4tzsh6ywbbpfk3cxppupmxfdhbpbhzawfw5oy' }, PinErrorMsg: '' } },
            { Stats: { BlockCount: 0, BlockBytesCount: 0 } }
          ])
          // the identity (nul) root pins fine
          const rows = await other.invoke('dag/import', { files: filesOf({ content: shuffled }) })
          expect(rows).to.deep.equal([{ Root: { Cid: { '/': 'bafkqaaa' }, PinErrorMsg: '' } }])
        })
      })
    })
  })

  describe('stat', () => {
    it('sizes and block counts, progress rows, and the summary', async () => {
      const [a] = await put('{"a":1}')
      const [b] = await put(`{"b":{"/":"${a}"},"c":{"/":"${a}"}}`)
      const aSize = (await getBlock(node.container.cradle.blockstore, CID.parse(a))).length
      const bSize = (await getBlock(node.container.cradle.blockstore, CID.parse(b))).length
      const rows = await node.invoke('dag/stat', { args: [b] })
      expect(rows).to.deep.equal([
        { TotalSize: bSize, DagStats: [{ Cid: b, Size: bSize, NumBlocks: 1 }] },
        { TotalSize: bSize + aSize, DagStats: [{ Cid: b, Size: bSize + aSize, NumBlocks: 2 }] },
        { UniqueBlocks: 2, TotalSize: bSize + aSize, Ratio: 1, DagStats: [{ Cid: b, Size: bSize + aSize, NumBlocks: 2 }] }
      ])
      const quiet = await node.invoke('dag/stat', { args: [b, a], options: { progress: false } })
      expect(quiet).to.deep.equal([{
        UniqueBlocks: 2,
        TotalSize: bSize + aSize,
        SharedSize: aSize,
        Ratio: float32Value((bSize + 2 * aSize) / (bSize + aSize)),
        DagStats: [{ Cid: b, Size: bSize + aSize, NumBlocks: 2 }, { Cid: a, Size: aSize, NumBlocks: 1 }]
      }])
      const text = dagStat.text?.(quiet[0], { path: dagStat.path, args: [], options: {} } as any)
      const w = b.length
      expect(text).to.equal(`\n${'CID'.padEnd(w)}\t${'Blocks'.padEnd(15)}\tSize\n${b}\t${'2'.padEnd(15)}\t${bSize + aSize}\n${a}\t${'1'.padEnd(15)}\t${aSize}\n` +
        `\nSummary\nTotal Size: ${bSize + aSize} (${bSize + aSize} B)\nUnique Blocks: 2\nShared Size: ${aSize} (${aSize} B)\nRatio: ${Math.fround(quiet[0].Ratio).toFixed(6)}\n\n\n`)
    })

    it('rejects paths inside a block, and missing blocks', async () => {
      const [a] = await put('{"a":{"b":1}}')
      await expect(node.invoke('dag/stat', { args: [`${a}/a`] })).to.be.rejectedWith('cannot return size for anything other than a DAG with a root CID')
      const missing = CID.createV1(raw.code, await sha256.digest(new TextEncoder().encode('nowhere')))
      const [top] = await put(`{"m":{"/":"${missing.toString()}"}}`)
      await expect(node.invoke('dag/stat', { args: [top], options: { progress: false } })).to.be.rejectedWith(`error traversing DAG: block was not found locally (offline): ipld: could not find ${missing.toString()}`)
    })

    it('humanizes like go-humanize', () => {
      expect(humanizeBytes(9)).to.equal('9 B')
      expect(humanizeBytes(468513)).to.equal('468 kB') // 468.5 rounds half to even
      expect(humanizeBytes(469513)).to.equal('470 kB')
      expect(humanizeBytes(1234)).to.equal('1.2 kB')
      expect(humanizeBytes(12500)).to.equal('12 kB')
      expect(float32Value(4 / 3)).to.equal(1.3333334)
    })
  })
})
