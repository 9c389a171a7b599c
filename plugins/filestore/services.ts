// The filestore family's services: deps.filestore, plugged into the node's blockstore (reads fall back to
// the referenced files, deletes drop references, listings add them). Apart from the commands, so that a
// node built from the manifest loads no command module at start.
import { asFunction, type AwilixContainer } from 'awilix/browser'
import type { Cradle } from '../../core/cradle.js'
import { createFilestore } from '../../core/filestore/index.js'
import type { BlockSource } from '../../core/blockstore/index.js'

export const filestoreRequires = ['datastore', 'blockstore', 'config', 'filestore']

export function registerFilestore (container: AwilixContainer<Cradle>): void {
  container.register({
    filestore: asFunction(({ datastore, config, repoPath }: Cradle) => createFilestore({ datastore, config, repoPath })).singleton()
  })
  const blockstore = container.cradle.blockstore as { addSource?: (s: BlockSource) => void }
  blockstore.addSource?.(container.cradle.filestore)
}
