// ipfs key list: deprecated alias of key ls (the same command under another path).
import { defineCommand } from '../../registry/define.js'
import { keyLs } from './ls.js'

export const keyList = defineCommand({
  ...keyLs,
  path: ['key', 'list'],
  description: "Deprecated: use 'ipfs key ls' instead.",
  status: 'deprecated',
  replacement: "use 'ipfs key ls' instead"
})
