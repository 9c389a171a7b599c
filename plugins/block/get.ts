// ipfs block get: the raw bytes of a block.
import { defineCommand } from '../../registry/define.js'
import type { BytesOutput } from '../../registry/types.js'
import { getBlock } from '../../core/blockstore/index.js'
import { blockCid } from './common.js'

export const blockGet = defineCommand({
  path: ['block', 'get'],
  description: 'Get a raw IPFS block.',
  help: "'ipfs block get' is a plumbing command for retrieving raw IPFS blocks.\nIt takes a <cid>, and outputs the block to stdout.",
  args: [{ name: 'cid', kind: 'string', required: true, stdin: true, description: 'The CID of an existing block to get.' }],
  output: 'bytes',
  contentType: 'application/vnd.ipld.raw',
  async run ({ args, deps, signal }): Promise<BytesOutput> {
    const cid = await blockCid(args[0], deps, signal)
    // read before answering: a missing block is an error response, not a broken stream
    const bytes = await getBlock(deps.blockstore, cid, { signal })
    return { body: bytes }
  }
})
