// ipfs swarm peering ls (kubo swarmPeeringLsCmd).
import { defineCommand } from '../../../registry/define.js'
import { NotOnlineError } from '../../../core/errors.js'
import type { PeeringLs } from '../output.js'

export const swarmPeeringLs = defineCommand({
  path: ['swarm', 'peering', 'ls'],
  description: 'List peers registered in the peering subsystem.',
  help: "'ipfs swarm peering ls' lists the peers that are registered in the peering subsystem and to which the daemon is always connected.",
  output: 'single',
  run: async ({ deps: { network } }): Promise<PeeringLs> => {
    if (network == null) throw new NotOnlineError()
    return { Peers: network.peering.listPeers() }
  },
  text: (out) => (out.Peers ?? []).map(p => `${p.ID}\n` + p.Addrs.map(a => `\t${a}\n`).join('')).join('')
})
