// ping family: ipfs ping.
import type { Plugin } from '../../registry/types.js'
import { pingPing } from './ping.js'

export type { PingResult } from './ping.js'

export function pingPlugin (): Plugin {
  return { name: 'ping', commands: [pingPing] }
}
