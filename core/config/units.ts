// Go durations and go-humanize's ParseBytes, as Kubo's config uses them.
import { formatGoDuration, parseGoDuration as parseNs } from '../util/duration.js'

/** A decoding error with Go's encoding/json (or the custom unmarshaller's) text. */
export class ConfigDecodeError extends Error {}

export { formatGoDuration }

/** time.ParseDuration in nanoseconds; throws ConfigDecodeError with Go's text. */
export function parseGoDuration (text: string): bigint {
  try { return parseNs(text) } catch (err) { throw new ConfigDecodeError((err as Error).message) }
}


const BYTE_UNITS: Record<string, number> = {
  b: 1, '': 1,
  kib: 1024, ki: 1024, kb: 1000, k: 1000,
  mib: 1024 ** 2, mi: 1024 ** 2, mb: 1000 ** 2, m: 1000 ** 2,
  gib: 1024 ** 3, gi: 1024 ** 3, gb: 1000 ** 3, g: 1000 ** 3,
  tib: 1024 ** 4, ti: 1024 ** 4, tb: 1000 ** 4, t: 1000 ** 4,
  pib: 1024 ** 5, pi: 1024 ** 5, pb: 1000 ** 5, p: 1000 ** 5,
  eib: 1024 ** 6, ei: 1024 ** 6, eb: 1000 ** 6, e: 1000 ** 6
}

/** go-humanize ParseBytes ("256KiB", "1 MB", "42"). */
export function parseHumanBytes (s: string): number {
  const m = /^[0-9.,]*/.exec(s)?.[0] ?? ''
  const num = m.replace(/,/g, '')
  if (!/^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(num)) {
    throw new ConfigDecodeError(`strconv.ParseFloat: parsing "${num}": invalid syntax`)
  }
  const extra = s.slice(m.length).trim().toLowerCase()
  const mult = BYTE_UNITS[extra]
  if (mult == null) throw new ConfigDecodeError(`unhandled size name: ${extra}`)
  const f = Number(num) * mult
  if (f >= 2 ** 64) throw new ConfigDecodeError(`too large: ${s}`)
  return Math.floor(f)
}
