// Go's time.Duration text: ParseDuration (with Go's error texts) and String(), in nanoseconds.

export class GoDurationError extends Error {
  constructor (message: string) {
    super(message)
    this.name = new.target.name
  }
}

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
  const invalid = (): never => { throw new GoDurationError(`time: invalid duration "${orig}"`) }
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
    if (unitText === '') throw new GoDurationError(`time: missing unit in duration "${orig}"`)
    s = s.slice(unitText.length)
    const unit = NS[unitText]
    if (unit == null) throw new GoDurationError(`time: unknown unit "${unitText}" in duration "${orig}"`)
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


/** Milliseconds of a Go duration, or undefined when Go would reject it (the RPC `timeout` option). */
export function parseDurationMs (text: string): number | undefined {
  try { return Number(parseGoDuration(text)) / 1e6 } catch { return undefined }
}
