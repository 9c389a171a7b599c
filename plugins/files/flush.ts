// ipfs files flush (kubo core/commands/files.go filesFlushCmd)
import { defineCommand } from '../../registry/define.js'
import type { FilesFlushOutput } from './output.js'

export const filesFlush = defineCommand({
  path: ['files', 'flush'],
  description: "Flush a given path's data to disk.",
  help: `Flush a given path to the disk. This is only useful when other commands
are run with the '--flush=false'.`,
  args: [{ name: 'path', kind: 'string', description: "Path to flush. Default: '/'." }],
  output: 'single',
  async run ({ args, deps: { mfs, cidEncoder } }): Promise<FilesFlushOutput> {
    const cid = await mfs.flush(args[0] ?? '/')
    return { Cid: cidEncoder.encode(cid) }
  },
  // no text encoder in Kubo: go-ipfs-cmds prints the struct with %s
  textGeneric: true,
  text: (value) => `&{${value.Cid}}\n`
})
