import { expect } from 'chai'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { base58btc } from 'multiformats/bases/base58'
import { base32, base32upper } from 'multiformats/bases/base32'
import { base32UpperOf } from '../../../core/util/base32.js'
import { base32Of, base58btcOf, createCidEncoder } from '../../../core/cid-encoder.js'

describe('cid-encoder', () => {
  it('writes base58btc as multiformats does, leading zero bytes and odd lengths included', () => {
    const inputs: Uint8Array[] = [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(0, 0, 1), Uint8Array.of(1), Uint8Array.of(255),
      Uint8Array.of(0, 255, 255), Uint8Array.of(0, 0, 0, 0), Uint8Array.of(57), Uint8Array.of(58), Uint8Array.of(0, 58, 0)]
    let seed = 7
    const rand = (): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed }
    for (let len = 1; len < 300; len += 7) {
      const b = new Uint8Array(len)
      for (let i = 0; i < len; i++) b[i] = rand() & 255
      if (len % 3 === 0) b.fill(0, 0, Math.min(len, 3))
      inputs.push(b, b.map(() => 255))
    }
    for (const b of inputs) expect(base58btcOf(b), `bytes ${Buffer.from(b).toString('hex')}`).to.equal(base58btc.baseEncode(b))
  })

  it('writes multibase base32 (and base32upper, flatfs keys) as multiformats does, every length mod 5 and all-ones bytes included', () => {
    let seed = 11
    const rand = (): number => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed >> 8 }
    for (let len = 0; len < 300; len++) {
      const b = new Uint8Array(len)
      for (let i = 0; i < len; i++) b[i] = rand() & 255
      for (const x of [b, b.map(() => 255), b.map(() => 0)]) {
        expect(base32Of(x), `bytes ${Buffer.from(x).toString('hex')}`).to.equal(base32.encode(x))
        expect(base32UpperOf(x), `bytes ${Buffer.from(x).toString('hex')}`).to.equal(base32upper.baseEncode(x)) // flatfs keys
      }
    }
  })

  it('gives the same strings as CID.toString for CIDv0 and CIDv1, upgraded or in another base', async () => {
    const plain = createCidEncoder({})
    const upgraded = createCidEncoder({ upgradeCidv0InOutput: true })
    const b58 = createCidEncoder({ cidBase: 'base58btc' })
    for (let i = 0; i < 200; i++) {
      const v0 = CID.createV0(await sha256.digest(new TextEncoder().encode(`block ${i}`)))
      const v1 = CID.createV1(0x55, v0.multihash)
      expect(plain.encode(v0)).to.equal(v0.toString())
      expect(plain.encode(v1)).to.equal(v1.toString())
      expect(upgraded.encode(v0)).to.equal(v0.toV1().toString())
      expect(b58.encode(v0)).to.equal(v0.toString())
      expect(b58.encode(v1)).to.equal(v1.toString(base58btc))
      expect(createCidEncoder({ cidBase: 'base32' }).encode(v0)).to.equal(v0.toV1().toString())
      expect(createCidEncoder({ cidBase: 'b' }).encode(v1)).to.equal(v1.toString())
      const dagCbor = CID.createV1(0x71, v0.multihash)
      expect(plain.encode(dagCbor)).to.equal(dagCbor.toString())
    }
  })
})
