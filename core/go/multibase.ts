// Multibase as Kubo sees it (go-multibase v0.3.0): the 21 supported bases, EncoderByName, and
// decoders that accept and reject exactly what Go's decoders do, with Go's error text.
import { multibase } from '../multibase.js'
import { base256emoji } from 'multiformats/bases/base256emoji'
import { decodeRune, goQuote, goQuoteRune, goUnicode, runes } from './strings.js'

export interface MultibaseInfo {
  /** the prefix as a code point (Go's mbase.Encoding) */
  code: number
  name: string
}

const cp = (s: string): number => s.codePointAt(0) ?? 0

/** go-multibase EncodingToStr. */
export const MULTIBASES: readonly MultibaseInfo[] = [
  { code: 0x00, name: 'identity' },
  { code: cp('0'), name: 'base2' },
  { code: cp('f'), name: 'base16' },
  { code: cp('F'), name: 'base16upper' },
  { code: cp('b'), name: 'base32' },
  { code: cp('B'), name: 'base32upper' },
  { code: cp('c'), name: 'base32pad' },
  { code: cp('C'), name: 'base32padupper' },
  { code: cp('v'), name: 'base32hex' },
  { code: cp('V'), name: 'base32hexupper' },
  { code: cp('t'), name: 'base32hexpad' },
  { code: cp('T'), name: 'base32hexpadupper' },
  { code: cp('k'), name: 'base36' },
  { code: cp('K'), name: 'base36upper' },
  { code: cp('z'), name: 'base58btc' },
  { code: cp('Z'), name: 'base58flickr' },
  { code: cp('m'), name: 'base64' },
  { code: cp('u'), name: 'base64url' },
  { code: cp('M'), name: 'base64pad' },
  { code: cp('U'), name: 'base64urlpad' },
  { code: cp('🚀'), name: 'base256emoji' }
]

export const BASE58BTC = cp('z')
export const BASE32 = cp('b')
export const BASE36 = cp('k')

const nameByCode = new Map(MULTIBASES.map(b => [b.code, b.name]))
const codeByName = new Map(MULTIBASES.map(b => [b.name, b.code]))

/** The name of a supported base, or undefined. */
export function multibaseName (code: number): string | undefined {
  return nameByCode.get(code)
}

/** go-multibase EncoderByName: a name, or a single-character prefix. */
export function encoderByName (text: string): number {
  if (text === '') throw new Error('empty multibase encoding')
  const chars = Array.from(text)
  const code = chars.length === 1 ? cp(chars[0]) : codeByName.get(text)
  if (code === undefined || !nameByCode.has(code)) throw new Error(`unsupported multibase encoding: ${text}`)
  return code
}

/** go-multibase NewEncoder: checks that the base is supported. */
export function checkEncoding (code: number): number {
  if (!nameByCode.has(code)) throw new Error(`unsupported multibase encoding: ${code}`)
  return code
}

/** Encode with the multibase prefix, as bytes (identity output need not be UTF-8). */
export function encodeMultibase (code: number, data: Uint8Array): Uint8Array {
  if (code === 0x00) {
    const out = new Uint8Array(data.length + 1)
    out.set(data, 1)
    return out
  }
  const name = nameByCode.get(code)
  const codec = name !== undefined ? multibase(name) : undefined
  if (codec == null) throw new Error('selected encoding not supported')
  return new TextEncoder().encode(codec.encoder.encode(data))
}

/** Encode with the multibase prefix, as a string (Go's string of the same bytes). */
export function encodeMultibaseString (code: number, data: Uint8Array): string {
  return Buffer.from(encodeMultibase(code, data)).toString('utf8')
}

export interface Decoded {
  code: number
  data: Uint8Array
}

/** go-multibase Decode. Throws Error with Go's message. */
export function decodeMultibase (input: string | Uint8Array): Decoded {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input
  if (bytes.length === 0) throw new Error('cannot decode multibase for zero length string')
  const [code] = decodeRune(bytes, 0)
  const rest = bytes.subarray(1)
  const text = (): string => Buffer.from(rest).toString('latin1')
  switch (String.fromCodePoint(code)) {
    case '\x00': return { code, data: rest.slice() }
    case '0': return { code, data: decodeBase2(text()) }
    case 'f': case 'F': return { code, data: decodeHex(text()) }
    case 'b': case 'B': return { code, data: decodeBase32(text(), B32_STD, false) }
    case 'v': case 'V': return { code, data: decodeBase32(text(), B32_HEX, false) }
    case 'c': case 'C': return { code, data: decodeBase32(text(), B32_STD, true) }
    case 't': case 'T': return { code, data: decodeBase32(text(), B32_HEX, true) }
    case 'k': case 'K': return { code, data: decodeBaseX(rest, B36, 'base36') }
    case 'z': return { code, data: decodeBaseX(rest, B58_BTC, 'base58') }
    case 'Z': return { code, data: decodeBaseX(rest, B58_FLICKR, 'base58') }
    case 'M': return { code, data: decodeBase64(text(), B64_STD, true) }
    case 'U': return { code, data: decodeBase64(text(), B64_URL, true) }
    case 'm': return { code, data: decodeBase64(text(), B64_STD, false) }
    case 'u': return { code, data: decodeBase64(text(), B64_URL, false) }
    case '🚀': return { code, data: decodeEmoji(bytes.subarray(4)) }
    default: throw new Error('selected encoding not supported')
  }
}

