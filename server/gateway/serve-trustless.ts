// Verifiable and archive responses: raw blocks, TAR archives (IPIP-0288) and IPNS records (IPIP-0351).
import path from 'node:path'
import { createHash } from 'node:crypto'
import { pack } from 'it-tar'
import type { CID } from 'multiformats/cid'
import type { GatewayRequest, RequestData } from './context.js'
import { GatewayError } from './errors.js'
import { RAW, TAR } from './format.js'
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

/** Every entry of the tree, checked before any byte is sent. */
async function * walkTree (r: GatewayRequest, cid: CID, name: string, base: string): AsyncGenerator<TarItem> {
  const node = await loadUnixfs(r.blocks, cid)
  r.touch() // progress: the retrieval timeout counts from the last block read
  if (node.kind === 'file') {
    yield { name, type: 'file', cid, size: node.size, mode: node.mode, mtime: node.mtime, read: node.read }
    return
  }
  if (node.kind === 'symlink') {
    yield { name, type: 'symlink', cid, size: 0, mode: node.mode, mtime: node.mtime, linkname: Buffer.from(node.target).toString('utf8') }
    return
  }
  yield { name, type: 'directory', cid, size: 0, mode: node.mode, mtime: node.mtime }
  for await (const e of node.entries()) {
    yield * walkTree(r, e.cid, entryName(base, name, e.name), base)
  }
}

export async function serveTar (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath): Promise<void> {
  const cid = resolved.terminal
  if (!isUnixfsCodec(cid.code) || resolved.remainder.length > 0) {
    throw new GatewayError(406, 'the requested content is not UnixFS: a TAR can only be made of UnixFS files and directories')
  }
  const base = cid.toString()
  const items: TarItem[] = []
  for await (const item of walkTree(r, cid, base, base)) items.push(item)
  setRootsHeader(r, resolved)
  const modtime = addCacheHeaders(r, rq, cid, TAR)
  const filename = r.query.get('filename')
  r.ctx.set('Content-Disposition', contentDisposition(filename != null && filename !== '' ? filename : `${base}.tar`, 'attachment'))
  if (modtime != null) r.ctx.set('Last-Modified', httpDate(modtime))
  r.ctx.set('Content-Type', TAR)
  r.ctx.set('X-Content-Type-Options', 'nosniff')
  const entries = (async function * () {
    for (const item of items) {
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
  sendStream(r, 200, pack()(entries), err => err.message)
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
