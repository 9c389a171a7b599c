// ipfs block stat: a block's CID and size.
import { defineCommand } from '../../registry/define.js'
import { getBlock } from '../../core/blockstore/index.js'
import { blockCid } from './common.js'
import type { BlockStatOutput } from './output.js'

export const blockStat = defineCommand({
  path: ['block', 'stat'],
  description: 'Print information of a raw IPFS block.',
  help: "'ipfs block stat' is a plumbing command for retrieving information\non raw IPFS blocks. It outputs the following to stdout:\n\n\tKey  - the CID of the block\n\tSize - the size of the block in bytes",
  args: [{ name: 'cid', kind: 'string', required: true, stdin: true, description: 'The CID of an existing block to stat.' }],
  output: 'single',
  async run ({ args, deps, signal }): Promise<BlockStatOutput> {
    const cid = await blockCid(args[0], deps, signal)
    const bytes = await getBlock(deps.blockstore, cid, { signal })
    return { Key: deps.cidEncoder.encode(cid), Size: bytes.length }
  },
  text: (out) => `Key: ${out.Key}\nSize: ${out.Size}\n`
})
