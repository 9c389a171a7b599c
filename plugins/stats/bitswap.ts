// ipfs stats bitswap: bitswap stat under stats.
import { defineCommand } from '../../registry/define.js'
import { bitswapStat } from '../bitswap/stat.js'

export const statsBitswap = defineCommand({ ...bitswapStat, path: ['stats', 'bitswap'] })
