// JSON as Go's encoding/json writes it (server/respond.ts and the CLI).

/** Go encoding/json: HTML-safe escaping and U+2028/2029 escaped; a trailing newline from json.Encoder. */
export function goJson (value: unknown): string {
  return goEscape(JSON.stringify(value ?? null)) + '\n'
}

/** Go's HTML-safe escapes on JSON text (any piece of it: the characters escaped never span two pieces) */
const goEscape = (text: string): string => text.replace(/[<>&\u2028\u2029]/g, c => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))

/** arrays and objects with more entries than this are written entry by entry */
const BIG = 256
const isRawJson = (JSON as unknown as { isRawJSON?: (v: unknown) => boolean }).isRawJSON ?? (() => false)

/** an array, or an object JSON.stringify walks key by key (no toJSON, not a raw JSON value) */
function container (v: unknown): v is Record<string, unknown> | unknown[] {
  if (typeof v !== 'object' || v == null) return false
  if (Array.isArray(v)) return true
  const proto = Object.getPrototypeOf(v)
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function' && !isRawJson(v)
}

/** whether `v` holds a big array or object within a few levels */
function big (v: unknown, depth = 0): boolean {
  if (!container(v) || depth > 4) return false
  const values = Array.isArray(v) ? v : Object.values(v)
  if (values.length > BIG) return true
  return values.some(x => big(x, depth + 1))
}

/** what JSON.stringify leaves out of an object and writes as null in an array */
const skipped = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol'

function * pieces (v: unknown): Generator<string> {
  if (!big(v)) { yield JSON.stringify(v); return }
  if (Array.isArray(v)) {
    yield '['
    for (let i = 0; i < v.length; i++) {
      if (i > 0) yield ','
      if (skipped(v[i])) yield 'null'
      else yield * pieces(v[i])
    }
    yield ']'
    return
  }
  yield '{'
  let first = true
  for (const k of Object.keys(v as object)) {
    const x = (v as Record<string, unknown>)[k]
    if (skipped(x)) continue
    yield (first ? '' : ',') + JSON.stringify(k) + ':'
    first = false
    yield * pieces(x)
  }
  yield '}'
}

/**
 * goJson(value) in pieces of about `size` characters, or undefined when the value holds no big array or
 * object (goJson is then cheaper): a listing of millions of entries is written without one giant string
 * (V8 strings stop near 512 MiB), in the same bytes.
 */
export function goJsonPieces (value: unknown, size = 64 * 1024): Iterable<string> | undefined {
  if (!big(value)) return undefined
  return (function * () {
    let buf = ''
    for (const p of pieces(value)) {
      buf += p
      if (buf.length >= size) { yield goEscape(buf); buf = '' }
    }
    yield goEscape(buf) + '\n'
  })()
}
