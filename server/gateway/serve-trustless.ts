// Verifiable and archive responses: raw blocks, TAR archives (IPIP-0288) and IPNS records (IPIP-0351).
import path from 'node:path'
import { createHash } from 'node:crypto'
import { pack } from 'it-tar'
import type { CID } from 'multiformats/cid'
import type { GatewayRequest, RequestData } from './context.js'
import { GatewayError } from './errors.js'
import { CODEC_DAG_PB, RAW, TAR } from './format.js'
import { addCacheHeaders, setRootsHeader } from './headers.js'
import { contentDisposition, etagMatch, httpDate } from './http.js'
import { getIpnsRecord, parseIpnsName, recordMaxAge, validIpnsRecord, type IpnsDeps } from './ipns.js'
import type { ResolvedPath } from './resolve.js'
import { sendBody, sendNotModified, sendStream, serveContent } from './respond.js'
import { isUnixfsCodec, loadUnixfs } from './unixfs.js'

export async function serveRawBlock (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath): Promise<void> {
  const cid = resolved.terminal
  const block = await r.blocks.get(cid)
  setRootsHeader(r, resolved)
  const filename = r.query.get('filename')
  r.ctx.set('Content-Disposition', contentDisposition(filename != null && filename !== '' ? filename : `${cid.toString()}.bin`, 'attachment'))
  const modtime = addCacheHeaders(r, rq, cid, RAW)
  r.ctx.set('Content-Type', RAW)
  r.ctx.set('X-Content-Type-Options', 'nosniff')
  await serveContent(r, { size: block.byteLength, modtime, read: async function * (o, l) { yield block.subarray(o, o + l) } })
}

interface TarItem {
  name: string
  type: 'file' | 'directory' | 'symlink'
  cid: CID
  size: number
  mode?: number
  mtime?: Date
  linkname?: string
  read?: (offset: number, length: number) => AsyncIterable<Uint8Array>
}

/** Go's path.Join + the check of boxo's TarWriter: entries may not leave the root. */
function entryName (base: string, parent: string, name: string): string {
  const joined = path.posix.normalize(parent + '/' + name).replace(/\/$/, '')
  if (joined.startsWith('..') || !(joined === base || joined.startsWith(base + '/'))) {
    throw new GatewayError(500, 'relative UnixFS paths outside the root are not allowed, use CAR instead')
  }
  return joined
}

/** Path segments below the root of a normalised entry path (`<root>/a/b` → 2). */
const depthOf = (p: string, base: string): number => p === base ? 0 : p.slice(base.length + 1).split('/').length

/**
 * Check, before any byte is sent, that no entry leaves the root. Whether a name escapes depends only on
 * its directory and on how deep that directory sits, and a directory deeper down escapes less; so each
 * directory block is read once, at the smallest depth it is reached (again only if reached higher up):
 * a DAG that links the same directories many times (billions of paths) costs its number of blocks.
 */
async function checkTree (r: GatewayRequest, root: CID, base: string): Promise<void> {
  const minDepth = new Map<string, number>()
  const work: Array<{ cid: CID, depth: number }> = [{ cid: root, depth: 0 }]
  while (work.length > 0) {
    const { cid, depth } = work.pop() as { cid: CID, depth: number }
    const key = cid.toString()
    const seen = minDepth.get(key)
    if (seen != null && seen <= depth) continue
    minDepth.set(key, depth)
    if (cid.code !== CODEC_DAG_PB) continue
    const node = await loadUnixfs(r.blocks, cid)
    r.touch()
    if (node.kind !== 'directory') continue
    // a stand-in for the directory's path at this depth: only its depth matters
    const parent = [base, ...Array<string>(depth).fill('d')].join('/')
    for await (const e of node.entries()) {
      r.signal.throwIfAborted()
      work.push({ cid: e.cid, depth: depthOf(entryName(base, parent, e.name), base) })
    }
  }
}

/** Directory listings kept for a TAR response: a DAG may link the same directories over and over. */
const LISTING_CACHE_ENTRIES = 65536
const LISTING_MAX = 4096

/**
 * Every entry of the tree, depth first (an explicit stack: a deep tree costs no nested generators), one
 * directory listing at a time; the caller pulls, so nothing is read ahead of the client.
 */
