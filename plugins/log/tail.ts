// ipfs log tail (kubo core/commands/log.go): a byte stream of JSON log lines (go-log's pipe reader),
// until the client goes away.
import { RpcError } from '../../core/errors.js'
import type { LogEvent } from '../../core/logger/index.js'
import { defineCommand } from '../../registry/define.js'
import { parseLevel, severity } from './levels.js'

/** zap's production JSON encoder order: level, ts, logger, (caller), msg, then fields */
export function logLine (event: LogEvent): string {
  const { level, ts, logger, msg, ...fields } = event
  return JSON.stringify({ level, ts, logger, msg, ...fields }) + '\n'
}

export const logTail = defineCommand({
  path: ['log', 'tail'],
  description: 'Read and output log messages.',
  help: "Outputs log messages as they are generated.\n\nNOTE: --log-level requires the server to be logging at least at this level",
  status: 'experimental',
  options: {
    'log-level': { type: 'string', default: '', description: 'Log level to listen to.' }
  },
  output: 'bytes',
  contentType: 'text/plain',
  // not a generator: the subscription starts when the command runs, not at the first read
  run: ({ options, deps: { logging }, signal }): AsyncIterable<Uint8Array> => {
    let min = severity('debug')
    if (options.logLevel !== '') {
      try {
        min = severity(parseLevel(options.logLevel))
      } catch (err) {
        throw new RpcError(`setting log level ${options.logLevel}: ${(err as Error).message}`)
      }
    }
    const events = logging.tail(signal)
    const encoder = new TextEncoder()
    return (async function * () {
      for await (const event of events) {
        const level = severity(event.level)
        // what the subsystem's level lets through, and at least --log-level
        if (level < min || level < severity(logging.getLevel(event.logger))) continue
        yield encoder.encode(logLine(event))
      }
    })()
  }
})
