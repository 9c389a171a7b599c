// The dag command family (kubo core/commands/dag).
import type { Plugin } from '../../registry/types.js'
import { dagPut } from './put.js'
import { dagGet } from './get.js'
import { dagResolve } from './resolve.js'
import { dagImport } from './import.js'
import { dagExport } from './export.js'
import { dagStat } from './stat.js'

export function dagPlugin (): Plugin {
  return {
    name: 'dag',
    requires: ['blockstore', 'pins', 'resolver', 'gcLock', 'config'],
    groups: [{
      path: ['dag'],
      description: 'Interact with IPLD DAG objects.',
      help: "'ipfs dag' is used for creating and manipulating DAG objects/hierarchies.\n\nThis subcommand is intended to deprecate and replace\nthe existing 'ipfs object' command moving forward."
    }],
    commands: [dagPut, dagGet, dagResolve, dagImport, dagExport, dagStat]
  }
}
