// The key family: IPNS keypairs in the keystore (Kubo core/commands/keystore.go).
import type { Plugin } from '../../registry/types.js'
import { keyGen } from './gen.js'
import { keyExport } from './export.js'
import { keyImport } from './import.js'
import { keyList } from './list.js'
import { keyLs } from './ls.js'
import { keyRename } from './rename.js'
import { keyRm } from './rm.js'
import { keyRotate } from './rotate.js'
import { keySign } from './sign.js'
import { keyVerify } from './verify.js'

export function keyPlugin (): Plugin {
  return {
    name: 'key',
    requires: ['keystore', 'config', 'node'],
    groups: [{
      path: ['key'],
      description: 'Create and list IPNS name keypairs',
      help: "'ipfs key gen' generates a new keypair for usage with IPNS and 'ipfs name\npublish'.\n\n  > ipfs key gen --type=rsa --size=2048 mykey\n  > ipfs name publish --key=mykey QmSomeHash\n\n'ipfs key ls' lists the available keys.\n\n  > ipfs key ls\n  self\n  mykey"
    }],
    commands: [keyGen, keyExport, keyImport, keyList, keyLs, keyRename, keyRm, keyRotate, keySign, keyVerify]
  }
}
