// The filestore family: `ipfs filestore ls|verify|dups` over core/filestore. Registers
// deps.filestore and plugs it into the node's blockstore as Kubo's Filestore wraps flatfs: reads
// fall back to the referenced files, deletes (block rm, repo gc) drop references, and the
// blockstore's listings (refs local, repo stat, repo gc) add them after the stored blocks.
import { asFunction } from 'awilix/browser'
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
