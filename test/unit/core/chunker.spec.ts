import { expect } from 'chai'
import { importer as jsImporter, type ImporterOptions } from 'ipfs-unixfs-importer'
import { balanced as jsBalanced, trickle as jsTrickle } from 'ipfs-unixfs-importer/layout'
import { MemoryBlockstore } from 'blockstore-core'
import type { CID } from 'multiformats/cid'
import { parseChunker, type Chunker } from '../../../core/unixfs/chunker/index.js'
import { CHUNK_FRAME, encodeDataBlock, DataType } from '../../../core/unixfs/pb.js'
import { addBytes, chachaBytes } from './unixfs-helpers.js'

async function * pieces (data: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size)
}

async function chunks (chunker: Chunker, data: Uint8Array, piece = 65536): Promise<Uint8Array[]> {
  const out: Uint8Array[] = []
  for await (const c of chunker(pieces(data, piece))) out.push(c)
  expect(Buffer.concat(out).equals(Buffer.from(data)), 'chunks reassemble the input').to.equal(true)
  return out
}

const lengths = async (spec: string, data: Uint8Array, piece?: number): Promise<number[]> =>
  (await chunks(parseChunker(spec), data, piece)).map(c => c.length)

const errorOf = (spec: string): string => {
  try { parseChunker(spec) } catch (e) { return (e as Error).message }
  return 'no error'
}

/** ipfs-unixfs-importer with our chunker: an independent DAG layout for the same chunks */
async function jsImport (data: Uint8Array, options: ImporterOptions): Promise<string> {
  const bs = new MemoryBlockstore()
  let last: CID | undefined
  for await (const r of jsImporter([{ path: 'f', content: data }], bs, options)) last = r.cid
  return (last as CID).toString()
}

