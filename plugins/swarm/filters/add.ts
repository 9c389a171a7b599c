// ipfs swarm filters add (kubo swarmFiltersAddCmd): enforced at once (new dials and inbound
// connections) and saved to Swarm.AddrFilters; connections already open stay.
import { defineCommand } from '../../../registry/define.js'
import { RpcError } from '../../../core/errors.js'
import { repoConfig, setRepoConfig } from '../../../core/config/schema.js'
import { online, stringListText, type StringList } from '../common.js'

export const swarmFiltersAdd = defineCommand({
  path: ['swarm', 'filters', 'add'],
  description: 'Add an address filter.',
  help: "'ipfs swarm filters add' will add an address filter to the daemons swarm.",
  args: [{ name: 'address', kind: 'string', required: true, variadic: true, stdin: true, description: 'Multiaddr to filter.' }],
  output: 'single',
  run: async ({ args, deps: { libp2p, network, config } }): Promise<StringList> => {
    const { network: net } = online(libp2p, network)
    const { parseMask } = await import('../../../core/libp2p/filters.js')
    if (args.length === 0) throw new RpcError('no filters to add')
    for (const a of args) {
      try { parseMask(a) } catch (err) { throw new RpcError((err as Error).message) }
    }
    for (const a of args) net.filters.add(a)
    // filtersAdd: the new ones first (deduplicated), then the old ones not repeated
    const cfg = repoConfig(config)
    const swarm = (cfg.Swarm ?? {}) as Record<string, unknown>
    const old = Array.isArray(swarm.AddrFilters) ? swarm.AddrFilters.map(String) : []
    const added: string[] = []
    for (const a of args) if (!added.includes(a)) added.push(a)
    swarm.AddrFilters = [...added, ...old.filter(o => !added.includes(o))]
    cfg.Swarm = swarm as never
    await setRepoConfig(config, cfg)
    return { Strings: added }
  },
  text: stringListText
})
