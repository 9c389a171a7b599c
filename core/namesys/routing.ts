// IPNS records through the node's DHTs (core/routing: WAN and LAN kad-dht, both validating and selecting
// /ipns/ records). go-libp2p-kad-dht fails at once with an empty routing table where js kad-dht would
// wait for a peer, so only DHTs with peers are searched (a put to one without peers stays local).
import type { Routing, DhtService } from '../routing/index.js'
import { merge, QueryEventType } from '../routing/index.js'

const withPeers = (routing: Routing): DhtService[] =>
  routing.dhts().map(d => d.dht).filter(d => ((d as { routingTable?: { size: number } }).routingTable?.size ?? 0) > 0)

/** A value the DHT gave for a key; `validated` when kad-dht already ran the record validator on it. */
export interface FoundValue { value: Uint8Array, validated: boolean }

export interface SearchOptions {
  count: number
  timeoutMs: number
  signal?: AbortSignal
  /** records the caller found locally and counts already: the DHTs' own copies of them do not count again */
  counted?: Uint8Array[]
}

export class DhtRouting {
  constructor (private readonly routing: Routing) {}

  hasPeers (): boolean {
    return withPeers(this.routing).length > 0
  }

  /**
   * Values for a key as the query finds them (go-libp2p-kad-dht SearchValue): each peer's record as it answers
   * (`validated`: kad-dht checked it with the IPNS validator before passing it on), then the query's own final value
   * when it is a new one (js kad-dht's local copy). Stops after `count` values (Kubo's Quorum), when the queries end,
   * or when `timeoutMs` passes (0: no limit).
   */
  async search (key: Uint8Array, options: SearchOptions): Promise<FoundValue[]> {
    // Kubo's DHT answers from the record the node holds also without peers
    if (this.routing.searchValue != null) return await this.lookup(key, options)
    const dhts = withPeers(this.routing)
    if (dhts.length === 0) return []
    const controller = new AbortController()
    const signal = AbortSignal.any([controller.signal, ...(options.signal != null ? [options.signal] : []), ...(options.timeoutMs > 0 ? [AbortSignal.timeout(options.timeoutMs)] : [])])
    const out: FoundValue[] = []
    const seen = new Set<string>()
    const add = (value: Uint8Array, validated: boolean): boolean => {
      const id = Buffer.from(value).toString('base64')
      if (!seen.has(id) || validated) out.push({ value, validated })
      seen.add(id)
      return out.length >= Math.max(1, options.count)
    }
    // enough values: the queries are stopped through their signal and drained to their end (leaving a js kad-dht
    // query with `return()` while its paths still run makes their AbortError an unhandled rejection)
    let enough = false
    try {
      for await (const e of merge(dhts.map(d => d.get(key, { signal })))) {
        if (enough) continue
        const record = (e as { record?: { value?: Uint8Array } }).record?.value
        const value = e.type === QueryEventType.PeerResponse ? record : e.type === QueryEventType.Value && e.value != null && !seen.has(Buffer.from(e.value).toString('base64')) ? e.value : undefined
        if (value != null && add(value, e.type === QueryEventType.PeerResponse)) {
          enough = true
          controller.abort()
        }
      }
    } catch (err) {
      if (!enough && out.length === 0 && options.signal?.aborted === true) throw err
    } finally {
      controller.abort()
    }
    return out
  }

  /**
   * Kubo's SearchValue through our own lookup (core/routing: the record the node holds first, then each peer's
   * valid answer, until the first DHT that ends having given one ends the search), until `count` values, the end
   * of the search, or `timeoutMs`.
   */
  private async lookup (key: Uint8Array, options: SearchOptions): Promise<FoundValue[]> {
    const out: FoundValue[] = []
    const count = Math.max(1, options.count)
    const accept = (value: Uint8Array, _from: unknown, local: boolean): boolean => {
      if (out.length >= count) return true
      // the copy the caller already counted as its own (a publisher's record, also in the DHT store)
      if (local && options.counted?.some(c => Buffer.from(c).equals(value)) === true) return false
      out.push({ value, validated: true })
      return out.length >= count
    }
    const signals = [...(options.signal != null ? [options.signal] : []), ...(options.timeoutMs > 0 ? [AbortSignal.timeout(options.timeoutMs)] : [])]
    try {
      await this.routing.searchValue!(key, { signal: signals.length > 0 ? AbortSignal.any(signals) : undefined, onRecord: accept })
    } catch (err) {
      if (out.length === 0 && options.signal?.aborted === true) throw err
    }
    return out
  }

  /** to the DHTs' peers; a DHT without any keeps the record itself (as Kubo's: `routing get` finds it) */
  async put (key: Uint8Array, value: Uint8Array, signal?: AbortSignal): Promise<void> {
    await this.routing.putValue(key, value, { signal })
  }
}
