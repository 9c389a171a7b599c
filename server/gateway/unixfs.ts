// UnixFS nodes as the gateway serves them: files (read by range with core/unixfs/reader, which
// fetches only the blocks a range needs, using the blocksizes of each node, and reads ahead),
// directories (plain or HAMT-sharded, listed through ipfs-unixfs-exporter), symlinks, raw and
// identity blocks.
import * as dagPb from '@ipld/dag-pb'
import { exporter } from 'ipfs-unixfs-exporter'
import { createResolver, decodeUnixfsData, unixfsFileSize, type UnixfsData } from '../../core/resolver/index.js'
import { readUnixfsFile } from '../../core/unixfs/reader.js'
import { blockBuffers } from '../../core/unixfs/buffer-pool.js'
import { UnixFS } from 'ipfs-unixfs'
import type { CID } from 'multiformats/cid'
import type { GatewayBlocks } from './blocks.js'
import { GatewayError } from './errors.js'
import { CODEC_DAG_PB, CODEC_IDENTITY, CODEC_RAW } from './format.js'
import type { ListingEntry } from './html.js'

export type UnixfsNode =
  | { kind: 'file', cid: CID, size: number, mtime?: Date, mode?: number, read: (offset: number, length: number, options?: ReadOptions) => AsyncIterable<Uint8Array>, whole?: Uint8Array }
  | { kind: 'symlink', cid: CID, target: Uint8Array, mtime?: Date, mode?: number }
  | { kind: 'directory', cid: CID, size: number, mtime?: Date, mode?: number, entries: () => AsyncIterable<ListingEntry>, node: dagPb.PBNode, unixfs: UnixFS }

export interface ReadOptions {
  /**
   * read blocks not already at hand into recycled buffers (core/unixfs/buffer-pool) that the consumer
   * may release; false: into plain buffers that stay cached for the request; 'look': into recycled
   * buffers the consumer only looks at (neither keeps nor releases), handed to the next read of the
   * same blocks in the request (default true)
   */
  recycle?: boolean | 'look'
}

export const isUnixfsCodec = (code: number): boolean => code === CODEC_DAG_PB || code === CODEC_RAW || code === CODEC_IDENTITY

function mtimeOf (u: UnixFS): Date | undefined {
  if (u.mtime == null) return undefined
  const ms = Number(u.mtime.secs) * 1000 + Math.floor((u.mtime.nsecs ?? 0) / 1e6)
  return new Date(ms)
}

/** The UnixFS data as core/unixfs/reader reads it (undefined: leave it to the exporter). */
function tryDecode (data: Uint8Array | undefined): UnixfsData | undefined {
  try {
    return decodeUnixfsData(data)
  } catch {
    return undefined
  }
}

/** Bytes of a buffer, as a one-chunk iterable. */
async function * slice (bytes: Uint8Array, offset: number, length: number): AsyncGenerator<Uint8Array> {
  yield bytes.subarray(offset, offset + length)
}

interface Decoded {
  node: dagPb.PBNode
  unixfs: UnixFS
  /** the file fields as core/unixfs/reader reads them (files only) */
  data?: UnixfsData
  /** the file size (files) */
  size: number
  /** all of a file's bytes, when its root block holds them (no links) */
  whole?: Uint8Array
}

/** A dag-pb UnixFS block decoded (500 when it is not one). */
function decode (block: Uint8Array): Decoded {
  let node: dagPb.PBNode
  let unixfs: UnixFS
  try {
    node = dagPb.decode(block)
    if (node.Data == null) throw new Error('no data in PBNode')
    unixfs = UnixFS.unmarshal(node.Data)
  } catch (err) {
    throw new GatewayError(500, `data was not a valid file or directory: ${(err as Error).message}`, { cause: err })
  }
  if (unixfs.type === 'symlink' || unixfs.isDirectory()) return { node, unixfs, size: 0 }
  const data = unixfs.type === 'file' || unixfs.type === 'raw' ? tryDecode(node.Data) : undefined
  // boxo's FSNode.FileSize: the Filesize field, not the sum of (possibly lying) blocksizes
  const fields = data ?? tryDecode(node.Data)
  const size = fields != null ? unixfsFileSize(fields) : 0
  const whole = data != null && node.Links.length === 0 && (data.data?.byteLength ?? 0) === size ? data.data ?? new Uint8Array(0) : undefined
  return { node, unixfs, data, size, whole }
}

