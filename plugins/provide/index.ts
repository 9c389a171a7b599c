// provide family: Kubo's core/commands/provide.go over core/provider.
import type { Plugin } from '../../registry/types.js'
import { provideClear } from './clear.js'
import { provideOnce } from './once.js'
import { provideStat } from './stat.js'

export function providePlugin (): Plugin {
  return {
    name: 'provide',
    requires: ['config', 'blockstore'],
    groups: [{ path: ['provide'], description: 'Control and monitor content providing', status: 'experimental' }],
    commands: [provideClear, provideOnce, provideStat]
  }
}
