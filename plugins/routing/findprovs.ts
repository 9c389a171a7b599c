// ipfs routing findprovs: providers of a CID, streamed as Kubo's QueryEvents.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { cidFromArg } from '../../core/resolver/path.js'
import { QueryEventType, type QueryEventOutput } from '../../core/routing/index.js'
import { onlineRouting, printEvent } from './events.js'

export const routingFindprovs = defineCommand({
  path: ['routing', 'findprovs'],
  description: 'Find peers that can provide a specific value, given a key.',
  help: 'Outputs a list of newline-delimited provider Peer IDs.',
  args: [{ name: 'key', kind: 'string', required: true, variadic: true, description: 'The key to find providers for.' }],
  options: {
    verbose: { type: 'bool', aliases: ['v'], description: 'Print extra information.' },
    'num-providers': { type: 'int', aliases: ['n'], default: 20, description: 'The number of providers to find.' }
  },
  output: 'ndjson',
  async * run ({ args, options, deps, signal }): AsyncGenerator<QueryEventOutput> {
    const routing = onlineRouting(deps)
    const n = options.numProviders
    if (n < 1) throw new RpcError('number of providers must be greater than 0')
    const cid = cidFromArg(args[0])
    yield * routing.findProviders(cid, { signal, numProviders: n })
  },
  text: (e, { options }) => printEvent(e, options.verbose === true, {
    [QueryEventType.FinalPeer]: (obj, verbose) => verbose ? `* closest peer ${obj.ID}\n` : '',
    [QueryEventType.Provider]: (obj, verbose) => {
      const prov = obj.Responses?.[0]
      if (prov == null) return ''
      return (verbose ? 'provider: ' : '') + `${prov.ID}\n` + (verbose ? prov.Addrs.map(a => `\t${a}\n`).join('') : '')
    }
  })
})
