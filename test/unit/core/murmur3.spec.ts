// core/unixfs/murmur3.ts must give the HAMT hash @multiformats/murmur3's murmur364 gives (boxo's
// murmur3 x64_128, first 64 bits): every length around the 8- and 16-byte block edges, many inputs.
import { expect } from 'chai'
import { murmur364 } from '@multiformats/murmur3'
import { murmur3x64_64 } from '../../../core/unixfs/murmur3.js'

/** deterministic pseudo-random bytes (xorshift32) */
function bytesOf (seed: number, length: number): Uint8Array {
  const out = new Uint8Array(length)
  let x = seed * 2654435761 >>> 0 || 1
  for (let i = 0; i < length; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0
    out[i] = x & 0xff
  }
  return out
}

function reference (data: Uint8Array): string {
  const d = murmur364.digest(data)
  if (d instanceof Promise) throw new Error('unexpectedly async')
  return Buffer.from(d.digest).toString('hex')
}

describe('murmur3 x64 64 (HAMT name hash)', () => {
  it('equals @multiformats/murmur3 for every length 0..300 (several inputs each)', () => {
    for (let len = 0; len <= 300; len++) {
      for (let seed = 1; seed <= 8; seed++) {
        const data = bytesOf(len * 31 + seed, len)
        expect(Buffer.from(murmur3x64_64(data)).toString('hex'), `length ${len} seed ${seed}`).to.equal(reference(data))
      }
    }
  })

  it('equals it for all-0xff and all-zero inputs and UTF-8 names', () => {
    for (const len of [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 1000]) {
      for (const fill of [0x00, 0xff, 0x80]) {
        const data = new Uint8Array(len).fill(fill)
        expect(Buffer.from(murmur3x64_64(data)).toString('hex')).to.equal(reference(data))
      }
    }
    for (const name of ['f00001.bin', 'ünïcødé-名前', '', 'a'.repeat(255)]) {
      const data = Buffer.from(name)
      expect(Buffer.from(murmur3x64_64(data)).toString('hex')).to.equal(reference(data))
    }
  })
})
