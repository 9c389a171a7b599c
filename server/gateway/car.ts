// CAR responses (trustless gateway: IPIP-0402 dag-scope and entity-bytes, IPIP-0412 order and dups,
// IPIP-0523 URL parameters over Accept parameters). The CAR holds the blocks read to resolve the path,
// then the terminal entity's blocks in depth-first, link order. Identity blocks are never written.
import { createHash } from 'node:crypto'
import * as dagCbor from '@ipld/dag-cbor'
import * as dagJson from '@ipld/dag-json'
import * as dagPb from '@ipld/dag-pb'
import { UnixFS } from 'ipfs-unixfs'
import { CID } from 'multiformats/cid'
import * as json from 'multiformats/codecs/json'
import { varint } from 'multiformats'
import type { GatewayBlocks } from './blocks.js'
import type { GatewayRequest, RequestData } from './context.js'
import { GatewayError, NoLinkError } from './errors.js'
import { CAR, CODEC_CBOR, CODEC_DAG_CBOR, CODEC_DAG_JSON, CODEC_DAG_PB, CODEC_IDENTITY, CODEC_JSON } from './format.js'
import { contentCacheControl } from './headers.js'
import { contentDisposition, etagMatch } from './http.js'
import { parseCid } from '../../core/cid-encoder.js'
import { resolveIpfsPath, type ResolvedPath } from './resolve.js'
import { sendNotModified, sendStream } from './respond.js'

export type DagScope = 'all' | 'entity' | 'block'

export interface CarParams {
  scope: DagScope
  /** entity-bytes: from (negative counts from the end), to (inclusive; undefined = end, negative = from the end) */
  range?: { from: number, to?: number }
  order: 'dfs' | 'unk'
  dups: boolean
}

