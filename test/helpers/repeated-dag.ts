// A hostile DAG: `depth` levels of UnixFS directories, each linking the next level `fanout` times under
// different names, over one small file. A few dozen blocks, fanout^depth paths: a walker that does not
// remember what it visited never ends, a response built in memory never fits.
import * as dagPb from '@ipld/dag-pb'
import { UnixFS } from 'ipfs-unixfs'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import * as raw from 'multiformats/codecs/raw'

interface Putter { put: (cid: CID, bytes: Uint8Array) => Promise<unknown> | unknown }

export interface RepeatedDag {
  root: CID
  file: CID
  /** every block, root first */
  blocks: CID[]
  /** number of distinct paths below the root (fanout^depth leaves) */
  leaves: bigint
}

export async function buildRepeatedDag (store: Putter, depth = 40, fanout = 2, content = 'leaf\n'): Promise<RepeatedDag> {
  const bytes = new TextEncoder().encode(content)
  const file: CID = CID.createV1(raw.code, await sha256.digest(bytes))
  await store.put(file, bytes)
  const blocks: CID[] = [file]
  let child: CID = file
  let childSize = bytes.length
  for (let level = 0; level < depth; level++) {
    const names = Array.from({ length: fanout }, (_, i) => `e${String(i).padStart(3, '0')}`)
    const node = dagPb.prepare({
      Data: new UnixFS({ type: 'directory' }).marshal(),
      Links: names.map(Name => ({ Name, Hash: child, Tsize: childSize }))
    })
    const block = dagPb.encode(node)
    const cid = CID.createV1(dagPb.code, await sha256.digest(block))
    await store.put(cid, block)
    blocks.unshift(cid)
    child = cid
    childSize = Math.min(Number.MAX_SAFE_INTEGER, block.length + childSize * fanout)
  }
  return { root: child, file, blocks, leaves: BigInt(fanout) ** BigInt(depth) }
}

/** A UnixFS file of `depth` levels, each node linking the level below `fanout` times: fanout^depth leaves. */
export async function buildRepeatedFile (store: Putter, depth = 8, fanout = 100, content = 'chunk\n'): Promise<RepeatedDag & { size: number }> {
  const bytes = new TextEncoder().encode(content)
  const leaf: CID = CID.createV1(raw.code, await sha256.digest(bytes))
  await store.put(leaf, bytes)
  const blocks: CID[] = [leaf]
  let child: CID = leaf
  let childSize = bytes.length
  let childTsize = bytes.length
  for (let level = 0; level < depth; level++) {
    const fs = new UnixFS({ type: 'file', blockSizes: Array.from({ length: fanout }, () => BigInt(childSize)) })
    const block = dagPb.encode(dagPb.prepare({ Data: fs.marshal(), Links: Array.from({ length: fanout }, () => ({ Hash: child, Tsize: childTsize })) }))
    const cid = CID.createV1(dagPb.code, await sha256.digest(block))
    await store.put(cid, block)
    blocks.unshift(cid)
    child = cid
    childSize *= fanout
    childTsize = block.length + childTsize * fanout
  }
  return { root: child, file: leaf, blocks, leaves: BigInt(fanout) ** BigInt(depth), size: childSize }
}
