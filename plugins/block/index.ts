// The block family: raw blocks in the local blockstore (Kubo core/commands/block.go).
import type { Plugin } from '../../registry/types.js'
import { blockGet } from './get.js'
import { blockPut } from './put.js'
import { blockRm } from './rm.js'
import { blockStat } from './stat.js'

export function blockPlugin (): Plugin {
  return {
    name: 'block',
    requires: ['blockstore', 'pins', 'gcLock', 'config'],
    groups: [{
      path: ['block'],
      description: 'Interact with raw IPFS blocks.',
      help: "'ipfs block' is a plumbing command used to manipulate raw IPFS blocks.\nReads from stdin or writes to stdout. A block is identified by a Multihash\npassed with a valid CID."
    }],
    commands: [blockStat, blockGet, blockPut, blockRm]
  }
}
