// Small Go-compatibility helpers for the exact error texts the importer must reproduce.

/** Go strconv.Quote (as used by %q) for the strings that reach error messages. */
export function goQuote (s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0
    switch (ch) {
      case '"': out += '\\"'; continue
      case '\\': out += '\\\\'; continue
      case '\x07': out += '\\a'; continue
      case '\b': out += '\\b'; continue
      case '\f': out += '\\f'; continue
      case '\n': out += '\\n'; continue
      case '\r': out += '\\r'; continue
      case '\t': out += '\\t'; continue
      case '\v': out += '\\v'; continue
    }
    if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0')
    else if (c === 0xfffd && ch !== '\ufffd') out += '\\ufffd'
    else if (c >= 0x80 && c < 0xa0) out += '\\u' + c.toString(16).padStart(4, '0')
    else out += ch
  }
  return out + '"'
}

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
