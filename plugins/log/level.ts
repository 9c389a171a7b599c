// ipfs log level (kubo core/commands/log.go): get or set the level of one or every subsystem.
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import { parseLevel } from './levels.js'
import type { LogLevelOutput } from './output.js'

/** go-log DefaultName: the key of the default level when no subsystem is given */
const DEFAULT_NAME = ''
/** the key of the default level in the 'all' listing */
const DEFAULT_KEY = '(default)'

const sortedRecord = (entries: Array<[string, string]>): Record<string, string> =>
  Object.fromEntries(entries.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b))))

export const logLevel = defineCommand({
  path: ['log', 'level'],
  description: 'Change or get the logging level.',
  help: "Get or change the logging level of one or all logging subsystems.\n\nThis command provides a runtime alternative to the GOLOG_LOG_LEVEL\nenvironment variable for debugging and troubleshooting.",
  cli: false,
  args: [
    { name: 'subsystem', kind: 'string', description: "The subsystem logging identifier. Use 'all' or '*' to get or set the log level of all subsystems including the default. If not specified, only show the default log level." },
    { name: 'level', kind: 'string', description: "The log level, with 'debug' as the most verbose and 'fatal' the least verbose. Use 'default' to set to the current default level. One of: debug, info, warn, error, dpanic, panic, fatal, default" }
  ],
  output: 'single',
  run: ({ args, deps: { logging }, log }): LogLevelOutput => {
    let subsystem = args[0] ?? ''
    let level = args[1] ?? ''
    if (subsystem === 'all') subsystem = '*'

    if (level !== '') {
      if (level === 'default') level = logging.getLevel('*')
      const parsed = parseLevel(level)
      logging.setLevel(subsystem, parsed)
      const message = `Changed log level of '${subsystem}' to '${level}'\n`
      log.info(message)
      return { Message: message }
    }

    if (subsystem === '') return { Levels: { [DEFAULT_NAME]: logging.getLevel('*') } }
    const levels = logging.levels()
    if (subsystem === '*') {
      return { Levels: sortedRecord(Object.entries(levels).map(([k, v]) => [k === '*' ? DEFAULT_KEY : k, v])) }
    }
    if (!Object.hasOwn(levels, subsystem)) throw new RpcError('error: No such logger')
    return { Levels: { [subsystem]: levels[subsystem] } }
  },
  text: (out, { options }) => {
    if (out.Message != null && out.Message !== '') return out.Message
    const levels = Object.entries(out.Levels ?? {})
    const showNames = options.encoding === 'json' || levels.length > 1
    const lines = levels.map(([sub, lvl]) => showNames ? `${sub}: ${lvl}` : lvl)
    return lines.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map(l => l + '\n').join('')
  }
})
