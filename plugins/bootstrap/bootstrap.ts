// ipfs bootstrap: runs 'bootstrap list' (kubo core/commands/bootstrap.go BootstrapCmd).
import { defineCommand } from '../../registry/define.js'
import { listPeers, writePeers } from './list.js'
import type { BootstrapOutput } from './output.js'

export const SECURITY_WARNING = '\nSECURITY WARNING:\n\nThe bootstrap command manipulates the "bootstrap list", which contains\nthe addresses of bootstrap nodes. These are the *trusted peers* from\nwhich to learn about other peers in the network. Only edit this list\nif you understand the risks of adding or removing nodes from this list.\n'

export const bootstrapBootstrap = defineCommand({
  path: ['bootstrap'],
  description: 'Show or edit the list of bootstrap peers.',
  help: "Running 'ipfs bootstrap' with no arguments will run 'ipfs bootstrap list'.\n" + SECURITY_WARNING,
  output: 'single',
  // Kubo reuses list's Run, but declares no --expand-auto here, so the list is never expanded
  run: ({ deps: { config } }): BootstrapOutput => listPeers(config, false),
  text: (out) => writePeers('', out.Peers)
})
