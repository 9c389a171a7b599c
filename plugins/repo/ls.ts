// ipfs repo ls: Kubo registers RefsLocalCmd (`ipfs refs local`) under a second path; so do we.
import { defineCommand } from '../../registry/define.js'
import { refsLocal } from '../refs/local.js'

export const repoLs = defineCommand({ ...refsLocal, path: ['repo', 'ls'] })
