// ipfs cid hashes (Kubo core/commands/cid.go hashesCmd): the hashes allowed for content.
import { defineCommand } from '../../registry/define.js'
import { codeAndNameText, listOptions } from './codecs.js'
import { isAllowedHash, MULTIHASH_NAMES } from '../../core/go/multicodec.js'
import type { CodeAndNameOutput } from './output.js'

export const cidHashes = defineCommand({
  path: ['cid', 'hashes'],
  description: 'List available multihashes.',
  help: "'ipfs cid hashes' relies on https://github.com/multiformats/go-multihash",
  noRepo: true,
  // Kubo shares the codecs options, --supported included (it changes nothing here)
  options: listOptions,
  output: 'single',
  run (): CodeAndNameOutput[] {
    return [...MULTIHASH_NAMES]
      .filter(([code]) => isAllowedHash(code))
      .sort(([a], [b]) => a - b)
      .map(([code, name]) => ({ Code: code, Name: name }))
  },
  text: (rows, { options }) => codeAndNameText(rows, options.numeric === true)
})
