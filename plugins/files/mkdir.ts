// ipfs files mkdir (kubo core/commands/files.go filesMkdirCmd)
import { defineCommand } from '../../registry/define.js'
import { cidVersionOption, hashOption } from './options.js'

export const filesMkdir = defineCommand({
  path: ['files', 'mkdir'],
  description: 'Make directories.',
  help: `Create the directory if it does not already exist.

The directory will have the same CID version and hash function of the
parent directory unless the --cid-version and --hash options are used.

NOTE: All paths must be absolute.

Examples:

    $ ipfs files mkdir /test/newdir
    $ ipfs files mkdir -p /test/does/not/exist/yet`,
  args: [{ name: 'path', kind: 'string', required: true, description: 'Path to dir to make.' }],
  options: {
    parents: { type: 'bool', aliases: ['p'], description: 'No error if existing, make parent directories as needed.' },
    'cid-version': cidVersionOption,
    hash: hashOption
  },
  output: 'ndjson',
  async run ({ args, options, deps: { mfs } }) {
    await mfs.mkdir(args[0], { parents: options.parents, flush: options.flush !== false, cidVersion: options.cidVersion, hash: options.hash })
  }
})
