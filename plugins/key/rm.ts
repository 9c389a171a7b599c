// ipfs key rm: remove stored keys.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { SELF, formatId, ipnsBaseOption, keyEncoder, tryGet } from './common.js'
import { keyListText } from './text.js'
import type { KeyOutput, KeyOutputList } from './output.js'

export const keyRm = defineCommand({
  path: ['key', 'rm'],
  description: 'Remove a keypair.',
  args: [{ name: 'name', kind: 'string', required: true, variadic: true, stdin: true, description: 'names of keys to remove' }],
  options: {
    l: { type: 'bool', description: 'Show extra information about keys.' },
    'ipns-base': ipnsBaseOption
  },
  output: 'single',
  async run ({ args, options, deps: { keystore } }): Promise<KeyOutputList> {
    const enc = keyEncoder(options.ipnsBase)
    const keys: KeyOutput[] = []
    // one at a time, as Kubo: keys removed before a failure stay removed
    for (const name of args) {
      if (name === SELF) throw new RpcError("cannot remove key with name 'self'")
      const key = await tryGet(keystore, name)
      if (key == null) throw new RpcError(`no key named ${name} was found`)
      await keystore.delete(name)
      keys.push({ Name: name, Id: formatId(enc, key) })
    }
    return { Keys: keys }
  },
  text: (out, { options }) => keyListText(out, options.l === true)
})
