// The node's blockstore (deps.blockstore): any storage (flatfs on disk, memory in tests) behind
// Kubo's block-service rules:
// - identity CIDs (multihash code 0) are never stored: get returns the digest, has is true,
//   put and delete do nothing (boxo idstore; t0046);
// - a read of a missing block goes to the exchange (bitswap, core/bitswap, while the node is online:
//   it waits until the caller's signal aborts); offline (no exchange, or the `offline()` view) it fails
//   with boxo exchange/offline's text `block was not found locally (offline): ipld: could not find <cid>`;
// - new blocks are announced to the exchange (bitswap sends them to peers that want them).
//
// Where that text shows: every read through this store (block get/stat, cat, get, ls, refs, dag get,
// pin add of an incomplete DAG, ...), as in Kubo where those go through the block service.
// Commands that ask the storage itself keep the plain `ipld: could not find <cid>`: block rm checks
// `has` first (blockstoreutil.RmBlocks), GC and `refs local` only list.
import type { Blockstore, InputPair, Pair } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import type { CID } from 'multiformats/cid'
import { NotFoundError } from '../errors.js'
import { FlatfsBlockstore, isIdentity, type BlockReadOptions, type BlockstoreStat } from './flatfs.js'

export { FlatfsBlockstore, blockKey, shardOf, isIdentity, type BlockReadOptions, type BlockstoreStat, type FlatfsInit } from './flatfs.js'

/** Fetch a block that is not stored locally (bitswap, HTTP retrieval); must store it or just return it. */
export type BlockFetcher = (cid: CID, options?: AbortOptions) => Promise<Uint8Array>

/** Told about every block put into the store (bitswap sends it to peers that want it). */
export type BlockAnnouncer = (cid: CID) => void

/**
 * Another local holder of blocks that reads consult after the store itself (the filestore,
 * core/filestore: blocks kept as references into files on disk). Part of the node's store as in
 * Kubo's Filestore: deletes reach it, and listings (core/gc allKeys) add its keys after the store's.
 */
export interface BlockSource {
  has: (cid: CID, options?: AbortOptions) => Promise<boolean>
  /** the block, or undefined when this source does not hold it */
  get: (cid: CID, options?: AbortOptions) => Promise<Uint8Array | undefined>
  /** its blocks as CIDv1 raw */
  keys?: (options?: AbortOptions) => AsyncIterable<CID>
  /** drop the block if held (no error when it is not) */
  delete?: (cid: CID, options?: AbortOptions) => Promise<void>
  /** changes whenever a block may have been removed from it (see NodeBlockstore.generation) */
  readonly generation?: number
}

export interface NodeBlockstoreInit {
  /** where missing blocks come from; omitted: offline (Kubo's offline exchange error) */
  fetch?: BlockFetcher
}

type Bytes = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>

/** Kubo's error for a block missing while offline. */
export function offlineNotFound (cid: CID): NotFoundError {
  return new NotFoundError(`block was not found locally (offline): ipld: could not find ${cid.toString()}`)
}

/** format.ErrNotFound: what the storage says about a missing block. */
export function storageNotFound (cid: CID): NotFoundError {
  return new NotFoundError(`ipld: could not find ${cid.toString()}`)
}

export const isNotFound = (err: unknown): boolean => (err as Error | undefined)?.name === 'NotFoundError'

/** Read a whole block (blockstore.get yields chunks). */
export async function getBlock (store: Blockstore, cid: CID, options?: AbortOptions): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  for await (const chunk of store.get(cid, options)) parts.push(chunk)
  return parts.length === 1 ? parts[0] : Buffer.concat(parts)
}

export class NodeBlockstore implements Blockstore {
  readonly inner: Blockstore
  private fetcher: BlockFetcher | undefined
  private fetchCount = 0
  private announcer: BlockAnnouncer | undefined
  private putListeners: BlockAnnouncer[] = []
  private readonly sources: BlockSource[] = []
  private offlineView: NodeBlockstore | undefined

  constructor (inner: Blockstore, init: NodeBlockstoreInit = {}) {
    this.inner = inner
    this.fetcher = init.fetch
  }

  /**
   * A number that changes whenever a block may have been removed from the storage (any delete, also
   * one made on `inner` directly, as GC does), or undefined when the storage cannot tell: then
   * nothing read from this store may be cached beyond the current operation.
   */
  get generation (): number | undefined {
    let g = (this.inner as Partial<{ generation: number }>).generation
    if (typeof g !== 'number') return undefined
    for (const source of this.sources) {
      if (source.delete == null) continue
      if (typeof source.generation !== 'number') return undefined
      g += source.generation
    }
    return g
  }

  /** Plug in (or remove) a network exchange, e.g. when libp2p/bitswap starts. */
  setFetcher (fetch: BlockFetcher | undefined): void {
    this.fetcher = fetch
  }

  /** Plug in (or remove) the announcer of new blocks (bitswap's notify). */
  setAnnouncer (announce: BlockAnnouncer | undefined): void {
    this.announcer = announce
  }

