// Content paths (/ipfs/<cid>/a/b, /ipns/<name>/a) and their resolution with the node's path resolver
// (core/resolver, boxo's ResolveToLastNode) over the request's blocks: one CID per logical path segment
// (X-Ipfs-Roots, as boxo's getPathRoots resolves every prefix), the terminal CID and the part of the
// path left inside a dag-cbor/dag-json block.
import type { CID } from 'multiformats/cid'
import { createResolver, newPath, type ContentPath as CorePath } from '../../core/resolver/index.js'
import type { GatewayBlocks } from './blocks.js'
import { GatewayError, NoLinkError } from './errors.js'

export interface ContentPath {
  namespace: 'ipfs' | 'ipns'
  /** the CID or name after the namespace */
  root: string
  /** decoded segments after the root */
  segments: string[]
  trailingSlash: boolean
  /** canonical text: /<ns>/<root>/<segments...>[/] */
  str: string
}

/** boxo path.NewPath: Go's path.Clean of the segments, a trailing slash kept; 400 on errors. */
export function parseContentPath (str: string): ContentPath {
  let p: CorePath
  try {
    p = newPath(str)
  } catch (err) {
    throw new GatewayError(400, (err as Error).message)
  }
  const namespace = p.namespace === 'ipns' ? 'ipns' : 'ipfs'
  const trailingSlash = p.text.endsWith('/')
  return { namespace, root: p.root, segments: p.segments, trailingSlash, str: joinPath(namespace, p.root, p.segments, trailingSlash) }
}

export function joinPath (ns: string, root: string, segments: string[], trailingSlash = false): string {
  return `/${ns}/${root}${segments.map(s => '/' + s).join('')}${trailingSlash ? '/' : ''}`
}

export interface ResolvedPath {
  root: CID
  /** one CID per logical segment, the root first and the terminal last */
  segmentCids: CID[]
  terminal: CID
  /** trailing segments that name a place inside the terminal dag-cbor/dag-json block */
  remainder: string[]
}

/** Resolution failures that mean "no such path" (boxo isErrNotFound): 404. */
function resolutionError (err: unknown): unknown {
  if (err instanceof GatewayError) return err
  const e = err as Error
  if (e?.name === 'NoLinkError') return new NoLinkError('', '', { cause: err }).withMessage(e.message)
  if (/could not find|key not found|on a list|wrong kind/.test(e?.message ?? '')) return new GatewayError(404, e.message, { cause: err })
  return err
}

/** Walk an /ipfs/ path. Missing links throw NoLinkError (404), missing blocks BlockNotFoundError (404). */
export async function resolveIpfsPath (blocks: GatewayBlocks, p: ContentPath): Promise<ResolvedPath> {
  const resolver = createResolver({ blockstore: blocks.reader })
  const base = newPath(`/ipfs/${p.root}`)
  const root = base.cid as CID
  const segmentCids: CID[] = [root]
  let terminal = root
  let remainder: string[] = []
  try {
    for (let i = 1; i <= p.segments.length; i++) {
      const segments = p.segments.slice(0, i)
      const res = await resolver.resolve({ ...base, segments, text: joinPath('ipfs', p.root, segments) }, { signal: blocks.signal })
      segmentCids.push(res.cid)
      terminal = res.cid
      remainder = res.remainder
    }
  } catch (err) {
    throw resolutionError(err)
  }
  return { root, segmentCids, terminal, remainder }
}

/** Percent-encode a decoded path the way Go's url.URL.EscapedPath does. */
export function escapePath (p: string): string {
  return p.split('/').map(escapeSegment).join('/')
}

const PATH_SAFE = /[A-Za-z0-9\-._~$&+,;=:@]/

/** One segment escaped as Go's url encodePath mode does (a '/' inside it is escaped too). */
export function escapeSegment (s: string): string {
  let out = ''
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte)
    if (byte < 0x80 && PATH_SAFE.test(c)) out += c
    else out += '%' + byte.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}

