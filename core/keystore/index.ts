// Kubo's keystore: <repo>/keystore/key_<base32(name)>, each the libp2p protobuf private key.
// The node's own key ("self") lives in the config (Identity.PrivKey).
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys'
import type { PrivateKey } from '@libp2p/interface'
import { base32 } from 'multiformats/bases/base32'
import { RpcError } from '../errors.js'
import { syncDir } from '../util/fs.js'

export interface Keystore {
  /** the node identity */
  self: () => PrivateKey
  /** names of stored keys, without "self", sorted */
  list: () => Promise<string[]>
  has: (name: string) => Promise<boolean>
  /** "self" returns the identity */
  get: (name: string) => Promise<PrivateKey>
  /** refuses to overwrite an existing key */
  put: (name: string, key: PrivateKey) => Promise<void>
  delete: (name: string) => Promise<void>
}

export const SELF = 'self'

const fileName = (name: string): string => 'key_' + base32.baseEncode(new TextEncoder().encode(name))
const nameOf = (file: string): string | undefined => {
  if (!file.startsWith('key_')) return undefined
  try { return new TextDecoder().decode(base32.baseDecode(file.slice(4))) } catch { return undefined }
}

export class KeyExistsError extends RpcError {
  constructor () { super('key by that name already exists, refusing to overwrite') }
}
export class NoSuchKeyError extends RpcError {
  constructor () { super('no key by the given name was found') }
}

export function createFsKeystore (dir: string, identity: () => PrivateKey): Keystore {
  const file = (name: string): string => path.join(dir, fileName(name))
  return {
    self: identity,
    list: async () => {
      const files = await fs.readdir(dir).catch(() => [] as string[])
      return files.map(nameOf).filter((n): n is string => n != null).sort()
    },
    has: async (name) => name === SELF || await fs.access(file(name)).then(() => true, () => false),
    get: async (name) => {
      if (name === SELF) return identity()
      let bytes: Uint8Array
      try { bytes = await fs.readFile(file(name)) } catch { throw new NoSuchKeyError() }
      return privateKeyFromProtobuf(bytes)
    },
    put: async (name, key) => {
      await fs.mkdir(dir, { recursive: true, mode: 0o700 })
      const target = file(name)
      let fh
      try {
        fh = await fs.open(target, 'wx', 0o400)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new KeyExistsError()
        throw err
      }
      try {
        await fh.writeFile(privateKeyToProtobuf(key))
        await fh.sync()
      } finally {
        await fh.close()
      }
      await syncDir(dir)
    },
    delete: async (name) => {
      try { await fs.unlink(file(name)) } catch { throw new NoSuchKeyError() }
      await syncDir(dir)
    }
  }
}

export function createMemoryKeystore (identity: () => PrivateKey): Keystore {
  const keys = new Map<string, Uint8Array>()
  return {
    self: identity,
    list: async () => [...keys.keys()].sort(),
    has: async (name) => name === SELF || keys.has(name),
    get: async (name) => {
      if (name === SELF) return identity()
      const bytes = keys.get(name)
      if (bytes == null) throw new NoSuchKeyError()
      return privateKeyFromProtobuf(bytes)
    },
    put: async (name, key) => {
      if (keys.has(name)) throw new KeyExistsError()
      keys.set(name, privateKeyToProtobuf(key))
    },
    delete: async (name) => {
      if (!keys.delete(name)) throw new NoSuchKeyError()
    }
  }
}