// --- decoders; `s` holds one char per input byte (latin1), as Go indexes bytes ---

function decodeBase2 (s: string): Uint8Array {
  if ((s.length & 7) !== 0) s = '0'.repeat(8 - (s.length & 7)) + s
  const out = new Uint8Array(s.length >> 3)
  for (let i = 0; i < s.length; i += 8) {
    // strconv.ParseInt(chunk, 2, 0): optional sign, then binary digits
    const chunk = s.slice(i, i + 8)
    const m = /^([+-]?)([01]+)$/.exec(chunk)
    if (m == null) {
      throw new Error(`error while conversion: strconv.ParseInt: parsing ${goQuote(Buffer.from(chunk, 'latin1'))}: invalid syntax`)
    }
    const value = parseInt(m[2], 2) * (m[1] === '-' ? -1 : 1)
    out[i >> 3] = value & 0xff
  }
  return out
}

function hexValue (c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10
  return -1
}

/** encoding/hex DecodeString. */
function decodeHex (s: string): Uint8Array {
  const invalid = (c: number): Error => new Error(`encoding/hex: invalid byte: ${goUnicode(c)}`)
  const out = new Uint8Array(s.length >> 1)
  let j = 1
  for (; j < s.length; j += 2) {
    const p = s.charCodeAt(j - 1)
    const q = s.charCodeAt(j)
    const a = hexValue(p)
    const b = hexValue(q)
    if (a < 0) throw invalid(p)
    if (b < 0) throw invalid(q)
    out[(j - 1) >> 1] = (a << 4) | b
  }
  if (s.length % 2 === 1) {
    if (hexValue(s.charCodeAt(j - 1)) < 0) throw invalid(s.charCodeAt(j - 1))
    throw new Error('encoding/hex: odd length hex string')
  }
  return out
}

const B32_STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
const B32_HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV'
const b32Maps = new Map<string, Uint8Array>()

function b32Map (alphabet: string): Uint8Array {
  let map = b32Maps.get(alphabet)
  if (map == null) {
    map = new Uint8Array(256).fill(0xff)
    for (let i = 0; i < alphabet.length; i++) {
      map[alphabet.toLowerCase().charCodeAt(i)] = i
      map[alphabet.charCodeAt(i)] = i
    }
    b32Maps.set(alphabet, map)
  }
  return map
}

/** go-base32 DecodeString (case-insensitive; CR/LF ignored). */
function decodeBase32 (input: string, alphabet: string, padded: boolean): Uint8Array {
  const corrupt = (n: number): Error => new Error(`illegal base32 data at input byte ${n}`)
  const map = b32Map(alphabet)
  const src = Buffer.from(input.replace(/[\r\n]/g, ''), 'latin1')
  const pad = padded ? 0x3d : 0xff // Go's byte(NoPadding) is 0xff
  const out: number[] = []
  const olen = src.length
  let p = 0
  let end = false
  while (p < olen && !end) {
    const dbuf = new Array<number>(8).fill(0)
    let dlen = 8
    for (let j = 0; j < 8;) {
      if (p === olen) {
        if (padded) throw corrupt(olen - (olen - p) - j)
        dlen = j
        break
      }
      const c = src[p++]
      const remaining = olen - p
      if (c === pad && j >= 2 && remaining < 8) {
        if (!padded) throw corrupt(olen)
        if (remaining + j < 8 - 1) throw corrupt(olen)
        for (let k = 0; k < 8 - 1 - j; k++) {
          if (remaining > k && src[p + k] !== pad) throw corrupt(olen - remaining + k - 1)
        }
        dlen = j
        end = true
        if (dlen === 1 || dlen === 3 || dlen === 6) throw corrupt(olen - remaining - 1)
        break
      }
      dbuf[j] = map[c]
      if (dbuf[j] === 0xff) throw corrupt(olen - remaining - 1)
      j++
    }
    const b = [
      (dbuf[0] << 3 | dbuf[1] >> 2) & 0xff,
      (dbuf[1] << 6 | dbuf[2] << 1 | dbuf[3] >> 4) & 0xff,
      (dbuf[3] << 4 | dbuf[4] >> 1) & 0xff,
      (dbuf[4] << 7 | dbuf[5] << 2 | dbuf[6] >> 3) & 0xff,
      (dbuf[6] << 5 | dbuf[7]) & 0xff
    ]
    const n = ({ 2: 1, 4: 2, 5: 3, 7: 4, 8: 5 } as Record<number, number>)[dlen] ?? 0
    out.push(...b.slice(0, n))
  }
  return Uint8Array.from(out)
}

