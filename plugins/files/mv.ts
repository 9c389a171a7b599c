// ipfs files mv (kubo core/commands/files.go filesMvCmd)
import { defineCommand } from '../../registry/define.js'

export const filesMv = defineCommand({
  path: ['files', 'mv'],
  description: 'Move files.',
  help: `Move files around. Just like the traditional Unix mv.

Example:

    $ ipfs files mv /myfs/a/b/c /myfs/foo/newc`,
  args: [
    { name: 'source', kind: 'string', required: true, description: 'Source file to move.' },
    { name: 'dest', kind: 'string', required: true, description: 'Destination path for file to be moved to.' }
  ],
  output: 'ndjson',
  async run ({ args, options, deps: { mfs } }) {
    await mfs.mv(args[0], args[1], { flush: options.flush !== false })
  }
})
