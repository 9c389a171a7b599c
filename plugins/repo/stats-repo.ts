// ipfs stats repo: Kubo registers repoStatCmd under a second path; so do we.
import { defineCommand } from '../../registry/define.js'
import { repoStat } from './stat.js'

export const statsRepo = defineCommand({ ...repoStat, path: ['stats', 'repo'] })
