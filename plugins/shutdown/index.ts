// shutdown family: ipfs shutdown.
import type { Plugin } from '../../registry/types.js'
import { shutdownShutdown } from './shutdown.js'

export function shutdownPlugin (): Plugin {
  return {
    name: 'shutdown',
    requires: ['node'],
    commands: [shutdownShutdown]
  }
}
