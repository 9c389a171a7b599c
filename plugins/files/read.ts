// ipfs files read (kubo core/commands/files.go filesReadCmd): the file's bytes, streamed.
import { defineCommand } from '../../registry/define.js'
import { openUnixfs, readFile, type UnixfsFileNode } from '../../core/resolver/index.js'
import type { CID } from 'multiformats/cid'

export const filesRead = defineCommand({
  path: ['files', 'read'],
  description: 'Read a file from MFS.',
  help: `Read a specified number of bytes from a file at a given offset. By default,
it will read the entire file similar to the Unix cat.

Examples:

    $ ipfs files read /test/hello
    hello`,
  args: [{ name: 'path', kind: 'string', required: true, description: 'Path to file to be read.' }],
  options: {
    offset: { type: 'int64', aliases: ['o'], description: 'Byte offset to begin reading from.' },
    count: { type: 'int64', aliases: ['n'], description: 'Maximum number of bytes to read.' }
  },
  output: 'bytes',
  async run ({ args, options, deps: { mfs }, signal }) {
    const r = await mfs.read(args[0], { offset: options.offset, count: options.count, signal })
    const getBlock = async (cid: CID): Promise<Uint8Array> => await mfs.io.get(cid, signal)
    const file = await openUnixfs(r.node.cid, r.node.bytes, getBlock) as UnixfsFileNode
    async function * body (): AsyncGenerator<Uint8Array> {
      if (r.count === 0) return
      yield * readFile(file, getBlock, { offset: r.offset, length: r.count })
    }
    return { body: body() }
  }
})
