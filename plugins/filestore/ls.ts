// ipfs filestore ls (kubo core/commands/filestore.go lsFileStore)
import { defineCommand } from '../../registry/define.js'
import { formatLong, listByArgs, toWire } from './common.js'
import type { FilestoreListOutput } from './output.js'

export const filestoreLs = defineCommand({
  path: ['filestore', 'ls'],
  description: 'List objects in filestore.',
  help: `List objects in the filestore.

If one or more <obj> is specified only list those specific objects,
otherwise list all objects.

The output is:

<hash> <size> <path> <offset>`,
  args: [{ name: 'obj', kind: 'string', variadic: true, description: 'Cid of objects to list.' }],
  options: {
    'file-order': { type: 'bool', description: 'sort the results based on the path of the backing file' }
  },
  output: 'ndjson',
  async * run ({ args, options, deps: { filestore }, signal }): AsyncGenerator<FilestoreListOutput> {
    filestore.check()
    if (args.length > 0) {
      yield * listByArgs(filestore, args, false)
      return
    }
    for await (const r of filestore.all(false, options.fileOrder === true, { signal })) yield toWire(r)
  },
  text: (r, { options }) => r.ErrorMsg !== '' ? `${r.ErrorMsg}\n` : `${formatLong(r, options)}\n`,
  textStream: (r) => r.ErrorMsg !== '' ? 'stderr' : 'stdout'
})
