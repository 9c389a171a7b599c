// pin family: ipfs pin add/ls/rm/update/verify (the `pin remote` subtree is its own plugin).
import type { Plugin } from '../../registry/types.js'
import { pinAdd } from './add.js'
import { pinLs } from './ls.js'
import { pinRm } from './rm.js'
import { pinUpdate } from './update.js'
import { pinVerify } from './verify.js'

export type { PinOutput, AddPinOutput, PinLsList, PinLsObject, PinVerifyRes } from './output.js'

export function pinPlugin (): Plugin {
  return {
    name: 'pin',
    requires: ['pins', 'blockstore', 'resolver', 'gcLock'],
    groups: [{ path: ['pin'], description: 'Pin (and unpin) objects to local storage.' }],
    commands: [pinAdd, pinLs, pinRm, pinUpdate, pinVerify]
  }
}
