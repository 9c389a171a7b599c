// get family: ipfs get.
import type { Plugin } from '../../registry/types.js'
import { getGet } from './get.js'

export function getPlugin (): Plugin {
  return {
    name: 'get',
    requires: ['resolver'],
    commands: [getGet]
  }
}
