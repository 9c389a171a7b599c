// Key material helpers with go-libp2p's behaviour: generation rules, peer IDs (ECDSA included),
// PKCS#8 / PEM conversion, and signatures with the "libp2p-key signed message:" prefix.
import crypto from 'node:crypto'
import { generateKeyPair, privateKeyFromProtobuf, privateKeyFromRaw } from '@libp2p/crypto/keys'
import { peerIdFromPublicKey } from '@libp2p/peer-id'
import type { PrivateKey, PublicKey } from '@libp2p/interface'
import { create as createDigest } from 'multiformats/hashes/digest'
import type { MultihashDigest } from 'multiformats'
import { RpcError } from '../../core/errors.js'

export const SIGNED_MESSAGE_PREFIX = 'libp2p-key signed message:'

const MIN_RSA_BITS = 2048
const MAX_RSA_BITS = 8192
export const ERR_RSA_TOO_SMALL = `rsa keys must be >= ${MIN_RSA_BITS} bits to be useful`
export const ERR_RSA_TOO_BIG = `rsa keys must be <= ${MAX_RSA_BITS} bits`

/** libp2p protobuf KeyType values */
const KEY_TYPE = { RSA: 0, Ed25519: 1, secp256k1: 2, ECDSA: 3 } as const

/** Kubo's options.CheckKeySize: ed25519 and secp256k1 are always 256 bits (-1 = not given). */
export function checkKeySize (algorithm: string, size: number): void {
  if (size === -1) return
  if ((algorithm === 'ed25519' || algorithm === 'secp256k1') && size !== 256) {
    throw new RpcError(`invalid key size ${size}: ${algorithm} keys are always 256 bits`)
  }
}

/** The key type name, as in Kubo's generate/rotate paths (case-sensitive). */
export function isSupportedAlgorithm (algorithm: string): boolean {
  return algorithm === 'rsa' || algorithm === 'ed25519' || algorithm === 'secp256k1'
}

/** Generate a key the way Kubo's KeyAPI.Generate does (size -1 = default). */
export async function generateKey (algorithm: string, size: number): Promise<PrivateKey> {
  checkKeySize(algorithm, size)
  switch (algorithm) {
    case 'rsa': {
      const bits = size === -1 ? MIN_RSA_BITS : size
      if (bits < MIN_RSA_BITS) throw new RpcError(ERR_RSA_TOO_SMALL)
      if (bits > MAX_RSA_BITS) throw new RpcError(ERR_RSA_TOO_BIG)
      return await generateKeyPair('RSA', bits)
    }
    case 'ed25519': return await generateKeyPair('Ed25519')
    case 'secp256k1': return await generateKeyPair('secp256k1')
    default: throw new RpcError(`unrecognized key type: ${algorithm}`)
  }
}

/** Encode a libp2p protobuf key message { Type, Data }. */
function keyProtobuf (type: number, data: Uint8Array): Uint8Array {
  const len: number[] = []
  let n = data.length
  while (n > 0x7f) { len.push((n & 0x7f) | 0x80); n >>>= 7 }
  len.push(n)
  const out = new Uint8Array(3 + len.length + data.length)
  out.set([0x08, type, 0x12, ...len])
  out.set(data, 3 + len.length)
  return out
}

interface EcJwk { kty: string, crv: string, x: string, y: string, d?: string }

/** The public key as go-libp2p marshals it for ECDSA: x509 SubjectPublicKeyInfo. */
function ecdsaSpki (jwk: EcJwk): Uint8Array {
  const { kty, crv, x, y } = jwk
  return crypto.createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' }).export({ type: 'spki', format: 'der' })
}

/**
 * The peer ID multihash of a key. ECDSA is computed here because @libp2p/crypto marshals ECDSA
 * public keys differently from go-libp2p (which uses SPKI); the others use @libp2p/peer-id.
 */
