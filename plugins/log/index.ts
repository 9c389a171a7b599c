// log family: log/level, log/ls, log/tail.
import type { Plugin } from '../../registry/types.js'
import { logLevel } from './level.js'
import { logLs } from './ls.js'
import { logTail } from './tail.js'

export function logPlugin (): Plugin {
  return {
    name: 'log',
    requires: ['logging'],
    groups: [{
      path: ['log'],
      description: 'Interact with the daemon log output.',
      help: "'ipfs log' contains utility commands to affect or read the logging\noutput of a running daemon."
    }],
    commands: [logLevel, logLs, logTail]
  }
}
