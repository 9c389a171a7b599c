// Go's time.Duration text (ParseDuration / String) and go-humanize's ParseBytes, as Kubo's config uses them.

/** A decoding error with Go's encoding/json (or the custom unmarshaller's) text. */
export class ConfigDecodeError extends Error {}

const NS: Record<string, bigint> = {
  ns: 1n,
  us: 1000n,
  'µs': 1000n, // U+00B5
  'μs': 1000n, // U+03BC
  ms: 1000000n,
  s: 1000000000n,
  m: 60000000000n,
  h: 3600000000000n
}
const MAX_INT64 = (1n << 63n) - 1n

/** time.ParseDuration, in nanoseconds; throws Go's error text. */
export function parseGoDuration (orig: string): bigint {
  const invalid = (): never => { throw new ConfigDecodeError(`time: invalid duration "${orig}"`) }
  let s = orig
  let neg = false
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '0') return 0n
  if (s === '') invalid()
  let total = 0n
  while (s !== '') {
    if (!/^[0-9.]/.test(s)) invalid()
    const intPart = /^[0-9]*/.exec(s)?.[0] ?? ''
    s = s.slice(intPart.length)
    let frac = ''
    if (s.startsWith('.')) {
      s = s.slice(1)
      frac = /^[0-9]*/.exec(s)?.[0] ?? ''
      s = s.slice(frac.length)
    }
    if (intPart === '' && frac === '') invalid()
    const unitText = /^[^0-9.]*/.exec(s)?.[0] ?? ''
    if (unitText === '') throw new ConfigDecodeError(`time: missing unit in duration "${orig}"`)
    s = s.slice(unitText.length)
    const unit = NS[unitText]
    if (unit == null) throw new ConfigDecodeError(`time: unknown unit "${unitText}" in duration "${orig}"`)
    const whole = BigInt(intPart === '' ? '0' : intPart)
    if (whole > MAX_INT64 / unit) invalid()
    let v = whole * unit
    if (frac !== '') {
      // Go keeps at most ~19 fraction digits and truncates
      const digits = frac.slice(0, 18)
      v += (BigInt(digits) * unit) / (10n ** BigInt(digits.length))
    }
    total += v
    if (total > MAX_INT64) invalid()
  }
  return neg ? -total : total
}

function fmtFrac (v: bigint, prec: number): { text: string, rest: bigint } {
  let text = ''
  let print = false
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n
    print = print || digit !== 0n
    if (print) text = String(digit) + text
    v /= 10n
  }
  return { text: print ? '.' + text : '', rest: v }
}

/** time.Duration.String. */
export function formatGoDuration (d: bigint): string {
  const neg = d < 0n
  let u = neg ? -d : d
  let out: string
  if (u < 1000000000n) {
    if (u === 0n) return '0s'
    let prec: number
    let unit: string
    if (u < 1000n) { prec = 0; unit = 'ns' } else if (u < 1000000n) { prec = 3; unit = 'µs' } else { prec = 6; unit = 'ms' }
    const f = fmtFrac(u, prec)
    out = String(f.rest) + f.text + unit
  } else {
    const f = fmtFrac(u, 9)
    u = f.rest
    out = String(u % 60n) + f.text + 's'
    u /= 60n
    if (u > 0n) {
      out = String(u % 60n) + 'm' + out
      u /= 60n
      if (u > 0n) out = String(u) + 'h' + out
    }
  }
  return neg ? '-' + out : out
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
