// CLI-only commands: init and daemon (Kubo's cmd/ipfs; not in the daemon's command tree).
import type { Plugin } from '../../registry/types.js'
import { cliInit } from './init.js'
import { cliDaemon } from './daemon.js'

export function cliPlugin (): Plugin {
  return {
    name: 'cli',
    commands: [cliInit, cliDaemon]
  }
}
