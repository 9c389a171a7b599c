// How CIDs are written in output: --cid-base and --upgrade-cidv0-in-output (Kubo cmdenv/cidbase.go).
import { CID } from 'multiformats/cid'
import { RpcError } from './errors.js'
import { multibase } from './multibase.js'
import { base32Multibase } from './util/base32.js'

export interface CidEncoder {
  encode: (cid: CID) => string
}

export interface CidEncoderInit {
  cidBase?: string
  upgradeCidv0InOutput?: boolean
}

const B58 = Buffer.from('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', 'latin1')
/** 58^5: each limb holds five base58 digits */
const LIMB = 58 ** 5
const limbs = new Float64Array(64)
/** the digits, written from the end, then made one string (prepending to a string made one cons-string per digit) */
let chars = Buffer.allocUnsafeSlow(400)

/**
 * base58btc of `bytes` without the multibase prefix (a CIDv0's string), as multiformats writes it. Limbs of
 * 58^5 and two input bytes per step (exact in doubles): ~1.5 µs for a CIDv0 against ~4 µs for CID.toString,
 * which also keeps a Map per CID in a WeakMap (one per row of an add of many files).
 */
export function base58btcOf (bytes: Uint8Array): string {
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  const work = (bytes.length - zeros) > 200 ? new Float64Array(Math.ceil((bytes.length - zeros) / 3) + 2) : limbs
  let n = 0
  let i = zeros
  if (((bytes.length - i) & 1) === 1) {
    work[0] = bytes[i++]
    n = work[0] > 0 ? 1 : 0
  }
  for (; i < bytes.length; i += 2) {
    let carry = bytes[i] * 256 + bytes[i + 1]
    for (let j = 0; j < n; j++) {
      const x = work[j] * 65536 + carry
      carry = Math.floor(x / LIMB)
      work[j] = x - carry * LIMB
    }
    while (carry > 0) {
      const c = Math.floor(carry / LIMB)
      work[n++] = carry - c * LIMB
      carry = c
    }
  }
  const end = zeros + n * 5
  if (chars.length < end) chars = Buffer.allocUnsafeSlow(end)
  let p = end
  for (let j = 0; j < n; j++) {
    let d = work[j]
    for (let k = 0; k < 5; k++) {
      const q = Math.floor(d / 58)
      chars[--p] = B58[d - q * 58]
      d = q
    }
  }
  while (p < end && chars[p] === 49) p++
  for (let z = 0; z < zeros; z++) chars[--p] = 49
  return chars.toString('latin1', p, end)
}

/** multibase base32 of `bytes` (a CIDv1's string), as multiformats writes it */
export const base32Of = base32Multibase

/** a CID's default string (CIDv0: base58btc, CIDv1: base32) */
const defaultString = (cid: CID): string => cid.version === 0 ? base58btcOf(cid.bytes) : base32Of(cid.bytes)

export function createCidEncoder ({ cidBase, upgradeCidv0InOutput }: CidEncoderInit): CidEncoder {
  if (cidBase == null || cidBase === '') {
    return {
      encode: (cid) => defaultString(upgradeCidv0InOutput === true && cid.version === 0 ? cid.toV1() : cid)
    }
  }
  const base = multibase(cidBase)
  if (base == null) throw new RpcError(`unsupported multibase encoding: ${cidBase}`)
  // any base other than base58btc upgrades CIDv0 (it cannot be written in another base)
  const upgrade = upgradeCidv0InOutput ?? base.name !== 'base58btc'
  return {
    encode: (cid) => {
      const c = upgrade && cid.version === 0 ? cid.toV1() : cid
      return c.version === 0 ? base58btcOf(c.bytes) : base.name === 'base32' ? base32Of(c.bytes) : c.toString(base.encoder)
    }
  }
}

/** Parse a CID string in any multibase, with Kubo's error text. */
export function parseCid (text: string): CID {
  try {
    if (text.startsWith('Q') || text.startsWith('1')) return CID.parse(text)
    const base = multibase(String.fromCodePoint(text.codePointAt(0) ?? 0))
    if (base == null) throw new Error('selected encoding not supported')
    return CID.parse(text, base.decoder)
  } catch (err) {
    throw new RpcError(`invalid cid: ${(err as Error).message}`)
  }
}
