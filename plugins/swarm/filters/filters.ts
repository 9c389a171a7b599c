// ipfs swarm filters (kubo swarmFiltersCmd): the deny filters in force (Swarm.AddrFilters + added).
import { defineCommand } from '../../../registry/define.js'
import { online, stringListText, type StringList } from '../common.js'

export const swarmFilters = defineCommand({
  path: ['swarm', 'filters'],
  description: 'Manipulate address filters.',
  help: "'ipfs swarm filters' will list out currently applied filters. Its subcommands\ncan be used to add or remove said filters. Filters are specified using the\nmultiaddr-filter format:\n\nExample:\n\n    /ip4/192.168.0.0/ipcidr/16\n\nWhere the above is equivalent to the standard CIDR:\n\n    192.168.0.0/16\n\nFilters default to those specified under the \"Swarm.AddrFilters\" config key.",
  output: 'single',
  run: async ({ deps: { libp2p, network } }): Promise<StringList> => {
    const { network: net } = online(libp2p, network)
    const list = net.filters.list()
    return { Strings: list.length > 0 ? list : null }
  },
  text: stringListText
})
