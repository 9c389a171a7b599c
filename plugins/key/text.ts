// Text helpers that reproduce Go's output: text/tabwriter and Kubo's cmdenv.EscNonPrint.
import type { KeyOutput, KeyOutputList } from './output.js'

export interface TabwriterInit {
  minwidth: number
  padding: number
}

/**
 * Go text/tabwriter with a space pad character and no flags: tab-terminated cells are aligned in
 * column blocks (runs of consecutive lines that have a cell in that column), each column padded to
 * its widest cell plus `padding`; text after the last tab of a line is not aligned.
 */
export function tabwrite (text: string, { minwidth, padding }: TabwriterInit): string {
  const lines = text.split('\n')
  const trailingNewline = lines[lines.length - 1] === ''
  if (trailingNewline) lines.pop()
  const cells = lines.map(l => l.split('\t'))
  const width = (s: string): number => [...s].length
  const out: string[] = []
  const widths: number[] = []

  const writeLines = (from: number, to: number): void => {
    for (let i = from; i < to; i++) {
      const line = cells[i]
      let s = ''
      line.forEach((c, j) => {
        s += c
        if (j < line.length - 1 && j < widths.length) s += ' '.repeat(Math.max(0, widths[j] - width(c)))
      })
      out.push(s)
    }
  }

  const format = (line0: number, line1: number): void => {
    const column = widths.length
    for (let i = line0; i < line1; i++) {
      if (column >= cells[i].length - 1) continue
      writeLines(line0, i)
      line0 = i
      let w = minwidth
      for (; i < line1; i++) {
        if (column >= cells[i].length - 1) break
        w = Math.max(w, width(cells[i][column]) + padding)
      }
      widths.push(w)
      format(line0, i)
      widths.pop()
      line0 = i
    }
    writeLines(line0, line1)
  }

  format(0, cells.length)
  return out.map(l => l + '\n').join('').slice(0, trailingNewline ? undefined : -1)
}

const isPrint = (ch: string): boolean => ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch)

const hex = (n: number, digits: number): string => n.toString(16).padStart(digits, '0')

/** Kubo's cmdenv.EscNonPrint: Go-quote a string (without the quotes) when it holds a backslash or unprintable runes. */
export function escNonPrint (s: string): string {
  const chars = [...s]
  if (!s.includes('\\') && chars.every(isPrint)) return s
  let out = ''
  for (const ch of chars) {
    const cp = ch.codePointAt(0) ?? 0
    if (ch === '\\') out += '\\\\'
    else if (isPrint(ch)) out += ch
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

/** Kubo's keyOutputListEncoders: names, or `<id> <name>` columns with -l. */
export function keyListText (list: KeyOutputList, withId: boolean): string {
  const keys: KeyOutput[] = list.Keys ?? []
  const raw = keys.map(k => withId ? `${k.Id}\t${escNonPrint(k.Name)}\t\n` : `${escNonPrint(k.Name)}\n`).join('')
  return tabwrite(raw, { minwidth: 1, padding: 1 })
}

/** Go's fmt %s of a bool (a verb mismatch): %!s(bool=true). */
export const goBool = (b: boolean): string => `%!s(bool=${String(b)})`