const B64_STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const B64_URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** encoding/base64 DecodeString (non-strict; CR/LF ignored). */
function decodeBase64 (s: string, alphabet: string, padded: boolean): Uint8Array {
  const corrupt = (n: number): Error => new Error(`illegal base64 data at input byte ${n}`)
  const map = new Map<number, number>()
  for (let i = 0; i < alphabet.length; i++) map.set(alphabet.charCodeAt(i), i)
  const isNl = (c: number): boolean => c === 0x0a || c === 0x0d
  const out: number[] = []
  let si = 0
  while (si < s.length) {
    // one quantum (Go's decodeQuantum)
    const dbuf = [0, 0, 0, 0]
    let dlen = 4
    let trailing: Error | undefined
    for (let j = 0; j < 4; j++) {
      if (si === s.length) {
        if (j === 0) return Uint8Array.from(out)
        if (j === 1 || padded) throw corrupt(si - j)
        dlen = j
        break
      }
      const c = s.charCodeAt(si++)
      const v = map.get(c)
      if (v !== undefined) { dbuf[j] = v; continue }
      if (isNl(c)) { j--; continue }
      if (!padded || c !== 0x3d) throw corrupt(si - 1)
      // padding reached
      if (j === 0 || j === 1) throw corrupt(si - 1)
      if (j === 2) {
        while (si < s.length && isNl(s.charCodeAt(si))) si++
        if (si === s.length) throw corrupt(s.length)
        if (s.charCodeAt(si) !== 0x3d) throw corrupt(si - 1)
        si++
      }
      while (si < s.length && isNl(s.charCodeAt(si))) si++
      if (si < s.length) trailing = corrupt(si)
      dlen = j
      break
    }
    const val = (dbuf[0] << 18) | (dbuf[1] << 12) | (dbuf[2] << 6) | dbuf[3]
    out.push(...[(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff].slice(0, dlen - 1))
    if (trailing != null) throw trailing
  }
  return Uint8Array.from(out)
}

const B36 = '0123456789abcdefghijklmnopqrstuvwxyz'
const B58_BTC = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const B58_FLICKR = '123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ'

/** go-base36 DecodeString / mr-tron base58 DecodeAlphabet: leading zero digits are zero bytes. */
function decodeBaseX (bytes: Uint8Array, alphabet: string, kind: 'base36' | 'base58'): Uint8Array {
  if (bytes.length === 0) throw new Error(kind === 'base36' ? 'can not decode zero-length string' : 'zero length string')
  const radix = BigInt(alphabet.length)
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === alphabet.charCodeAt(0)) zeros++
  let value = 0n
  for (const [r] of runes(bytes)) {
    let digit: number
    if (kind === 'base36') {
      digit = r <= 0x7a ? B36.indexOf(String.fromCharCode(r).toLowerCase()) : -1
      if (digit < 0) throw new Error(`invalid base36 character (${goQuoteRune(r)})`)
    } else {
      if (r > 127) throw new Error('high-bit set on invalid digit')
      digit = alphabet.indexOf(String.fromCharCode(r))
      if (digit < 0) throw new Error(`invalid base58 digit (${goQuoteRune(r)})`)
    }
    value = value * radix + BigInt(digit)
  }
  const body: number[] = []
  while (value > 0n) { body.unshift(Number(value & 0xffn)); value >>= 8n }
  return Uint8Array.from([...new Array<number>(zeros).fill(0), ...body])
}

let emojiReverse: Map<number, number> | undefined

/** go-multibase base256emojiDecode (input after the 4-byte 🚀 prefix). */
function decodeEmoji (bytes: Uint8Array): Uint8Array {
  if (emojiReverse == null) {
    const table = Array.from(base256emoji.baseEncode(Uint8Array.from({ length: 256 }, (_, i) => i)))
    emojiReverse = new Map(table.map((ch, i) => [cp(ch), i]))
  }
  const out: number[] = []
  for (const [r, offset] of runes(bytes)) {
    const v = emojiReverse.get(r)
    if (v === undefined) throw new Error(`illegal base256emoji data at input byte ${offset}, char: '${String.fromCodePoint(r)}'`)
    out.push(v)
  }
  return Uint8Array.from(out)
}
