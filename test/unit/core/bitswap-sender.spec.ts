import { expect } from 'chai'
import { encodeMessage, MAX_MESSAGE_SIZE, type SendMessage } from '../../../core/bitswap/sender.js'

/** protobuf fields of a message: [field number, wire type, value (varint) or bytes] */
function fields (buf: Uint8Array): Array<[number, number, number | Uint8Array]> {
  const out: Array<[number, number, number | Uint8Array]> = []
  let pos = 0
  const varint = (): number => {
    let v = 0
    let shift = 0
    for (;;) {
      const b = buf[pos++]
      v += (b & 0x7f) * 2 ** shift
      if ((b & 0x80) === 0) return v
      shift += 7
    }
  }
  while (pos < buf.length) {
    const tag = varint()
    if ((tag & 7) === 0) out.push([tag >>> 3, 0, varint()])
    else if ((tag & 7) === 2) { const n = varint(); out.push([tag >>> 3, 2, buf.subarray(pos, pos + n)]); pos += n } else throw new Error(`wire type ${tag & 7}`)
  }
  return out
}

/** the frame without its length prefix, checked against it */
function body (frame: Uint8Array): Uint8Array {
  let pos = 0
  let n = 0
  let shift = 0
  for (;;) {
    const b = frame[pos++]
    n += (b & 0x7f) * 2 ** shift
    if ((b & 0x80) === 0) break
    shift += 7
  }
  expect(frame.length - pos).to.equal(n)
  return frame.subarray(pos)
}

const block = (fill: number, size: number): { prefix: Uint8Array, data: Uint8Array } => ({ prefix: Uint8Array.of(1, 0x55, 0x12, 0x20), data: new Uint8Array(size).fill(fill) })

describe('core/bitswap sender: message encoding', () => {
  it('encodes wants, presences and blocks as bitswap 1.2.0 fields', () => {
    const msg: SendMessage = {
      full: true,
      wantlist: new Map([['a', { cid: Uint8Array.of(1, 2, 3), priority: 5, cancel: false, wantType: 'WantHave', sendDontHave: true }]]),
      blockPresences: new Map([['p', { cid: Uint8Array.of(9, 9), type: 'DoNotHaveBlock' }]]),
      blocks: new Map([['b', block(7, 100)]])
    }
    const frames = encodeMessage(msg)
    expect(frames).to.have.length(1)
    const top = fields(body(frames[0].subarray()))
    const wl = fields(top.find(f => f[0] === 1)?.[2] as Uint8Array)
    expect(wl.find(f => f[0] === 2)?.[2]).to.equal(1) // full
    const e = fields(wl.find(f => f[0] === 1)?.[2] as Uint8Array)
    expect(e).to.deep.equal([[1, 2, Uint8Array.of(1, 2, 3)], [2, 0, 5], [3, 0, 0], [4, 0, 1], [5, 0, 1]])
    const pr = fields(top.find(f => f[0] === 4)?.[2] as Uint8Array)
    expect(pr).to.deep.equal([[1, 2, Uint8Array.of(9, 9)], [2, 0, 1]])
    const b = fields(top.find(f => f[0] === 3)?.[2] as Uint8Array)
    expect(b[0]).to.deep.equal([1, 2, Uint8Array.of(1, 0x55, 0x12, 0x20)])
    expect(b[1][2]).to.deep.equal(new Uint8Array(100).fill(7))
  })

  it('splits blocks under the 4 MiB limit, sends their bytes as views, and a split list is not full', () => {
    const blocks = Array.from({ length: 40 }, (_, i) => block(i, 256 * 1024))
    const msg: SendMessage = {
      full: true,
      wantlist: new Map([['a', { cid: Uint8Array.of(1, 2, 3), wantType: 'WantBlock', cancel: false }]]),
      blockPresences: new Map(),
      blocks: new Map(blocks.map((b, i) => [String(i), b]))
    }
    const frames = encodeMessage(msg)
    expect(frames.length).to.be.greaterThan(2)
    const got: number[] = []
    for (const frame of frames) {
      expect(frame.byteLength).to.be.at.most(MAX_MESSAGE_SIZE)
      // the block bytes are the caller's arrays, not copies
      for (const chunk of frame) if (chunk.byteLength === 256 * 1024) expect(blocks.some(b => b.data === chunk)).to.equal(true)
      for (const [n, , v] of fields(body(frame.subarray()))) {
        if (n === 3) got.push((fields(v as Uint8Array)[1][2] as Uint8Array)[0])
        if (n === 1) expect(fields(v as Uint8Array).some(f => f[0] === 2)).to.equal(false)
      }
    }
    expect(got).to.deep.equal(blocks.map((_, i) => i))
  })

  it('an empty message is one empty frame', () => {
    const frames = encodeMessage({ wantlist: new Map(), blockPresences: new Map(), blocks: new Map() })
    expect(frames.map(f => f.subarray())).to.deep.equal([Uint8Array.of(0)])
  })
})
