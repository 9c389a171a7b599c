// mount family: ipfs mount (no FUSE here: Kubo's nofuse answer).
import type { Plugin } from '../../registry/types.js'
import { mount } from './mount.js'

export function mountPlugin (): Plugin {
  return { name: 'mount', commands: [mount] }
}
