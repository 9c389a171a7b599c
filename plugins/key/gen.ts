// ipfs key gen: create a new keypair in the keystore.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { SELF, checkKeyName, formatId, ipnsBaseOption, keyEncoder, tryGet } from './common.js'
import { generateKey } from './keys.js'
import type { KeyOutput } from './output.js'

export const keyGen = defineCommand({
  path: ['key', 'gen'],
  description: 'Create a new keypair',
  args: [{ name: 'name', kind: 'string', required: true, description: 'name of key to create' }],
  options: {
    type: { type: 'string', aliases: ['t'], default: 'ed25519', description: 'type of the key to create: rsa, ed25519, secp256k1' },
    size: { type: 'int', aliases: ['s'], description: 'size of the key to generate' },
    'ipns-base': ipnsBaseOption
  },
  output: 'single',
  async run ({ args, options, deps: { keystore } }): Promise<KeyOutput> {
    const name = args[0]
    if (name === SELF) throw new RpcError("cannot create key with name 'self'")
    const enc = keyEncoder(options.ipnsBase)
    if (await tryGet(keystore, name) != null) throw new RpcError(`key with name '${name}' already exists`)
    const key = await generateKey(options.type, options.size ?? -1)
    checkKeyName(name)
    await keystore.put(name, key)
    return { Name: name, Id: formatId(enc, key) }
  },
  text: (out) => `${out.Id}\n`
})
