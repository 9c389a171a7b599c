// Shared pieces of the dag commands.
import { CID } from 'multiformats/cid'
import { RpcError } from '../../core/errors.js'
import { createCidEncoder, type CidEncoder } from '../../core/cid-encoder.js'
import type { Resolver } from '../../core/resolver/index.js'
import type { RequestCradle } from '../../core/cradle.js'
import type { ConfigStore } from '../../core/config/index.js'
import { codecFromString } from '../../core/go/multicodec.js'
import { goQuote } from '../../core/go/strings.js'
import type { CidLink } from './output.js'

/** go-multicodec Code.Set with its error text. */
export function parseCodec (text: string): number {
  const code = codecFromString(text)
  if (code === undefined) throw new RpcError(`unknown multicodec: ${goQuote(text)}`)
  return code
}

/** go-cid's JSON form of a CID. */
export const cidLink = (cid: CID): CidLink => ({ '/': cid.toString() })

/** The CID encoder a text encoder uses (cmdenv.GetCidEncoder): --cid-base and --upgrade-cidv0-in-output. */
export function textCidEncoder (options: { cidBase?: string, upgradeCidv0InOutput?: boolean }): CidEncoder {
  return createCidEncoder({ cidBase: options.cidBase === '' ? undefined : options.cidBase, upgradeCidv0InOutput: options.upgradeCidv0InOutput })
}

/** Re-encode a CID string from a wire value for text output. */
export const encodeCidText = (enc: CidEncoder, text: string): string => enc.encode(CID.parse(text))

/** The shared path resolver (core/resolver). */
export const resolverOf = (deps: RequestCradle): Resolver => deps.resolver

/** Import.HashFunction, default sha2-256 */
export function defaultHash (config: ConfigStore): string {
  const v = config.getKey('Import.HashFunction')
  return typeof v === 'string' && v !== '' ? v : 'sha2-256'
}

/** Import.BatchMaxNodes / BatchMaxSize (defaults 128 nodes, 100 MiB) */
export function batchLimits (config: ConfigStore): { nodes: number, size: number } {
  const nodes = config.getKey('Import.BatchMaxNodes')
  const size = config.getKey('Import.BatchMaxSize')
  return {
    nodes: typeof nodes === 'number' && nodes > 0 ? nodes : 128,
    size: typeof size === 'number' && size > 0 ? size : 100 << 20
  }
}

/** A block on its way to the blockstore. */
export interface PendingBlock { cid: CID, bytes: Uint8Array }

/**
 * ipld.Batch with Import.BatchMaxNodes / BatchMaxSize: `add` collects blocks, `flushIfFull` writes
 * them once either limit is reached, `flush` writes what is left; `write` gets each full set.
 */
export class BlockBatch<B extends PendingBlock = PendingBlock> {
  private blocks: B[] = []
  private size = 0

  constructor (private readonly limits: { nodes: number, size: number }, private readonly write: (blocks: B[]) => Promise<void>) {}

  add (block: B): void {
    this.blocks.push(block)
    this.size += block.bytes.length
  }

  async flushIfFull (): Promise<void> {
    if (this.blocks.length >= this.limits.nodes || this.size >= this.limits.size) await this.flush()
  }

  async flush (): Promise<void> {
    if (this.blocks.length === 0) return
    const blocks = this.blocks
    this.blocks = []
    this.size = 0
    await this.write(blocks)
  }
}

/** Read a file argument completely. */
export async function readAll (content: AsyncIterable<Uint8Array> | undefined): Promise<Uint8Array> {
  if (content == null) return new Uint8Array(0)
  const parts: Uint8Array[] = []
  for await (const c of content) parts.push(c)
  return parts.length === 1 ? parts[0] : Buffer.concat(parts)
}

/** Errors from codecs are plain Errors; give them Kubo's code (0) as RpcErrors. */
export function asRpcError (err: unknown): Error {
  if (err instanceof RpcError) return err
  return new RpcError((err as Error)?.message ?? String(err), { cause: err })
}
