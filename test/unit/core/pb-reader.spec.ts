import { expect } from 'chai'
import { PbReader, type PbFault } from '../../../core/util/pb-reader.js'

class Reader extends PbReader {
  protected fail (fault: PbFault, wire?: number): Error { return new Error(`${fault}${wire === undefined ? '' : ` ${wire}`}`) }
}
const r = (...bytes: number[]): Reader => new Reader(Uint8Array.from(bytes))

describe('core/util/pb-reader', () => {
  it('reads varints up to 2^53, int32 and negative int64 as protobuf writes them', () => {
    expect(r(0x96, 0x01).varint()).to.equal(150)
    expect(r(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f).varint()).to.equal(2 ** 53 - 1)
    const minusOne = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
    expect(r(...minusOne).int32()).to.equal(-1)
    expect(r(...minusOne).int64()).to.equal(-1)
    expect(r(0x80, 0x80, 0x80, 0x80, 0xf8, 0xff, 0xff, 0xff, 0xff, 0x01).int64()).to.equal(-(2 ** 31))
    expect(r(0x01, 0x02, 0x03, 0x04).fixed32()).to.equal(0x04030201)
  })

  it('walks fields with length-delimited ones as views, skipping every wire type', () => {
    // 1: varint 7, 2: bytes "ab", 3: fixed64, 4: fixed32, 5: bytes "c"
    const buf = Uint8Array.of(0x08, 0x07, 0x12, 0x02, 0x61, 0x62, 0x19, 1, 2, 3, 4, 5, 6, 7, 8, 0x25, 1, 2, 3, 4, 0x2a, 0x01, 0x63)
    const seen: Array<[number, number]> = []
    let view: Uint8Array | undefined
    new Reader(buf).fields((field, wire, rd) => {
      seen.push([field, wire])
      if (field === 5) view = rd.bytes()
      else rd.skip(wire)
    })
    expect(seen).to.deep.equal([[1, 0], [2, 2], [3, 1], [4, 5], [5, 2]])
    expect(view?.buffer).to.equal(buf.buffer)
    expect(Buffer.from(view!).toString()).to.equal('c')
  })

  it('fails through the subclass: truncated and over-long varints, fields past the end, unknown wire types', () => {
    expect(() => r(0x80).varint()).to.throw('truncated')
    expect(() => r(...new Array(11).fill(0x80)).varint()).to.throw('too-long')
    expect(() => r(0x03, 0x61).bytes()).to.throw('beyond')
    expect(() => r(0x01, 0x02).fixed32()).to.throw('beyond')
    expect(() => r(0x01, 0x02).skip(1)).to.throw('beyond')
    expect(() => r(0x05, 0x00).skip(2)).to.throw('beyond')
    expect(() => r().skip(3)).to.throw('wire 3')
    const sub = new Reader(Uint8Array.of(0x08, 0x01, 0x08), 2)
    sub.fields((_f, w, rd) => rd.skip(w))
    expect(sub.pos).to.equal(2)
  })
})
