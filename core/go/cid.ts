// CIDs as Kubo parses and prints them (go-cid v0.6, go-multihash, go-cidutil Format), with the
// same accepted inputs and the same error text.
import { BASE58BTC, checkEncoding, decodeMultibase, encodeMultibase, multibaseName } from './multibase.js'
import { codecName, MULTIHASH_NAMES } from './multicodec.js'

export const DAG_PB = 0x70n
export const LIBP2P_KEY = 0x72n
export const SHA2_256 = 0x12n

export interface GoCid {
  version: 0 | 1
  codec: bigint
  /** the multihash bytes */
  hash: Uint8Array
}

export interface DecodedMultihash {
  code: bigint
  length: number
  digest: Uint8Array
}

/** go-varint FromUvarint: value and bytes read. */
export function readUvarint (buf: Uint8Array, at = 0): [value: bigint, read: number] {
  let x = 0n
  let s = 0n
  for (let i = 0; at + i < buf.length; i++) {
    const b = buf[at + i]
    if ((i === 8 && b >= 0x80) || i >= 9) throw new Error('varints larger than uint63 not supported')
    if (b < 0x80) {
      if (b === 0 && s > 0n) throw new Error('varint not minimally encoded')
      return [x | (BigInt(b) << s), i + 1]
    }
    x |= BigInt(b & 0x7f) << s
    s += 7n
  }
  throw new Error('varints malformed, could not reach the end')
}

export function writeUvarint (value: bigint): number[] {
  const out: number[] = []
  while (value >= 0x80n) {
    out.push(Number(value & 0x7fn) | 0x80)
    value >>= 7n
  }
  out.push(Number(value))
  return out
}

/** go-multihash readMultihashFromBuf: bytes used, code and digest. */
function readMultihash (buf: Uint8Array): [read: number, DecodedMultihash] {
  if (buf.length < 2) throw new Error('multihash too short. must be >= 2 bytes')
  const [code, n1] = readUvarint(buf)
  const [length, n2] = readUvarint(buf, n1)
  if (length > 0x7fffffffn) throw new Error('digest too long, supporting only <= 2^31-1')
  const start = n1 + n2
  if (Number(length) > buf.length - start) throw new Error('length greater than remaining number of bytes in buffer')
  const len = Number(length)
  return [start + len, { code, length: len, digest: buf.subarray(start, start + len) }]
}

/** go-multihash Decode (the whole buffer must be one multihash). */
export function decodeMultihash (buf: Uint8Array): DecodedMultihash {
  const [read, dm] = readMultihash(buf)
  if (read !== buf.length) throw new Error(`multihash length inconsistent: expected ${dm.length}; got ${read}`)
  return dm
}

class InvalidCidError extends Error {
  constructor (reason: string) { super(`invalid cid: ${reason}`) }
}
const reason = (err: unknown): string => (err as Error).message

function cidV0 (hash: Uint8Array): GoCid {
  let dm: DecodedMultihash
  try { dm = decodeMultihash(hash) } catch (err) { throw new InvalidCidError(reason(err)) }
  if (dm.code !== SHA2_256 || dm.length !== 32) throw new InvalidCidError(`invalid hash for cidv0 ${dm.code}-${dm.length}`)
  return { version: 0, codec: DAG_PB, hash }
}

/** go-cid CidFromBytes: bytes read and the CID. */
function cidFromBytes (data: Uint8Array): [number, GoCid] {
  if (data.length > 2 && data[0] === 0x12 && data[1] === 32) {
    if (data.length < 34) throw new InvalidCidError('not enough bytes for cid v0')
    return [34, { version: 0, codec: DAG_PB, hash: data.slice(0, 34) }]
  }
  try {
    const [version, n] = readUvarint(data)
    if (version !== 1n) throw new Error(`expected 1 as the cid version number, got: ${version}`)
    const [codec, cn] = readUvarint(data, n)
    const [mhLen] = readMultihash(data.subarray(n + cn))
    return [n + cn + mhLen, { version: 1, codec, hash: data.slice(n + cn, n + cn + mhLen) }]
  } catch (err) {
    throw new InvalidCidError(reason(err))
  }
}

/** go-cid Cast. */
export function castCid (data: Uint8Array): GoCid {
  let read: number
  let cid: GoCid
  try { [read, cid] = cidFromBytes(data) } catch (err) { throw new InvalidCidError(reason(err)) }
  if (read !== data.length) throw new InvalidCidError('trailing bytes in data buffer passed to cid Cast')
  return cid
}

