// winston logging with Kubo-style subsystems (log/level, log/ls, log/tail).
import winston, { type Logger } from 'winston'
import { PassThrough } from 'node:stream'

/** go-log levels */
export const LEVELS = ['debug', 'info', 'warn', 'error', 'dpanic', 'panic', 'fatal'] as const
const WINSTON_LEVELS: Record<string, number> = { fatal: 0, panic: 1, dpanic: 2, error: 3, warn: 4, info: 5, debug: 6 }

export interface LogEvent { level: string, logger: string, msg: string, ts: string, [key: string]: unknown }

export interface Logging {
  root: Logger
  /** a child logger for a subsystem (registers the subsystem) */
  forComponent: (name: string) => Logger
  subsystems: () => string[]
  /** level of a subsystem, or the default level for '*' */
  getLevel: (subsystem: string) => string
  levels: () => Record<string, string>
  /** set one subsystem, or every one with 'all' / '*' */
  setLevel: (subsystem: string, level: string) => void
  /** every event as it is logged, until the signal aborts */
  tail: (signal: AbortSignal) => AsyncIterable<LogEvent>
}

export interface LoggingInit {
  /** default level; GOLOG_LOG_LEVEL / TSIPFS_LOG_LEVEL otherwise, else 'error' (as Kubo) */
  level?: string
  /** write to stderr (the daemon does; tests and the CLI do not) */
  console?: boolean
}

export function createLogging (init: LoggingInit = {}): Logging {
  let defaultLevel = init.level ?? process.env.GOLOG_LOG_LEVEL ?? process.env.TSIPFS_LOG_LEVEL ?? 'error'
  const own = new Map<string, string>()
  const known = new Set<string>()
  const children = new Map<string, Logger>()
  const tails = new Set<PassThrough>()

  const levelOf = (sub: string): string => own.get(sub) ?? defaultLevel
  const filter = winston.format((info) => {
    const sub = String(info.logger ?? 'tsipfs')
    const want = WINSTON_LEVELS[levelOf(sub)] ?? WINSTON_LEVELS.error
    const have = WINSTON_LEVELS[info.level] ?? WINSTON_LEVELS.info
    for (const t of tails) t.write({ level: info.level, logger: sub, msg: String(info.message), ts: new Date().toISOString() })
    return have <= want ? info : false
  })
  const transports: winston.transport[] = init.console === true
    ? [new winston.transports.Stream({ stream: process.stderr })]
    : [new winston.transports.Stream({ stream: new PassThrough().resume() })]
  const root = winston.createLogger({
    levels: WINSTON_LEVELS,
    level: 'debug',
    format: winston.format.combine(filter(), winston.format.timestamp(), winston.format.printf(i => `${String(i.timestamp)}\t${i.level.toUpperCase()}\t${String(i.logger ?? 'tsipfs')}\t${String(i.message)}`)),
    transports
  })

  return {
    root,
    forComponent: (name) => {
      let child = children.get(name)
      if (child == null) {
        known.add(name)
        child = root.child({ logger: name })
        children.set(name, child)
      }
      return child
    },
    subsystems: () => [...known].sort(),
    getLevel: (sub) => sub === '*' ? defaultLevel : levelOf(sub),
    levels: () => {
      const out: Record<string, string> = { '*': defaultLevel }
      // like go-log: created loggers plus subsystems whose level was set before they log
      for (const s of [...new Set([...known, ...own.keys()])].sort()) out[s] = levelOf(s)
      return out
    },
    setLevel: (sub, level) => {
      if (sub === 'all' || sub === '*') {
        defaultLevel = level
        for (const s of own.keys()) own.set(s, level)
      } else {
        own.set(sub, level)
      }
    },
    tail: (signal) => {
      const stream = new PassThrough({ objectMode: true })
      tails.add(stream)
      const stop = (): void => { tails.delete(stream); stream.end() }
      if (signal.aborted) stop()
      else signal.addEventListener('abort', stop, { once: true })
      return stream as AsyncIterable<LogEvent>
    }
  }
}
