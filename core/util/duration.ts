// Go time.ParseDuration / Duration.String.

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** Milliseconds, or undefined when Go would reject the text. */
export function parseGoDuration (text: string): number | undefined {
  let s = text.trim()
  if (s === '') return undefined
  let sign = 1
  if (s[0] === '-' || s[0] === '+') { if (s[0] === '-') sign = -1; s = s.slice(1) }
  if (s === '0') return 0
  if (s === '') return undefined
  let total = 0
  const re = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/
  while (s.length > 0) {
    const m = re.exec(s)
    if (m == null) return undefined
    total += Number(m[1]) * UNITS[m[2]]
    s = s.slice(m[0].length)
  }
  return sign * total
}

/** Go's Duration.String() for a millisecond count (e.g. 90000 → "1m30s"). */
export function formatGoDuration (ms: number): string {
  if (ms === 0) return '0s'
  const neg = ms < 0
  let ns = Math.round(Math.abs(ms) * 1e6)
  let out: string
  if (ns < 1e9) {
    if (ns < 1e3) out = `${ns}ns`
    else if (ns < 1e6) out = `${trim(ns / 1e3)}µs`
    else out = `${trim(ns / 1e6)}ms`
  } else {
    const h = Math.floor(ns / 3.6e12); ns -= h * 3.6e12
    const m = Math.floor(ns / 6e10); ns -= m * 6e10
    const s = trim(ns / 1e9) + 's'
    out = h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s
  }
  return (neg ? '-' : '') + out
}

const trim = (n: number): string => String(Number(n.toFixed(9)))
