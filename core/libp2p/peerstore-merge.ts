// js-libp2p merges the protocol into the peer store on every incoming stream (connection.js
// onIncomingStream): a decode, compare and encode of the peer's record each time. Kubo's bitswap
// server opens a stream per message (a 256 KiB block each), so receiving 256 MiB from Kubo cost
// ~1 ms per stream in these merges. Here a merge of protocols alone that the peer's record already
// holds (as the last merge of this peer left it, any other write since forgets it) returns that
// record without the store, as the store would after finding nothing to change.
import type { Peer, PeerId, PeerStore } from '@libp2p/interface'

/** a known record is trusted this long without a store read */
const FRESH_MS = 30_000

export function fastProtocolMerge (store: PeerStore): void {
  const known = new Map<string, { peer: Peer, at: number }>()
  const s = store as unknown as Record<'merge' | 'patch' | 'save' | 'delete' | 'consumePeerRecord', (...args: any[]) => Promise<any>>
  for (const name of ['patch', 'save', 'delete', 'consumePeerRecord'] as const) {
    const fn = s[name].bind(store)
    s[name] = async (...args: any[]) => {
      // a record's id is the first argument, except for a signed peer record (any peer: forget all)
      if (name === 'consumePeerRecord') known.clear()
      else known.delete(String(args[0]))
      return await fn(...args)
    }
  }
  const merge = s.merge.bind(store)
  s.merge = async (id: PeerId, data: Record<string, unknown>, options?: unknown) => {
    const key = id.toString()
    const protocolsOnly = Object.keys(data).length === 1 && Array.isArray(data.protocols)
    const k = known.get(key)
    if (protocolsOnly && k != null && Date.now() - k.at < FRESH_MS && (data.protocols as string[]).every(p => k.peer.protocols.includes(p))) return k.peer
    known.delete(key)
    const peer: Peer = await merge(id, data, options)
    if (protocolsOnly) known.set(key, { peer, at: Date.now() })
    if (known.size > 10_000) known.clear()
    return peer
  }
}
