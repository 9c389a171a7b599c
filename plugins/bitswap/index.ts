// bitswap family: Kubo's core/commands/bitswap.go over core/bitswap (counters and ledgers kept there).
import type { Plugin } from '../../registry/types.js'
import { bitswapStat } from './stat.js'
import { bitswapLedger } from './ledger.js'
import { bitswapWantlist } from './wantlist.js'
import { bitswapReprovide } from './reprovide.js'

export function bitswapPlugin (): Plugin {
  return {
    name: 'bitswap',
    requires: ['config'],
    groups: [{ path: ['bitswap'], description: 'Interact with the bitswap agent.' }],
    commands: [bitswapStat, bitswapWantlist, bitswapLedger, bitswapReprovide]
  }
}
