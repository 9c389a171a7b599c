// Kubo's printEvent (core/commands/routing.go): the text form of a QueryEvent stream, per event type,
// with overrides per command. Verbose lines start with the local time (15:04:05.000).
import type { PeerId } from '@libp2p/interface'
import { parsePeerId } from '../swarm/common.js'
import { RpcError, NotOnlineError } from '../../core/errors.js'
import { QueryEventType, type QueryEventOutput, type Routing } from '../../core/routing/index.js'
import type { RequestCradle } from '../../core/cradle.js'

export type PrintFn = (e: QueryEventOutput, verbose: boolean) => string

const pad = (n: number, w = 2): string => String(n).padStart(w, '0')
const clock = (d = new Date()): string => `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`

export function printEvent (e: QueryEventOutput, verbose: boolean, overrides: Partial<Record<QueryEventType, PrintFn>> = {}): string {
  const prefix = verbose ? `${clock()}: ` : ''
  const override = overrides[e.Type]
  if (override != null) return prefix + override(e, verbose)
  if (!verbose) return e.Type === QueryEventType.Value ? prefix + e.Extra : prefix
  switch (e.Type) {
    case QueryEventType.SendingQuery: return `${prefix}* querying ${e.ID}\n`
    case QueryEventType.Value: return `${prefix}got value: '${e.Extra}'\n`
    case QueryEventType.PeerResponse: return `${prefix}* ${e.ID} says use ${(e.Responses ?? []).map(r => `${r.ID} `).join('')}\n`
    case QueryEventType.QueryError: return `${prefix}error: ${e.Extra}\n`
    case QueryEventType.DialingPeer: return `${prefix}dialing peer: ${e.ID}\n`
    case QueryEventType.AddingPeer: return `${prefix}adding peer to query: ${e.ID}\n`
    case QueryEventType.FinalPeer: return prefix
    default: return `${prefix}unrecognized event type: ${String(e.Type)}\n`
  }
}

/** The node's routing, or Kubo's ErrNotOnline. */
export function onlineRouting (deps: RequestCradle): Routing {
  if (deps.libp2p == null || deps.routing == null) throw new NotOnlineError()
  return deps.routing
}

/** peer.Decode: a base58 multihash or a libp2p-key CID (go-libp2p's error texts). */
export const decodePeer = (text: string): PeerId => parsePeerId(text)

/** Kubo's normalizeKey: `/ipns/<peer>` or `/pk/<peer>` to the routing key (the peer ID's bytes). */
export function routingKey (s: string): Uint8Array {
  const parts = s.split('/')
  if (parts.length !== 3 || parts[0] !== '' || !(parts[1] === 'ipns' || parts[1] === 'pk')) throw new RpcError('invalid key')
  const peer = decodePeer(parts[2])
  return Buffer.concat([Buffer.from(`/${parts[1]}/`), peer.toMultihash().bytes])
}
