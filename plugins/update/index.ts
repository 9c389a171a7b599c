// update family: ipfs update, Kubo's external command (runs ipfs-update).
import type { Plugin } from '../../registry/types.js'
import { update } from './update.js'

export function updatePlugin (): Plugin {
  return { name: 'update', commands: [update] }
}