describe('core/unixfs chunkers', function () {
  this.timeout(60_000)

  describe('parseChunker (boxo chunker/parse.go)', () => {
    it('accepts Kubo’s specs', () => {
      for (const spec of ['', 'default', 'size-1', 'size-+5', 'size-2096896', 'rabin', 'rabin-1397930', 'rabin-16-32-64',
        'rabin-min:16-avg:32-max:64', 'rabin-16-avg:32-64', 'rabin-16-32-2096896', 'buzhash', 'buzhash-anything']) {
        expect(errorOf(spec), spec).to.equal('no error')
      }
    })

    it('rejects with Kubo’s error strings', () => {
      const cases: Array<[string, string]> = [
        ['foo', 'unrecognized chunker option: foo'],
        ['Size-10', 'unrecognized chunker option: Size-10'],
        ['size', 'incorrect chunker string format (expected size-{size})'],
        ['size-1-2', 'incorrect chunker string format (expected size-{size})'],
        ['size-', 'strconv.Atoi: parsing "": invalid syntax'],
        ['size-abc', 'strconv.Atoi: parsing "abc": invalid syntax'],
        ['size-1.5', 'strconv.Atoi: parsing "1.5": invalid syntax'],
        ['size-99999999999999999999', 'strconv.Atoi: parsing "99999999999999999999": value out of range'],
        ['size-0', 'chunker size must be greater than 0'],
        ['size-2096897', 'chunker parameters may not exceed the maximum chunk size of 2096896'],
        ['rabin-1398102', 'chunker parameters may not exceed the maximum chunk size of 2096896'],
        ['rabin-x', 'strconv.Atoi: parsing "x": invalid syntax'],
        ['rabin-1-2', "incorrect format (expected 'rabin' 'rabin-[avg]' or 'rabin-[min]-[avg]-[max]'"],
        ['rabin-1-2-3-4', "incorrect format (expected 'rabin' 'rabin-[avg]' or 'rabin-[min]-[avg]-[max]'"],
        ['rabin-15-32-64', 'rabin min must be greater than 16'],
        ['rabin-16-16-64', 'incorrect format: rabin-min must be smaller than rabin-avg'],
        ['rabin-16-64-64', 'incorrect format: rabin-avg must be smaller than rabin-max'],
        ['rabin-16-32-2096897', 'chunker parameters may not exceed the maximum chunk size of 2096896'],
        ['rabin-x:16-32-64', 'first label must be min'],
        ['rabin-16-x:32-64', 'second label must be avg'],
        ['rabin-16-32-x:64', 'final label must be max'],
        ['rabin-min:x-32-64', 'strconv.Atoi: parsing "x": invalid syntax']
      ]
      for (const [spec, msg] of cases) expect(errorOf(spec), spec).to.equal(msg)
    })
  })

  describe('fixed size', () => {
    it('cuts exact sizes and a short last chunk, whatever the input pieces', async () => {
      const data = chachaBytes('fixed', 10_000)
      for (const piece of [1, 999, 1000, 1001, 4096, 10_000]) {
        expect(await lengths('size-1000', data, piece), `pieces of ${piece}`).to.deep.equal([...Array(10).fill(1000)])
        expect(await lengths('size-3000', data, piece)).to.deep.equal([3000, 3000, 3000, 1000])
      }
      expect(await lengths('size-1000', new Uint8Array(0))).to.deep.equal([])
    })

    it('does not copy chunks that lie inside one input piece', async () => {
      const data = chachaBytes('nocopy', 8192)
      const out = await chunks(parseChunker('size-1024'), data, 4096)
      for (const c of out) expect(c.buffer).to.equal(data.buffer)
      // a chunk spanning two pieces is assembled once
      const spanning = await chunks(parseChunker('size-3000'), data, 4096)
      expect(spanning[1].buffer).to.not.equal(data.buffer)
    })

    it('costs a small file no chunk-size buffer', async () => {
      const data = chachaBytes('small', 1024)
      // in one piece: the piece itself
      const one = await chunks(parseChunker('default'), data, 4096)
      expect(one).to.have.length(1)
      expect(one[0].buffer).to.equal(data.buffer)
      // in several pieces: one buffer of the file's size (plus the room to frame it as a leaf in place)
      const three = await chunks(parseChunker('default'), data, 400)
      expect(three).to.have.length(1)
      expect(three[0].byteLength).to.equal(1024)
      expect(three[0].buffer.byteLength).to.equal(1024 + CHUNK_FRAME)
      // a full chunk assembled from pieces gets a buffer of exactly the chunk size; the short last
      // one, inside the last piece, is a view of it
      const big = chachaBytes('big', 300_000)
      const cut = await chunks(parseChunker('size-262144'), big, 65536)
      expect(cut.map(c => c.buffer.byteLength)).to.deep.equal([262144 + CHUNK_FRAME, 300_000])
    })

    it('an assembled chunk becomes its dag-pb leaf in place, once; other data is copied', async () => {
      const big = chachaBytes('frame', 300_000)
      const [first, last] = await chunks(parseChunker('size-262144'), big, 65536)
      const copy = Uint8Array.from(first)
      const leaf = { type: DataType.File, fileSize: first.length, mode: 0o644, mtime: { secs: 1700000000, nsecs: 5 } }
      // the same bytes as a block encoded from a copy, in the chunk's own buffer
      const want = encodeDataBlock({ ...leaf, data: copy })
      expect(want.buffer).to.not.equal(copy.buffer)
      const block = encodeDataBlock({ ...leaf, data: first })
      expect(Buffer.from(block).equals(Buffer.from(want))).to.equal(true)
      expect(block.buffer).to.equal(first.buffer)
      expect(Buffer.from(first).equals(Buffer.from(copy))).to.equal(true)
      // a second encoding of the same chunk does not write over the first block
      const again = encodeDataBlock({ type: DataType.Raw, data: first })
      expect(again.buffer).to.not.equal(first.buffer)
      expect(Buffer.from(block).equals(Buffer.from(want))).to.equal(true)
      // a view of the input (not assembled) is copied, its neighbours untouched
      const before = Buffer.from(big)
      const leafOfView = encodeDataBlock({ type: DataType.File, data: last, fileSize: last.length })
      expect(leafOfView.buffer).to.not.equal(big.buffer)
      expect(Buffer.from(big).equals(before)).to.equal(true)
    })
  })

  describe('rabin (whyrusleeping/chunker, polynomial 0x3DF305DFB2A805, window 16)', () => {
    // chunk lengths from a direct C port of whyrusleeping/chunker over the ChaCha20 streams
    it('default rabin (avg 256 KiB) over 2 MiB', async () => {
      const data = chachaBytes('chunker-rabin', 2097152)
      const want = [254901, 217698, 356508, 379725, 139305, 393216, 355799]
      expect(await lengths('rabin', data)).to.deep.equal(want)
      expect(await lengths('rabin-262144', data, 777)).to.deep.equal(want)
      expect(await lengths('rabin-87381-262144-393216', data, 1 << 20)).to.deep.equal(want)
    })

    it('rabin-512-1024-2048 over 20000 bytes, any input piece size', async () => {
      const data = chachaBytes('chunker-rabin-small', 20000)
      const want = [2048, 1226, 1165, 1285, 711, 2048, 641, 610, 1028, 928, 1324, 2048, 694, 1406, 1581, 728, 529]
      for (const piece of [1, 15, 16, 17, 511, 512, 4096, 20000]) expect(await lengths('rabin-512-1024-2048', data, piece), `pieces of ${piece}`).to.deep.equal(want)
    })

    it('labelled rabin-min:100-avg:1000-max:3000 over 50000 bytes', async () => {
      const data = chachaBytes('chunker-rabin-labels', 50000)
      expect(await lengths('rabin-min:100-avg:1000-max:3000', data, 333)).to.deep.equal([
        304, 1707, 552, 462, 104, 754, 304, 1598, 279, 151, 184, 708, 168, 122, 544, 453, 453, 1030, 1328, 1499, 270, 202,
        399, 590, 1289, 212, 1745, 1628, 394, 304, 192, 324, 1281, 350, 356, 681, 1531, 175, 442, 141, 394, 100, 399, 353,
        351, 588, 107, 647, 181, 650, 1106, 106, 102, 1042, 589, 243, 1758, 600, 117, 514, 693, 246, 1098, 502, 487, 647,
        2348, 1176, 3000, 474, 670, 209, 651, 720, 385, 345, 489, 470, 233
      ])
    })

    it('rabin-AVG with avg/3 < 16 never cuts (boxo’s unsigned underflow)', async () => {
      expect(await lengths('rabin-40', chachaBytes('x', 5000), 100)).to.deep.equal([5000])
    })

    it('multi-chunk rabin files: CIDs, and the same DAG as ipfs-unixfs-importer over the same chunks', async () => {
      const data = chachaBytes('chunker-rabin', 2097152)
      expect(await addBytes(data, { chunker: 'rabin' })).to.equal('QmNsuNbAzCLD717igYH4pBbERqqYAXSypHBU3fPA5avaiy')
      expect(await addBytes(data, { chunker: 'rabin', cidVersion: 1 })).to.equal('bafybeicmwnlptdtwco5kvqiakmwfzdocsdw2zt37rd6jpm44eie5j5rp3a')
      expect(await addBytes(data, { chunker: 'rabin', trickle: true })).to.equal('QmQ6XfveqCNxGq96ruGYEjCXn3w1vK9cfvDohyS8irPfAn')
      expect(await jsImport(data, { chunker: parseChunker('rabin'), cidVersion: 0, rawLeaves: false }))
        .to.equal('QmNsuNbAzCLD717igYH4pBbERqqYAXSypHBU3fPA5avaiy')
      expect(await jsImport(data, { chunker: parseChunker('rabin'), cidVersion: 1, rawLeaves: true }))
        .to.equal('bafybeicmwnlptdtwco5kvqiakmwfzdocsdw2zt37rd6jpm44eie5j5rp3a')
      expect(await jsImport(data, { chunker: parseChunker('rabin'), cidVersion: 0, rawLeaves: false, leafType: 'raw', reduceSingleLeafToSelf: false, layout: jsTrickle() }))
        .to.equal('QmQ6XfveqCNxGq96ruGYEjCXn3w1vK9cfvDohyS8irPfAn')
      const small = chachaBytes('chunker-rabin-small', 20000)
      expect(await addBytes(small, { chunker: 'rabin-512-1024-2048', maxFileLinks: 4 })).to.equal('QmYYJfqhKkY6SeqNBfNSw26oHqgjPXRQotHT1vhenasKf1')
      expect(await jsImport(small, { chunker: parseChunker('rabin-512-1024-2048'), cidVersion: 0, rawLeaves: false, layout: jsBalanced({ maxChildrenPerNode: 4 }) }))
        .to.equal('QmYYJfqhKkY6SeqNBfNSw26oHqgjPXRQotHT1vhenasKf1')
      expect(await addBytes(small, { chunker: 'rabin-512-1024-2048', maxFileLinks: 4, trickle: true })).to.equal('QmUz5ucwPFHGQ22n5aQRSSbDcavb8Nobytx3netgYayXax')
      expect(await jsImport(small, { chunker: parseChunker('rabin-512-1024-2048'), cidVersion: 0, rawLeaves: false, leafType: 'raw', reduceSingleLeafToSelf: false, layout: jsTrickle({ maxChildrenPerNode: 4 }) }))
        .to.equal('QmUz5ucwPFHGQ22n5aQRSSbDcavb8Nobytx3netgYayXax')
    })
  })

  describe('buzhash (boxo chunker/buzhash.go)', () => {
    it('min 128 KiB, max 512 KiB; lengths over 3 MiB (C port of boxo)', async () => {
      const data = chachaBytes('chunker-buzhash', 3145728)
      const want = [395796, 194906, 131155, 419543, 139309, 140640, 160093, 292049, 302007, 524288, 314138, 131804]
      for (const piece of [1000, 65536, 1 << 20]) expect(await lengths('buzhash', data, piece)).to.deep.equal(want)
    })

    it('less than 128 KiB is one chunk; all-zero input cuts at the minimum', async () => {
      expect(await lengths('buzhash', chachaBytes('b', 131071))).to.deep.equal([131071])
      // 32 rotations of bytehash[0] XOR to 0: every window of zeros is a cut point (C port agrees)
      expect(await lengths('buzhash', new Uint8Array(1_200_000))).to.deep.equal([...Array(9).fill(131072), 20352])
    })

    it('multi-chunk buzhash files: CIDs, and the same DAG as ipfs-unixfs-importer over the same chunks', async () => {
      const data = chachaBytes('chunker-buzhash', 3145728)
      expect(await addBytes(data, { chunker: 'buzhash' })).to.equal('QmUTWHcEKhenDv81LBZ7xFDmi6iUx7wEM6Xg5hU9Yrxrh5')
      expect(await addBytes(data, { chunker: 'buzhash', cidVersion: 1 })).to.equal('bafybeig3fhfnkxklvxciyffze7qs4vq55kmnmtbx4ujgm2vl5ailcdnbkm')
      expect(await addBytes(data, { chunker: 'buzhash', trickle: true })).to.equal('QmNkppTr3BsDPCEZC74P6iCdESZ6X4jm8LTnXXxKw6AwA9')
      expect(await jsImport(data, { chunker: parseChunker('buzhash'), cidVersion: 0, rawLeaves: false })).to.equal('QmUTWHcEKhenDv81LBZ7xFDmi6iUx7wEM6Xg5hU9Yrxrh5')
      expect(await jsImport(data, { chunker: parseChunker('buzhash'), cidVersion: 1, rawLeaves: true })).to.equal('bafybeig3fhfnkxklvxciyffze7qs4vq55kmnmtbx4ujgm2vl5ailcdnbkm')
      expect(await jsImport(data, { chunker: parseChunker('buzhash'), cidVersion: 0, rawLeaves: false, leafType: 'raw', reduceSingleLeafToSelf: false, layout: jsTrickle() }))
        .to.equal('QmNkppTr3BsDPCEZC74P6iCdESZ6X4jm8LTnXXxKw6AwA9')
    })
  })
})
