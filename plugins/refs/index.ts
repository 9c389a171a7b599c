// refs family: ipfs refs, ipfs refs local.
import type { Plugin } from '../../registry/types.js'
import { refsRefs } from './refs.js'
import { refsLocal } from './local.js'

export type { RefWrapper } from './output.js'

export function refsPlugin (): Plugin {
  return {
    name: 'refs',
    requires: ['resolver', 'blockstore'],
    commands: [refsRefs, refsLocal]
  }
}
