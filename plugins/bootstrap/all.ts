// ipfs bootstrap rm all (kubo core/commands/bootstrap.go bootstrapRemoveAllCmd).
import { defineCommand } from '../../registry/define.js'
import { writePeers } from './list.js'
import type { BootstrapOutput } from './output.js'
import { removeAll } from './rm.js'

export const bootstrapRmAll = defineCommand({
  path: ['bootstrap', 'rm', 'all'],
  description: 'Remove all peers from the bootstrap list.',
  help: 'Outputs the list of peers that were removed.',
  output: 'single',
  run: async ({ deps: { config } }): Promise<BootstrapOutput> => await removeAll(config),
  text: (out) => writePeers('removed ', out.Peers)
})
