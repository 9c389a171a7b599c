// ipfs files chmod (kubo core/commands/files.go filesChmodCmd)
import { defineCommand } from '../../registry/define.js'

export const filesChmod = defineCommand({
  path: ['files', 'chmod'],
  description: 'Change optional POSIX mode permissions',
  status: 'experimental',
  help: `The mode argument must be specified in Unix numeric notation.

    $ ipfs files chmod 0644 /foo
    $ ipfs files stat /foo
    ...
    Type: file
    Mode: -rw-r--r-- (0644)
    ...`,
  args: [
    { name: 'mode', kind: 'string', required: true, description: 'Mode to apply to node (numeric notation)' },
    { name: 'path', kind: 'string', required: true, description: 'Path to apply mode' }
  ],
  output: 'ndjson',
  async run ({ args, deps: { mfs } }) {
    await mfs.chmod(args[0], args[1])
  }
})
