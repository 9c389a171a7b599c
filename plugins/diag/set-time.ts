// ipfs diag cmds set-time (kubo core/commands/active.go): how long finished requests stay listed.
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import { parseGoDuration } from '../../core/util/duration.js'

export const diagCmdsSetTime = defineCommand({
  path: ['diag', 'cmds', 'set-time'],
  description: 'Set how long to keep inactive requests in the log.',
  args: [{ name: 'time', kind: 'string', required: true, description: 'Time to keep inactive requests in log.' }],
  output: 'ndjson',
  run: ({ args, deps: { requestLog } }): undefined => {
    let ns: bigint
    try { ns = parseGoDuration(args[0]) } catch (err) { throw new RpcError((err as Error).message) }
    requestLog.keepMs = Number(ns) / 1e6
  }
})
