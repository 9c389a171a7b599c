// The files family's services: deps.mfs (flushed when the node stops) and its GC root. Apart from the
// commands, so that a node built from the manifest (CLI, daemon) loads no command module at start.
import { asFunction, type AwilixContainer } from 'awilix/browser'
import { createMfs, type Mfs } from '../../core/mfs/index.js'
import type { Cradle } from '../../core/cradle.js'

export const filesRequires = ['datastore', 'blockstore', 'config', 'gcLock', 'resolver', 'mfs']

export function registerFiles (container: AwilixContainer<Cradle>): void {
  container.register({
    mfs: asFunction(({ datastore, blockstore, config, gcLock, resolver }: Cradle) => createMfs({ datastore, blockstore, config, gcLock, resolver }))
      .singleton()
      .disposer(async (mfs: Mfs) => { await mfs.close() })
  })
  // GC keeps the MFS root (with unflushed changes) alive
  if (container.hasRegistration('gcRoots')) {
    container.cradle.gcRoots.add('mfs', async () => await container.cradle.mfs.roots())
  }
}