async function * walkTree (r: GatewayRequest, root: CID, base: string): AsyncGenerator<TarItem> {
  const listings = new Map<string, Array<{ name: string, cid: CID }>>()
  let cached = 0
  const stack: Array<{ name: string, entries: Iterator<{ name: string, cid: CID }> | AsyncIterator<{ name: string, cid: CID }> }> = []
  let next: { cid: CID, name: string } | undefined = { cid: root, name: base }
  for (;;) {
    if (next == null) {
      const top = stack[stack.length - 1]
      if (top == null) return
      const e = await top.entries.next()
      if (e.done === true) { stack.pop(); continue }
      next = { cid: e.value.cid, name: entryName(base, top.name, e.value.name) }
    }
    const { cid, name } = next
    next = undefined
    r.signal.throwIfAborted()
    const node = await loadUnixfs(r.blocks, cid)
    r.touch() // progress: the retrieval timeout counts from the last block read
    if (node.kind === 'file') {
      yield { name, type: 'file', cid, size: node.size, mode: node.mode, mtime: node.mtime, read: node.read }
    } else if (node.kind === 'symlink') {
      yield { name, type: 'symlink', cid, size: 0, mode: node.mode, mtime: node.mtime, linkname: Buffer.from(node.target).toString('utf8') }
    } else {
      yield { name, type: 'directory', cid, size: 0, mode: node.mode, mtime: node.mtime }
      const key = cid.toString()
      let list = listings.get(key)
      if (list == null && node.node.Links.length <= LISTING_MAX && cached < LISTING_CACHE_ENTRIES) {
        list = []
        for await (const e of node.entries()) list.push({ name: e.name, cid: e.cid })
        listings.set(key, list)
        cached += list.length
      }
      stack.push({ name, entries: list != null ? list[Symbol.iterator]() : node.entries()[Symbol.asyncIterator]() })
    }
  }
}

/** Gather small chunks into writes of about `size` bytes (a TAR of small files is mostly 512-byte headers). */
async function * coalesce (source: AsyncIterable<Uint8Array>, size = 64 * 1024): AsyncGenerator<Uint8Array> {
  let parts: Uint8Array[] = []
  let length = 0
  for await (const chunk of source) {
    if (length === 0 && chunk.byteLength >= size) { yield chunk; continue }
    parts.push(chunk)
    length += chunk.byteLength
    if (length >= size) {
      yield Buffer.concat(parts, length)
      parts = []
      length = 0
    }
  }
  if (length > 0) yield Buffer.concat(parts, length)
}

export async function serveTar (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath): Promise<void> {
  const cid = resolved.terminal
  if (!isUnixfsCodec(cid.code) || resolved.remainder.length > 0) {
    throw new GatewayError(406, 'the requested content is not UnixFS: a TAR can only be made of UnixFS files and directories')
  }
  const base = cid.toString()
  await checkTree(r, cid, base)
  setRootsHeader(r, resolved)
  const modtime = addCacheHeaders(r, rq, cid, TAR)
  const filename = r.query.get('filename')
  r.ctx.set('Content-Disposition', contentDisposition(filename != null && filename !== '' ? filename : `${base}.tar`, 'attachment'))
  if (modtime != null) r.ctx.set('Last-Modified', httpDate(modtime))
  r.ctx.set('Content-Type', TAR)
  r.ctx.set('X-Content-Type-Options', 'nosniff')
  const entries = (async function * () {
    for await (const item of walkTree(r, cid, base)) {
      const mtime = item.mtime ?? new Date()
      if (item.type === 'directory') {
        yield { header: { name: item.name, type: 'directory' as const, mode: item.mode ?? 0o755, mtime, size: 0 } }
      } else if (item.type === 'symlink') {
        yield { header: { name: item.name, type: 'symlink' as const, mode: item.mode ?? 0o777, mtime, linkname: item.linkname ?? '', size: 0 } }
      } else {
        yield { header: { name: item.name, type: 'file' as const, mode: item.mode ?? 0o644, mtime, size: item.size }, body: item.read?.(0, item.size) ?? (async function * () {})() }
      }
    }
  })()
  // like boxo, a failure after the headers ends the archive with the error text
  sendStream(r, 200, coalesce(pack()(entries)), err => err.message)
}

export async function serveIpnsRecord (r: GatewayRequest, rq: RequestData, deps: IpnsDeps): Promise<void> {
  const cp = rq.contentPath
  if (cp.namespace !== 'ipns') throw new GatewayError(400, `${cp.str} is not an IPNS link`)
  if (cp.segments.length > 0) throw new GatewayError(400, 'cannot find ipns key for subpath')
  const mh = parseIpnsName(cp.root)
  if (mh == null) throw new GatewayError(400, `invalid IPNS name ${JSON.stringify(cp.root)}: not a libp2p key`)
  const raw = await getIpnsRecord(deps, mh, r.signal)
  const record = await validIpnsRecord(mh, raw)
  const etag = `"${createHash('sha256').update(raw).digest('hex').slice(0, 16)}"`
  r.ctx.set('Etag', etag)
  if (etagMatch(r.ctx.get('If-None-Match'), etag)) {
    sendNotModified(r.ctx)
    return
  }
  const maxAge = recordMaxAge(record)
  if (maxAge != null) r.ctx.set('Cache-Control', `public, max-age=${maxAge}`)
  else r.ctx.set('Last-Modified', httpDate(new Date()))
  const filename = r.query.get('filename')
  r.ctx.set('Content-Disposition', contentDisposition(filename != null && filename !== '' ? filename : `${cp.root}.ipns-record`, 'attachment'))
  r.ctx.set('Content-Type', 'application/vnd.ipfs.ipns-record')
  r.ctx.set('X-Content-Type-Options', 'nosniff')
  sendBody(r, 200, raw)
}
