// IPNS records through the DHT (kad-dht validates and selects /ipns/ records: core/libp2p passes the
// ipns validator and selector). go-libp2p-kad-dht fails at once with an empty routing table where js
// kad-dht would wait for a peer, so lookups and puts are skipped then.
import type { Libp2p } from '@libp2p/interface'

interface DhtLike {
  get: (key: Uint8Array, options?: { signal?: AbortSignal }) => AsyncIterable<{ name: string, value?: Uint8Array }>
  put: (key: Uint8Array, value: Uint8Array, options?: { signal?: AbortSignal }) => AsyncIterable<{ name: string }>
  routingTable?: { size: number }
}

export class DhtRouting {
  constructor (private readonly libp2p: Libp2p) {}

  private get dht (): DhtLike | undefined {
    return (this.libp2p.services as Record<string, unknown>).dht as DhtLike | undefined
  }

  hasPeers (): boolean {
    return (this.dht?.routingTable?.size ?? 0) > 0
  }

  /** Up to `count` values for a key, collected until the query ends or `timeoutMs` passes (0: no limit). */
  async search (key: Uint8Array, options: { count: number, timeoutMs: number, signal?: AbortSignal }): Promise<Uint8Array[]> {
    const dht = this.dht
    if (dht == null || !this.hasPeers()) return []
    const signals = [options.signal, options.timeoutMs > 0 ? AbortSignal.timeout(options.timeoutMs) : undefined].filter((s): s is AbortSignal => s != null)
    const controller = new AbortController()
    const signal = AbortSignal.any([controller.signal, ...signals])
    const out: Uint8Array[] = []
    try {
      for await (const event of dht.get(key, { signal })) {
        if (event.name === 'VALUE' && event.value != null) {
          out.push(event.value)
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
    const dht = this.dht
    if (dht == null || !this.hasPeers()) return
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    for await (const _ of dht.put(key, value, { signal })) {}
  }
}
