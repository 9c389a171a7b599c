// Multihash functions by Kubo's names (go-multihash), with --mhlen truncation / XOF lengths and
// boxo verifcid's allowlist and size limits. Node's OpenSSL does the common ones; @noble/hashes the rest.
import { createHash } from 'node:crypto'
import * as Digest from 'multiformats/hashes/digest'
import type { MultihashDigest } from 'multiformats/hashes/interface'
import { blake2b, blake2s } from '@noble/hashes/blake2.js'
import { blake3 } from '@noble/hashes/blake3.js'
import { keccak_224, keccak_256, keccak_384, keccak_512 } from '@noble/hashes/sha3.js'
import { RpcError } from './errors.js'

export interface HashFn {
  name: string
  code: number
  /** default digest length in bytes (-1: the input length, for identity) */
  size: number
  /** digest of `length` bytes (length < 0: default) */
  digest: (data: Uint8Array, length?: number) => MultihashDigest
}

const node = (alg: string) => (data: Uint8Array): Uint8Array => createHash(alg).update(data).digest()
const shake = (alg: string) => (data: Uint8Array, len: number): Uint8Array => createHash(alg, { outputLength: len }).update(data).digest()

const table = new Map<string, HashFn>()
const byCode = new Map<number, HashFn>()

function define (name: string, code: number, size: number, fn: (data: Uint8Array, len: number) => Uint8Array, xof = false): void {
  const h: HashFn = {
    name,
    code,
    size,
    digest: (data, length = -1) => {
      const want = length < 0 ? (size < 0 ? data.length : size) : length
      if (size >= 0 && !xof && want > size) throw new RpcError(`requested length was too large for digest`)
      const full = fn(data, xof ? want : size)
      return Digest.create(code, want === full.length ? full : full.subarray(0, want))
    }
  }
  table.set(name, h)
  byCode.set(code, h)
}

define('identity', 0x00, -1, (d) => d, true)
define('sha1', 0x11, 20, node('sha1'))
define('sha2-256', 0x12, 32, node('sha256'))
define('sha2-512', 0x13, 64, node('sha512'))
define('sha3-512', 0x14, 64, node('sha3-512'))
define('sha3-384', 0x15, 48, node('sha3-384'))
define('sha3-256', 0x16, 32, node('sha3-256'))
define('sha3-224', 0x17, 28, node('sha3-224'))
define('shake-128', 0x18, 32, shake('shake128'), true)
define('shake-256', 0x19, 64, shake('shake256'), true)
define('keccak-224', 0x1a, 28, (d) => keccak_224(d))
define('keccak-256', 0x1b, 32, (d) => keccak_256(d))
define('keccak-384', 0x1c, 48, (d) => keccak_384(d))
define('keccak-512', 0x1d, 64, (d) => keccak_512(d))
define('blake3', 0x1e, 32, (d, len) => blake3(d, { dkLen: len }), true)
define('dbl-sha2-256', 0x56, 32, (d) => createHash('sha256').update(createHash('sha256').update(d).digest()).digest())
define('md5', 0xd5, 16, node('md5'))
for (let bits = 8; bits <= 512; bits += 8) {
  define(`blake2b-${bits}`, 0xb200 + bits / 8, bits / 8, bits === 512 ? node('blake2b512') : (d) => blake2b(d, { dkLen: bits / 8 }))
}
for (let bits = 8; bits <= 256; bits += 8) {
  define(`blake2s-${bits}`, 0xb240 + bits / 8, bits / 8, bits === 256 ? node('blake2s256') : (d) => blake2s(d, { dkLen: bits / 8 }))
}

/** go-multihash aliases */
const ALIASES: Record<string, string> = { sha3: 'sha3-512', sha256: 'sha2-256', sha512: 'sha2-512' }

export function hashByName (name: string): HashFn | undefined {
  return table.get(ALIASES[name] ?? name)
}
export function hashByCode (code: number): HashFn | undefined {
  return byCode.get(code)
}
export function hashNames (): HashFn[] {
  return [...table.values()]
}

/** boxo verifcid: the hash functions allowed for content addressing. */
export function isAllowedHash (code: number): boolean {
  if ([0x00, 0x11, 0x12, 0x13, 0x19, 0x1e, 0x56, 0x14, 0x15, 0x16, 0x17, 0x1a, 0x1b, 0x1c, 0x1d].includes(code)) return true
  if (code >= 0xb200 + 20 && code <= 0xb240) return true // blake2b >= 160 bits
  if (code >= 0xb240 + 20 && code <= 0xb260) return true // blake2s >= 160 bits
  return false
}

export const MAX_DIGEST = 128
export const MIN_DIGEST = 20

/** boxo verifcid.ValidateCid checks on a multihash. */
export function validateMultihash (mh: MultihashDigest): void {
  if (!isAllowedHash(mh.code)) throw new RpcError('potentially insecure hash functions not allowed')
  if (mh.code === 0x00) {
    if (mh.size > MAX_DIGEST) throw new RpcError(`digest too large: identity digest got ${mh.size} bytes, maximum ${MAX_DIGEST}`)
    return
  }
  if (mh.size < MIN_DIGEST) throw new RpcError('digest too small')
  if (mh.size > MAX_DIGEST) throw new RpcError('digest too large')
}
