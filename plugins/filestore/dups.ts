// ipfs filestore dups (kubo core/commands/filestore.go dupsFileStore): blocks held both as
// filestore references and in the main blockstore.
import { defineCommand } from '../../registry/define.js'
import type { FilestoreDupsOutput } from './output.js'

export const filestoreDups = defineCommand({
  path: ['filestore', 'dups'],
  description: 'List blocks that are both in the filestore and standard block storage.',
  output: 'ndjson',
  async * run ({ deps: { filestore, blockstore, cidEncoder }, signal }): AsyncGenerator<FilestoreDupsOutput> {
    filestore.check()
    // the main store itself, not the node's view (which includes the filestore)
    const main = (blockstore as { inner?: typeof blockstore }).inner ?? blockstore
    for await (const cid of filestore.keys({ signal })) {
      let have: boolean
      try {
        have = await main.has(cid)
      } catch (err) {
        yield { Ref: '', Err: (err as Error).message }
        return
      }
      if (have) yield { Ref: cidEncoder.encode(cid), Err: '' }
    }
  },
  text: (r) => {
    if (r.Err !== '') throw new Error(r.Err)
    return `${r.Ref}\n`
  }
})
