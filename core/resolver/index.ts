// The one path resolver (Kubo CoreAPI.ResolvePath + boxo path/resolver ResolveToLastNode):
// /ipfs/<cid>/a/b, <cid>/a/b, ipfs://…, /ipld/…; /ipfs paths see dag-pb as UnixFS (directories,
// HAMT shards, non-UnixFS nodes by link name), /ipld paths see the plain data model.
import type { CID } from 'multiformats/cid'
import type { Blockstore } from 'interface-blockstore'
import type { PBLink } from '@ipld/dag-pb'
import { CID as CIDClass } from 'multiformats/cid'
import { RpcError } from '../errors.js'
import { getBlock } from './blocks.js'
import { decodeBlock, lookupSegment, type Step } from './node.js'
import { newPath, parsePath, pathFromCid, type ContentPath } from './path.js'
import { DAG_PB_CODEC, DataType, decodePb, decodeUnixfsData, hamtLookup, type UnixfsData } from './unixfs.js'
import { goQuote } from '../go/strings.js'
import type * as dagPb from '@ipld/dag-pb'

export * from './path.js'
export * from './blocks.js'
export { decodeBlock, nodeLinks, type NodeLink } from './node.js'
export * from './unixfs.js'
export { mapOrdered } from './concurrency.js'

export interface ResolveOptions {
  signal?: AbortSignal
}

export interface Resolved {
  /** the CID of the last block on the path */
  cid: CID
  /** the path left inside that block (non-empty only when the path ends inside a dag-cbor/dag-json/… value) */
  remainder: string[]
  namespace: 'ipfs' | 'ipld'
  /** the parsed input */
  path: ContentPath
}

export interface Resolver {
  /** Kubo ResolvePath: the last block's CID and the remainder inside it (the last block is not fetched) */
  resolve: (path: string | CID | ContentPath, options?: ResolveOptions) => Promise<Resolved>
  /** Kubo ResolveNode: resolve, then fetch the last block */
  resolveNode: (path: string | CID | ContentPath, options?: ResolveOptions) => Promise<Resolved & { block: Uint8Array }>
  /** a block, with Kubo's not-found error text (identity CIDs are served from the CID) */
  getBlock: (cid: CID, options?: ResolveOptions) => Promise<Uint8Array>
}

export interface ResolverInit {
  blockstore: Pick<Blockstore, 'get'>
  /**
   * /ipns/ names (IPNS records, DNSLink): returns the content path a name points to.
   * Without it every name fails as unresolvable.
   */
  resolveName?: (path: ContentPath, options: ResolveOptions) => Promise<string>
  /** word missing blocks as Kubo's offline exchange does (default true: there is no network fetch yet) */
  offline?: boolean
}

/** boxo path/resolver ErrNoLink. */
export class NoLinkError extends RpcError {
  constructor (readonly linkName: string, readonly node: CID) {
    super(`no link named ${goQuote(linkName)} under ${node.toString()}`)
  }
}

type View =
  | { kind: 'links', links: PBLink[] }
  | { kind: 'hamt', root: { pb: dagPb.PBNode, fs: UnixfsData } }
  | { kind: 'file' }
  | { kind: 'value', value: unknown, typed: boolean }

/** A block as the path resolver of its namespace sees it (unixfsnode reification on /ipfs). */
function viewOf (namespace: 'ipfs' | 'ipld', cid: CID, block: Uint8Array): View {
  if (cid.code !== DAG_PB_CODEC) return { kind: 'value', value: decodeBlock(cid, block), typed: false }
  const pb = decodePb(block)
  if (namespace === 'ipld') return { kind: 'value', value: pb, typed: true }
  if (pb.Data == null) return { kind: 'links', links: pb.Links }
  let fs: UnixfsData
  try {
    fs = decodeUnixfsData(pb.Data)
  } catch {
    return { kind: 'links', links: pb.Links }
  }
  switch (fs.type) {
    case DataType.HAMTShard: return { kind: 'hamt', root: { pb, fs } }
    case DataType.File: case DataType.Raw: return { kind: 'file' }
    default: return { kind: 'links', links: pb.Links }
  }
}

const MAX_NAME_DEPTH = 32

export function createResolver (init: ResolverInit): Resolver {
  const offline = init.offline ?? true
  const fetch = async (cid: CID, options: ResolveOptions = {}): Promise<Uint8Array> =>
    await getBlock(init.blockstore, cid, { signal: options.signal, offline })

  const step = async (view: View, seg: string, options: ResolveOptions): Promise<Step> => {
    switch (view.kind) {
      case 'links': {
        const link = view.links.find(l => (l.Name ?? '') === seg)
        return link != null ? { found: true, value: link.Hash } : { found: false, noSuchField: true, message: '' }
      }
      case 'hamt': {
        const cid = await hamtLookup(view.root, seg, async c => await fetch(c, options))
        return cid != null ? { found: true, value: cid } : { found: false, noSuchField: true, message: '' }
      }
      case 'file':
        return { found: false, noSuchField: true, message: '' }
      case 'value':
        return lookupSegment(view.value, seg, view.typed)
    }
  }

  const toPath = (path: string | CID | ContentPath): ContentPath => {
    if (typeof path === 'string') return parsePath(path)
    const cid = CIDClass.asCID(path)
    if (cid != null) return pathFromCid(cid)
    return path as ContentPath
  }

  const resolve = async (input: string | CID | ContentPath, options: ResolveOptions = {}): Promise<Resolved> => {
    let path = toPath(input)
    for (let depth = 0; path.namespace === 'ipns'; depth++) {
      if (init.resolveName == null || depth >= MAX_NAME_DEPTH) throw new RpcError('could not resolve name')
      const target = newPath(await init.resolveName(path, options))
      path = { ...target, segments: [...target.segments, ...path.segments], text: target.text + (path.segments.length > 0 ? '/' + path.segments.join('/') : '') }
    }
    const namespace = path.namespace as 'ipfs' | 'ipld'
    const root = path.cid as CID
    const segs = path.segments
    if (segs.length === 0) return { cid: root, remainder: [], namespace, path }

    let blockCid = root
    let view = viewOf(namespace, root, await fetch(root, options))
    let depth = 0 // depth of the current value inside its block
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]
      const last = i === segs.length - 1
      const res = await step(view, seg, options)
      if (!res.found) {
        if (!last || res.noSuchField) throw new NoLinkError(seg, blockCid)
        throw new RpcError(res.message)
      }
      const link = CIDClass.asCID(res.value)
      if (last) {
        if (link != null) return { cid: link, remainder: [], namespace, path }
        return { cid: blockCid, remainder: segs.slice(segs.length - depth - 1), namespace, path }
      }
      if (link != null) {
        let block: Uint8Array
        try {
          block = await fetch(link, options)
          view = viewOf(namespace, link, block)
        } catch (err) {
          throw new RpcError(`error traversing node at ${goQuote(segs.slice(0, i + 1).join('/'))}: could not load link ${goQuote(link.toString())}: ${(err as Error).message}`)
        }
        blockCid = link
        depth = 0
      } else {
        view = { kind: 'value', value: res.value, typed: view.kind === 'value' && view.typed }
        depth++
      }
    }
    throw new Error('unreachable')
  }

  return {
    resolve,
    resolveNode: async (path, options = {}) => {
      const resolved = await resolve(path, options)
      return { ...resolved, block: await fetch(resolved.cid, options) }
    },
    getBlock: fetch
  }
}
