// ipfs swarm filters rm (kubo swarmFiltersRmCmd): "all" or "*" clears every filter.
import { defineCommand } from '../../../registry/define.js'
import { RpcError } from '../../../core/errors.js'
import { repoConfig, setRepoConfig } from '../../../core/config/schema.js'
import { online, stringListText, type StringList } from '../common.js'

export const swarmFiltersRm = defineCommand({
  path: ['swarm', 'filters', 'rm'],
  description: 'Remove an address filter.',
  help: "'ipfs swarm filters rm' will remove an address filter from the daemons swarm.",
  args: [{ name: 'address', kind: 'string', required: true, variadic: true, stdin: true, description: 'Multiaddr filter to remove.' }],
  output: 'single',
  run: async ({ args, deps: { libp2p, network, config } }): Promise<StringList> => {
    const { network: net } = online(libp2p, network)
    const { parseMask } = await import('../../../core/libp2p/filters.js')
    const cfg = repoConfig(config)
    const swarm = (cfg.Swarm ?? {}) as Record<string, unknown>
    const old = Array.isArray(swarm.AddrFilters) ? swarm.AddrFilters.map(String) : null
    if (args[0] === 'all' || args[0] === '*') {
      net.filters.clear()
      swarm.AddrFilters = null
      cfg.Swarm = swarm as never
      await setRepoConfig(config, cfg)
      return { Strings: old }
    }
    for (const a of args) {
      try { parseMask(a) } catch (err) { throw new RpcError((err as Error).message) }
      net.filters.remove(a)
    }
    const removed: string[] = []
    const keep: string[] = []
    for (const o of old ?? []) {
      if (args.includes(o)) removed.push(o)
      else keep.push(o)
    }
    swarm.AddrFilters = keep
    cfg.Swarm = swarm as never
    await setRepoConfig(config, cfg)
    return { Strings: removed }
  },
  text: stringListText
})
