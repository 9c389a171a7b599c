import { expect } from 'chai'
import { CID } from 'multiformats/cid'
import { identity } from 'multiformats/hashes/identity'
import * as dagPb from '@ipld/dag-pb'
import { sha256 } from 'multiformats/hashes/sha2'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { blockPlugin } from '../../../plugins/block/index.js'
import { blockRm } from '../../../plugins/block/rm.js'
import { blockStat } from '../../../plugins/block/stat.js'
import { blockPut } from '../../../plugins/block/put.js'
import { BIG_BLOCK_ERROR } from '../../../plugins/shared/cmdutils.js'
import type { Outcome } from '../../../registry/execute.js'
import type { BlockRmOutput } from '../../../plugins/block/output.js'

/** The promise must reject with exactly this message (or one matching the pattern). */
async function rejects (promise: Promise<unknown>, message: string | RegExp): Promise<void> {
  let error: unknown
  try { await promise } catch (err) { error = err }
  expect(error, 'expected a rejection').to.be.instanceOf(Error)
  if (typeof message === 'string') expect((error as Error).message).to.equal(message)
  else expect((error as Error).message).to.match(message)
}

const text = (s: string): Uint8Array => new TextEncoder().encode(s)
const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'))
/** testPut.pb of t0050: 0a1b + "test json for sharness test" */
const TEST_PUT_PB = Uint8Array.from([...hex('0a1b'), ...text('test json for sharness test')])
/** the UnixFS leaf `ipfs add` makes of "test\n" (t0050's present block) */
const TEST_LEAF = hex('0a0b08021205746573740a1805')
const TEST_LEAF_CID = 'QmeomffUNfmQy76CQGy9NdmqEnnHU9soCexBnGU3ezPHVH'
const MISSING = 'QmRKqGMAM6EbngbZjSqrvYzq5Qd8b1bSWymjSUY9zQSNDq'

