// Go time.Duration: ParseDuration (with its error texts) and String(), on nanosecond counts.

const UNITS: Record<string, number> = {
  ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9
}

class DurationError extends Error {}

/** time.ParseDuration: "1h30m", "1.5s", "-2ms"… in nanoseconds; throws Go's messages. */
export function parseGoDuration (text: string): number {
  const quoted = JSON.stringify(text)
  const invalid = (): never => { throw new DurationError(`time: invalid duration ${quoted}`) }
  let s = text
  let neg = false
  if (s !== '' && (s[0] === '-' || s[0] === '+')) { neg = s[0] === '-'; s = s.slice(1) }
  if (s === '0') return 0
  if (s === '') invalid()
  let total = 0
  while (s !== '') {
    if (!/^[0-9.]/.test(s)) invalid()
    const int = /^[0-9]*/.exec(s)?.[0] ?? ''
    s = s.slice(int.length)
    let frac = ''
    if (s.startsWith('.')) {
      s = s.slice(1)
      frac = /^[0-9]*/.exec(s)?.[0] ?? ''
      s = s.slice(frac.length)
    }
    if (int === '' && frac === '') invalid()
    const unit = /^[^0-9.]*/.exec(s)?.[0] ?? ''
    if (unit === '') throw new DurationError(`time: missing unit in duration ${quoted}`)
    s = s.slice(unit.length)
    const scale = UNITS[unit]
    if (scale === undefined) throw new DurationError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`)
    const value = Number(int === '' ? 0 : int) * scale + (frac === '' ? 0 : Number(`0.${frac}`) * scale)
    if (!Number.isFinite(value) || value > 2 ** 63) invalid()
    total += value
    if (total > 2 ** 63) invalid()
  }
  return Math.trunc(neg ? -total : total)
}

/** the fraction of v / 10^prec without trailing zeros ('' when none), and v / 10^prec */
function fraction (v: bigint, prec: number): [string, bigint] {
  let digits = ''
  let print = false
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n
    print ||= digit !== 0n
    if (print) digits = digit.toString() + digits
    v /= 10n
  }
  return [print ? '.' + digits : '', v]
}

/** time.Duration.String(): "1h2m3.5s", "1.5ms", "0s". */
export function formatGoDuration (nanoseconds: number): string {
  const neg = nanoseconds < 0
  let u = BigInt(Math.trunc(Math.abs(nanoseconds)))
  let out: string
  if (u < 1_000_000_000n) {
    if (u === 0n) return '0s'
    let prec: number
    let unit: string
    if (u < 1000n) { prec = 0; unit = 'ns' } else if (u < 1_000_000n) { prec = 3; unit = 'µs' } else { prec = 6; unit = 'ms' }
    const [frac, whole] = fraction(u, prec)
    out = `${whole}${frac}${unit}`
  } else {
    const [frac, secs] = fraction(u, 9)
    u = secs
    out = `${u % 60n}${frac}s`
    u /= 60n
    if (u > 0n) {
      out = `${u % 60n}m` + out
      u /= 60n
      if (u > 0n) out = `${u}h` + out
    }
  }
  return neg ? '-' + out : out
}
