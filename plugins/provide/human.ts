// go-humanize and Go formatting helpers for `provide stat` (Kubo core/commands/provide.go).
const SI = ['y', 'z', 'a', 'f', 'p', 'n', 'µ', 'm', '', 'k', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y']

/** humanize.ComputeSI */
export function computeSI (v: number): [number, string] {
  if (v === 0) return [0, '']
  const mag = Math.floor(Math.log10(Math.abs(v)) / 3) * 3
  const i = Math.max(-24, Math.min(24, mag))
  return [v / 10 ** i, SI[i / 3 + 8]]
}

/** humanize.CommafWithDigits: commas every three digits, at most `decimals` decimals (truncated) */
export function humanFull (val: number, decimals: number): string {
  let s = String(val)
  if (s.includes('e')) s = val.toFixed(decimals)
  let [int, frac = ''] = s.split('.')
  const neg = int.startsWith('-')
  if (neg) int = int.slice(1)
  int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  frac = frac.slice(0, decimals).replace(/0+$/, '')
  return (neg ? '-' : '') + int + (frac !== '' ? '.' + frac : '')
}

export const humanSI = (val: number, decimals: number): string => {
  const [v, unit] = computeSI(val)
  return humanFull(v, decimals) + unit
}

export function humanNumber (n: number): string {
  const str = humanSI(n, 0)
  const full = humanFull(n, 0)
  return str !== full ? `${str}\t(${full})` : str
}

export const humanNumberOrNA = (n: number): string => n <= 0 ? 'N/A' : humanNumber(n)
export const humanFloatOrNA = (v: number): string => v <= 0 ? 'N/A' : humanFull(v, 1)
export const humanInt = (v: number): string => humanFull(v, 0)

/** Go's time.Duration.String for nanoseconds */
export function goDuration (nsIn: number): string {
  if (nsIn === 0) return '0s'
  const neg = nsIn < 0
  let ns = Math.abs(Math.round(nsIn))
  let out: string
  if (ns < 1e9) {
    const [unit, div] = ns < 1e3 ? ['ns', 1] : ns < 1e6 ? ['µs', 1e3] : ['ms', 1e6]
    out = trimFrac(ns / (div as number)) + (unit as string)
  } else {
    const h = Math.floor(ns / 3600e9); ns -= h * 3600e9
    const m = Math.floor(ns / 60e9); ns -= m * 60e9
    const s = trimFrac(ns / 1e9)
    out = h > 0 ? `${h}h${m}m${s}s` : m > 0 ? `${m}m${s}s` : `${s}s`
  }
  return (neg ? '-' : '') + out
}

const trimFrac = (x: number): string => {
  const s = x.toFixed(9).replace(/0+$/, '').replace(/\.$/, '')
  return s
}

/** Kubo humanDuration: truncated to 100ms above a second, to µs below */
export function humanDuration (ns: number): string {
  return ns > 1e9 ? goDuration(Math.floor(ns / 1e8) * 1e8) : goDuration(Math.floor(ns / 1e3) * 1e3)
}

export const humanDurationOrNA = (ns: number): string => ns <= 0 ? 'N/A' : humanDuration(ns)

const GO_ZERO = /^0001-01-01T00:00:00/

/** "2006-01-02 15:04:05" in local time; N/A for Go's zero time */
export function humanTime (iso: string | Date): string {
  if (typeof iso === 'string' && (iso === '' || GO_ZERO.test(iso))) return 'N/A'
  const d = typeof iso === 'string' ? new Date(iso) : iso
  const p = (n: number): string => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`
}

export const isGoZero = (iso: string): boolean => iso === '' || GO_ZERO.test(iso)
