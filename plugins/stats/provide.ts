// ipfs stats provide / stats reprovide (deprecated): provide stat under its old names.
import { defineCommand } from '../../registry/define.js'
import { provideStat } from '../provide/stat.js'

export const statsProvide = defineCommand({
  ...provideStat,
  path: ['stats', 'provide'],
  description: "Deprecated command, use 'ipfs provide stat' instead.",
  status: 'deprecated',
  replacement: "use 'ipfs provide stat' instead"
})

export const statsReprovide = defineCommand({
  ...provideStat,
  path: ['stats', 'reprovide'],
  description: "Deprecated command, use 'ipfs provide stat' instead.",
  status: 'deprecated',
  replacement: "use 'ipfs provide stat' instead"
})