export function keyIdOf (key: PrivateKey | PublicKey): MultihashDigest {
  const pub = 'publicKey' in key ? key.publicKey : key
  if (pub.type === 'ECDSA') {
    const pb = keyProtobuf(KEY_TYPE.ECDSA, ecdsaSpki((pub as unknown as { jwk: EcJwk }).jwk))
    if (pb.length <= 42) return createDigest(0x00, pb)
    return createDigest(0x12, crypto.createHash('sha256').update(pb).digest())
  }
  return peerIdFromPublicKey(pub).toMultihash()
}

/** Go's %T of an imported key, for the "not allowed" message. */
export function goKeyTypeName (key: PrivateKey): string {
  switch (key.type) {
    case 'RSA': return '*crypto.RsaPrivateKey'
    case 'Ed25519': return '*crypto.Ed25519PrivateKey'
    case 'secp256k1': return '*crypto.Secp256k1PrivateKey'
    default: return '*crypto.ECDSAPrivateKey'
  }
}

function rsaBits (n: string): number {
  const bytes = Buffer.from(n, 'base64url')
  let i = 0
  while (i < bytes.length && bytes[i] === 0) i++
  if (i === bytes.length) return 0
  return (bytes.length - i - 1) * 8 + bytes[i].toString(2).length
}

/** go-libp2p's RSA size rule, applied to any RSA key that enters the keystore. */
export function checkRsaSize (key: PrivateKey): void {
  if (key.type !== 'RSA') return
  const bits = rsaBits((key as unknown as { jwk: { n: string } }).jwk.n)
  if (bits < MIN_RSA_BITS) throw new RpcError(ERR_RSA_TOO_SMALL)
  if (bits > MAX_RSA_BITS) throw new RpcError(ERR_RSA_TOO_BIG)
}

/** A Node KeyObject for a libp2p private key. */
function toKeyObject (key: PrivateKey): crypto.KeyObject {
  switch (key.type) {
    case 'Ed25519': {
      const raw = key.raw
      return crypto.createPrivateKey({
        key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(raw.subarray(0, 32)).toString('base64url'), x: Buffer.from(raw.subarray(32, 64)).toString('base64url') },
        format: 'jwk'
      })
    }
    case 'secp256k1': {
      const uncompressed = crypto.ECDH.convertKey(key.publicKey.raw, 'secp256k1', undefined, undefined, 'uncompressed') as Buffer
      return crypto.createPrivateKey({
        key: {
          kty: 'EC',
          crv: 'secp256k1',
          d: Buffer.from(key.raw).toString('base64url'),
          x: uncompressed.subarray(1, 33).toString('base64url'),
          y: uncompressed.subarray(33, 65).toString('base64url')
        },
        format: 'jwk'
      })
    }
    case 'RSA':
      return crypto.createPrivateKey({ key: Buffer.from(key.raw), format: 'der', type: 'pkcs1' })
    default: {
      const { kty, crv, x, y, d } = (key as unknown as { jwk: EcJwk }).jwk
      return crypto.createPrivateKey({ key: { kty, crv, x, y, d }, format: 'jwk' })
    }
  }
}

/** PKCS#8 DER of a private key, as Go's x509.MarshalPKCS8PrivateKey (and Kubo's secp256k1 variant) write it. */
export function privateKeyToPkcs8 (key: PrivateKey): Uint8Array {
  try {
    return toKeyObject(key).export({ type: 'pkcs8', format: 'der' })
  } catch (err) {
    throw new RpcError(`marshalling key to PKCS8 format: ${(err as Error).message}`)
  }
}

