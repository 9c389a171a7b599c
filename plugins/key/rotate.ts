// ipfs key rotate: replace the node identity, keeping the old key in the keystore (NoRemote).
import { defineCommand } from '../../registry/define.js'
import { InvalidArgumentError, RpcError } from '../../core/errors.js'
import { identityOf } from '../../core/repo/index.js'
import type { PrivateKey } from '@libp2p/interface'
import { SELF } from './common.js'
import { checkKeySize, generateKey, isSupportedAlgorithm } from './keys.js'
import type { KeyRotateOutput } from './output.js'

/** What Kubo's config.CreateIdentity prints before generating. */
function generatingLine (algorithm: string, size: number): string {
  switch (algorithm) {
    case 'rsa': return `generating ${size === -1 ? 2048 : size}-bit RSA keypair...`
    case 'ed25519': return 'generating ED25519 keypair...'
    default: return 'generating secp256k1 keypair...'
  }
}

export const keyRotate = defineCommand({
  path: ['key', 'rotate'],
  description: 'Rotates the IPFS identity.',
  help: 'Generates a new ipfs identity and saves it to the ipfs config file.\nYour existing identity key will be backed up in the Keystore.\nThe daemon must not be running when calling this command.',
  http: false,
  options: {
    oldkey: { type: 'string', aliases: ['o'], description: 'Keystore name to use for backing up your existing identity' },
    type: { type: 'string', aliases: ['t'], default: 'ed25519', description: 'type of the key to create: rsa, ed25519, secp256k1' },
    size: { type: 'int', aliases: ['s'], description: 'size of the key to generate' }
  },
  output: 'ndjson',
  async * run ({ options, deps: { keystore, config, node } }): AsyncGenerator<KeyRotateOutput> {
    if (node.daemon) throw new InvalidArgumentError('ipfs daemon is running. please stop it to run this command')
    const oldKey = options.oldkey
    if (oldKey == null) throw new RpcError('keystore name for backing up old key must be provided')
    if (oldKey === SELF) throw new RpcError("keystore name for back up cannot be named 'self'")
    const algorithm = options.type
    const size = options.size ?? -1
    const wrap = (what: string, err: unknown): RpcError => new RpcError(`${what} (${(err as Error).message})`)

    try { checkKeySize(algorithm, size) } catch (err) { throw wrap('creating identity', err) }
    if (!isSupportedAlgorithm(algorithm)) throw wrap('creating identity', new Error(`unrecognized key type: ${algorithm}`))
    yield { Message: generatingLine(algorithm, size) }
    let fresh: PrivateKey
    try { fresh = await generateKey(algorithm, size) } catch (err) { throw wrap('creating identity', err) }
    yield { Message: 'done\n' }

    let old: PrivateKey
    try { old = keystore.self() } catch (err) { throw wrap('decoding old private key', err) }
    try {
      if (oldKey === '') throw new Error('key name must be at least one character')
      await keystore.put(oldKey, old)
    } catch (err) { throw wrap('saving old key in keystore', err) }
    try { await config.setKey('Identity', identityOf(fresh)) } catch (err) { throw wrap('saving new key to config', err) }
  },
  text: (out) => out.Message
})
