// Go string semantics that show up in Kubo's messages: UTF-8 decoding of raw bytes, %q quoting,
// unicode.IsPrint.

export const RUNE_ERROR = 0xfffd

/** Go's utf8.DecodeRune: the rune at `i` and its size; invalid or short input gives (U+FFFD, 1). */
export function decodeRune (bytes: Uint8Array, i: number): [rune: number, size: number] {
  const b0 = bytes[i]
  if (b0 < 0x80) return [b0, 1]
  const cont = (k: number): number => {
    const b = bytes[i + k]
    return b !== undefined && (b & 0xc0) === 0x80 ? b & 0x3f : -1
  }
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(1)
    if (c1 >= 0) return [((b0 & 0x1f) << 6) | c1, 2]
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(1)
    const c2 = cont(2)
    if (c1 >= 0 && c2 >= 0) {
      const r = ((b0 & 0x0f) << 12) | (c1 << 6) | c2
      if (r >= 0x800 && (r < 0xd800 || r > 0xdfff)) return [r, 3]
    }
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(1)
    const c2 = cont(2)
    const c3 = cont(3)
    if (c1 >= 0 && c2 >= 0 && c3 >= 0) {
      const r = ((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3
      if (r >= 0x10000 && r <= 0x10ffff) return [r, 4]
    }
  }
  return [RUNE_ERROR, 1]
}

/** Go's `for _, r := range string(bytes)`. */
export function * runes (bytes: Uint8Array): Generator<[rune: number, offset: number, size: number]> {
  for (let i = 0; i < bytes.length;) {
    const [r, size] = decodeRune(bytes, i)
    yield [r, i, size]
    i += size
  }
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u

/** Go's unicode.IsPrint (letters, marks, numbers, punctuation, symbols and the ASCII space). */
export function isPrint (r: number): boolean {
  if (r === 0x20) return true
  if (r < 0 || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff)) return false
  return PRINTABLE.test(String.fromCodePoint(r))
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0')

function quoteRuneInto (r: number, quote: string): string {
  const ch = String.fromCodePoint(r)
  if (ch === quote || ch === '\\') return '\\' + ch
  if (isPrint(r)) return ch
  switch (r) {
    case 0x07: return '\\a'
    case 0x08: return '\\b'
    case 0x0c: return '\\f'
    case 0x0a: return '\\n'
    case 0x0d: return '\\r'
    case 0x09: return '\\t'
    case 0x0b: return '\\v'
  }
  if (r < 0x20 || r === 0x7f) return '\\x' + hex(r, 2)
  if (r < 0x10000) return '\\u' + hex(r, 4)
  return '\\U' + hex(r, 8)
}

/** Go's strconv.Quote (`%q` of a string); invalid UTF-8 bytes become \xNN. */
export function goQuote (value: string | Uint8Array): string {
  const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value
  let out = '"'
  for (const [r, offset, size] of runes(bytes)) {
    if (r === RUNE_ERROR && size === 1) {
      out += '\\x' + hex(bytes[offset], 2)
      continue
    }
    out += quoteRuneInto(r, '"')
  }
  return out + '"'
}

/** Go's strconv.QuoteRune (`%q` of a rune). */
export function goQuoteRune (r: number): string {
  return "'" + quoteRuneInto(r, "'") + "'"
}

/** Go's `%#U`: U+0041 'A' (the quoted character only when printable). */
export function goUnicode (r: number): string {
  const code = 'U+' + r.toString(16).toUpperCase().padStart(4, '0')
  return isPrint(r) ? `${code} '${String.fromCodePoint(r)}'` : code
}


/** Kubo's cmdenv.EscNonPrint: Go-quote a string (without the quotes) when it holds a backslash or unprintable runes. */
export function escNonPrint (s: string): string {
  const chars = [...s]
  if (!s.includes('\\') && chars.every(ch => isPrint(ch.codePointAt(0) ?? 0))) return s
  let out = ''
  for (const ch of chars) {
    const cp = ch.codePointAt(0) ?? 0
    if (ch === '\\') out += '\\\\'
    else if (isPrint(cp)) out += ch
    else if (ch === '\x07') out += '\\a'
    else if (ch === '\b') out += '\\b'
    else if (ch === '\f') out += '\\f'
    else if (ch === '\n') out += '\\n'
    else if (ch === '\r') out += '\\r'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\v') out += '\\v'
    else if (cp < 0x20 || cp === 0x7f) out += '\\x' + hex(cp, 2)
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd'
    else if (cp < 0x10000) out += '\\u' + hex(cp, 4)
    else out += '\\U' + hex(cp, 8)
  }
  return out
}

const HIGH_UNITS = /[\ud800-\uffff]/

/**
 * Sorts `items` in place in Go's string order (the UTF-8 bytes of `key(item)`). Names below U+D800
 * compare as JS strings (code-unit order is then code-point order, which is UTF-8 byte order);
 * otherwise each key is encoded once, not once per comparison.
 */
export function sortByBytes<T> (items: T[], key: (item: T) => string): T[] {
  if (items.every(x => !HIGH_UNITS.test(key(x)))) {
    return items.sort((a, b) => { const x = key(a); const y = key(b); return x < y ? -1 : x > y ? 1 : 0 })
  }
  const keyed = items.map(item => ({ item, bytes: Buffer.from(key(item)) }))
  keyed.sort((a, b) => Buffer.compare(a.bytes, b.bytes))
  for (let i = 0; i < keyed.length; i++) items[i] = keyed[i].item
  return items
}
