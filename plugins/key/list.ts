// ipfs key list: deprecated alias of key ls.
import { defineCommand } from '../../registry/define.js'
import { keyListOptions, listKeys } from './ls.js'
import { keyListText } from './text.js'
import type { KeyOutputList } from './output.js'

export const keyList = defineCommand({
  path: ['key', 'list'],
  description: "Deprecated: use 'ipfs key ls' instead.",
  status: 'deprecated',
  replacement: "use 'ipfs key ls' instead",
  options: keyListOptions,
  output: 'single',
  run: listKeys,
  text: (out: KeyOutputList, { options }) => keyListText(out, options.l === true)
})
