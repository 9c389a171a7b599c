// ipfs swarm peering add (kubo swarmPeeringAddCmd): not saved to the config.
import { defineCommand } from '../../../registry/define.js'
import { NotOnlineError } from '../../../core/errors.js'
import { addrInfos, parseMultiaddr } from '../common.js'
import type { PeeringResult } from '../output.js'

export const swarmPeeringAdd = defineCommand({
  path: ['swarm', 'peering', 'add'],
  description: 'Add peers into the peering subsystem.',
  help: "'ipfs swarm peering add' will add the new address to the peering subsystem as one that should always be connected to.",
  args: [{ name: 'address', kind: 'string', required: true, variadic: true, description: 'address of peer to add into the peering subsystem' }],
  output: 'ndjson',
  async * run ({ args, deps: { network } }): AsyncGenerator<PeeringResult> {
    const infos = addrInfos(args.map(parseMultiaddr))
    if (network == null) throw new NotOnlineError()
    for (const info of infos) {
      network.peering.addPeer(info.id.toString(), info.addrs.map(a => a.toString()))
      yield { ID: info.id.toString(), Status: 'success' }
    }
  },
  text: (r) => `add ${r.ID} ${r.Status}\n`
})
