// ipfs dag export (kubo core/commands/dag/export.go, go-car TraverseV1): a CARv1 stream of the DAG
// under a root, blocks in traversal order (depth first, links in data-model order, each CID once).
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { getBlock, isIdentity, isNotFound } from '../../core/blockstore/index.js'
import { CidSet } from '../../core/pins/walk.js'
import type { Blockstore } from 'interface-blockstore'
import { asRpcError, resolverOf } from './common.js'
import { blockLinks, hasDecoder, noDecoder, type LinkAt } from './ipld/codecs.js'
import { carSection, carV1Header } from './car.js'


const FLUSH_AT = 256 * 1024

/** Collects small writes into larger chunks. */
class Output {
  private parts: Uint8Array[] = []
  private size = 0
  push (...parts: Uint8Array[]): void {
    for (const p of parts) { this.parts.push(p); this.size += p.length }
  }

  get full (): boolean { return this.size >= FLUSH_AT }
  take (): Uint8Array {
    const out = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size)
    this.parts = []
    this.size = 0
    return out
  }

  get empty (): boolean { return this.size === 0 }
}

const quote = (s: string): string => JSON.stringify(s)

/** A block being walked: its links, the next one to follow, and how it was reached (for error paths). */
interface Frame { links: LinkAt[], i: number, up?: Frame, via?: LinkAt }

/** The data-model path from the root to a link (go-ipld-prime's traversal path). */
function pathTo (frame: Frame, link: LinkAt): string[] {
  const parts: string[][] = [link.path]
  for (let f: Frame | undefined = frame; f?.via != null; f = f.up) parts.push(f.via.path)
  return parts.reverse().flat()
}

/** The full traversal: any block that cannot be read or decoded ends the export with go-car's error. */
async function * fullExport (blockstore: Blockstore, root: CID, rootBytes: Uint8Array, signal: AbortSignal, suffix: (err: unknown) => string): AsyncGenerator<Uint8Array> {
  const out = new Output()
  // the header goes out first: later errors arrive as a stream error, as with Kubo's pipe
  yield carV1Header([root])
  const seen = new CidSet()
  seen.add(root)
  out.push(...carSection(root, rootBytes))
  const fail = (path: string[], cid: CID, err: unknown): Error =>
    new RpcError(`walk failed: error traversing node at ${quote(path.join('/'))}: could not load link ${quote(cid.toString())}: ${(err as Error).message}${suffix(err)}`)
  let links: LinkAt[]
  try {
    if (!hasDecoder(root.code)) throw noDecoder(root.code)
    links = blockLinks(root, rootBytes)
  } catch (err) {
    throw new RpcError(`root blk load failed: ${(err as Error).message}`)
  }
  const stack: Frame[] = [{ links, i: 0 }]
  while (stack.length > 0) {
    const top = stack[stack.length - 1]
    if (top.i >= top.links.length) { stack.pop(); continue }
    const link = top.links[top.i++]
    if (!seen.visit(link.cid)) continue
    if (!hasDecoder(link.cid.code)) {
      if (!out.empty) yield out.take()
      throw fail(pathTo(top, link), link.cid, noDecoder(link.cid.code))
    }
    let bytes: Uint8Array
    try {
      bytes = await getBlock(blockstore, link.cid, { signal })
    } catch (err) {
      if (!out.empty) yield out.take()
      throw fail(pathTo(top, link), link.cid, err)
    }
    out.push(...carSection(link.cid, bytes))
    let children: LinkAt[]
    try {
      children = blockLinks(link.cid, bytes)
    } catch (err) {
      yield out.take()
      throw fail(pathTo(top, link), link.cid, err)
    }
    if (children.length > 0) stack.push({ links: children, i: 0, up: top, via: link })
    if (out.full) yield out.take()
  }
  if (!out.empty) yield out.take()
}

/** --local-only (boxo dag/walker): what is in the blockstore; missing or undecodable blocks and their subtrees are skipped, identity blocks left out. */
async function * partialExport (blockstore: Blockstore, root: CID, signal: AbortSignal): AsyncGenerator<Uint8Array> {
  const out = new Output()
  yield carV1Header([root])
  const seen = new CidSet()
  const stack: CID[] = [root]
  while (stack.length > 0) {
    signal.throwIfAborted()
    const cid = stack.pop() as CID
    if (!seen.visit(cid)) continue
    if (!await blockstore.has(cid, { signal })) continue
    let bytes: Uint8Array
    let children: CID[]
    try {
      bytes = await getBlock(blockstore, cid, { signal })
      children = blockLinks(cid, bytes).map(l => l.cid)
    } catch {
      continue
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i])
    if (isIdentity(cid)) continue
    out.push(...carSection(cid, bytes))
    if (out.full) yield out.take()
  }
  if (!out.empty) yield out.take()
}

export const dagExport = defineCommand({
  path: ['dag', 'export'],
  description: 'Streams the selected DAG as a .car stream on stdout.',
  help: "'ipfs dag export' fetches a DAG and streams it out as a well-formed .car file.\nNote that at present only single root selections / .car files are supported.\nThe output of blocks happens in strict DAG-traversal, first-seen, order.\nCAR file follows the CARv1 format: https://ipld.io/specs/transport/car/carv1/\n\nUse --local-only for a best-effort export from the local blockstore: blocks\nthat are missing or unreadable locally (and their subtrees) are skipped, so\nthe resulting CAR is partial. --local-only implies --offline.",
  args: [{ name: 'root', kind: 'string', required: true, stdin: true, description: 'CID of a root to recursively export' }],
  options: {
    progress: { type: 'bool', aliases: ['p'], description: 'Stream progress data. Defaults to true when stderr is a terminal.' },
    'local-only': { type: 'bool', description: 'Best-effort export of locally-available blocks; missing or unreadable blocks (and their subtrees) are skipped. Implies --offline.' }
  },
  output: 'bytes',
  contentType: 'application/vnd.ipld.car',
  async run ({ args, options, given, deps, signal }) {
    const localOnly = options.localOnly === true
    if (localOnly && given.has('offline') && options.offline === false) {
      throw new RpcError('--local-only implies --offline and cannot be combined with --offline=false; please drop one of them')
    }
    // resolve, and fail fast when the root block is not there (api.Block().Stat)
    const resolved = await resolverOf(deps).resolve(args[0], { signal })
    const root = resolved.cid
    let rootBytes: Uint8Array
    try {
      rootBytes = await getBlock(deps.blockstore, root, { signal })
    } catch (err) {
      throw asRpcError(err)
    }
    if (localOnly) return partialExport(deps.blockstore, root, signal)
    const explicitOffline = given.has('offline') && options.offline === true
    const online = deps.node.online
    const suffix = (err: unknown): string => {
      if (!isNotFound(err) && !/ipld: could not find/.test((err as Error)?.message ?? '')) return ''
      if (explicitOffline) return ' (currently offline, perhaps retry without the offline flag)'
      return online ? '' : ' (currently offline, perhaps retry after attaching to the network)'
    }
    return fullExport(deps.blockstore, root, rootBytes, signal, suffix)
  }
})
