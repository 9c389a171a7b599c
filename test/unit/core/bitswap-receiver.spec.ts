import { expect } from 'chai'
import { FrameReader, type ReceivedBitswapMessage } from '../../../core/bitswap/receiver.js'
import { encodeMessage, type SendMessage } from '../../../core/bitswap/sender.js'

const block = (fill: number, size: number): { prefix: Uint8Array, data: Uint8Array } => ({ prefix: Uint8Array.of(1, 0x55, 0x12, 0x20), data: new Uint8Array(size).fill(fill) })

/** the bytes of frames, cut into pieces of `size` (the last shorter) */
function pieces (frames: Uint8Array[], size: number): Uint8Array[] {
  const all = Buffer.concat(frames)
  const out: Uint8Array[] = []
  for (let i = 0; i < all.length; i += size) out.push(Uint8Array.from(all.subarray(i, i + size)))
  return out
}

/** bytes as plain Uint8Arrays (copies are Buffers, as @helia/bitswap's decoder gave) */
const plain = (v: unknown): unknown => v instanceof Uint8Array ? Uint8Array.from(v) : Array.isArray(v) ? v.map(plain) : v != null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v

function readAll (chunks: Uint8Array[], max = 4 * 1024 * 1024): ReceivedBitswapMessage[] {
  const reader = new FrameReader(max)
  const out: ReceivedBitswapMessage[] = []
  for (const c of chunks) {
    reader.push(c)
    for (let m = reader.next(); m != null; m = reader.next()) out.push(m)
  }
  expect(reader.length).to.equal(0)
  return out
}

describe('core/bitswap receiver: message decoding', () => {
  const msg: SendMessage = {
    full: true,
    pendingBytes: 1234,
    wantlist: new Map([
      ['a', { cid: Uint8Array.of(1, 2, 3), priority: 5, cancel: false, wantType: 'WantHave', sendDontHave: true }],
      ['b', { cid: Uint8Array.of(4, 5), priority: 300, cancel: true, wantType: 'WantBlock', sendDontHave: false }]
    ]),
    blockPresences: new Map([['p', { cid: Uint8Array.of(9, 9), type: 'DoNotHaveBlock' }], ['q', { cid: Uint8Array.of(8), type: 'HaveBlock' }]]),
    blocks: new Map([['x', block(7, 100)], ['y', block(3, 300_000)]])
  }
  const expected = {
    wantlist: {
      full: true,
      entries: [
        { cid: Uint8Array.of(1, 2, 3), priority: 5, cancel: false, wantType: 'WantHave', sendDontHave: true },
        { cid: Uint8Array.of(4, 5), priority: 300, cancel: true, wantType: 'WantBlock', sendDontHave: false }
      ]
    },
    blocks: [block(7, 100), block(3, 300_000)],
    blockPresences: [{ cid: Uint8Array.of(9, 9), type: 'DoNotHaveBlock' }, { cid: Uint8Array.of(8), type: 'HaveBlock' }],
    pendingBytes: 1234
  }

  for (const size of [1, 7, 16384, 1 << 20]) {
    it(`decodes wants, presences, blocks and pending bytes from chunks of ${size} bytes`, () => {
      const frames = encodeMessage(msg).map(f => f.subarray())
      const got = readAll(pieces([...frames, ...frames], size))
      expect(got).to.have.length(2)
      for (const m of got) expect(plain(m)).to.deep.equal(plain(expected))
    })
  }

  it('keeps a block in one chunk as a view and copies a block over several', () => {
    const frame = encodeMessage({ wantlist: new Map(), blockPresences: new Map(), blocks: new Map([['x', block(1, 1000)]]) })[0].subarray()
    const [one] = readAll([frame])
    expect(one.blocks[0].data.buffer).to.equal(frame.buffer)
    const [two] = readAll(pieces([frame], 300))
    expect(Uint8Array.from(two.blocks[0].data)).to.deep.equal(new Uint8Array(1000).fill(1))
  })

  it('waits for the rest of a message, and refuses one over the limit', () => {
    const frame = encodeMessage({ wantlist: new Map(), blockPresences: new Map(), blocks: new Map([['x', block(1, 5000)]]) })[0].subarray()
    const reader = new FrameReader(4096)
    reader.push(frame.subarray(0, 2))
    expect(() => reader.next()).to.throw(/over the 4096 byte limit/)
    const ok = new FrameReader(1 << 20)
    ok.push(frame.subarray(0, 100))
    expect(ok.next()).to.equal(undefined)
    ok.push(frame.subarray(100))
    expect(ok.next()?.blocks[0].data.byteLength).to.equal(5000)
  })

  it('rejects a field running past its message', () => {
    // length 3: field 1 (wantlist) claiming 5 bytes
    const reader = new FrameReader(1024)
    reader.push(Uint8Array.of(3, 10, 5, 0))
    expect(() => reader.next()).to.throw(/beyond its message/)
  })

  it('reads zero-length fields at the end of what is held (an empty wantlist, block data, presence)', () => {
    const one = (bytes: number[]): ReceivedBitswapMessage | undefined => { const r = new FrameReader(1024); r.push(Uint8Array.from(bytes)); return r.next() }
    expect(one([2, 0x0a, 0x00])?.wantlist).to.deep.equal({ entries: [] })
    const b = one([6, 0x1a, 4, 0x0a, 0, 0x12, 0])?.blocks
    expect(b?.map(x => [x.prefix.byteLength, x.data.byteLength])).to.deep.equal([[0, 0]])
    expect(one([2, 0x22, 0])?.blockPresences).to.have.length(1)
  })

  it('skips unknown fixed-size fields inside a block, and refuses one past its message', () => {
    const r = new FrameReader(1024)
    // block { field 3 fixed32, field 4 fixed64, data = [9] }
    r.push(Uint8Array.of(19, 0x1a, 17, 0x1d, 1, 2, 3, 4, 0x21, 1, 2, 3, 4, 5, 6, 7, 8, 0x12, 1, 9))
    expect(Array.from(r.next()?.blocks[0].data ?? [])).to.deep.equal([9])
    const bad = new FrameReader(1024)
    bad.push(Uint8Array.of(2, 0x09, 1))
    expect(() => bad.next()).to.throw(/beyond its message/)
  })

  it('reads pendingBytes as an int32 (a negative is a 10-byte varint)', () => {
    const r = new FrameReader(1024)
    r.push(Uint8Array.of(11, 0x28, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01))
    expect(r.next()?.pendingBytes).to.equal(-2)
  })
})
