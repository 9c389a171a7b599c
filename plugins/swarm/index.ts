// swarm family (kubo core/commands/swarm.go): peers, addrs (+local, listen, autonat), connect,
// disconnect, filters (+add, rm), peering (add, ls, rm), resources. Reads the libp2p host and the
// network service (core/libp2p/network.ts); offline they answer with Kubo's offline errors.
import type { Plugin } from '../../registry/types.js'
import { swarmPeers } from './peers.js'
import { swarmAddrs } from './addrs.js'
import { swarmAddrsLocal } from './local.js'
import { swarmAddrsListen } from './listen.js'
import { swarmAddrsAutonat } from './autonat.js'
import { swarmConnect } from './connect.js'
import { swarmDisconnect } from './disconnect.js'
import { swarmFilters } from './filters/filters.js'
import { swarmFiltersAdd } from './filters/add.js'
import { swarmFiltersRm } from './filters/rm.js'
import { swarmPeeringAdd } from './peering/add.js'
import { swarmPeeringLs } from './peering/ls.js'
import { swarmPeeringRm } from './peering/rm.js'
import { swarmResources } from './resources.js'

export function swarmPlugin (): Plugin {
  return {
    name: 'swarm',
    requires: ['config'],
    groups: [
      { path: ['swarm'], description: 'Interact with the swarm.', help: "'ipfs swarm' is a tool to manipulate the network swarm. The swarm is the\ncomponent that opens, listens for, and maintains connections to other\nipfs peers in the internet." },
      { path: ['swarm', 'peering'], description: 'Modify the peering subsystem.', help: "'ipfs swarm peering' manages the peering subsystem.\nPeers in the peering subsystem are maintained to be connected, reconnected\non disconnect with a back-off.\nThe changes are not saved to the config." }
    ],
    commands: [swarmPeers, swarmAddrs, swarmAddrsLocal, swarmAddrsListen, swarmAddrsAutonat, swarmConnect, swarmDisconnect,
      swarmFilters, swarmFiltersAdd, swarmFiltersRm, swarmPeeringAdd, swarmPeeringLs, swarmPeeringRm, swarmResources]
  }
}
