// ipfs key sign: sign data with a key, prefixed with "libp2p-key signed message:".
import { base64url } from 'multiformats/bases/base64'
import { defineCommand } from '../../registry/define.js'
import { SELF, formatId, ipnsBaseOption, keyEncoder, readFileArg } from './common.js'
import { signMessage } from './keys.js'
import type { KeySignOutput } from './output.js'

export const keySign = defineCommand({
  path: ['key', 'sign'],
  description: 'Generates a signature for the given data with a specified key. Useful for proving the key ownership.',
  help: 'Sign arbitrary bytes, such as to prove ownership of a Peer ID or an IPNS Name.\nTo avoid signature reuse, the signed payload is always prefixed with\n"libp2p-key signed message:".',
  status: 'experimental',
  args: [{ name: 'data', kind: 'file', required: true, stdin: true, description: 'The data to sign.' }],
  options: {
    key: { type: 'string', aliases: ['k'], description: 'The name of the key to use for signing.' },
    'ipns-base': ipnsBaseOption
  },
  // Kubo uses res.Emit (not EmitOnce): a one-value stream
  output: 'ndjson',
  async * run ({ options, files, deps: { keystore } }): AsyncGenerator<KeySignOutput> {
    const enc = keyEncoder(options.ipnsBase)
    let name = options.key ?? ''
    const data = await readFileArg(files)
    if (name === '' || name === SELF) name = SELF
    const key = name === SELF ? keystore.self() : await keystore.get(name)
    const signature = await signMessage(key, data)
    yield { Key: { Name: name, Id: formatId(enc, key) }, Signature: base64url.encode(signature) }
  },
  // no text encoder in Kubo: Go's %s of the value
  textGeneric: true,
  text: (out) => `&{{${out.Key.Name} ${out.Key.Id}} ${out.Signature}}`
})
