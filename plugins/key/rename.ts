// ipfs key rename: move a stored key to a new name (optionally replacing one).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { SELF, checkKeyName, formatId, ipnsBaseOption, keyEncoder, tryGet } from './common.js'
import { escNonPrint } from '../../core/go/strings.js'
import type { KeyRenameOutput } from './output.js'

export const keyRename = defineCommand({
  path: ['key', 'rename'],
  description: 'Rename a keypair.',
  args: [
    { name: 'name', kind: 'string', required: true, description: 'name of key to rename' },
    { name: 'newName', kind: 'string', required: true, description: 'new name of the key' }
  ],
  options: {
    force: { type: 'bool', aliases: ['f'], description: 'Allow to overwrite an existing key.' },
    'ipns-base': ipnsBaseOption
  },
  output: 'single',
  async run ({ args, options, deps: { keystore } }): Promise<KeyRenameOutput> {
    const enc = keyEncoder(options.ipnsBase)
    const [name, newName] = args
    if (name === SELF) throw new RpcError("cannot rename key with name 'self'")
    if (newName === SELF) throw new RpcError("cannot overwrite key with name 'self'")
    const key = await tryGet(keystore, name)
    if (key == null) throw new RpcError(`no key named ${name} was found`)
    const Id = formatId(enc, key)
    // renaming onto itself must not delete the key
    if (newName === name) return { Was: name, Now: newName, Id, Overwrite: false }
    checkKeyName(newName)
    let overwrite = false
    if (options.force === true && await keystore.has(newName)) {
      overwrite = true
      await keystore.delete(newName)
    }
    await keystore.put(newName, key)
    await keystore.delete(name)
    return { Was: name, Now: newName, Id, Overwrite: overwrite }
  },
  text: (out) => `Key ${out.Id} renamed to ${escNonPrint(out.Now)}${out.Overwrite ? ' with overwriting' : ''}\n`
})
