// ipfs log ls (kubo core/commands/log.go): the logging subsystems.
import { defineCommand } from '../../registry/define.js'
import type { LogLsOutput } from './output.js'

export const logLs = defineCommand({
  path: ['log', 'ls'],
  description: 'List the logging subsystems.',
  help: "'ipfs log ls' is a utility command used to list the logging\nsubsystems of a running daemon.",
  output: 'single',
  run: ({ deps: { logging } }): LogLsOutput => ({ Strings: logging.subsystems() }),
  text: (out) => out.Strings.map(s => s + '\n').join('')
})
