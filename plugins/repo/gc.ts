// ipfs repo gc (kubo core/commands/repo.go repoGcCmd, corerepo.GarbageCollectAsync): remove every
// block not reachable from a pin or from MFS (core/gc). Streams {"Key":{"/":cid}} per removed block;
// errors are collected and fail the command at the end, or with --stream-errors are streamed as
// {"Key":null,"Error":…} rows and the command ends with `encountered errors during gc run`.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { runGc } from '../../core/gc/index.js'
import type { GcResult } from './output.js'

export const repoGc = defineCommand({
  path: ['repo', 'gc'],
  description: 'Perform a garbage collection sweep on the repo.',
  help: `'ipfs repo gc' is a plumbing command that will sweep the local
set of stored objects and remove ones that are not pinned in
order to reclaim hard disk space.`,
  options: {
    'stream-errors': { type: 'bool', description: 'Stream errors.' },
    quiet: { type: 'bool', aliases: ['q'], description: 'Write minimal output.' },
    silent: { type: 'bool', description: 'Write no output.' }
  },
  output: 'ndjson',
  async * run ({ options, deps, signal }): AsyncGenerator<GcResult> {
    const { blockstore, pins, gcLock, gcRoots } = deps
    const events = runGc({ blockstore, pins, gcLock, roots: async (o) => await gcRoots.collect(o), signal })
    if (options.streamErrors === true) {
      let errs = false
      for await (const e of events) {
        if (e.error != null) {
          errs = true
          yield { Key: null, Error: e.error.message }
        } else {
          yield { Key: { '/': e.removed.toString() } }
        }
      }
      if (errs) throw new RpcError('encountered errors during gc run')
      return
    }
    // corerepo.CollectResult: one error as is, several joined as Kubo's MultiError
    const errors: string[] = []
    for await (const e of events) {
      if (e.error != null) errors.push(e.error.message)
      else if (options.silent !== true) yield { Key: { '/': e.removed.toString() } }
    }
    if (errors.length > 0) throw new RpcError(errors.join('; '))
  },
  text: (out, { options }) => {
    if (options.silent === true) return ''
    if (out.Error != null && out.Error !== '') return `Error: ${out.Error}\n`
    return `${options.quiet === true ? '' : 'removed '}${out.Key?.['/'] ?? ''}\n`
  }
})
