// ls family: ipfs ls.
import type { Plugin } from '../../registry/types.js'
import { lsLs } from './ls.js'

export type { LsLink, LsObject, LsOutput } from './output.js'

export function lsPlugin (): Plugin {
  return {
    name: 'ls',
    requires: ['resolver'],
    commands: [lsLs]
  }
}
