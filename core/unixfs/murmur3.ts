// murmur3 x64_128 (seed 0), first 64 bits, big-endian: the HAMT hash of a UnixFS directory entry
// name (UnixFS hashType 0x22), as @multiformats/murmur3's murmur364 computes it. That one works
// on arrays of 16-bit limbs and allocates several arrays per round: hashing the names of a 10,000-
// entry directory allocated ~33 MB (an eighth of what adding 10,000 small files allocates). This one
// keeps the 64-bit values as pairs of 32-bit numbers in locals and allocates only the result.

// the last 64-bit result, as high and low 32 bits
let rh = 0
let rl = 0

/** (ah:al) * (bh:bl) mod 2^64 into rh:rl (16-bit limbs, every partial sum below 2^32) */
function mul (ah: number, al: number, bh: number, bl: number): void {
  const a48 = ah >>> 16; const a32 = ah & 0xffff; const a16 = al >>> 16; const a00 = al & 0xffff
  const b48 = bh >>> 16; const b32 = bh & 0xffff; const b16 = bl >>> 16; const b00 = bl & 0xffff
  let c00 = a00 * b00
  let c16 = c00 >>> 16
  c00 &= 0xffff
  c16 += a16 * b00
  let c32 = c16 >>> 16
  c16 &= 0xffff
  c16 += a00 * b16
  c32 += c16 >>> 16
  c16 &= 0xffff
  c32 += a32 * b00
  let c48 = c32 >>> 16
  c32 &= 0xffff
  c32 += a16 * b16
  c48 += c32 >>> 16
  c32 &= 0xffff
  c32 += a00 * b32
  c48 += c32 >>> 16
  c32 &= 0xffff
  c48 += a48 * b00 + a32 * b16 + a16 * b32 + a00 * b48
  c48 &= 0xffff
  rh = ((c48 << 16) | c32) >>> 0
  rl = ((c16 << 16) | c00) >>> 0
}

/** rotate (h:l) left by r bits (0 < r < 64) into rh:rl */
function rotl (h: number, l: number, r: number): void {
  if (r >= 32) { const t = h; h = l; l = t; r -= 32 }
  if (r === 0) { rh = h >>> 0; rl = l >>> 0; return }
  rh = ((h << r) | (l >>> (32 - r))) >>> 0
  rl = ((l << r) | (h >>> (32 - r))) >>> 0
}

/** (ah:al) + (bh:bl) mod 2^64 into rh:rl */
function add (ah: number, al: number, bh: number, bl: number): void {
  const lo = al + bl
  rl = lo >>> 0
  rh = (ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0
}

/** fmix64 of (h:l) into rh:rl */
function fmix (h: number, l: number): void {
  l = (l ^ (h >>> 1)) >>> 0
  mul(h, l, 0xff51afd7, 0xed558ccd)
  h = rh; l = rl
  l = (l ^ (h >>> 1)) >>> 0
  mul(h, l, 0xc4ceb9fe, 0x1a85ec53)
  h = rh; l = rl
  rl = (l ^ (h >>> 1)) >>> 0
  rh = h
}

const C1H = 0x87c37b91
const C1L = 0x114253d5
const C2H = 0x4cf5ad43
const C2L = 0x2745937f

const u32 = (b: Uint8Array, i: number): number => (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0

/** murmur3 x64_128 of `data` with seed 0: its first 8 bytes (h1, big-endian). */
export function murmur3x64_64 (data: Uint8Array): Uint8Array {
  const len = data.length
  let h1h = 0; let h1l = 0; let h2h = 0; let h2l = 0
  const blocks = len - (len % 16)
  for (let i = 0; i < blocks; i += 16) {
    // k1, k2: little-endian 64-bit words
    mul(u32(data, i + 4), u32(data, i), C1H, C1L)
    rotl(rh, rl, 31)
    mul(rh, rl, C2H, C2L)
    h1h = (h1h ^ rh) >>> 0; h1l = (h1l ^ rl) >>> 0
    rotl(h1h, h1l, 27)
    add(rh, rl, h2h, h2l)
    mul(rh, rl, 0, 5)
    add(rh, rl, 0, 0x52dce729)
    h1h = rh; h1l = rl

    mul(u32(data, i + 12), u32(data, i + 8), C2H, C2L)
    rotl(rh, rl, 33)
    mul(rh, rl, C1H, C1L)
    h2h = (h2h ^ rh) >>> 0; h2l = (h2l ^ rl) >>> 0
    rotl(h2h, h2l, 31)
    add(rh, rl, h1h, h1l)
    mul(rh, rl, 0, 5)
    add(rh, rl, 0, 0x38495ab5)
    h2h = rh; h2l = rl
  }
  const rest = len - blocks
  if (rest > 8) {
    // k2 from tail bytes 8..14
    let kh = 0; let kl = 0
    for (let j = rest - 1; j >= 8; j--) {
      const byte = data[blocks + j]
      const s = (j - 8) * 8
      if (s >= 32) kh = (kh | (byte << (s - 32))) >>> 0
      else kl = (kl | (byte << s)) >>> 0
    }
    mul(kh, kl, C2H, C2L)
    rotl(rh, rl, 33)
    mul(rh, rl, C1H, C1L)
    h2h = (h2h ^ rh) >>> 0; h2l = (h2l ^ rl) >>> 0
  }
  if (rest > 0) {
    let kh = 0; let kl = 0
    for (let j = Math.min(rest, 8) - 1; j >= 0; j--) {
      const byte = data[blocks + j]
      const s = j * 8
      if (s >= 32) kh = (kh | (byte << (s - 32))) >>> 0
      else kl = (kl | (byte << s)) >>> 0
    }
    mul(kh, kl, C1H, C1L)
    rotl(rh, rl, 31)
    mul(rh, rl, C2H, C2L)
    h1h = (h1h ^ rh) >>> 0; h1l = (h1l ^ rl) >>> 0
  }
  // finalization (len < 2^32)
  h1l = (h1l ^ len) >>> 0
  h2l = (h2l ^ len) >>> 0
  add(h1h, h1l, h2h, h2l); h1h = rh; h1l = rl
  add(h2h, h2l, h1h, h1l); h2h = rh; h2l = rl
  fmix(h1h, h1l); h1h = rh; h1l = rl
  fmix(h2h, h2l); h2h = rh; h2l = rl
  add(h1h, h1l, h2h, h2l)
  const out = new Uint8Array(8)
  out[0] = rh >>> 24; out[1] = rh >>> 16; out[2] = rh >>> 8; out[3] = rh
  out[4] = rl >>> 24; out[5] = rl >>> 16; out[6] = rl >>> 8; out[7] = rl
  return out
}