/** go-cid Decode. Errors read `invalid cid: …`. */
export function decodeCid (text: string): GoCid {
  if (Buffer.byteLength(text) < 2) throw new InvalidCidError('cid too short')
  if (Buffer.byteLength(text) === 46 && text.startsWith('Qm')) {
    let hash: Uint8Array
    try {
      hash = decodeMultibase('z' + text).data
    } catch {
      throw new InvalidCidError("input isn't valid multihash")
    }
    try { decodeMultihash(hash) } catch (err) { throw new InvalidCidError(reason(err)) }
    return cidV0(hash)
  }
  let data: Uint8Array
  try { data = decodeMultibase(text).data } catch (err) { throw new InvalidCidError(reason(err)) }
  return castCid(data)
}

/** go-cid ExtractEncoding: the base of a CID string, -1 when not a supported one. */
export function extractEncoding (text: string): number {
  const bytes = Buffer.from(text)
  if (bytes.length < 2) return -1
  if (bytes.length === 46 && text.startsWith('Qm')) return BASE58BTC
  return multibaseName(bytes[0]) !== undefined ? bytes[0] : -1
}

export const cidV1 = (codec: bigint, hash: Uint8Array): GoCid => ({ version: 1, codec, hash })

/** go-cid NewCidV0: errors (Go panics) unless the hash is sha2-256 of 32 bytes. */
export const toCidV0 = (c: GoCid): GoCid => cidV0(c.hash)

export function cidBytes (c: GoCid): Uint8Array {
  if (c.version === 0) return c.hash
  return Uint8Array.from([1, ...writeUvarint(c.codec), ...c.hash])
}

/** go-cid StringOfBase. */
export function cidStringOfBase (c: GoCid, base: number): string {
  if (c.version === 0) {
    if (base !== BASE58BTC) throw new Error('invalid base encoding')
    return base58(c.hash)
  }
  return Buffer.from(encodeMultibase(checkEncodingForEncode(base), cidBytes(c))).toString('utf8')
}

const base58 = (bytes: Uint8Array): string => Buffer.from(encodeMultibase(BASE58BTC, bytes).subarray(1)).toString('utf8')

function checkEncodingForEncode (base: number): number {
  // mbase.Encode fails with ErrUnsupportedEncoding for unknown bases
  if (multibaseName(base) === undefined) throw new Error('selected encoding not supported')
  return base
}

export function hashName (code: bigint): string | undefined {
  return MULTIHASH_NAMES.get(Number(code))
}

/** A go-cidutil format-string problem: it stops the whole command. */
export class FormatStringError extends Error {}

/** go-cidutil Format: printf-style rendering of a CID. */
export function formatCid (fmt: string, base: number, c: GoCid): string {
  const dm = decodeMultihash(c.hash)
  checkEncoding(base)
  const fmtBytes = Buffer.from(fmt)
  const out: Uint8Array[] = []
  const text = (s: string): void => { out.push(Buffer.from(s)) }
  const encode = (data: Uint8Array, strip: boolean): void => {
    const enc = encodeMultibase(base, data)
    out.push(strip ? enc.subarray(1) : enc)
  }
  const hash = (): string => hashName(dm.code) ?? `hash?${dm.code}`
  for (let i = 0; i < fmtBytes.length; i++) {
    if (fmtBytes[i] !== 0x25) { out.push(fmtBytes.subarray(i, i + 1)); continue }
    i++
    if (i >= fmtBytes.length) throw new FormatStringError('premature end of format string')
    switch (String.fromCharCode(fmtBytes[i])) {
      case '%': text('%'); break
      case 'b': text(multibaseName(base) ?? `base?${String.fromCodePoint(base)}`); break
      case 'B': out.push(Uint8Array.of(base & 0xff)); break
      case 'v': text(`cidv${c.version}`); break
      case 'V': text(`${c.version}`); break
      case 'c': text(codecName(c.codec)); break
      case 'C': text(`${c.codec}`); break
      case 'h': text(hash()); break
      case 'H': text(`${dm.code}`); break
      case 'L': text(`${dm.length}`); break
      case 'm': case 'M': encode(c.hash, fmtBytes[i] === 0x4d); break
      case 'd': case 'D': encode(dm.digest, fmtBytes[i] === 0x44); break
      case 's': text(cidStringOfBase(c, base)); break
      case 'S': encode(cidBytes(c), true); break
      case 'P': text(`cidv${c.version}-${codecName(c.codec)}-${hash()}-${dm.length}`); break
      default:
        throw new FormatStringError(`unrecognized specifier in format string: ${Buffer.from(fmtBytes.subarray(i - 1, i + 1)).toString('utf8')}`)
    }
  }
  return Buffer.concat(out).toString('utf8')
}
