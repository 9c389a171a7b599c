// ipfs routing findpeer: a peer's addresses through the DHT, streamed as Kubo's QueryEvents.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { QueryEventType, queryEvent, type QueryEventOutput } from '../../core/routing/index.js'
import { decodePeer, onlineRouting, printEvent } from './events.js'

export const routingFindpeer = defineCommand({
  path: ['routing', 'findpeer'],
  description: 'Find the multiaddresses associated with a Peer ID.',
  help: 'Outputs a list of newline-delimited multiaddresses.',
  args: [{ name: 'peerID', kind: 'string', required: true, variadic: true, description: 'The ID of the peer to search for.' }],
  options: {
    verbose: { type: 'bool', aliases: ['v'], description: 'Print extra information.' }
  },
  output: 'ndjson',
  async * run ({ args, deps, signal }): AsyncGenerator<QueryEventOutput> {
    const routing = onlineRouting(deps)
    const peer = decodePeer(args[0])
    if (deps.libp2p != null && peer.equals(deps.libp2p.peerId)) throw new RpcError('finding your own node in the DHT is currently not supported')
    try {
      yield * routing.findPeer(peer, { signal })
    } catch (err) {
      // Kubo publishes the failure as a QueryError event, then fails the request
      if (signal.aborted) throw err
      yield queryEvent(QueryEventType.QueryError, { Extra: (err as Error).message })
      throw err
    }
  },
  text: (e, { options }) => printEvent(e, options.verbose === true, {
    [QueryEventType.FinalPeer]: (obj) => (obj.Responses?.[0]?.Addrs ?? []).map(a => `${a}\n`).join('')
  })
})
