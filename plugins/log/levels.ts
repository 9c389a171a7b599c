// go-log levels (zapcore.Level names) and their parsing.
import { RpcError } from '../../core/errors.js'

/** least to most severe, as zapcore orders them */
export const LEVEL_ORDER = ['debug', 'info', 'warn', 'error', 'dpanic', 'panic', 'fatal'] as const

/**
 * zapcore Level.UnmarshalText: the lowercase names, their uppercase forms, then a lowercased retry;
 * '' means info. Throws go's error text.
 */
export function parseLevel (text: string): string {
  if (text === '') return 'info'
  const lower = text.toLowerCase()
  if ((LEVEL_ORDER as readonly string[]).includes(lower)) return lower
  throw new RpcError(`unrecognized level: ${JSON.stringify(text)}`)
}

export const severity = (level: string): number => (LEVEL_ORDER as readonly string[]).indexOf(level)
