// Rabin fingerprint chunker, as boxo chunker/rabin.go over whyrusleeping/chunker: polynomial
// 0x3DF305DFB2A805 (degree 53), 16-byte window. The 53-bit digest is kept as two 32-bit halves.
import type { Chunker } from './types.js'

/** boxo IpfsRabinPoly */
export const IPFS_RABIN_POLY = 17437180132763653n
const WINDOW = 16

interface Tables {
  outHi: Int32Array
  outLo: Int32Array
  /** the reduction for the 8 bits shifted above the degree (only the part below the degree) */
  modHi: Int32Array
  modLo: Int32Array
  polShift: number
}

const deg = (x: bigint): number => x === 0n ? -1 : x.toString(2).length - 1

/** x mod pol over GF(2) (whyrusleeping/chunker Pol.Mod) */
function polMod (x: bigint, pol: bigint): bigint {
  const d = deg(pol)
  let diff = deg(x) - d
  while (diff >= 0) {
    x ^= pol << BigInt(diff)
    diff = deg(x) - d
  }
  return x
}

const cache = new Map<bigint, Tables>()

/** whyrusleeping/chunker fillTables: out_table[b] = H(b ‖ 0^15), mod_table[b] = b·x^k mod pol */
function tables (pol: bigint): Tables {
  let t = cache.get(pol)
  if (t != null) return t
  const k = deg(pol)
  const LO = 0xffffffffn
  t = {
    outHi: new Int32Array(256),
    outLo: new Int32Array(256),
    modHi: new Int32Array(256),
    modLo: new Int32Array(256),
    polShift: k - 8
  }
  for (let b = 0; b < 256; b++) {
    let h = polMod(BigInt(b), pol)
    for (let i = 0; i < WINDOW - 1; i++) h = polMod(h << 8n, pol)
    t.outHi[b] = Number(h >> 32n)
    t.outLo[b] = Number(h & LO) | 0
    const m = polMod(BigInt(b) << BigInt(k), pol)
    t.modHi[b] = Number(m >> 32n)
    t.modLo[b] = Number(m & LO) | 0
  }
  cache.set(pol, t)
  return t
}

/** Rolling state of one chunker instance. */
interface RabinState {
  window: Uint8Array
  wpos: number
  hi: number
  lo: number
}

interface RabinParams extends Tables {
  min: number
  max: number
  maskLo: number
  maskHi: number
  hiShift: number
  hiMask: number
}

function slide (s: RabinState, p: RabinParams, b: number): void {
  const out = s.window[s.wpos]
  s.window[s.wpos] = b
  const hi = s.hi ^ p.outHi[out]
  const lo = s.lo ^ p.outLo[out]
  s.wpos = (s.wpos + 1) & (WINDOW - 1)
  const index = hi >>> p.hiShift
  s.hi = (((hi << 8) | (lo >>> 24)) & p.hiMask) ^ p.modHi[index]
  s.lo = ((lo << 8) | b) ^ p.modLo[index]
}

/**
 * Feeds piece[pos..] to the rolling hash, the chunk having `count` bytes before `pos`.
 * Returns the index of the cut byte, or -1 if the piece ended without a cut.
 */
function scan (s: RabinState, p: RabinParams, piece: Uint8Array, pos: number, count: number): number {
  const window = s.window
  const { outHi, outLo, modHi, modLo, hiShift, hiMask, maskLo, maskHi, min, max } = p
  let { wpos, hi, lo } = s
  let add = count
  let cut = -1
  const len = piece.length
  for (let j = pos; j < len; j++) {
    const b = piece[j]
    const out = window[wpos]
    window[wpos] = b
    hi ^= outHi[out]
    lo ^= outLo[out]
    wpos = (wpos + 1) & (WINDOW - 1)
    const index = hi >>> hiShift
    hi = (((hi << 8) | (lo >>> 24)) & hiMask) ^ modHi[index]
    lo = ((lo << 8) | b) ^ modLo[index]
    add++
    if (add < min) continue
    if (((lo & maskLo) === 0 && (hi & maskHi) === 0) || add >= max) {
      cut = j
      break
    }
  }
  s.wpos = wpos
  s.hi = hi
  s.lo = lo
  return cut
}

/**
 * The rabin chunker with Kubo's semantics: each chunk starts with a zeroed window into which the
 * byte 1 is slid, its first `min - 16` bytes are not fed to the hash, and it is cut at the first
 * byte where its length is >= min and (digest & mask == 0 or length >= max),
 * mask = 2^floor(log2(avg)) - 1. A `min` below 16 never cuts (Go's uint64 underflow).
 */
export const rabin = (min: number, avg: number, max: number, pol: bigint = IPFS_RABIN_POLY): Chunker => {
  const t = tables(pol)
  const bits = avg >= 1 ? Math.floor(Math.log2(avg)) : 0
  const params: RabinParams = {
    ...t,
    min,
    max,
    maskLo: bits >= 32 ? -1 : ((2 ** bits) - 1) | 0,
    maskHi: bits > 32 ? (2 ** (bits - 32)) - 1 : 0,
    // polShift = 45: the top 8 bits of the 53-bit digest are bits 13..20 of the high half
    hiShift: t.polShift - 32,
    hiMask: 2 ** (deg(pol) - 32) - 1
  }
  const preStart = min >= WINDOW ? min - WINDOW : Infinity

  return async function * rabinChunker (source) {
    const s: RabinState = { window: new Uint8Array(WINDOW), wpos: 0, hi: 0, lo: 0 }
    let count = 0
    let pre = 0
    // pieces of the current chunk
    let parts: Uint8Array[] = []
    const reset = (): void => {
      s.window.fill(0)
      s.hi = 0
      s.lo = 0
      s.wpos = 0
      slide(s, params, 1)
      count = 0
      pre = preStart
    }
    const take = (): Uint8Array => {
      const out = parts.length === 1 ? parts[0] : Buffer.concat(parts, count)
      parts = []
      return out
    }

    reset()
    for await (const piece of source) {
      const len = piece.length
      let pos = 0
      while (pos < len) {
        if (pre > 0) {
          const n = Math.min(pre, len - pos)
          parts.push(piece.subarray(pos, pos + n))
          pre -= n
          count += n
          pos += n
          continue
        }
        const cut = scan(s, params, piece, pos, count)
        if (cut < 0) {
          parts.push(pos === 0 ? piece : piece.subarray(pos))
          count += len - pos
          pos = len
        } else {
          parts.push(piece.subarray(pos, cut + 1))
          count += cut + 1 - pos
          pos = cut + 1
          yield take()
          reset()
        }
      }
    }
    if (count > 0) yield take()
  }
}
