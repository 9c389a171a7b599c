// ipfs refs local (kubo core/commands/refs.go RefsLocalCmd): every block in the store, as CIDv1 raw
// (the store is keyed by multihash).
import { defineCommand } from '../../registry/define.js'
import type { RefWrapper } from './output.js'
import { refsText } from './text.js'

export const refsLocal = defineCommand({
  path: ['refs', 'local'],
  description: 'List all local references.',
  help: 'Displays the hashes of all local objects. NOTE: This treats all local objects as "raw blocks" and returns CIDv1-Raw CIDs.',
  output: 'ndjson',
  async * run ({ deps: { blockstore, cidEncoder }, signal }): AsyncGenerator<RefWrapper> {
    for await (const { cid } of blockstore.getAll({ signal })) {
      yield { Ref: cidEncoder.encode(cid), Err: '' }
    }
  },
  text: refsText
})
