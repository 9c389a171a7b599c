// Cache and identity headers shared by every kind of response (boxo addCacheControlHeaders,
// setIpfsRootsHeader, addContentDispositionHeader).
import path from 'node:path'
import { createHash } from 'node:crypto'
import type { CID } from 'multiformats/cid'
import { isMutable, type GatewayRequest, type RequestData } from './context.js'
import { etagFor } from './format.js'
import { TEMPLATE_SOURCE } from './html.js'
import { contentDisposition, IMMUTABLE_CACHE_CONTROL, LISTING_CACHE_CONTROL } from './http.js'
import type { ContentPath, ResolvedPath } from './resolve.js'

/** Changes whenever the generated HTML changes, so listing Etags change with it. */
export const ASSET_HASH = createHash('sha256').update(TEMPLATE_SOURCE).digest('hex').slice(0, 12)

export const dirListingEtag = (cid: CID): string => `"DirIndex-${ASSET_HASH}_CID-${cid.toString()}"`
export const dagIndexEtag = (cid: CID): string => `"DagIndex-${ASSET_HASH}_CID-${cid.toString()}"`

/** Cache-Control of plain content: immutable for /ipfs, the TTL (if known) for /ipns. */
export function contentCacheControl (rq: RequestData): string {
  if (isMutable(rq)) return rq.ttl != null && rq.ttl > 0 ? `public, max-age=${rq.ttl}` : ''
  return IMMUTABLE_CACHE_CONTROL
}

/** Cache-Control of generated listings: a week for /ipfs, the TTL for /ipns. */
export function listingCacheControl (rq: RequestData): string {
  if (rq.ttl != null && rq.ttl > 0) return `public, max-age=${rq.ttl}, stale-while-revalidate=2678400`
  return isMutable(rq) ? '' : LISTING_CACHE_CONTROL
}

/** Etag and Cache-Control; returns the Last-Modified time to send (if any). */
export function addCacheHeaders (r: GatewayRequest, rq: RequestData, cid: CID, format: string, contentPath: ContentPath = rq.contentPath): Date | undefined {
  const etag = etagFor(cid, format)
  if (etag !== '') r.ctx.set('Etag', etag)
  const cc = contentCacheControl({ ...rq, contentPath })
  if (cc !== '') r.ctx.set('Cache-Control', cc)
  if (contentPath.namespace === 'ipns') return rq.lastModified ?? new Date()
  return rq.lastModified
}

/** X-Ipfs-Roots: one CID per logical path segment. */
export function setRootsHeader (r: GatewayRequest, resolved: ResolvedPath): void {
  r.ctx.set('X-Ipfs-Roots', resolved.segmentCids.map(c => c.toString()).join(','))
}

/** The file name a content path implies ('' for a bare /ipfs/<cid> or /ipns/<name>). */
export function filenameOf (p: ContentPath): string {
  const cleaned = path.posix.normalize(p.str).replace(/\/$/, '')
  if (cleaned.split('/').length - 1 <= 2) return ''
  return path.posix.basename(cleaned)
}

/** Content-Disposition from ?filename (inline, or attachment with ?download=true); returns the name in use. */
export function addContentDisposition (r: GatewayRequest, p: ContentPath): string {
  const filename = r.query.get('filename')
  if (filename != null && filename !== '') {
    r.ctx.set('Content-Disposition', contentDisposition(filename, r.query.get('download') === 'true' ? 'attachment' : 'inline'))
    return filename
  }
  return filenameOf(p)
}
