// Per-request block access: identity CIDs answered from the CID itself, a small cache so a block read
// while resolving the path is not read again, an optional read log (CAR responses list the blocks of the
// path), and errors mapped to gateway statuses (missing block → 404, retrieval timeout → 504).
import type { Blockstore } from 'interface-blockstore'
import type { CID } from 'multiformats/cid'
import type { BlockReadOptions } from '../../core/blockstore/index.js'
import type { BufferPool } from '../../core/unixfs/buffer-pool.js'
import { BlockNotFoundError, RetrievalTimeoutError } from './errors.js'

const IDENTITY = 0x00
const CACHE_LIMIT = 4 * 1024 * 1024

export interface BlockReader {
  get: (cid: CID, options?: { signal?: AbortSignal }) => AsyncGenerator<Uint8Array>
}

/** Where a GatewayBlocks reads blocks from (a blockstore, or anything with its `get`). */
export type BlockSource = Pick<Blockstore, 'get'> & {
  /** a block at hand, without waiting (a source that keeps blocks in memory) */
  peek?: (cid: CID) => Uint8Array | undefined
}

/** Decoded forms of blocks, kept with the block bytes they came from (see unixfs.ts). */
export type DecodedBlocks = WeakMap<Uint8Array, unknown>

export class GatewayBlocks {
  // (made on first use: most requests of the fast path only peek at kept blocks)
  private cache: Map<string, Uint8Array> | undefined
  private cached = 0
  /** blocks read into recycled buffers for a first look (get with `hold`), handed over by the next get */
  private held: Map<string, { bytes: Uint8Array, pool: BufferPool }> | undefined
  /** called with every block read, in order */
  onRead?: (cid: CID, bytes: Uint8Array) => void
  private blockReader: BlockReader | undefined
  /** where loadUnixfs may keep what it decoded (for a source whose block buffers are long-lived) */
  decoded?: DecodedBlocks

  /**
   * @param store where blocks are read from (may fetch from the network)
   * @param local the node's own blockstore, for "is it cached?" (defaults to `store`)
   */
  constructor (private readonly store: BlockSource, readonly signal: AbortSignal, private readonly local: Pick<Blockstore, 'has'> = store as Blockstore) {}

  /** the same blocks as an interface-blockstore reader, for ipfs-unixfs-exporter */
  get reader (): BlockReader {
    if (this.blockReader == null) {
      const self = this
      this.blockReader = { async * get (cid: CID) { yield await self.get(cid) } }
    }
    return this.blockReader
  }

  /**
   * A block. With `pool`, a block not cached is read into a buffer from it (when the store can), and
   * such a buffer is not cached: whoever gets it may release it. With `hold` too, the caller only
   * looks at the block (and neither keeps nor releases it): the next get of it receives that buffer
   * (a first look at a file's start, for sniffing, costs no second read nor a plain buffer).
   */
  async get (cid: CID, pool?: BufferPool, hold = false): Promise<Uint8Array> {
    const at = this.atHand(cid)
    if (at != null) return at
    const key = Buffer.from(cid.multihash.bytes).toString('base64')
    let bytes = this.cache?.get(key) ?? this.handOver(key, pool)
    if (bytes == null) {
      bytes = await this.fetch(cid, pool)
      if (pool?.owns(bytes) === true) {
        if (hold) {
          this.held ??= new Map()
          this.held.set(key, { bytes, pool })
        }
      } else if (this.cached + bytes.byteLength <= CACHE_LIMIT) {
        this.cache ??= new Map()
        this.cache.set(key, bytes)
        this.cached += bytes.byteLength
      }
    }
    this.onRead?.(cid, bytes)
    return bytes
  }

  /** A block at hand without waiting (an identity CID's, or one the source keeps), or undefined: use get. */
  atHand (cid: CID): Uint8Array | undefined {
    const bytes = cid.multihash.code === IDENTITY ? cid.multihash.digest : this.store.peek?.(cid)
    if (bytes != null) this.onRead?.(cid, bytes)
    return bytes
  }

  /** A held block for this get: as it is to a reader into the same pool, else kept as a plain block. */
  private handOver (key: string, pool: BufferPool | undefined): Uint8Array | undefined {
    const held = this.held?.get(key)
    if (held == null) return undefined
    this.held?.delete(key)
    if (held.pool !== pool) {
      // its holder will not release it: it stays for the request as any block read without a pool
      held.pool.forget(held.bytes)
      this.cache ??= new Map()
      this.cache.set(key, held.bytes)
      this.cached += held.bytes.byteLength
    }
    return held.bytes
  }

  /** Is the block in the local store (identity CIDs always are)? */
  async has (cid: CID): Promise<boolean> {
    if (cid.multihash.code === IDENTITY) return true
    try {
      return await this.local.has(cid, { signal: this.signal })
    } catch {
      return false
    }
  }

  private async fetch (cid: CID, pool?: BufferPool): Promise<Uint8Array> {
    this.checkSignal()
    try {
      const parts: Uint8Array[] = []
      let size = 0
      const options: BlockReadOptions = { signal: this.signal }
      if (pool != null) options.alloc = (n) => pool.take(n)
      for await (const chunk of this.store.get(cid, options)) {
        parts.push(chunk)
        size += chunk.byteLength
      }
      return parts.length === 1 ? parts[0] : Buffer.concat(parts, size)
    } catch (err) {
      this.checkSignal()
      if ((err as Error)?.name === 'NotFoundError') throw new BlockNotFoundError(cid, { cause: err })
      throw err
    }
  }

  private checkSignal (): void {
    if (!this.signal.aborted) return
    const reason = this.signal.reason as Error | undefined
    if (reason?.name === 'TimeoutError') throw new RetrievalTimeoutError()
    throw reason ?? new Error('request aborted')
  }
}
