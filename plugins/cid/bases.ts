// ipfs cid bases (Kubo core/commands/cid.go basesCmd; also `ipfs multibase list`).
import { defineCommand } from '../../registry/define.js'
import { MULTIBASES } from '../../core/go/multibase.js'
import { isPrint } from '../../core/go/strings.js'
import type { CodeAndNameOutput } from './output.js'

const lower = (code: number): number => String.fromCodePoint(code).toLowerCase().codePointAt(0) ?? code

/** Kubo's multibaseSorter: by lower-cased prefix, lowercase before uppercase. */
export function sortMultibases (rows: CodeAndNameOutput[]): CodeAndNameOutput[] {
  return rows.sort((a, b) => (lower(a.Code) - lower(b.Code)) || (b.Code - a.Code))
}

const pad = (n: number, width: number): string => String(n).padStart(width, ' ')

export const cidBases = defineCommand({
  path: ['cid', 'bases'],
  description: 'List available multibase encodings.',
  help: "'ipfs cid bases' relies on https://github.com/multiformats/go-multibase",
  noRepo: true,
  options: {
    prefix: { type: 'bool', description: 'also include the single letter prefixes in addition to the code' },
    numeric: { type: 'bool', description: 'also include numeric codes' }
  },
  output: 'single',
  run (): CodeAndNameOutput[] {
    return sortMultibases(MULTIBASES.map(b => ({ Code: b.code, Name: b.name })))
  },
  text (rows, { options }): string {
    const prefix = options.prefix === true
    const numeric = options.numeric === true
    return sortMultibases([...rows]).map(({ Code, Name }) => {
      // non-printable prefixes (identity) show as a space
      const ch = isPrint(Code) ? String.fromCodePoint(Code) : ' '
      if (prefix && numeric) return `${ch} ${pad(Code, 7)}  ${Name}\n`
      if (prefix) return `${ch}  ${Name}\n`
      if (numeric) return `${pad(Code, 7)}  ${Name}\n`
      return `${Name}\n`
    }).join('')
  }
})
