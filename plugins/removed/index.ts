// removed family: Kubo's removed dht and object commands, and the deprecated groups that hold them.
import type { Plugin } from '../../registry/types.js'
import { removedCommands, removedGroups } from './table.js'

export function removedPlugin (): Plugin {
  return {
    name: 'removed',
    groups: removedGroups,
    commands: removedCommands
  }
}
