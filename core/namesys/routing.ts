// IPNS records through the node's DHTs (core/routing: WAN and LAN kad-dht, both validating and selecting
// /ipns/ records). go-libp2p-kad-dht fails at once with an empty routing table where js kad-dht would
// wait for a peer, so only DHTs with peers are asked, and nothing happens when none has any.
import type { Routing, DhtService } from '../routing/index.js'
import { merge, QueryEventType } from '../routing/index.js'

const withPeers = (routing: Routing): DhtService[] =>
  routing.dhts().map(d => d.dht).filter(d => ((d as { routingTable?: { size: number } }).routingTable?.size ?? 0) > 0)

export class DhtRouting {
  constructor (private readonly routing: Routing) {}

  hasPeers (): boolean {
    return withPeers(this.routing).length > 0
  }

  /** Up to `count` values for a key, collected until the queries end or `timeoutMs` passes (0: no limit). */
  async search (key: Uint8Array, options: { count: number, timeoutMs: number, signal?: AbortSignal }): Promise<Uint8Array[]> {
    const dhts = withPeers(this.routing)
    if (dhts.length === 0) return []
    const controller = new AbortController()
    const signal = AbortSignal.any([controller.signal, ...(options.signal != null ? [options.signal] : []), ...(options.timeoutMs > 0 ? [AbortSignal.timeout(options.timeoutMs)] : [])])
    const out: Uint8Array[] = []
    try {
      for await (const e of merge(dhts.map(d => d.get(key, { signal })))) {
        if (e.type === QueryEventType.Value && e.value != null) {
          out.push(e.value)
          if (out.length >= Math.max(1, options.count)) break
        }
      }
    } catch (err) {
      if (out.length === 0 && options.signal?.aborted === true) throw err
    } finally {
      controller.abort()
    }
    return out
  }

  async put (key: Uint8Array, value: Uint8Array, signal?: AbortSignal): Promise<void> {
    if (!this.hasPeers()) return
    await this.routing.putValue(key, value, { signal })
  }
}
