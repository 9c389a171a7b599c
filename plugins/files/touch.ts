// ipfs files touch (kubo core/commands/files.go filesTouchCmd)
import { defineCommand } from '../../registry/define.js'
import { normalizeTime } from '../../core/unixfs/pb.js'

export const filesTouch = defineCommand({
  path: ['files', 'touch'],
  description: 'Set or change optional POSIX modification times.',
  status: 'experimental',
  help: `Examples:
    # set modification time to now.
    $ ipfs files touch /foo
    # set a custom modification time.
    $ ipfs files touch --mtime=1630937926 /foo`,
  args: [{ name: 'path', kind: 'string', required: true, description: 'Path of target to update.' }],
  options: {
    mtime: { type: 'int64', description: 'Modification time in seconds before or since the Unix Epoch to apply to created UnixFS entries.' },
    'mtime-nsecs': { type: 'uint', description: 'Modification time fraction in nanoseconds' }
  },
  output: 'ndjson',
  async run ({ args, options, deps: { mfs } }) {
    const secs = options.mtime ?? 0
    let t: { secs: number, nsecs?: number }
    if (secs !== 0) {
      t = normalizeTime({ secs, nsecs: options.mtimeNsecs ?? 0 })
    } else {
      const ms = Date.now()
      t = { secs: Math.floor(ms / 1000), nsecs: (ms % 1000) * 1e6 }
    }
    await mfs.touch(args[0], t)
  }
})