  /** Also tell `fn` of every block put from now on (core/provider, Provide.Strategy "all"); not the offline view's puts. */
  onPut (fn: BlockAnnouncer): () => void {
    this.putListeners.push(fn)
    return () => { this.putListeners = this.putListeners.filter(f => f !== fn) }
  }

  private announce (cid: CID): void {
    this.announcer?.(cid)
    for (const fn of this.putListeners) fn(cid)
  }

  /**
   * This store without the network (Kubo's offline CoreAPI, `--offline` on a request; the gateway's
   * local store): same storage and sources, a missing block fails at once with the offline error,
   * puts are not announced. Exchanges plugged in later do not reach it.
   */
  offline (): NodeBlockstore {
    if (this.offlineView == null) {
      // shares everything through the prototype; only the network hooks are its own
      const view = Object.create(this) as NodeBlockstore
      view.fetcher = undefined
      view.announcer = undefined
      view.putListeners = []
      view.offlineView = view
      this.offlineView = view
    }
    return this.offlineView
  }

  /** Add a local block source that reads fall back to (before the network or the offline error). */
  addSource (source: BlockSource): void {
    this.sources.push(source)
  }

  /** the local block sources, in the order reads consult them */
  get localSources (): readonly BlockSource[] {
    return this.sources
  }

  async has (cid: CID, options?: AbortOptions): Promise<boolean> {
    if (isIdentity(cid)) return true
    if (await this.inner.has(cid, options)) return true
    for (const source of this.sources) if (await source.has(cid, options)) return true
    return false
  }

  async put (cid: CID, val: Bytes, options?: AbortOptions): Promise<CID> {
    if (isIdentity(cid)) return cid
    await this.inner.put(cid, val, options)
    this.announce(cid)
    return cid
  }

  async * putMany (source: Iterable<InputPair> | AsyncIterable<InputPair>, options?: AbortOptions): AsyncGenerator<CID> {
    // flatfs batches its writes and skips identity CIDs itself
    if (this.inner instanceof FlatfsBlockstore) {
      if (this.announcer == null && this.putListeners.length === 0) {
        yield * this.inner.putMany(source, options)
        return
      }
      for await (const cid of this.inner.putMany(source, options)) {
        if (!isIdentity(cid)) this.announce(cid)
        yield cid
      }
      return
    }
    for await (const { cid, bytes } of source) {
      if (!isIdentity(cid)) {
        await this.inner.put(cid, bytes, options)
        this.announce(cid)
      }
      yield cid
    }
  }

  async * get (cid: CID, options?: BlockReadOptions): AsyncGenerator<Uint8Array> {
    yield await this.read(cid, options)
  }

  /**
   * A whole block (get without the generators: flatfs is read directly, into `options.alloc`'s
   * buffer when given; other stores, sources and the network allocate their own).
   */
  async read (cid: CID, options?: BlockReadOptions): Promise<Uint8Array> {
    if (isIdentity(cid)) return cid.multihash.digest
    try {
      if (this.inner instanceof FlatfsBlockstore) {
        options?.signal?.throwIfAborted()
        return await this.inner.read(cid, options?.alloc)
      }
      return await getBlock(this.inner, cid, options)
    } catch (err) {
      if (!isNotFound(err)) throw err
    }
    for (const source of this.sources) {
      const bytes = await source.get(cid, options)
      if (bytes != null) return bytes
    }
    if (this.fetcher == null) throw offlineNotFound(cid)
    this.fetchCount++
    return await this.fetcher(cid, options)
  }

  /** reads that went to the network so far (readers widen their read-ahead when it moves) */
  get fetched (): number {
    return this.fetchCount
  }

  async * getMany (source: Iterable<CID> | AsyncIterable<CID>, options?: AbortOptions): AsyncGenerator<Pair> {
    for await (const cid of source) yield { cid, bytes: this.get(cid, options) }
  }

  /** Kubo's Filestore.DeleteBlock: from the store and from every source (a reference, never its file) */
  async delete (cid: CID, options?: AbortOptions): Promise<void> {
    if (isIdentity(cid)) return
    await this.inner.delete(cid, options)
    for (const source of this.sources) await source.delete?.(cid, options)
  }

  async * deleteMany (source: Iterable<CID> | AsyncIterable<CID>, options?: AbortOptions): AsyncGenerator<CID> {
    for await (const cid of source) {
      await this.delete(cid, options)
      yield cid
    }
  }

  getAll (options?: AbortOptions): AsyncGenerator<Pair> | Generator<Pair> {
    return this.inner.getAll(options)
  }

  /** Block count and total size (repo stat). */
  async stat (options?: AbortOptions): Promise<BlockstoreStat> {
    const inner = this.inner as Partial<{ stat: (o?: AbortOptions) => Promise<BlockstoreStat> }>
    if (typeof inner.stat === 'function') return await inner.stat(options)
    let count = 0
    let size = 0
    for await (const { bytes } of this.inner.getAll(options)) {
      count++
      for await (const chunk of bytes) size += chunk.length
    }
    return { count, size }
  }
}
