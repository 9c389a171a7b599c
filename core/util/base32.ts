// RFC 4648 base32 without padding, as multiformats' base32 / base32upper write it, made as one string from a
// scratch buffer: multiformats builds it a character at a time (~3 KB of garbage and ~5 µs for a CID under
// load). Used for CIDv1 strings and flatfs block keys (every block read and write).
const LOWER = Buffer.from('abcdefghijklmnopqrstuvwxyz234567', 'latin1')
const UPPER = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 'latin1')
let scratch = Buffer.allocUnsafeSlow(128)

function encode (bytes: Uint8Array, alphabet: Buffer, prefix: number): string {
  const n = 1 + Math.ceil(bytes.length * 8 / 5)
  if (n > scratch.length) scratch = Buffer.allocUnsafeSlow(n)
  const out = scratch
  let o = 0
  if (prefix >= 0) out[o++] = prefix
  let acc = 0
  let bits = 0
  for (let i = 0; i < bytes.length; i++) {
    acc = ((acc << 8) | bytes[i]) & 0xfff
    bits += 8
    while (bits >= 5) {
      bits -= 5
      out[o++] = alphabet[(acc >>> bits) & 31]
    }
  }
  if (bits > 0) out[o++] = alphabet[(acc << (5 - bits)) & 31]
  return out.toString('latin1', 0, o)
}

/** multibase base32 ('b' and lower case): a CIDv1's default string */
export const base32Multibase = (bytes: Uint8Array): string => encode(bytes, LOWER, 0x62)

/** base32upper.baseEncode: upper case, no prefix (flatfs block keys) */
export const base32UpperOf = (bytes: Uint8Array): string => encode(bytes, UPPER, -1)

/** base32.baseEncode: lower case, no prefix (js kad-dht's record keys: uint8arrays toString(…, 'base32')) */
export const base32LowerOf = (bytes: Uint8Array): string => encode(bytes, LOWER, -1)