describe('block plugin', () => {
  let node: TestNode

  before(async () => {
    node = await createTestNode({ plugins: [blockPlugin()] })
  })

  after(async () => {
    await node.stop()
  })

  const put = async (content: string | Uint8Array, options: Record<string, unknown> = {}, query?: Array<[string, string[]]>): Promise<Array<{ Key: string, Size: number }>> =>
    await node.invoke('block/put', { files: filesOf({ content }), options, query })

  describe('put', () => {
    it('stores raw CIDv1 sha2-256 blocks by default (t0050)', async () => {
      expect(await put('Hello Mars!\n')).to.deep.equal([{ Key: 'bafkreibmlvvgdyihetgocpof6xk64kjjzdeq2e4c7hqs3krdheosk4tgj4', Size: 12 }])
    })

    it('writes one row per file', async () => {
      const rows = await node.invoke('block/put', { files: filesOf({ content: 'Hello Mars!\n' }, { content: 'Hello Venus!\n' }) })
      expect(rows.map((r: { Key: string }) => r.Key)).to.deep.equal([
        'bafkreibmlvvgdyihetgocpof6xk64kjjzdeq2e4c7hqs3krdheosk4tgj4',
        'bafkreihfsphazrk2ilejpekyltjeh5k4yvwgjuwg26ueafohqioeo3sdca'
      ])
    })

    it('truncates sha3 with --mhlen (wire strings coerced)', async () => {
      const [row] = await put('foooo\n', {}, [['mhtype', ['sha3']], ['mhlen', ['20']]])
      expect(row.Key).to.equal('bafkrifctrq4xazzixy2v4ezymjcvzpskqdwlxra')
      const [raw] = await put('foooo\n', { mhtype: 'sha3', mhlen: 20, format: 'raw' })
      expect(raw.Key).to.equal('bafkrifctrq4xazzixy2v4ezymjcvzpskqdwlxra')
      const [pb] = await put('foooo\n', { mhtype: 'sha3', mhlen: 20, 'cid-codec': 'dag-pb' })
      expect(pb.Key).to.equal('bafybifctrq4xazzixy2v4ezymjcvzpskqdwlxra')
    })

    it('refuses CIDv0 with another hash', async () => {
      await rejects(put('foooo\n', { mhtype: 'sha3', mhlen: 20, format: 'v0' }), 'only sha2-255-32 is allowed with CIDv0')
      await rejects(put('foooo\n', { mhlen: 20, format: 'v0' }), 'only sha2-255-32 is allowed with CIDv0')
    })

    it('labels a dag-pb block with --cid-codec and with --format=v0', async () => {
      const [v1] = await put(TEST_PUT_PB, { 'cid-codec': 'dag-pb' })
      expect(v1).to.deep.equal({ Key: 'bafybeic24mauwi73po2kq2jigh2r7sealvcnky2afd4okkvu6axwilodvi', Size: 29 })
      const [v0] = await put(TEST_PUT_PB, { format: 'v0' })
      expect(v0.Key).to.equal('QmUTSAdDi2xsNkDtLqjFgQDMEn5di3Ab9eqbrt4gaiNbUD')
      const [leaf] = await put(TEST_LEAF, { f: 'v0' })
      expect(leaf.Key).to.equal(TEST_LEAF_CID)
      const [proto] = await put(TEST_PUT_PB, { format: 'protobuf' })
      expect(proto.Key).to.equal('bafybeic24mauwi73po2kq2jigh2r7sealvcnky2afd4okkvu6axwilodvi')
      const [cbor] = await put('x', { format: 'cbor' })
      expect(CID.parse(cbor.Key).code).to.equal(0x71)
    })

    it('hashes with blake3 at 32, 64 and 128 bytes (t0800)', async () => {
      const [d] = await put('foo\n', { mhtype: 'blake3', 'cid-codec': 'raw' })
      expect(d.Key).to.equal('bafkr4icj3sdq34o6p7lapfgoxtset5om3lsxll72uz5cjnrkzmb6aoo3si')
      const [l64] = await put('foo\n', { mhtype: 'blake3', mhlen: 64, 'cid-codec': 'raw' })
      expect(l64.Key).to.equal('bafkr4qcj3sdq34o6p7lapfgoxtset5om3lsxll72uz5cjnrkzmb6aoo3sknmbprpe27pbfrb67tonydgfot5ixuq4skiva76ppbgpjlzc4ua4')
      const [l128] = await put('foo\n', { mhtype: 'blake3', mhlen: 128, 'cid-codec': 'raw' })
      expect(l128.Key).to.equal('bafkr5aabjhoiodpr3z75mb4uz26oispvztnok5np7kthujfwflfqhybz3ojjvqf6f4tl54eweh36nzxamyv2pvc6sdsjjcud7z54ez5fpelsqdtax2k3rvuq3wdl5a4blxv3gvsroa3nakfzzknamhu2apf3vvytyiobabrn2bfnfajq66ikjy5lewsp5jyddsg5l7u3emr2ancimryay')
    })

    it('makes identity CIDs without storing them', async () => {
      const [row] = await put('raw', { format: 'raw', mhtype: 'identity' })
      const want = CID.createV1(0x55, identity.digest(text('raw')))
      expect(row).to.deep.equal({ Key: want.toString(), Size: 3 })
      const inner = (node.container.cradle.blockstore as unknown as { inner: { has: (c: CID) => Promise<boolean> } }).inner
      expect(await inner.has(want)).to.equal(false)
      expect(Buffer.from(await node.invoke('block/get', { args: [want.toString()] })).toString()).to.equal('raw')
    })

    it('accepts 2 MiB and refuses one byte more unless --allow-big-block', async () => {
      const [ok] = await put(new Uint8Array(2097152))
      expect(ok.Size).to.equal(2097152)
      await rejects(put(new Uint8Array(2097153)), BIG_BLOCK_ERROR)
      const [big] = await put(new Uint8Array(2097153), { 'allow-big-block': true })
      expect(big.Size).to.equal(2097153)
    })

    it("uses Kubo's error texts for bad options", async () => {
      await rejects(put('a', { format: 'v0', 'cid-codec': 'dag-cbor' }), 'unable to use "format" (deprecated) and a custom "cid-codec" at the same time')
      await rejects(put('a', { mhtype: 'nope' }), 'unrecognized multihash function: nope')
      await rejects(put('a', { 'cid-codec': 'nope' }), 'unknown multicodec: "nope"')
      await rejects(put('a', { mhtype: 'md5' }), 'potentially insecure hash functions not allowed')
      await rejects(put('a', { mhtype: 'sha2-256', mhlen: 10 }), 'digest too small')
      await rejects(put('a', { mhtype: 'sha2-256', mhlen: 64 }), 'requested length was too large for digest')
      await rejects(put('a', { format: 'json-nope' }), 'unknown multicodec: "json-nope"')
      await rejects(put('a', { format: 'cbor', 'cid-codec': 'dag-pb' }), 'unable to use "format" (deprecated) and a custom "cid-codec" at the same time')
    })

    it('pins with --pin', async () => {
      const [row] = await put('pin me', { pin: true })
      const status = await node.container.cradle.pins.isPinned(CID.parse(row.Key))
      expect(status).to.deep.equal({ pinned: true, type: 'recursive' })
    })

    it('prints the key as text', () => {
      expect(blockPut.text?.({ Key: 'bafk', Size: 1 }, { path: [], args: [], options: {} as never })).to.equal('bafk\n')
    })
  })

  describe('get and stat', () => {
    it('returns the bytes and the size', async () => {
      const [row] = await put('Hello Mars!\n')
      const bytes = await node.invoke('block/get', { args: [row.Key] })
      expect(Buffer.from(bytes).toString()).to.equal('Hello Mars!\n')
      expect(await node.invoke('block/stat', { args: [row.Key] })).to.deep.equal({ Key: row.Key, Size: 12 })
      expect(await node.invoke('block/stat', { args: [`/ipfs/${row.Key}`] })).to.deep.equal({ Key: row.Key, Size: 12 })
    })

    it('finds a block by any CID with the same multihash', async () => {
      const [row] = await put(TEST_LEAF, { format: 'v0' })
      const v1 = CID.parse(row.Key).toV1()
      expect(Buffer.from(await node.invoke('block/get', { args: [v1.toString()] }))).to.deep.equal(Buffer.from(TEST_LEAF))
      const raw = CID.createV1(0x55, CID.parse(row.Key).multihash)
      expect(await node.invoke('block/stat', { args: [raw.toString()] })).to.deep.equal({ Key: raw.toString(), Size: 13 })
    })

    it('writes the stat text', () => {
      expect(blockStat.text?.({ Key: 'bafkreibmlvvgdyihetgocpof6xk64kjjzdeq2e4c7hqs3krdheosk4tgj4', Size: 12 }, { path: [], args: [], options: {} as never }))
        .to.equal('Key: bafkreibmlvvgdyihetgocpof6xk64kjjzdeq2e4c7hqs3krdheosk4tgj4\nSize: 12\n')
    })

    it('encodes the key with --cid-base', async () => {
      const [row] = await put('Hello Mars!\n')
      const out = await node.invoke('block/stat', { args: [row.Key], options: { 'cid-base': 'base58btc' } })
      expect(out.Key).to.equal(CID.parse(row.Key).toString(await import('multiformats/bases/base58').then(m => m.base58btc)))
    })

    it('fails offline on a missing block with Kubo\'s text', async () => {
      await rejects(node.invoke('block/get', { args: [MISSING] }), `block was not found locally (offline): ipld: could not find ${MISSING}`)
      await rejects(node.invoke('block/stat', { args: [MISSING] }), `block was not found locally (offline): ipld: could not find ${MISSING}`)
    })

    it('returns the t0046 identity CID\'s content', async () => {
      const out = await node.invoke('block/get', { args: ['bafkqaedknncdsodknncdsnzvnbvuioak'] })
      expect(Buffer.from(out).toString()).to.equal('jkD98jkD975hkD8\n')
      await node.container.cradle.pins.pinRecursive(CID.parse('bafkqaedknncdsodknncdsnzvnbvuioak'))
      expect(await node.invoke('block/stat', { args: ['bafkqaedknncdsodknncdsnzvnbvuioak'] })).to.deep.equal({ Key: 'bafkqaedknncdsodknncdsnzvnbvuioak', Size: 16 })
    })

    it('returns an identity block without storing it', async () => {
      const data = hex('a16461736466190144')
      const cid = CID.createV1(0x71, identity.digest(data))
      expect(Buffer.from(await node.invoke('block/get', { args: [cid.toString()] }))).to.deep.equal(Buffer.from(data))
    })

    it('rejects a bad argument as a path', async () => {
      await rejects(node.invoke('block/get', { args: ['invalid'] }), 'invalid path "invalid": path does not have enough components')
      await rejects(node.invoke('block/stat', { args: ['/ipfs/nope'] }), /^invalid path "\/ipfs\/nope": /)
    })
  })

  describe('rm', () => {
    const collectCli = async (rows: BlockRmOutput[]): Promise<{ out: string, err: string, error?: string }> => {
      let out = ''
      let errText = ''
      const io = {
        stdout: { write: (s: string) => { out += s; return true } },
        stderr: { write: (s: string) => { errText += s; return true } },
        isTTY: false,
        cwd: '/'
      }
      const outcome: Outcome = { kind: 'ndjson', items: (async function * () { yield * rows })() }
      try {
        await blockRm.cliRender?.(outcome, { path: ['block', 'rm'], args: [], options: {} as never }, io as never)
        return { out, err: errText }
      } catch (e) {
        return { out, err: errText, error: (e as Error).message }
      }
    }

    it('reports missing blocks around a removed one (t0050 mixed vector)', async () => {
      await put(TEST_LEAF, { format: 'v0' })
      const rows = await node.invoke('block/rm', { args: [MISSING, TEST_LEAF_CID, MISSING] })
      const missing = { Hash: MISSING, Error: `ipld: could not find ${MISSING}` }
      expect(rows).to.deep.equal([missing, { Hash: TEST_LEAF_CID }, missing])
      const cli = await collectCli(rows)
      expect(cli.out).to.equal(`removed ${TEST_LEAF_CID}\n`)
      expect(cli.err).to.equal(`cannot remove ${MISSING}: ipld: could not find ${MISSING}\n`.repeat(2))
      expect(cli.error).to.equal('some blocks not removed')
      await rejects(node.invoke('block/stat', { args: [TEST_LEAF_CID] }), `block was not found locally (offline): ipld: could not find ${TEST_LEAF_CID}`)
    })

    it('ignores missing blocks with --force and prints nothing with --quiet', async () => {
      expect(await node.invoke('block/rm', { args: [MISSING], options: { force: true } })).to.deep.equal([{ Hash: MISSING }])
      const [row] = await put('quiet please')
      expect(await node.invoke('block/rm', { args: [row.Key], options: { q: true } })).to.deep.equal([])
      expect(await node.container.cradle.blockstore.has(CID.parse(row.Key))).to.equal(false)
      const cli = await collectCli([{ Hash: MISSING }])
      expect(cli).to.deep.equal({ out: `removed ${MISSING}\n`, err: '' })
    })

    it('refuses pinned blocks with boxo\'s reasons', async () => {
      const pins = node.container.cradle.pins
      const [rec] = await put('recursively pinned', { pin: true })
      const [dir] = await put('directly pinned')
      await pins.pinDirect(CID.parse(dir.Key))
      // a dag-pb parent pinned recursively makes its child indirect
      const [child] = await put('child block')
      const parentBytes = dagPb.encode({ Links: [{ Hash: CID.parse(child.Key), Name: 'c', Tsize: 11 }] })
      const parent = CID.createV1(0x70, await sha256.digest(parentBytes))
      await node.container.cradle.blockstore.put(parent, parentBytes)
      await pins.pinRecursive(parent)
      const rows = await node.invoke('block/rm', { args: [rec.Key, dir.Key, child.Key] })
      expect(rows).to.deep.equal([
        { Hash: rec.Key, Error: 'pinned: recursive' },
        { Hash: dir.Key, Error: 'pinned: direct' },
        { Hash: child.Key, Error: `pinned via ${parent.toString()}` }
      ])
      expect(await node.container.cradle.blockstore.has(CID.parse(child.Key))).to.equal(true)
    })

    it('removes an identity CID as a no-op success', async () => {
      const cid = CID.createV1(0x55, identity.digest(text('id')))
      expect(await node.invoke('block/rm', { args: [cid.toString()] })).to.deep.equal([{ Hash: cid.toString() }])
    })

    it('aborts on an invalid argument', async () => {
      await rejects(node.invoke('block/rm', { args: ['INVALID CID'] }), 'invalid path "INVALID CID": path does not have enough components')
    })

    it('renders an aborted row and the default text encoding', async () => {
      expect((await collectCli([{ Error: 'boom' }])).error).to.equal('aborted: boom')
      expect(blockRm.text?.({ Hash: 'Qm1' }, { path: [], args: [], options: {} as never })).to.equal('&{Qm1 }')
    })
  })
})
