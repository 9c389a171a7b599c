// Go's encoding/json as seen from the outside: its text (HTML-escaped, indented like MarshalIndent)
// and its syntax-error messages, which Kubo passes on ("failed to unmarshal json. ...").
import type { Json } from '../../core/config/index.js'
import { goQuote } from '../../core/go/strings.js'

/** json.Marshal / json.MarshalIndent(v, "", "  "): Go escapes <, >, & and U+2028/2029. */
export function goMarshal (value: unknown, indent = false): string {
  const text = JSON.stringify(value, null, indent ? 2 : undefined) ?? 'null'
  return text.replace(/[<>&\u2028\u2029]/g, c => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}

/** encoding/json quoteChar: the byte as a Go rune literal. */
function quoteChar (b: number): string {
  if (b === 0x27) return "'\\''"
  if (b === 0x22) return "'\"'"
  const q = goQuote(String.fromCharCode(b))
  return "'" + q.slice(1, -1) + "'"
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)

/**
 * Go's json scanner over UTF-8 bytes: throws Go's syntax error text. Returns where the first value
 * ends; with `trailing` (json.Decoder) anything after it is left alone.
 */
function scan (data: Uint8Array, trailing = false): number {
  let i = 0
  const fail = (ctx: string): never => { throw new Error(`invalid character ${quoteChar(data[i])} ${ctx}`) }
  const eof = (): never => { throw new Error('unexpected end of JSON input') }
  const skip = (): void => { while (i < data.length && isSpace(data[i])) i++ }
  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      i++
      if (i >= data.length) eof()
      if (data[i] !== word.charCodeAt(k)) fail(`in literal ${word} (expecting '${word[k]}')`)
    }
    i++
  }
  const str = (): void => {
    i++ // opening quote
    for (;;) {
      if (i >= data.length) eof()
      const c = data[i]
      if (c === 0x22) { i++; return }
      if (c === 0x5c) {
        i++
        if (i >= data.length) eof()
        const e = data[i]
        if ('bfnrt\\/"'.includes(String.fromCharCode(e))) { i++; continue }
        if (e === 0x75) {
          i++
          for (let k = 0; k < 4; k++) {
            if (i >= data.length) eof()
            if (!isHex(data[i])) fail('in \\u hexadecimal character escape')
            i++
          }
          continue
        }
        fail('in string escape code')
      }
      if (c < 0x20) fail('in string literal')
      i++
    }
  }
  const num = (): void => {
    if (data[i] === 0x2d) {
      i++
      if (i >= data.length) eof()
      if (!isDigit(data[i])) fail('in numeric literal')
    }
    if (data[i] === 0x30) i++
    else while (i < data.length && isDigit(data[i])) i++
    if (i < data.length && data[i] === 0x2e) {
      i++
      if (i >= data.length) eof()
      if (!isDigit(data[i])) fail('after decimal point in numeric literal')
      while (i < data.length && isDigit(data[i])) i++
    }
    if (i < data.length && (data[i] === 0x65 || data[i] === 0x45)) {
      i++
      if (i >= data.length) eof()
      if (data[i] === 0x2b || data[i] === 0x2d) {
        i++
        if (i >= data.length) eof()
      }
      if (!isDigit(data[i])) fail('in exponent of numeric literal')
      while (i < data.length && isDigit(data[i])) i++
    }
  }
  const value = (): void => {
    skip()
    if (i >= data.length) eof()
    const c = data[i]
    if (c === 0x7b) { // {
      i++
      skip()
      if (i >= data.length) eof()
      if (data[i] === 0x7d) { i++; return }
      for (;;) {
        skip()
        if (i >= data.length) eof()
        if (data[i] !== 0x22) fail('looking for beginning of object key string')
        str()
        skip()
        if (i >= data.length) eof()
        if (data[i] !== 0x3a) fail('after object key')
        i++
        value()
        skip()
        if (i >= data.length) eof()
        if (data[i] === 0x2c) { i++; continue }
        if (data[i] === 0x7d) { i++; return }
        fail('after object key:value pair')
      }
    }
    if (c === 0x5b) { // [
      i++
      skip()
      if (i >= data.length) eof()
      if (data[i] === 0x5d) { i++; return }
      for (;;) {
        value()
        skip()
        if (i >= data.length) eof()
        if (data[i] === 0x2c) { i++; continue }
        if (data[i] === 0x5d) { i++; return }
        fail('after array element')
      }
    }
    if (c === 0x22) return str()
    if (c === 0x2d || isDigit(c)) return num()
    if (c === 0x74) return literal('true')
    if (c === 0x66) return literal('false')
    if (c === 0x6e) return literal('null')
    fail('looking for beginning of value')
  }
  value()
  const end = i
  if (trailing) return end
  skip()
  if (i < data.length) fail('after top-level value')
  return end
}

/** json.Unmarshal into `any`: Go's error text on bad input. */
export function goJsonParse (text: string): Json {
  scan(new TextEncoder().encode(text))
  return JSON.parse(text) as Json
}

/** json.NewDecoder(r).Decode: the first JSON value of the input; what follows is ignored. */
export function goJsonDecodeFirst (text: string): Json {
  const bytes = new TextEncoder().encode(text)
  const end = scan(bytes, true)
  return JSON.parse(new TextDecoder().decode(bytes.subarray(0, end))) as Json
}
