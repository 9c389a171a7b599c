// ipfs files chcid (kubo core/commands/files.go filesChcidCmd)
import { defineCommand } from '../../registry/define.js'
import { cidVersionOption, hashOption } from './options.js'

export const filesChcid = defineCommand({
  path: ['files', 'chcid'],
  description: 'Change the CID version or hash function of the root node of a given path.',
  help: `Change the CID version or hash function of the root node of a given path.

Note: the MFS root ('/') CID format is controlled by Import.CidVersion and
Import.HashFunction in the config and cannot be changed with this command.
Use 'ipfs config' to modify these values instead. This command only works
on subdirectories of the MFS root.`,
  args: [{ name: 'path', kind: 'string', required: true, description: "Path to change (must not be '/')." }],
  options: {
    'cid-version': cidVersionOption,
    hash: hashOption
  },
  output: 'ndjson',
  async run ({ args, options, deps: { mfs } }) {
    await mfs.chcid(args[0], { cidVersion: options.cidVersion, hash: options.hash, flush: options.flush !== false })
  }
})
