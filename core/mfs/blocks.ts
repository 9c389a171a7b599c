// Block reads and writes for MFS: written blocks are queued and stored in batches (putMany, which
// is durable when it resolves); queued blocks are served from memory until stored. `flush()`
// waits until everything queued is stored, so a root pointer written after it never refers to
// blocks a crash could lose.
import type { Blockstore } from 'interface-blockstore'
import type { CID } from 'multiformats/cid'
import { getBlock } from '../blockstore/index.js'
import { validateMultihash } from '../hashes.js'
import { decodeNode, IDENTITY, type DagNode } from './node.js'
import { MfsError } from './errors.js'

export interface BlockIOInit {
  /** blocks per batch (default 128) */
  maxBlocks?: number
  /** bytes per batch (default 8 MiB) */
  maxBytes?: number
}

const keyOf = (cid: CID): string => Buffer.from(cid.multihash.bytes).toString('base64')

export class BlockIO {
  private readonly pending = new Map<string, Uint8Array>()
  private queue: Array<{ cid: CID, bytes: Uint8Array }> = []
  private queuedBytes = 0
  private readonly inFlight = new Set<Promise<void>>()
  private failure: unknown
  private readonly maxBlocks: number
  private readonly maxBytes: number
  /** batches written at the same time */
  private readonly concurrency = 2

  constructor (readonly blockstore: Blockstore, init: BlockIOInit = {}) {
    this.maxBlocks = init.maxBlocks ?? 128
    this.maxBytes = init.maxBytes ?? 8 << 20
  }

  /** Store a block (dagService.Add): checked with verifcid, identity CIDs never stored. */
  async put (cid: CID, bytes: Uint8Array): Promise<void> {
    validateMultihash(cid.multihash)
    if (cid.multihash.code === IDENTITY) return
    const key = keyOf(cid)
    if (this.pending.has(key)) return
    this.pending.set(key, bytes)
    this.queue.push({ cid, bytes })
    this.queuedBytes += bytes.length
    if (this.queue.length >= this.maxBlocks || this.queuedBytes >= this.maxBytes) await this.startWrite()
  }

  async putNode (node: DagNode): Promise<void> {
    await this.put(node.cid, node.bytes)
  }

  async get (cid: CID, signal?: AbortSignal): Promise<Uint8Array> {
    if (cid.multihash.code === IDENTITY) return cid.multihash.digest
    const queued = this.pending.get(keyOf(cid))
    if (queued != null) return queued
    return await getBlock(this.blockstore, cid, { signal })
  }

  /** A block as a raw or dag-pb node; other codecs fail with `errOther`. */
  async getNode (cid: CID, signal?: AbortSignal, errOther = 'unrecognized node type in cache node'): Promise<DagNode> {
    const node = decodeNode(cid, await this.get(cid, signal))
    if (node == null) throw new MfsError(errOther)
    return node
  }

  async has (cid: CID): Promise<boolean> {
    if (cid.multihash.code === IDENTITY) return true
    if (this.pending.has(keyOf(cid))) return true
    return await this.blockstore.has(cid)
  }

  /** send the queued blocks to the store (waits only while too many batches are in flight) */
  private async startWrite (): Promise<void> {
    while (this.inFlight.size >= this.concurrency) await Promise.race(this.inFlight)
    const batch = this.queue
    this.queue = []
    this.queuedBytes = 0
    if (batch.length === 0) return
    const write: Promise<void> = (async () => {
      // eslint-disable-next-line @typescript-eslint/no-unused-vars
      for await (const _ of this.blockstore.putMany(batch)) {}
      for (const { cid } of batch) this.pending.delete(keyOf(cid))
    })().catch((err) => { this.failure ??= err }).finally(() => { this.inFlight.delete(write) })
    this.inFlight.add(write)
  }

  /** Store everything queued so far; resolves once it is durable. */
  async flush (): Promise<void> {
    await this.startWrite()
    while (this.inFlight.size > 0) await Promise.race(this.inFlight)
    if (this.failure != null) {
      const err = this.failure
      this.failure = undefined
      throw err
    }
  }
}
