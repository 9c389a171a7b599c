// Logging with Kubo-style subsystems (log/level, log/ls, log/tail): a logger per subsystem writing
// go-log's text lines to stderr (the daemon) or nowhere. Written here rather than with winston, whose
// ~100 modules every start-up loaded to print a line or two.
import { PassThrough } from 'node:stream'

/** go-log levels */
export const LEVELS = ['debug', 'info', 'warn', 'error', 'dpanic', 'panic', 'fatal'] as const
const RANK: Record<string, number> = { fatal: 0, panic: 1, dpanic: 2, error: 3, warn: 4, info: 5, debug: 6 }

/** one subsystem's logger (each method takes the message; child() makes one with other fields) */
export interface Logger {
  fatal: (message: unknown) => Logger
  panic: (message: unknown) => Logger
  dpanic: (message: unknown) => Logger
  error: (message: unknown) => Logger
  warn: (message: unknown) => Logger
  info: (message: unknown) => Logger
  debug: (message: unknown) => Logger
  log: (level: string, message: unknown) => Logger
  child: (fields: { logger?: string, [field: string]: unknown }) => Logger
}

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

/**
 * go-log's GOLOG_LOG_LEVEL: comma-separated items, each a default level or `subsystem=level` (levels in any
 * case, nothing trimmed); an item with an unknown level is skipped with a message, as Kubo does.
 */
export function parseLogLevelEnv (env: string, warn: (message: string) => void = () => {}): { level?: string, subsystems: Map<string, string> } {
  const out: { level?: string, subsystems: Map<string, string> } = { subsystems: new Map() }
  for (const item of env.split(',')) {
    const eq = item.indexOf('=')
    const level = (eq < 0 ? item : item.slice(eq + 1)).toLowerCase()
    if (!(level in RANK)) {
      warn(`error setting log level "${item}": unrecognized level: "${eq < 0 ? item : item.slice(eq + 1)}"\n`)
      continue
    }
    if (eq < 0) out.level = level
    else out.subsystems.set(item.slice(0, eq), level)
  }
  return out
}

export function createLogging (init: LoggingInit = {}): Logging {
  const env = init.level == null ? (process.env.GOLOG_LOG_LEVEL ?? process.env.TSIPFS_LOG_LEVEL) : undefined
  const parsed = env != null ? parseLogLevelEnv(env, init.console === true ? (m) => process.stderr.write(m) : undefined) : undefined
  let defaultLevel = init.level ?? parsed?.level ?? 'error'
  const own = new Map<string, string>(parsed?.subsystems)
  const known = new Set<string>()
  const children = new Map<string, Logger>()
  const tails = new Set<PassThrough>()

  const levelOf = (sub: string): string => own.get(sub) ?? defaultLevel
  const sink = init.console === true ? process.stderr : undefined
  const emit = (level: string, sub: string, message: unknown): void => {
    const msg = message instanceof Error ? message.message : String(message)
    const ts = new Date().toISOString()
    for (const t of tails) t.write({ level, logger: sub, msg, ts })
    if (sink == null) return
    const want = RANK[levelOf(sub)] ?? RANK.error
    const have = RANK[level] ?? RANK.info
    if (have <= want) sink.write(`${ts}\t${level.toUpperCase()}\t${sub}\t${msg}\n`)
  }
  const makeLogger = (sub: string): Logger => {
    const logger = {} as Logger
    for (const level of LEVELS) logger[level] = (message) => { emit(level, sub, message); return logger }
    logger.log = (level, message) => { emit(level, sub, message); return logger }
    logger.child = (fields) => makeLogger(fields.logger ?? sub)
    return logger
  }
  const root = makeLogger('tsipfs')

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
