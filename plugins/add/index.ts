// The add family: `ipfs add` (UnixFS import of files and directories).
import type { Plugin } from '../../registry/types.js'
import { addAdd } from './add.js'

export function addPlugin (): Plugin {
  return {
    name: 'add',
    requires: ['blockstore', 'pins', 'gcLock', 'config'],
    commands: [addAdd]
  }
}