/** Parse PKCS#8 DER into a libp2p private key (RSA, Ed25519, secp256k1, ECDSA P-256/384/521). */
export function privateKeyFromPkcs8 (der: Uint8Array): PrivateKey {
  let obj: crypto.KeyObject
  try {
    obj = crypto.createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' })
  } catch (err) {
    throw new RpcError(`parsing PKCS8 format: ${(err as Error).message}`)
  }
  const convert = (fn: () => PrivateKey): PrivateKey => {
    try { return fn() } catch (err) {
      throw new RpcError(`converting std Go key to libp2p key: ${(err as Error).message}`)
    }
  }
  switch (obj.asymmetricKeyType) {
    case 'ed25519': {
      const jwk = obj.export({ format: 'jwk' })
      return convert(() => privateKeyFromRaw(Buffer.concat([Buffer.from(jwk.d ?? '', 'base64url'), Buffer.from(jwk.x ?? '', 'base64url')])))
    }
    case 'rsa': {
      const key = convert(() => privateKeyFromProtobuf(keyProtobuf(KEY_TYPE.RSA, obj.export({ type: 'pkcs1', format: 'der' }))))
      try { checkRsaSize(key) } catch (err) {
        throw new RpcError(`converting std Go key to libp2p key: ${(err as Error).message}`)
      }
      return key
    }
    case 'ec': {
      const curve = obj.asymmetricKeyDetails?.namedCurve
      if (curve === 'secp256k1') {
        const jwk = obj.export({ format: 'jwk' })
        return convert(() => privateKeyFromProtobuf(keyProtobuf(KEY_TYPE.secp256k1, Buffer.from(jwk.d ?? '', 'base64url'))))
      }
      return convert(() => privateKeyFromProtobuf(keyProtobuf(KEY_TYPE.ECDSA, obj.export({ type: 'sec1', format: 'der' }))))
    }
    default:
      throw new RpcError('converting std Go key to libp2p key: invalid or unsupported key type')
  }
}

/** Go's pem.Encode of one block without headers: 64-character base64 lines. */
export function pemEncode (type: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString('base64')
  let body = ''
  for (let i = 0; i < b64.length; i += 64) body += b64.slice(i, i + 64) + '\n'
  return `-----BEGIN ${type}-----\n${body}-----END ${type}-----\n`
}

export interface PemBlock { type: string, bytes: Uint8Array }

/** The first PEM block in the data (Go's pem.Decode, without header support), or undefined. */
export function pemDecode (data: Uint8Array): PemBlock | undefined {
  const text = Buffer.from(data).toString('latin1')
  const re = /(?:^|\n)-----BEGIN ([^\n]*?)-----[ \t\r]*\n([\s\S]*?)-----END \1-----/g
  for (let m = re.exec(text); m != null; m = re.exec(text)) {
    const body = m[2].replace(/[\s]/g, '')
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body) || body.length % 4 !== 0) continue
    return { type: m[1], bytes: Buffer.from(body, 'base64') }
  }
  return undefined
}

const prefixed = (data: Uint8Array): Uint8Array => Buffer.concat([Buffer.from(SIGNED_MESSAGE_PREFIX), data])

/** Sign prefixed data; ECDSA signatures are ASN.1 DER, as go-libp2p writes them. */
export async function signMessage (key: PrivateKey, data: Uint8Array): Promise<Uint8Array> {
  const msg = prefixed(data)
  if (key.type === 'ECDSA') return crypto.sign('sha256', msg, { key: toKeyObject(key), dsaEncoding: 'der' })
  return await key.sign(msg)
}

/** Verify a signature over prefixed data with go-libp2p's outcomes (an RSA mismatch is an error). */
export async function verifyMessage (key: PublicKey, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  const msg = prefixed(data)
  let valid: boolean
  if (key.type === 'ECDSA') {
    const { kty, crv, x, y } = (key as unknown as { jwk: EcJwk }).jwk
    const pub = crypto.createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' })
    try { valid = crypto.verify('sha256', msg, { key: pub, dsaEncoding: 'der' }, signature) } catch { valid = false }
  } else {
    try { valid = await key.verify(msg, signature) } catch { valid = false }
  }
  if (!valid && key.type === 'RSA') throw new RpcError('crypto/rsa: verification error')
  return valid
}