function parseEntityBytes (s: string): { from: number, to?: number } {
  const parts = s.split(':')
  if (parts.length !== 2) throw new Error("range must have two numbers separated with ':'")
  const int = (t: string): number => {
    if (!/^[+-]?\d+$/.test(t)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(t)}: invalid syntax`)
    return Number(t)
  }
  const from = int(parts[0])
  if (parts[1] === '*') return { from }
  const to = int(parts[1])
  if ((from >= 0 && to >= 0 && from > to) || (from < 0 && to < 0 && from > to)) {
    throw new Error("cannot have an entity-bytes range where 'from' is after 'to'")
  }
  return { from, to }
}

/** boxo buildCarParams: URL parameters first, then the Accept parameters, then the defaults. */
export function carParams (query: URLSearchParams, acceptParams: Record<string, string>): CarParams {
  let range: CarParams['range']
  const rangeStr = query.get('entity-bytes')
  if (rangeStr != null) {
    try {
      range = parseEntityBytes(rangeStr)
    } catch (err) {
      throw new GatewayError(400, `invalid application/vnd.ipld.car entity-bytes URL parameter: ${(err as Error).message}`)
    }
  }
  let scope: DagScope = 'all'
  const scopeStr = query.get('dag-scope')
  if (scopeStr != null) {
    if (scopeStr !== 'all' && scopeStr !== 'entity' && scopeStr !== 'block') throw new GatewayError(400, 'unsupported application/vnd.ipld.car scope parameter')
    scope = scopeStr
  }
  const pick = (urlKey: string, acceptKey: string): string => {
    const u = query.get(urlKey)
    return u != null && u !== '' ? u : acceptParams[acceptKey] ?? ''
  }
  const version = pick('car-version', 'version')
  if (version !== '' && version !== '1') throw new GatewayError(400, 'unsupported application/vnd.ipld.car version: only version=1 is supported')
  const order = pick('car-order', 'order')
  if (order !== '' && order !== 'dfs' && order !== 'unk') throw new GatewayError(400, 'unsupported application/vnd.ipld.car order parameter')
  const dups = pick('car-dups', 'dups')
  if (dups !== '' && dups !== 'y' && dups !== 'n') throw new GatewayError(400, 'unsupported application/vnd.ipld.car dups parameter')
  return { scope, range, order: order === 'unk' ? 'unk' : 'dfs', dups: dups === 'y' }
}

export const carContentType = (p: CarParams): string => `${CAR}; version=1; order=${p.order}; dups=${p.dups ? 'y' : 'n'}`

/** A weak Etag that changes with the path and every parameter that changes the blocks sent. */
export function carEtag (root: CID, path: string, p: CarParams): string {
  const h = createHash('sha256').update(path)
  if (p.scope !== 'all') h.update('\0scope=' + p.scope)
  if (p.order !== 'dfs') h.update('\0order=' + p.order)
  if (p.dups) h.update('\0dups=y')
  if (p.range != null && (p.range.from !== 0 || p.range.to != null)) h.update(`\0range=${p.range.from}:${p.range.to ?? '*'}`)
  return `W/"${root.toString()}.car.${BigInt('0x' + h.digest('hex').slice(0, 16)).toString(32)}"`
}

interface Block { cid: CID, bytes: Uint8Array }

function carHeader (roots: CID[]): Uint8Array {
  const header = dagCbor.encode({ roots, version: 1 })
  const out = new Uint8Array(varint.encodingLength(header.byteLength) + header.byteLength)
  varint.encodeTo(header.byteLength, out)
  out.set(header, varint.encodingLength(header.byteLength))
  return out
}

function carSection (b: Block): Uint8Array {
  const len = b.cid.bytes.byteLength + b.bytes.byteLength
  const prefix = varint.encodingLength(len)
  const out = new Uint8Array(prefix + len)
  varint.encodeTo(len, out)
  out.set(b.cid.bytes, prefix)
  out.set(b.bytes, prefix + b.cid.bytes.byteLength)
  return out
}

/** Links of a block in the order a depth-first IPLD traversal follows them. */
function linksOf (cid: CID, bytes: Uint8Array): CID[] {
  switch (cid.code) {
    case CODEC_DAG_PB: return dagPb.decode(bytes).Links.map(l => l.Hash)
    case CODEC_DAG_CBOR: return collectCids(dagCbor.decode(bytes))
    case CODEC_DAG_JSON: return collectCids(dagJson.decode(bytes))
    case CODEC_CBOR: return collectCids(dagCbor.decode(bytes))
    case CODEC_JSON: return collectCids(json.decode(bytes))
    default: return []
  }
}

function collectCids (v: unknown, out: CID[] = []): CID[] {
  const cid = CID.asCID(v)
  if (cid != null) out.push(cid)
  else if (Array.isArray(v)) for (const x of v) collectCids(x, out)
  else if (v != null && typeof v === 'object' && !(v instanceof Uint8Array)) for (const x of Object.values(v)) collectCids(x, out)
  return out
}

class CarBlocks {
  private readonly sent = new Set<string>()
  /** subtrees already walked (cid and byte range): without dups, a DAG that links the same blocks many times is walked once per block */
  private readonly walked = new Set<string>()
  constructor (private readonly blocks: GatewayBlocks, private readonly dups: boolean) {}

  /** Emit a block unless it is an identity block or (without dups) already sent. */
  * emit (b: Block, force = false): Generator<Block> {
    if (b.cid.multihash.code === CODEC_IDENTITY) return
    const key = b.cid.toString()
    if (!force && !this.dups && this.sent.has(key)) return
    this.sent.add(key)
    yield b
  }

  wasSent (cid: CID): boolean { return this.sent.has(cid.toString()) }

  /** true the first time a subtree key is seen */
  private firstWalk (key: string): boolean {
    if (this.walked.has(key)) return false
    this.walked.add(key)
    return true
  }

  async get (cid: CID): Promise<Block> { return { cid, bytes: await this.blocks.get(cid) } }

  /** dag-scope=all: every block reachable from `cid`, depth-first pre-order, links in order. */
  async * all (cid: CID, first: Block | undefined): AsyncGenerator<Block> {
    const seen = new Set<string>()
    const stack: CID[] = [cid]
    let root: Block | undefined = first
    while (stack.length > 0) {
      const next = stack.pop() as CID
      const key = next.toString()
      if (!this.dups && seen.has(key)) continue
      seen.add(key)
      const b = root ?? await this.get(next)
      root = undefined
      yield * this.emit(b)
      const links = linksOf(b.cid, b.bytes)
      for (let i = links.length - 1; i >= 0; i--) stack.push(links[i])
    }
  }

  /** dag-scope=entity: the terminal block, plus a file's blocks for the byte range or a HAMT's shards. */
  async * entity (b: Block, remainder: string[], range: CarParams['range']): AsyncGenerator<Block> {
    yield * this.emit(b)
    if (b.cid.code !== CODEC_DAG_PB || remainder.length > 0) return
    let node: dagPb.PBNode
    let fs: UnixFS
    try {
      node = dagPb.decode(b.bytes)
      if (node.Data == null) return
      fs = UnixFS.unmarshal(node.Data)
    } catch {
      return
    }
    if (fs.type === 'hamt-sharded-directory') {
      yield * this.shards(node, fs)
      return
    }
    if (fs.type !== 'file') return
    const size = Number(fs.fileSize())
    let from = range?.from ?? 0
    if (from < 0) from = Math.max(size + from, 0)
    let to = range?.to == null ? size - 1 : range.to
    if (to < 0) to = size + to
    to = Math.min(to, size - 1)
    if (to < from) return
    yield * this.fileRange(node, fs, 0, from, to + 1)
  }

  private async * shards (node: dagPb.PBNode, fs: UnixFS): AsyncGenerator<Block> {
    const pad = ((fs.fanout ?? 256n) - 1n).toString(16).length
    for (const link of node.Links) {
      if ((link.Name ?? '').length !== pad) continue
      if (!this.dups && !this.firstWalk(link.Hash.toString())) continue
      const child = await this.get(link.Hash)
      yield * this.emit(child)
      const cn = dagPb.decode(child.bytes)
      yield * this.shards(cn, UnixFS.unmarshal(cn.Data ?? new Uint8Array(0)))
    }
  }

  /** The blocks of a file node that hold bytes [start, end), using blocksizes to skip the others. */
  private async * fileRange (node: dagPb.PBNode, fs: UnixFS, offset: number, start: number, end: number): AsyncGenerator<Block> {
    let pos = offset + (fs.data?.byteLength ?? 0)
    for (let i = 0; i < node.Links.length; i++) {
      const childStart = pos
      const childEnd = pos + Number(fs.blockSizes[i] ?? 0n)
      pos = childEnd
      if (childEnd <= start || childStart >= end) continue
      if (!this.dups && !this.firstWalk(`${node.Links[i].Hash.toString()}:${Math.max(start - childStart, 0)}:${Math.min(end, childEnd) - childStart}`)) continue
      const child = await this.get(node.Links[i].Hash)
      yield * this.emit(child)
      if (child.cid.code === CODEC_DAG_PB) {
        const cn = dagPb.decode(child.bytes)
        if (cn.Data != null) yield * this.fileRange(cn, UnixFS.unmarshal(cn.Data), childStart, start, end)
      }
    }
  }
}

async function * carBody (r: GatewayRequest, roots: CID[], pathBlocks: Block[], resolved: ResolvedPath | undefined, params: CarParams): AsyncGenerator<Uint8Array> {
  yield carHeader(roots)
  const car = new CarBlocks(r.blocks, params.dups)
  for (const b of pathBlocks) for (const x of car.emit(b)) yield carSection(x)
  if (resolved == null) return
  const terminal = resolved.terminal
  // the terminal block may already have been read while resolving (a path inside a dag-cbor block)
  const first = await car.get(terminal)
  const skipFirst = car.wasSent(terminal)
  let source: AsyncIterable<Block> | Iterable<Block>
  if (params.scope === 'block') source = car.emit(first)
  else if (params.scope === 'entity') source = car.entity(first, resolved.remainder, params.range)
  else source = car.all(terminal, first)
  let i = 0
  for await (const b of source) {
    if (i++ === 0 && skipFirst && b.cid.equals(terminal)) continue
    yield carSection(b)
  }
}

/** Serve a CAR for an /ipfs/ path (IPNS already resolved). */
export async function serveCar (r: GatewayRequest, rq: RequestData): Promise<void> {
  const params = carParams(r.query, rq.formatParams)
  const imPath = rq.immutablePath
  const root = parseCid(imPath.root)
  const last = imPath.segments[imPath.segments.length - 1]
  const filename = r.query.get('filename')
  const name = filename != null && filename !== '' ? filename : `${root.toString()}${last != null ? '_' + last : ''}.car`
  r.ctx.set('Content-Disposition', contentDisposition(name, 'attachment'))
  const cc = contentCacheControl(rq)
  if (cc !== '') r.ctx.set('Cache-Control', cc)
  const etag = carEtag(root, imPath.str, params)
  r.ctx.set('Etag', etag)
  if (etagMatch(r.ctx.get('If-None-Match'), etag)) {
    sendNotModified(r.ctx)
    return
  }

  // resolve before sending headers, recording the blocks read on the way
  const pathBlocks: Block[] = []
  const recorded = new Set<string>()
  r.blocks.onRead = (cid, bytes) => {
    if (!recorded.has(cid.toString())) pathBlocks.push({ cid, bytes })
    recorded.add(cid.toString())
  }
  let resolved: ResolvedPath | undefined
  try {
    resolved = await resolveIpfsPath(r.blocks, imPath)
  } catch (err) {
    // a missing link: 200 with the blocks that prove it (boxo); anything else is an error
    if (!(err instanceof NoLinkError)) throw err
  } finally {
    r.blocks.onRead = undefined
  }
  if (resolved != null) {
    // a missing terminal block is a 404 before any byte is sent
    await r.blocks.get(resolved.terminal)
    r.ctx.set('X-Ipfs-Roots', resolved.segmentCids.map(c => c.toString()).join(','))
  }
  r.ctx.set('Accept-Ranges', 'none')
  r.ctx.set('Content-Type', carContentType(params))
  r.ctx.set('X-Content-Type-Options', 'nosniff')
  const roots = resolved != null ? [resolved.terminal] : [CID.parse('bafkqaaa')]
  sendStream(r, 200, carBody(r, roots, pathBlocks, resolved, params))
}
