// cat family: ipfs cat.
import type { Plugin } from '../../registry/types.js'
import { catCat } from './cat.js'

export function catPlugin (): Plugin {
  return {
    name: 'cat',
    requires: ['resolver'],
    commands: [catCat]
  }
}
