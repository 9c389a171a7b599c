// ipfs swarm peering rm (kubo swarmPeeringRmCmd): the connection stays; it is no longer kept up.
import { defineCommand } from '../../../registry/define.js'
import { NotOnlineError } from '../../../core/errors.js'
import { parsePeerId } from '../common.js'
import type { PeeringResult } from '../output.js'

export const swarmPeeringRm = defineCommand({
  path: ['swarm', 'peering', 'rm'],
  description: 'Remove a peer from the peering subsystem.',
  help: "'ipfs swarm peering rm' will remove the given ID from the peering subsystem and remove it from the always-on connection.",
  args: [{ name: 'ID', kind: 'string', required: true, variadic: true, description: 'ID of peer to remove from the peering subsystem' }],
  output: 'ndjson',
  async * run ({ args, deps: { network } }): AsyncGenerator<PeeringResult> {
    if (network == null) throw new NotOnlineError()
    for (const arg of args) {
      const id = parsePeerId(arg)
      network.peering.removePeer(id.toString())
      yield { ID: id.toString(), Status: 'success' }
    }
  },
  text: (r) => `remove ${r.ID} ${r.Status}\n`
})
