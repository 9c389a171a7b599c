// ipfs provide once: announce CIDs now (-r: every block of their DAGs), outside the reprovide schedule.
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError, RpcError } from '../../core/errors.js'
import { cidFromArg } from '../../core/resolver/path.js'
import { CidSet, walkDag } from '../../core/pins/walk.js'
import type { CID } from 'multiformats/cid'

export interface ProvideOnceEvent { Queued: string }

export const provideOnce = defineCommand({
  path: ['provide', 'once'],
  description: 'Announce CIDs to the routing system on demand.',
  help: 'Publishes provider records for the given CIDs once. The periodic\nreprovide schedule (driven by Provide.Strategy and Provide.DHT.Interval)\nis left unchanged: CIDs announced here are NOT added to the schedule.\nCIDs can be passed as arguments or streamed from stdin (one per line).\n\nUse --recursive to walk the DAG and announce every reachable block.\n\nCIDs must already exist in the local blockstore.',
  status: 'experimental',
  args: [{ name: 'cid', kind: 'string', required: true, variadic: true, stdin: true, description: 'The CID(s) to announce.' }],
  options: {
    recursive: { type: 'bool', aliases: ['r'], description: 'Recursively announce the entire DAG.' }
  },
  output: 'ndjson',
  async * run ({ args, options, deps, signal }): AsyncGenerator<ProvideOnceEvent> {
    if (deps.libp2p == null || deps.routing == null) throw new NotOnlineError()
    if (deps.config.getKey('Provide.Enabled') === false) throw new RpcError('cannot provide: Provide.Enabled is false')
    if (deps.libp2p.getConnections().length === 0) throw new RpcError('cannot provide: no connected peers')
    const routing = deps.routing
    const seen = new CidSet()
    const announce = (cid: CID): ProvideOnceEvent => {
      // published in the background (Kubo's burst queue), not added to the schedule
      void (async () => { for await (const _ of routing.provide(cid)) { /* drained */ } })().catch(() => {})
      return { Queued: cid.toString() }
    }
    for (const arg of args) {
      let cid: CID
      try { cid = cidFromArg(arg) } catch (err) { throw new RpcError(`invalid CID "${arg}": ${(err as Error).message}`) }
      if (!await deps.blockstore.has(cid, { signal })) throw new RpcError(`block ${cid.toString()} not found locally, cannot provide`)
      if (options.recursive !== true) {
        if (seen.visit(cid)) yield announce(cid)
        continue
      }
      const batch: CID[] = []
      await walkDag(deps.blockstore, cid, { signal, visit: (c) => { if (!seen.visit(c)) return false; batch.push(c); return true } })
      for (const c of batch) yield announce(c)
    }
  },
  text: (e) => `${e.Queued}\n`
})
