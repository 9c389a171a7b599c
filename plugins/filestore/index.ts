// The filestore family: `ipfs filestore ls|verify|dups` over core/filestore. Registers
// deps.filestore and makes the node's blockstore read referenced blocks from their files.
import { asFunction } from 'awilix'
import type { Plugin } from '../../registry/types.js'
import type { Cradle } from '../../core/cradle.js'
import { createFilestore } from '../../core/filestore/index.js'
import type { BlockSource } from '../../core/blockstore/index.js'
import { filestoreDups } from './dups.js'
import { filestoreLs } from './ls.js'
import { filestoreVerify } from './verify.js'

export type { FilestoreListOutput, FilestoreDupsOutput } from './output.js'

export function filestorePlugin (): Plugin {
  return {
    name: 'filestore',
    requires: ['datastore', 'blockstore', 'config', 'filestore'],
    register (container) {
      container.register({
        filestore: asFunction(({ datastore, config, repoPath }: Cradle) => createFilestore({ datastore, config, repoPath })).singleton()
      })
      const blockstore = container.cradle.blockstore as { addSource?: (s: BlockSource) => void }
      blockstore.addSource?.(container.cradle.filestore)
    },
    groups: [{ path: ['filestore'], description: 'Interact with filestore objects.' }],
    commands: [filestoreLs, filestoreVerify, filestoreDups]
  }
}
