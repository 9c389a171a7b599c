// Reading blocks the way Kubo's blockservice does: identity CIDs come from the CID itself, a
// missing block fails with go-ipld-format's ErrNotFound text (wrapped by the offline exchange).
import type { CID } from 'multiformats/cid'
import type { Blockstore } from 'interface-blockstore'
import { RpcError } from '../errors.js'

const IDENTITY = 0x00

/** A block that is not in the store (Kubo: `block was not found locally (offline): ipld: could not find <cid>`). */
export class BlockNotFoundError extends RpcError {
  constructor (readonly cid: CID, offline = true) {
    super(`${offline ? 'block was not found locally (offline): ' : ''}ipld: could not find ${cid.toString()}`)
  }
}

export interface GetBlockOptions {
  signal?: AbortSignal
  /** word the not-found error as Kubo's offline exchange does (default true) */
  offline?: boolean
}

const isNotFound = (err: unknown): boolean => {
  const e = err as { name?: string, code?: string }
  return e?.name === 'NotFoundError' || e?.code === 'ERR_NOT_FOUND'
}

/** One block's bytes. */
export async function getBlock (blockstore: Pick<Blockstore, 'get'>, cid: CID, options: GetBlockOptions = {}): Promise<Uint8Array> {
  if (cid.multihash.code === IDENTITY) return cid.multihash.digest
  options.signal?.throwIfAborted()
  const chunks: Uint8Array[] = []
  try {
    for await (const chunk of blockstore.get(cid, { signal: options.signal })) chunks.push(chunk)
  } catch (err) {
    // the node's blockstore already words it as Kubo does; a bare store (tests) says "Not Found"
    if (isNotFound(err) && !/could not find/.test((err as Error).message)) throw new BlockNotFoundError(cid, options.offline ?? true)
    throw err
  }
  if (chunks.length === 1) return chunks[0]
  return Buffer.concat(chunks)
}
