// ipfs files ls (kubo core/commands/files.go filesLsCmd)
import { defineCommand } from '../../registry/define.js'
import { sortByBytes } from '../../core/go/strings.js'
import type { FilesLsEntry, FilesLsOutput } from './output.js'

export const filesLs = defineCommand({
  path: ['files', 'ls'],
  description: 'List directories in the local mutable namespace.',
  help: `List directories in the local mutable namespace (works on both IPFS and MFS paths).

Examples:

    $ ipfs files ls /welcome/docs/
    about
    contact
    help
    quick-start
    readme
    security-notes

    $ ipfs files ls /myfiles/a/b/c/d
    foo
    bar`,
  args: [{ name: 'path', kind: 'string', description: "Path to show listing for. Defaults to '/'." }],
  options: {
    long: { type: 'bool', aliases: ['l'], description: 'Use long listing format.' },
    U: { type: 'bool', description: 'Do not sort; list entries in directory order.' }
  },
  output: 'single',
  async run ({ args, options, deps: { mfs, cidEncoder } }): Promise<FilesLsOutput> {
    const path = args[0] ?? '/'
    const long = options.long === true
    const { file: isFile, entries } = await mfs.ls(path, { long })
    const out: FilesLsEntry[] = entries.map(e => ({
      Name: e.name,
      Type: e.type,
      Size: e.size,
      // a directory listing prints CIDs as they are; a single file's goes through --cid-base
      Hash: e.cid == null ? '' : isFile ? cidEncoder.encode(e.cid) : e.cid.toString()
    }))
    return { Entries: out.length === 0 ? null : out }
  },
  text: (value, { options }) => {
    const entries = [...(value.Entries ?? [])]
    if (options.U !== true) sortByBytes(entries, e => e.Name)
    let out = ''
    for (const e of entries) {
      if (options.long === true) out += `${e.Name}${e.Type === 1 ? '/' : ''}\t${e.Hash}\t${e.Size}\n`
      else out += `${e.Name}\n`
    }
    return out
  }
})

