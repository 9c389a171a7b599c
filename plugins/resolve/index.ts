// The resolve command: /ipns/ names (IPNS, DNSLink) and /ipfs/ paths to their /ipfs/ form.
import type { Plugin } from '../../registry/types.js'
import { resolve } from './resolve.js'

export function resolvePlugin (): Plugin {
  return {
    name: 'resolve',
    requires: ['nameSystem', 'resolver'],
    commands: [resolve]
  }
}