/** Load a UnixFS node (dag-pb, raw or identity). Throws 501 for other codecs, 500 for non-UnixFS dag-pb. */
export async function loadUnixfs (blocks: GatewayBlocks, cid: CID): Promise<UnixfsNode> {
  if (cid.code === CODEC_RAW || cid.code === CODEC_IDENTITY) {
    const bytes = blocks.atHand(cid) ?? await blocks.get(cid)
    return { kind: 'file', cid, size: bytes.byteLength, read: (o, l) => slice(bytes, o, l), whole: bytes }
  }
  if (cid.code !== CODEC_DAG_PB) throw new GatewayError(501, `unsupported codec ${cid.code} for a UnixFS response`)
  const block = blocks.atHand(cid) ?? await blocks.get(cid)
  let decoded = blocks.decoded?.get(block) as Decoded | undefined
  if (decoded == null) {
    decoded = decode(block)
    blocks.decoded?.set(block, decoded)
  }
  const { node, unixfs } = decoded
  const mtime = mtimeOf(unixfs)
  const mode = unixfs.mode
  if (unixfs.type === 'symlink') return { kind: 'symlink', cid, target: unixfs.data ?? new Uint8Array(0), mtime, mode }
  if (unixfs.isDirectory()) {
    const size = block.byteLength + node.Links.reduce((n, l) => n + (l.Tsize ?? 0), 0)
    return {
      kind: 'directory',
      cid,
      size,
      mtime,
      mode,
      node,
      unixfs,
      entries: async function * () {
        const entry = await exporter(cid, blocks.reader, { signal: blocks.signal })
        if (entry.type !== 'directory') return
        for await (const e of entry.entries({ signal: blocks.signal })) yield { name: e.name, cid: e.cid, size: Number(e.size) }
      }
    }
  }
  const { data, size, whole } = decoded
  // a Filesize past 2^53 cannot be a real file here, nor be sent as a Content-Length a client parses
  if (!Number.isSafeInteger(size)) throw new GatewayError(500, `data was not a valid file or directory: file size ${String(size)} out of range`)
  if (data != null) {
    return {
      kind: 'file',
      cid,
      size,
      mtime,
      mode,
      whole,
      // (the root and the block getter are made when a read starts: a fast-path answer of a whole file reads none)
      read: (offset, length, options) => {
        const root = { pb: node, fs: data }
        return options?.recycle === false
          ? readUnixfsFile(root, async (c: CID) => await blocks.get(c), { offset, length })
          : options?.recycle === 'look'
            ? readUnixfsFile(root, async (c: CID) => await blocks.get(c, blockBuffers, true), { offset, length })
            // into recycled buffers, given back by the response once written (respond.ts)
            : readUnixfsFile(root, async (c: CID) => await blocks.get(c, blockBuffers), { offset, length, pool: blockBuffers })
      }
    }
  }
  return {
    kind: 'file',
    cid,
    size,
    mtime,
    mode,
    read: async function * (offset, length) {
      if (length <= 0) return
      const entry = await exporter(cid, blocks.reader, { signal: blocks.signal })
      if (entry.type !== 'file' && entry.type !== 'raw' && entry.type !== 'identity') throw new GatewayError(500, 'not a file')
      yield * entry.content({ offset, length, signal: blocks.signal })
    }
  }
}

/** The CID of a named entry of a directory (plain or HAMT), or undefined. */
export async function findEntry (blocks: GatewayBlocks, dir: CID, name: string): Promise<CID | undefined> {
  const root = dir.toString()
  try {
    const res = await createResolver({ blockstore: blocks.reader }).resolve(
      { namespace: 'ipfs', root, cid: dir, segments: [name], text: `/ipfs/${root}/${name}` }, { signal: blocks.signal })
    return res.remainder.length === 0 ? res.cid : undefined
  } catch (err) {
    if (err instanceof GatewayError) throw err
    if ((err as Error)?.name === 'NoLinkError') return undefined
    throw err
  }
}
