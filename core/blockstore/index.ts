// The node's blockstore (deps.blockstore): any storage (flatfs on disk, memory in tests) behind
// Kubo's block-service rules:
// - identity CIDs (multihash code 0) are never stored: get returns the digest, has is true,
//   put and delete do nothing (boxo idstore; t0046);
// - a read of a missing block goes to the exchange; offline (the only exchange so far) it fails
//   with boxo exchange/offline's text `block was not found locally (offline): ipld: could not find <cid>`.
//
// Where that text shows: every read through this store (block get/stat, cat, get, ls, refs, dag get,
// pin add of an incomplete DAG, ...), as in Kubo where those go through the block service.
// Commands that ask the storage itself keep the plain `ipld: could not find <cid>`: block rm checks
// `has` first (blockstoreutil.RmBlocks), GC and `refs local` only list.
import type { Blockstore, InputPair, Pair } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import type { CID } from 'multiformats/cid'
import { NotFoundError } from '../errors.js'
import { FlatfsBlockstore, isIdentity, type BlockstoreStat } from './flatfs.js'

export { FlatfsBlockstore, blockKey, shardOf, isIdentity, type BlockstoreStat, type FlatfsInit } from './flatfs.js'

/** Fetch a block that is not stored locally (bitswap, HTTP retrieval); must store it or just return it. */
export type BlockFetcher = (cid: CID, options?: AbortOptions) => Promise<Uint8Array>

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

  constructor (inner: Blockstore, init: NodeBlockstoreInit = {}) {
    this.inner = inner
    this.fetcher = init.fetch
  }

  /** Plug in (or remove) a network exchange, e.g. when libp2p/bitswap starts. */
  setFetcher (fetch: BlockFetcher | undefined): void {
    this.fetcher = fetch
  }

  async has (cid: CID, options?: AbortOptions): Promise<boolean> {
    if (isIdentity(cid)) return true
    return await this.inner.has(cid, options)
  }

  async put (cid: CID, val: Bytes, options?: AbortOptions): Promise<CID> {
    if (isIdentity(cid)) return cid
    return await this.inner.put(cid, val, options)
  }

  async * putMany (source: Iterable<InputPair> | AsyncIterable<InputPair>, options?: AbortOptions): AsyncGenerator<CID> {
    // flatfs batches its writes and skips identity CIDs itself
    if (this.inner instanceof FlatfsBlockstore) {
      yield * this.inner.putMany(source, options)
      return
    }
    for await (const { cid, bytes } of source) {
      if (!isIdentity(cid)) await this.inner.put(cid, bytes, options)
      yield cid
    }
  }

  async * get (cid: CID, options?: AbortOptions): AsyncGenerator<Uint8Array> {
    if (isIdentity(cid)) {
      yield cid.multihash.digest
      return
    }
    let found = true
    try {
      // the first chunk tells whether the block is there
      for await (const chunk of this.inner.get(cid, options)) yield chunk
    } catch (err) {
      if (!isNotFound(err)) throw err
      found = false
    }
    if (found) return
    if (this.fetcher == null) throw offlineNotFound(cid)
    yield await this.fetcher(cid, options)
  }

  async * getMany (source: Iterable<CID> | AsyncIterable<CID>, options?: AbortOptions): AsyncGenerator<Pair> {
    for await (const cid of source) yield { cid, bytes: this.get(cid, options) }
  }

  async delete (cid: CID, options?: AbortOptions): Promise<void> {
    if (isIdentity(cid)) return
    await this.inner.delete(cid, options)
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
