// object family: the deprecated object commands Kubo 0.40.1 still serves (diff, patch add-link,
// patch rm-link); the object and object/patch groups and the removed commands are in plugins/removed.
import type { Plugin } from '../../registry/types.js'
import { objectDiff } from './diff.js'
import { objectPatchAddLink } from './add-link.js'
import { objectPatchRmLink } from './rm-link.js'

export function objectPlugin (): Plugin {
  return {
    name: 'object',
    requires: ['blockstore', 'resolver', 'gcLock'],
    commands: [objectDiff, objectPatchAddLink, objectPatchRmLink]
  }
}
