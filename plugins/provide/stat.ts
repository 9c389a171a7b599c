// ipfs provide stat (and the deprecated stats provide / stats reprovide): Kubo 0.40's sweep provider stats.
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError, RpcError } from '../../core/errors.js'
import type { ProvideStatOutput } from '../../core/provider/stats.js'
import { provideStatText } from './text.js'

export const provideStatOptions = {
  lan: { type: 'bool', description: 'Show stats for LAN DHT only (for Sweep+Dual DHT only)' },
  all: { type: 'bool', aliases: ['a'], description: 'Display all provide sweep stats' },
  compact: { type: 'bool', description: 'Display stats in 2-column layout (requires --all)' },
  connectivity: { type: 'bool', description: 'Display DHT connectivity status' },
  network: { type: 'bool', description: 'Display network stats (peers, reachability, region size)' },
  schedule: { type: 'bool', description: 'Display reprovide schedule (CIDs/regions scheduled, next reprovide time)' },
  timings: { type: 'bool', description: 'Display timing information (uptime, cycle start, reprovide interval)' },
  workers: { type: 'bool', description: 'Display worker pool stats (active/available/queued workers)' },
  operations: { type: 'bool', description: 'Display operation stats (ongoing/past provides, rates, errors)' },
  queues: { type: 'bool', description: 'Display provide and reprovide queue sizes' }
} as const

export const provideStat = defineCommand({
  path: ['provide', 'stat'],
  description: 'Show statistics about the provide system',
  help: "Returns statistics about the node's provide system.\n\nUse --all for detailed statistics with these sections: connectivity, queues,\nschedule, timings, network, operations, and workers. Individual sections can\nbe displayed with their flags (e.g., --network, --operations). Multiple flags\ncan be combined.\n\nUse --compact for monitoring-friendly 2-column output (requires --all).",
  status: 'experimental',
  options: provideStatOptions,
  // Kubo emits with res.Emit: a one-value stream
  output: 'ndjson',
  async * run ({ deps }): AsyncGenerator<ProvideStatOutput> {
    if (deps.libp2p == null) throw new NotOnlineError()
    const provider = deps.provider
    if (provider == null || deps.routing == null || deps.routing.dhts().length === 0) throw new RpcError('stats not available with current routing system <nil>')
    yield { Sweep: provider.stat(), Legacy: null, FullRT: false }
  },
  text: (s, { options }) => provideStatText(s, options)
})
