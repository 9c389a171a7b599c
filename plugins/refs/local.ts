// ipfs refs local (kubo core/commands/refs.go RefsLocalCmd): every key of the node's blockstore
// (n.Blockstore.AllKeysChan), as CIDv1 raw (keyed by multihash): the stored blocks, then the
// filestore's references while it is enabled (a block held both ways is listed twice).
import { defineCommand } from '../../registry/define.js'
import { allKeys } from '../../core/gc/index.js'
import type { RefWrapper } from './output.js'
import { refsText } from './text.js'

export const refsLocal = defineCommand({
  path: ['refs', 'local'],
  description: 'List all local references.',
  help: 'Displays the hashes of all local objects. NOTE: This treats all local objects as "raw blocks" and returns CIDv1-Raw CIDs.',
  output: 'ndjson',
  async * run ({ deps: { blockstore, cidEncoder }, signal }): AsyncGenerator<RefWrapper> {
    for await (const cid of allKeys(blockstore, { signal })) {
      yield { Ref: cidEncoder.encode(cid), Err: '' }
    }
  },
  text: refsText
})
