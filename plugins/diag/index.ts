// diag family: diag/cmds (+ clear, set-time), diag/sys, diag/healthy, diag/profile.
import type { Plugin } from '../../registry/types.js'
import { diagCmds } from './cmds.js'
import { diagCmdsClear } from './clear.js'
import { diagCmdsSetTime } from './set-time.js'
import { diagSys } from './sys.js'
import { diagHealthy } from './healthy.js'
import { diagDatastoreCount, diagDatastoreGet } from './datastore.js'
import { diagProfile } from './profile.js'

export function diagPlugin (): Plugin {
  return {
    name: 'diag',
    requires: ['requestLog', 'blockstore', 'datastore', 'gcLock'],
    groups: [
      { path: ['diag'], description: 'Generate diagnostic reports.' },
      { path: ['diag', 'datastore'], description: 'Low-level datastore inspection for debugging and testing.', status: 'experimental' }
    ],
    commands: [diagCmds, diagCmdsClear, diagCmdsSetTime, diagSys, diagHealthy, diagDatastoreCount, diagDatastoreGet, diagProfile]
  }
}
