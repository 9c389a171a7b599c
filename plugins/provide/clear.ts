// ipfs provide clear: empty the provide queue (CIDs waiting for their first announcement).
import { defineCommand } from '../../registry/define.js'

export const provideClear = defineCommand({
  path: ['provide', 'clear'],
  description: 'Clear all CIDs from the provide queue.',
  help: 'Clears the provide queue: CIDs waiting to be advertised to the DHT for the\nfirst time. Does not affect content that is already being reprovided on\nschedule.',
  status: 'experimental',
  options: {
    quiet: { type: 'bool', aliases: ['q'], description: 'Do not write output.' }
  },
  // Kubo emits the count with res.Emit (a stream of one number), nothing with --quiet or without a provider
  output: 'ndjson',
  async * run ({ options, deps }): AsyncGenerator<number> {
    const provider = deps.provider
    if (provider == null) return
    const cleared = provider.clear()
    if (options.quiet === true) return
    yield cleared
  },
  text: (n, { options }) => options.quiet === true ? '' : `removed ${n} items from provide queue\n`
})
