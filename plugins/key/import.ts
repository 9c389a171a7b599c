// ipfs key import: store a key given as libp2p protobuf or PEM PKCS#8.
import { privateKeyFromProtobuf } from '@libp2p/crypto/keys'
import type { PrivateKey } from '@libp2p/interface'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { SELF, checkKeyName, formatId, ipnsBaseOption, keyEncoder, readFileArg, tryGet } from './common.js'
import { checkRsaSize, goKeyTypeName, pemDecode, privateKeyFromPkcs8 } from './keys.js'
import type { KeyOutput } from './output.js'

export const PEM_FORMAT = 'pem-pkcs8-cleartext'
export const LIBP2P_FORMAT = 'libp2p-protobuf-cleartext'

function parseKey (data: Uint8Array, format: string): PrivateKey {
  switch (format) {
    case PEM_FORMAT: {
      const block = pemDecode(data)
      if (block == null) throw new RpcError(`PEM block not found in input data:\n${Buffer.from(data).toString('utf8')}`)
      if (block.type !== 'PRIVATE KEY') throw new RpcError(`expected PRIVATE KEY type in PEM block but got: ${block.type}`)
      return privateKeyFromPkcs8(block.bytes)
    }
    case LIBP2P_FORMAT: {
      try {
        const key = privateKeyFromProtobuf(data)
        checkRsaSize(key)
        return key
      } catch (err) {
        if (pemDecode(data) != null) {
          throw new RpcError(`unexpected PEM block for format=${LIBP2P_FORMAT}: try again with format=${PEM_FORMAT}`)
        }
        throw new RpcError(`unable to unmarshall format=${LIBP2P_FORMAT}: ${(err as Error).message}`)
      }
    }
    default:
      throw new RpcError(`unrecognized import format: ${format}`)
  }
}

export const keyImport = defineCommand({
  path: ['key', 'import'],
  description: 'Import a key and prints imported key id',
  help: "Imports a key and stores it under the provided name.\n\nBy default, the key is assumed to be in 'libp2p-protobuf-cleartext' format,\nhowever it is possible to import private keys wrapped in interoperable PEM PKCS8\nby passing '--format=pem-pkcs8-cleartext'.",
  args: [
    { name: 'name', kind: 'string', required: true, description: 'name to associate with key in keychain' },
    { name: 'key', kind: 'file', required: true, description: 'key provided by generate or export' }
  ],
  options: {
    'ipns-base': ipnsBaseOption,
    format: { type: 'string', aliases: ['f'], default: LIBP2P_FORMAT, description: 'The format of the private key to import, libp2p-protobuf-cleartext or pem-pkcs8-cleartext.' },
    'allow-any-key-type': { type: 'bool', default: false, description: 'Allow importing any key type.' }
  },
  output: 'single',
  async run ({ args, options, files, deps: { keystore } }): Promise<KeyOutput> {
    const name = args[0]
    if (name === SELF) throw new RpcError("cannot import key with name 'self'")
    const enc = keyEncoder(options.ipnsBase)
    const data = await readFileArg(files)
    const key = parseKey(data, options.format)
    if (!options.allowAnyKeyType && key.type === 'ECDSA') {
      throw new RpcError(`key type ${goKeyTypeName(key)} is not allowed to be imported, only RSA, Ed25519, or Secp256k1; use flag --allow-any-key-type if you are sure of what you're doing`)
    }
    if (await tryGet(keystore, name) != null) throw new RpcError(`key with name '${name}' already exists`)
    checkKeyName(name)
    await keystore.put(name, key)
    return { Name: name, Id: formatId(enc, key) }
  },
  text: (out) => `${out.Id}\n`
})
