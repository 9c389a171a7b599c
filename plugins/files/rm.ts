// ipfs files rm (kubo core/commands/files.go filesRmCmd): every failure is emitted as a string,
// then the command fails with "can't remove some files".
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'

export const filesRm = defineCommand({
  path: ['files', 'rm'],
  description: 'Remove a file from MFS.',
  help: `Remove files or directories.

    $ ipfs files rm /foo
    $ ipfs files ls /bar
    cat
    dog
    fish
    $ ipfs files rm -r /bar`,
  args: [{ name: 'path', kind: 'string', required: true, variadic: true, description: 'File to remove.' }],
  options: {
    recursive: { type: 'bool', aliases: ['r'], description: 'Recursively remove directories.' },
    force: { type: 'bool', description: 'Forcibly remove target at path; implies -r for directories' }
  },
  output: 'ndjson',
  async * run ({ args, options, given, deps: { mfs } }): AsyncGenerator<string> {
    if (given.has('flush') && options.flush === false) {
      throw new RpcError('files rm always flushes for safety. The --flush flag cannot be set to false for this command')
    }
    const errs = await mfs.rm(args, { recursive: options.recursive, force: options.force })
    if (errs.length === 0) return
    yield * errs
    throw new RpcError("can't remove some files")
  },
  text: (value) => `${value}\n`
})
