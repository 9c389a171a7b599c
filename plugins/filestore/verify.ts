// ipfs filestore verify (kubo core/commands/filestore.go verifyFileStore)
import { defineCommand } from '../../registry/define.js'
import { statusName } from '../../core/filestore/index.js'
import { formatLong, listByArgs, removable, toWire } from './common.js'
import type { FilestoreListOutput } from './output.js'

export const filestoreVerify = defineCommand({
  path: ['filestore', 'verify'],
  description: 'Verify objects in filestore.',
  help: `Verify objects in the filestore.

If one or more <obj> is specified only verify those specific objects,
otherwise verify all objects.

The output is:

<status> <hash> <size> <path> <offset> [<action>]

Where <status> is one of:
ok:       the block can be reconstructed
changed:  the contents of the backing file have changed
no-file:  the backing file could not be found
error:    there was some other problem reading the file
missing:  <obj> could not be found in the filestore
ERROR:    internal error, most likely due to a corrupt database

Where <action> is present only when removing bad blocks and is one of:
remove:   link to the block will be removed from datastore
keep:     keep link, nothing to do

For ERROR entries the error will also be printed to stderr.`,
  args: [{ name: 'obj', kind: 'string', variadic: true, description: 'Cid of objects to verify.' }],
  options: {
    'file-order': { type: 'bool', description: 'verify the objects based on the order of the backing file' },
    'remove-bad-blocks': { type: 'bool', description: "remove bad blocks. WARNING: This may remove pinned data. You should run 'ipfs pin verify' after running this command and correct any issues." }
  },
  output: 'ndjson',
  async * run ({ args, options, deps: { filestore }, signal }): AsyncGenerator<FilestoreListOutput> {
    filestore.check()
    const removeBad = options.removeBadBlocks === true
    if (args.length > 0) {
      yield * listByArgs(filestore, args, removeBad)
      return
    }
    for await (const r of filestore.all(true, options.fileOrder === true, { signal })) {
      if (removeBad && removable(r) && r.key != null) await filestore.delete(r.key)
      yield toWire(r)
    }
  },
  text: (r, { options }) => {
    const status = statusName(r.Status).padEnd(7)
    if (options.removeBadBlocks === true) {
      const action = r.Status !== 0 && r.Status !== 20 ? 'remove' : 'keep'
      return `${status} ${formatLong(r, options)} ${action}\n`
    }
    return `${status} ${formatLong(r, options)}\n`
  }
})
