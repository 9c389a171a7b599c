// ipfs diag cmds clear (kubo core/commands/active.go): drop finished requests from the log.
import { defineCommand } from '../../registry/define.js'

export const diagCmdsClear = defineCommand({
  path: ['diag', 'cmds', 'clear'],
  description: 'Clear inactive requests from the log.',
  output: 'ndjson',
  run: ({ deps: { requestLog } }): undefined => { requestLog.clear() }
})
