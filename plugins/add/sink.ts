// Where an add's blocks go: batched putMany into the blockstore, a few batches in flight while the
// next fills (Kubo's BufferedDAG + blockservice). Every CID is checked with boxo verifcid first,
// also with --only-hash, where nothing is stored.
import type { Blockstore } from 'interface-blockstore'
import type { CID } from 'multiformats/cid'
import { validateMultihash } from '../../core/hashes.js'
import { FlatfsBlockstore } from '../../core/blockstore/flatfs.js'
import { NodeBlockstore } from '../../core/blockstore/index.js'
import { releaseChunk } from '../../core/unixfs/pb.js'

/**
 * Bytes per batch at most, whatever Import.BatchMaxSize says: with CONCURRENCY batches in flight (and one filling)
 * this is what an add holds in memory. Larger batches were no faster here, and every buffer they hold is
 * memory the daemon keeps afterwards (the allocator does not give it back): 16 MiB batches left the
 * daemon ~45 MiB bigger after a 256 MiB add than 4 MiB ones.
 */
const MAX_BATCH_BYTES = 4 << 20
/**
 * Batches written at once: a durable batch waits for two fsync rounds (files, then folders), and with 2
 * in flight a 256 MiB add waited ~1-2 s for room (load ~20), with 4 ~0.2-0.7 s (2 MiB batches x 4 waited
 * longer: the same fsync rounds for half the bytes).
 */
const CONCURRENCY = 4
/**
 * Batches of small blocks (128 nodes of ~1 KiB) may be more in flight, up to this many bytes and CONCURRENCY x 4
 * batches: a durable small block waits for its group-commit round's fdatasync, and with 4 x 128 blocks in flight
 * an add of 10,000 small files waited for ~80 rounds in turn (fdatasync p50 60 ms, p90 200 ms at load ~19).
 */
const SMALL_BYTES_IN_FLIGHT = MAX_BATCH_BYTES

export interface BatchSinkInit {
  /** undefined: only hash, store nothing */
  blockstore?: Blockstore
  /** blocks per batch (Kubo Import.BatchMaxNodes, default 128) */
  maxNodes?: number
  /** bytes per batch (capped at 4 MiB) */
  maxBytes?: number
  /** batches written at the same time (default 4) */
  concurrency?: number
  signal?: AbortSignal
}

/** Does the store keep no reference to the bytes it is given once their put is done (it writes files)? */
function storesCopies (store: Blockstore): boolean {
  return store instanceof FlatfsBlockstore || (store instanceof NodeBlockstore && store.inner instanceof FlatfsBlockstore)
}

export class BatchSink {
  private batch: Array<{ cid: CID, bytes: Uint8Array }> = []
  private bytes = 0
  private readonly inFlight = new Set<Promise<void>>()
  /** bytes of the batches in flight */
  private inFlightBytes = 0
  private failure: unknown
  private readonly store: Blockstore | undefined
  private readonly maxNodes: number
  private readonly maxBytes: number
  private readonly concurrency: number
  private readonly signal: AbortSignal | undefined
  /** free the chunk buffers of written blocks at once (core/unixfs/pb.ts releaseChunk) */
  private readonly release: boolean
  /** blocks the store has taken so far */
  written = 0

  constructor (init: BatchSinkInit) {
    this.store = init.blockstore
    this.maxNodes = init.maxNodes ?? 128
    this.maxBytes = Math.min(init.maxBytes ?? MAX_BATCH_BYTES, MAX_BATCH_BYTES)
    this.concurrency = Math.max(init.concurrency ?? CONCURRENCY, 1)
    this.signal = init.signal
    this.release = this.store != null && storesCopies(this.store)
  }

  /** Queue one block; resolves at once unless a full batch has to wait for room. */
  async put (cid: CID, bytes: Uint8Array): Promise<void> {
    if (this.failure != null) throw this.failure
    validateMultihash(cid.multihash)
    if (this.store == null) return
    this.batch.push({ cid, bytes })
    this.bytes += bytes.byteLength
    if (this.batch.length >= this.maxNodes || this.bytes >= this.maxBytes) await this.startWrite()
  }

  /** whether a batch of `bytes` must wait for one in flight to end */
  private full (bytes: number): boolean {
    const n = this.inFlight.size
    if (n < this.concurrency) return false
    return n >= this.concurrency * 4 || this.inFlightBytes + bytes > SMALL_BYTES_IN_FLIGHT
  }

  private async startWrite (): Promise<void> {
    while (this.full(this.bytes)) await Promise.race(this.inFlight)
    if (this.failure != null) throw this.failure
    const batch = this.batch
    const bytes = this.bytes
    this.batch = []
    this.bytes = 0
    if (batch.length === 0 || this.store == null) return
    const store = this.store
    this.inFlightBytes += bytes
    const write: Promise<void> = (async () => {
      for await (const _ of store.putMany(batch, { signal: this.signal })) this.written++
      // nothing else holds these blocks (the builders keep CIDs, not bytes): their memory goes back now
      if (this.release) for (const b of batch) releaseChunk(b.bytes)
    })().catch((err) => { this.failure ??= err }).finally(() => { this.inFlight.delete(write); this.inFlightBytes -= bytes })
    this.inFlight.add(write)
  }

  /** Write what is queued and wait for all of it. */
  async flush (): Promise<void> {
    await this.startWrite()
    while (this.inFlight.size > 0) await Promise.race(this.inFlight)
    if (this.failure != null) throw this.failure
  }
}
