// Small Go-compatibility helpers for the exact error texts the importer must reproduce.
import { goQuote } from '../go/strings.js'

export { goQuote }

const INT64_MAX = 2n ** 63n - 1n
const INT64_MIN = -(2n ** 63n)

/** Go strconv.Atoi on a 64-bit platform: optional sign, decimal digits; Go's exact error texts. */
export function goAtoi (s: string): number {
  const m = /^[+-]?[0-9]+$/.exec(s)
  if (m == null) throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`)
  const v = BigInt(s)
  if (v > INT64_MAX || v < INT64_MIN) throw new Error(`strconv.Atoi: parsing ${goQuote(s)}: value out of range`)
  return Number(v)
}
