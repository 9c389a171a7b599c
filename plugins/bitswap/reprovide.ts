// ipfs bitswap reprovide (deprecated): an alias of routing reprovide.
import { defineCommand } from '../../registry/define.js'
import { routingReprovide } from '../routing/reprovide.js'

export const bitswapReprovide = defineCommand({
  ...routingReprovide,
  path: ['bitswap', 'reprovide'],
  description: "Deprecated command to announce to bitswap. Use 'ipfs routing reprovide' instead.",
  help: "'ipfs bitswap reprovide' is a legacy plumbing command used to announce to DHT.\nDeprecated, use modern 'ipfs routing reprovide' instead.",
  status: 'deprecated',
  replacement: "use 'ipfs routing reprovide' instead"
})
