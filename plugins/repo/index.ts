// repo family: ipfs repo gc/stat/verify/version/ls/migrate, and `ipfs stats repo` (the `stats` group
// is declared here; other stats commands join it from their own plugins).
import type { Plugin } from '../../registry/types.js'
import { repoGc } from './gc.js'
import { repoLs } from './ls.js'
import { repoMigrate } from './migrate.js'
import { repoStat } from './stat.js'
import { repoVerify } from './verify.js'
import { repoVersion } from './version.js'
import { statsRepo } from './stats-repo.js'

export type { GcResult, RepoStat, VerifyProgress, RepoVersion } from './output.js'

export function repoPlugin (): Plugin {
  return {
    name: 'repo',
    requires: ['blockstore', 'pins', 'gcLock', 'gcRoots', 'config'],
    groups: [
      { path: ['repo'], description: 'Manipulate the IPFS repo.' },
      { path: ['stats'], description: 'Query IPFS statistics.' }
    ],
    commands: [repoGc, repoLs, repoMigrate, repoStat, repoVerify, repoVersion, statsRepo]
  }
}
