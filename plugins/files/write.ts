// ipfs files write (kubo core/commands/files.go filesWriteCmd): the body is streamed into the
// file (trickle DAG, as boxo's DagModifier builds it), never held whole in memory.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { cidVersionOption, hashOption } from './options.js'

export const filesWrite = defineCommand({
  path: ['files', 'write'],
  description: 'Append to (modify) a file in MFS.',
  help: `A low-level MFS command that allows you to append data at the end of a file, or
specify a beginning offset within a file to write to. The entire length of the
input will be written.

If the '--create' option is specified, the file will be created if it does not
exist. Nonexistent intermediate directories will not be created unless the
'--parents' option is specified.

Newly created files will have the same CID version and hash function of the
parent directory unless the '--cid-version' and '--hash' options are used.

Newly created leaves will be in the legacy format (Protobuf) if the
CID version is 0, or raw if the CID version is non-zero.  Use of the
'--raw-leaves' option will override this behavior.

If the '--flush' option is set to false, changes will not be propagated to the
merkledag root. This can make operations much faster when doing a large number
of writes to a deeper directory structure.

EXAMPLE:

    echo "hello world" | ipfs files write --create --parents /myfs/a/b/file
    echo "hello world" | ipfs files write --truncate /myfs/a/b/file

WARNING:

Usage of the '--flush=false' option does not guarantee data durability until
the tree has been flushed. This can be accomplished by running 'ipfs files
stat' on the file or any of its ancestors.

WARNING:

The CID produced by 'files write' will be different from 'ipfs add' because
'ipfs files write' creates a trickle-dag optimized for append-only operations.
See '--trickle' in 'ipfs add --help' for more information.

NOTE: The 'Import.UnixFSFileMaxLinks' config option does not apply to this command.
Trickle DAG has a fixed internal structure optimized for append operations.
To use configurable max-links, use 'ipfs add' with balanced DAG layout.

If you want to add a file without modifying an existing one,
use 'ipfs add' with '--to-files':

  > ipfs files mkdir -p /myfs/dir
  > ipfs add example.jpg --to-files /myfs/dir/
  > ipfs files ls /myfs/dir/
  example.jpg

See '--to-files' in 'ipfs add --help' for more information.`,
  args: [
    { name: 'path', kind: 'string', required: true, description: 'Path to write to.' },
    { name: 'data', kind: 'file', required: true, stdin: true, description: 'Data to write.' }
  ],
  options: {
    offset: { type: 'int64', aliases: ['o'], description: 'Byte offset to begin writing at.' },
    create: { type: 'bool', aliases: ['e'], description: 'Create the file if it does not exist.' },
    parents: { type: 'bool', aliases: ['p'], description: 'Make parent directories as needed.' },
    truncate: { type: 'bool', aliases: ['t'], description: 'Truncate the file to size zero before writing.' },
    count: { type: 'int64', aliases: ['n'], description: 'Maximum number of bytes to read.' },
    'raw-leaves': { type: 'bool', description: 'Use raw blocks for newly created leaf nodes. (experimental)' },
    'cid-version': cidVersionOption,
    hash: hashOption
  },
  output: 'ndjson',
  async run ({ args, files, options, deps: { mfs }, signal }) {
    // cmdenv.GetFileArg: the first file of the body, read only once Kubo's checks have passed
    const body = async (): Promise<AsyncIterable<Uint8Array>> => {
      if (files == null) throw new RpcError('expected a file argument')
      const it = files[Symbol.asyncIterator]()
      const first = await it.next()
      if (first.done === true) throw new RpcError('expected a file argument')
      const entry = first.value
      if (entry.type !== 'file' || entry.content == null) throw new RpcError('expected a regular file')
      return entry.content
    }
    await mfs.write(args[0], body, {
      offset: options.offset,
      create: options.create,
      parents: options.parents,
      truncate: options.truncate,
      count: options.count,
      rawLeaves: options.rawLeaves,
      cidVersion: options.cidVersion,
      hash: options.hash,
      flush: options.flush !== false,
      signal
    })
  }
})
