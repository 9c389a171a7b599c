// stats family: Kubo's core/commands/stat*.go (stats repo lives with repo; stats bw with the host).
import type { Plugin } from '../../registry/types.js'
import { statsBitswap } from './bitswap.js'
import { statsDht } from './dht.js'
import { statsProvide, statsReprovide } from './provide.js'
import { statsBw } from './bw.js'

export function statsPlugin (): Plugin {
  return {
    name: 'stats',
    requires: ['config'],
    commands: [statsBitswap, statsBw, statsDht, statsProvide, statsReprovide]
  }
}
