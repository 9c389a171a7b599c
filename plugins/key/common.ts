// Shared pieces of the key commands: the --ipns-base option and encoder, file arguments, names.
import { CID } from 'multiformats/cid'
import { base58btc } from 'multiformats/bases/base58'
import type { MultihashDigest } from 'multiformats'
import type { PrivateKey } from '@libp2p/interface'
import { RpcError } from '../../core/errors.js'
import { multibase } from '../../core/multibase.js'
import type { Keystore } from '../../core/keystore/index.js'
import type { FileEntry, OptionSpec } from '../../registry/types.js'
import { keyIdOf } from './keys.js'

export const SELF = 'self'
const LIBP2P_KEY = 0x72

export const ipnsBaseOption = {
  type: 'string' as const,
  default: 'base36',
  description: 'Encoding used for keys: Can either be a multibase encoded CID or a base58btc encoded multihash. Takes {b58mh|base36|k|base32|b...}.'
} satisfies OptionSpec<'string'>

export type KeyEncoder = (id: MultihashDigest) => string

/** Kubo keyencode.KeyEncoderFromString: `b58mh`/`v0` = plain peer ID, else a CIDv1 (libp2p-key) in that multibase. */
export function keyEncoder (label: string): KeyEncoder {
  if (label === 'b58mh' || label === 'v0') return (id) => base58btc.baseEncode(id.bytes)
  if (label === '') throw new RpcError('empty multibase encoding')
  const base = multibase(label)
  if (base == null) throw new RpcError(`unsupported multibase encoding: ${label}`)
  return (id) => CID.createV1(LIBP2P_KEY, id).toString(base.encoder)
}

/** The key's ID in the requested encoding. */
export const formatId = (enc: KeyEncoder, key: PrivateKey): string => enc(keyIdOf(key))

/** Kubo cmdenv.GetFileArg + io.ReadAll: the bytes of the first file argument. */
export async function readFileArg (files: AsyncIterable<FileEntry> | undefined): Promise<Uint8Array> {
  let entry: FileEntry | undefined
  if (files != null) {
    for await (const f of files) { entry = f; break }
  }
  if (entry == null) throw new RpcError('expected a file argument')
  if (entry.type !== 'file' || entry.content == null) throw new RpcError('file argument was nil')
  const parts: Uint8Array[] = []
  for await (const chunk of entry.content) parts.push(chunk)
  return Buffer.concat(parts)
}

/** boxo keystore's name rule (its only one): names are base32-encoded into file names. */
export function checkKeyName (name: string): void {
  if (name === '') throw new RpcError('key name must be at least one character')
}

/** keystore.Get that reports absence as undefined, as Kubo's `_, err := ks.Get(name); err == nil` checks do. */
export async function tryGet (keystore: Keystore, name: string): Promise<PrivateKey | undefined> {
  if (name === '') return undefined
  try { return await keystore.get(name) } catch { return undefined }
}
