// ipfs dht query (deprecated): the peers closest to a peer ID, streamed as Kubo's QueryEvents.
import { defineCommand } from '../../registry/define.js'
import { InvalidArgumentError } from '../../core/errors.js'
import { NotDhtError, QueryEventType, type QueryEventOutput } from '../../core/routing/index.js'
import { decodePeer, printEvent } from '../routing/events.js'

export const dhtQuery = defineCommand({
  path: ['dht', 'query'],
  description: 'Find the closest Peer IDs to a given Peer ID by querying the DHT.',
  help: 'Outputs a list of newline-delimited Peer IDs.',
  status: 'deprecated',
  replacement: "use 'ipfs routing' instead",
  args: [{ name: 'peerID', kind: 'string', required: true, variadic: true, description: 'The peerID to run the query against.' }],
  options: {
    verbose: { type: 'bool', aliases: ['v'], description: 'Print extra information.' }
  },
  output: 'ndjson',
  async * run ({ args, deps, signal }): AsyncGenerator<QueryEventOutput> {
    const routing = deps.routing
    if (deps.libp2p == null || routing == null || routing.dhts().length === 0) throw new NotDhtError()
    let peer
    try { peer = decodePeer(args[0]) } catch { throw new InvalidArgumentError('invalid peer ID') }
    yield * routing.getClosestPeers(peer.toMultihash().bytes, { signal })
  },
  text: (e, { options }) => printEvent(e, options.verbose === true, {
    [QueryEventType.FinalPeer]: (obj) => `${obj.ID}\n`
  })
})
