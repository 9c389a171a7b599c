// ipfs routing provide: announce CIDs now, -r their whole DAGs. Kubo 0.40.1 (experimental there; later Kubo
// deprecates it for `provide once`) announces synchronously but forwards none of the DHT's query events: the
// stream stays empty, with or without -v, and a failed announce is the error `error providing cid: …`.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { cidFromArg } from '../../core/resolver/path.js'
import { CidSet, walkDag } from '../../core/pins/walk.js'
import { QueryEventType, type QueryEventOutput } from '../../core/routing/index.js'
import type { CID } from 'multiformats/cid'
import { onlineRouting, printEvent } from './events.js'

export const PROVIDE_DISABLED = "invalid configuration: Provide.Enabled is set to 'false'"

export const routingProvide = defineCommand({
  path: ['routing', 'provide'],
  description: 'Announce to the network that you are providing given values.',
  status: 'experimental',
  args: [{ name: 'key', kind: 'string', required: true, variadic: true, stdin: true, description: 'The key[s] to send provide records for.' }],
  options: {
    verbose: { type: 'bool', aliases: ['v'], description: 'Print extra information.' },
    recursive: { type: 'bool', aliases: ['r'], description: 'Recursively provide entire graph.' }
  },
  output: 'ndjson',
  async * run ({ args, options, deps, signal }): AsyncGenerator<QueryEventOutput> {
    const routing = onlineRouting(deps)
    if (deps.config.getKey('Provide.Enabled') === false) throw new RpcError(PROVIDE_DISABLED)
    if (deps.libp2p?.getConnections().length === 0) throw new RpcError('cannot provide, no connected peers')
    const cids: CID[] = []
    for (const arg of args) {
      const cid = cidFromArg(arg)
      if (!await deps.blockstore.has(cid, { signal })) throw new RpcError(`block ${cid.toString()} not found locally, cannot provide`)
      cids.push(cid)
    }
    const all: CID[] = []
    if (options.recursive === true) {
      for (const root of cids) {
        const seen = new CidSet()
        await walkDag(deps.blockstore, root, { signal, visit: (c) => { if (!seen.visit(c)) return false; all.push(c); return true } })
      }
    } else {
      all.push(...cids)
    }
    try {
      for (const cid of all) {
        for await (const _ of routing.provide(cid, { signal })) { /* not forwarded, as Kubo */ }
      }
    } catch (err) {
      if (signal.aborted) throw err
      throw new RpcError(`error providing cid: ${(err as Error).message}`)
    }
  },
  text: (e, { options }) => printEvent(e, options.verbose === true, {
    [QueryEventType.FinalPeer]: (obj, verbose) => verbose ? `sending provider record to peer ${obj.ID}\n` : ''
  })
})
