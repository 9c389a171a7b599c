// The filestore family: `ipfs filestore ls|verify|dups` over core/filestore. Registers
// deps.filestore and plugs it into the node's blockstore as Kubo's Filestore wraps flatfs: reads
// fall back to the referenced files, deletes (block rm, repo gc) drop references, and the
// blockstore's listings (refs local, repo stat, repo gc) add them after the stored blocks.
import type { Plugin } from '../../registry/types.js'
import { filestoreRequires, registerFilestore } from './services.js'
import { filestoreDups } from './dups.js'
import { filestoreLs } from './ls.js'
import { filestoreVerify } from './verify.js'

export type { FilestoreListOutput, FilestoreDupsOutput } from './output.js'

export function filestorePlugin (): Plugin {
  return {
    name: 'filestore',
    requires: filestoreRequires,
    register: registerFilestore,
    groups: [{ path: ['filestore'], description: 'Interact with filestore objects.' }],
    commands: [filestoreLs, filestoreVerify, filestoreDups]
  }
}
