// Shared by the object commands: loading dag-pb nodes (Kubo ResolveNode + the ProtoNode check)
// and boxo's dagutils Editor (insert/remove a link at a slash path, writing the changed nodes).
import type { CID } from 'multiformats/cid'
import { RpcError } from '../../core/errors.js'
import { decodeNode, nodeSize, PbNode, DAG_PB, V0_PREFIX, encodeFsData, DataType, type DagNode, type Link } from '../../core/mfs/node.js'
import type { RequestCradle } from '../../core/cradle.js'
import { checkBlockSize } from '../shared/cmdutils.js'

/** merkledag.ErrNotProtobuf */
export const NOT_PROTOBUF = 'expected protobuf dag node'
/** merkledag.ErrLinkNotFound */
export const LINK_NOT_FOUND = 'no link by that name'

/** A loaded block: dag-pb and raw as nodes, other codecs by size only. */
export interface Loaded { cid: CID, block: Uint8Array, node?: DagNode }

export type ObjectDeps = Pick<RequestCradle, 'resolver' | 'blockstore' | 'gcLock'>

/** Kubo api.ResolveNode of a command argument. */
export async function loadPath (deps: ObjectDeps, arg: string, signal?: AbortSignal): Promise<Loaded> {
  const r = await deps.resolver.resolveNode(arg, { signal })
  return { cid: r.cid, block: r.block, node: decodeNode(r.cid, r.block) }
}

async function loadCid (deps: ObjectDeps, cid: CID, signal?: AbortSignal): Promise<Loaded> {
  const block = await deps.resolver.getBlock(cid, { signal })
  return { cid, block, node: decodeNode(cid, block) }
}

/** The node as a ProtoNode, or merkledag's error. */
export function asPb (l: Loaded): PbNode {
  if (l.node?.kind !== 'pb') throw new RpcError(NOT_PROTOBUF)
  return l.node.copy()
}

/** ipld.Node.Size(): ProtoNode counts its links' sizes, everything else its block. */
const sizeOf = (l: Loaded): number => l.node != null ? nodeSize(l.node) : l.block.length

/** ProtoNode.RemoveNodeLink: drops every link of that name. */
function removeLink (nd: PbNode, name: string): boolean {
  const kept = nd.links.filter(l => l.name !== name)
  const found = kept.length !== nd.links.length
  nd.links = kept
  nd.touch()
  return found
}

/** ProtoNode.AddNodeLink: appended (merkledag sorts on encoding). */
function addLink (nd: PbNode, link: Link): void {
  nd.links.push(link)
  nd.touch()
}

/** ProtoNode.GetLinkedProtoNode: the first link of that name, fetched, must be dag-pb. */
async function linkedPb (deps: ObjectDeps, nd: PbNode, name: string, signal?: AbortSignal): Promise<PbNode | undefined> {
  const link = nd.links.find(l => l.name === name)
  if (link == null) return undefined
  return asPb(await loadCid(deps, link.cid, signal))
}

/** unixfs.EmptyDirNode (CIDv0) */
const emptyDir = (): PbNode => new PbNode(V0_PREFIX, encodeFsData({ type: DataType.Directory, blocksizes: [] }), [])

/** Editor.InsertNodeAtPath: every node changed on the way is collected in `changed`. */
export async function insertAtPath (deps: ObjectDeps, root: PbNode, path: string, child: Loaded, create: boolean, changed: PbNode[], signal?: AbortSignal): Promise<PbNode> {
  const parts = path.split('/')
  const walk = async (nd: PbNode, i: number): Promise<PbNode> => {
    const name = parts[i]
    if (i === parts.length - 1) {
      if (name === '') throw new RpcError('cannot create link with no name')
      removeLink(nd, name)
      addLink(nd, { name, cid: child.cid, tsize: sizeOf(child) })
      changed.push(nd)
      return nd
    }
    let next = await linkedPb(deps, nd, name, signal)
    if (next == null) {
      if (!create) throw new RpcError(LINK_NOT_FOUND)
      next = emptyDir()
    }
    const updated = await walk(next, i + 1)
    removeLink(nd, name)
    addLink(nd, { name, cid: updated.cid, tsize: updated.size })
    changed.push(nd)
    return nd
  }
  return await walk(root, 0)
}

/** Editor.RmLink */
export async function removeAtPath (deps: ObjectDeps, root: PbNode, path: string, changed: PbNode[], signal?: AbortSignal): Promise<PbNode> {
  const parts = path.split('/')
  const walk = async (nd: PbNode, i: number): Promise<PbNode> => {
    const name = parts[i]
    if (i === parts.length - 1) {
      if (!removeLink(nd, name)) throw new RpcError(LINK_NOT_FOUND)
      changed.push(nd)
      return nd
    }
    const next = await linkedPb(deps, nd, name, signal)
    if (next == null) throw new RpcError(LINK_NOT_FOUND)
    const updated = await walk(next, i + 1)
    removeLink(nd, name)
    addLink(nd, { name, cid: updated.cid, tsize: updated.size })
    changed.push(nd)
    return nd
  }
  return await walk(root, 0)
}

/** Editor.Finalize + cmdutils.CheckCIDSize: write the changed nodes, check the new root's size. */
export async function finalize (deps: ObjectDeps, root: PbNode, changed: PbNode[], allowBig: boolean, signal?: AbortSignal): Promise<{ Hash: string }> {
  const release = await deps.gcLock.shared()
  try {
    for (const nd of changed) await deps.blockstore.put(nd.cid, nd.bytes, { signal })
  } finally {
    release()
  }
  checkBlockSize(root.bytes.length, allowBig)
  return { Hash: root.cid.toString() }
}

export { DAG_PB }
