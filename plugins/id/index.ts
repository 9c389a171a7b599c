// id family: ipfs id.
import type { Plugin } from '../../registry/types.js'
import { idId } from './id.js'

export function idPlugin (): Plugin {
  return {
    name: 'id',
    requires: ['keystore'],
    commands: [idId]
  }
}
