// ipfs cid codecs (Kubo core/commands/cid.go codecsCmd).
import { defineCommand } from '../../registry/define.js'
import { MULTICODECS, SUPPORTED_CODECS } from '../../core/go/multicodec.js'
import type { CodeAndNameOutput } from './output.js'

/** Kubo's text for codecs and hashes: sorted by code, `%5d  name` with --numeric. */
export function codeAndNameText (rows: CodeAndNameOutput[], numeric: boolean): string {
  return [...rows].sort((a, b) => a.Code - b.Code)
    .map(({ Code, Name }) => numeric ? `${String(Code).padStart(5, ' ')}  ${Name}\n` : `${Name}\n`)
    .join('')
}

export const listOptions = {
  numeric: { type: 'bool', aliases: ['n'], description: 'also include numeric codes' },
  supported: { type: 'bool', aliases: ['s'], description: 'list only codecs supported by go-ipfs commands' }
} as const

export const cidCodecs = defineCommand({
  path: ['cid', 'codecs'],
  description: 'List available CID multicodecs.',
  help: "'ipfs cid codecs' relies on https://github.com/multiformats/go-multicodec",
  noRepo: true,
  options: listOptions,
  output: 'single',
  run ({ options }): CodeAndNameOutput[] {
    const supported = options.supported === true
    return MULTICODECS
      .filter(([code, , tag]) => tag === 'ipld' && (!supported || SUPPORTED_CODECS.has(code)))
      .map(([code, name]) => ({ Code: code, Name: name }))
  },
  text: (rows, { options }) => codeAndNameText(rows, options.numeric === true)
})
