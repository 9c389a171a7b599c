// IPNS records through the node's DHTs (core/routing: WAN and LAN kad-dht, both validating and selecting
// /ipns/ records). go-libp2p-kad-dht fails at once with an empty routing table where js kad-dht would
// wait for a peer, so only DHTs with peers are searched (a put to one without peers stays local).
import { Key, type Datastore } from 'interface-datastore'
import { base32 } from 'multiformats/bases/base32'
import { ipnsValidator } from 'ipns/validator'
import { Libp2pRecord } from '@libp2p/record'
import type { Routing, DhtService } from '../routing/index.js'
import { DHT_DATASTORE_PREFIX, merge, QueryEventType } from '../routing/index.js'

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
  constructor (private readonly routing: Routing, private readonly datastore?: Datastore) {}

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
    const dhts = withPeers(this.routing)
    if (dhts.length === 0) return []
    if (this.routing.searchValue != null) return await this.lookup(key, options)
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
   * SearchValue through our own lookup (core/routing/lookup.ts): the DHTs' local copies of the record first
   * (what other peers put here), then each peer's answer, validated (once per distinct record), until `count`
   * values, the end of the lookups, or `timeoutMs`.
   */
  private async lookup (key: Uint8Array, options: SearchOptions): Promise<FoundValue[]> {
    const out: FoundValue[] = []
    const valid: Uint8Array[] = []
    const count = Math.max(1, options.count)
    const accept = async (value: Uint8Array): Promise<boolean> => {
      if (out.length >= count) return true
      if (!valid.some(v => Buffer.from(v).equals(value))) {
        try { await ipnsValidator(key, value) } catch { return false }
        valid.push(value)
      }
      out.push({ value, validated: true })
      return out.length >= count
    }
    for (const name of new Set(withPeers(this.routing).map(d => this.routing.dhts().find(n => n.dht === d)?.name))) {
      if (name == null || this.datastore == null) continue
      const dsKey = new Key(`${DHT_DATASTORE_PREFIX[name]}/record/${base32.baseEncode(key)}`, false)
      const local = await Promise.resolve().then(async () => await this.datastore!.get(dsKey)).catch(() => undefined)
      if (local == null) continue
      try {
        const value = Libp2pRecord.deserialize(local).value
        // the copy the caller already counted as its own (a publisher's record, also put to its DHT)
        if (options.counted?.some(c => Buffer.from(c).equals(value)) === true) continue
        if (await accept(value)) return out
      } catch {}
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
