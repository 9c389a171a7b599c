// The implicit (deserialized) response: UnixFS files, symlinks, directories (index.html or an HTML
// listing) and, for dag-json/dag-cbor/json/cbor terminals, the codec response.
import type { Blockstore } from 'interface-blockstore'
import type { CID } from 'multiformats/cid'
import * as dagPb from '@ipld/dag-pb'
import { DataType, decodeUnixfsData } from '../../core/resolver/unixfs.js'
import { stripPort } from './config.js'
import type { GatewayRequest, RequestData } from './context.js'
import { isMutable } from './context.js'
import { GatewayError } from './errors.js'
import { CODEC_TO_TYPE } from './format.js'
import { addCacheHeaders, addContentDisposition, dirListingEtag, listingCacheControl, setRootsHeader } from './headers.js'
import { directoryListing } from './html.js'
import { checkRangeSyntax, debugStr, RangeSyntaxError, SUFFIX_PAST_START, suffixPastStart, type ByteRange } from './http.js'
import { extname, GO_SNIFF_LEN, goSniff, sniff, SNIFF_LEN, typeByExtension } from './mime.js'
import { escapePath, joinPath, type ContentPath, type ResolvedPath } from './resolve.js'
import { sendRedirect, sendStream, serveContent } from './respond.js'
import { renderCodec } from './serve-codec.js'
import { findEntry, loadUnixfs, type UnixfsNode } from './unixfs.js'

export async function serveDefaults (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath): Promise<void> {
  const range = r.ctx.get('Range')
  if (r.method === 'GET' && range !== '') {
    try {
      checkRangeSyntax(range)
    } catch (err) {
      if (err instanceof RangeSyntaxError) throw new GatewayError(400, `invalid range request: ${err.message}`)
      throw err
    }
  }
  const terminal = resolved.terminal
  if (CODEC_TO_TYPE[terminal.code] != null) {
    const block = await r.blocks.get(terminal)
    setRootsHeader(r, resolved)
    await renderCodec(r, rq, resolved, block)
    return
  }
  const node = await loadUnixfs(r.blocks, terminal)
  setRootsHeader(r, resolved)
  if (node.mtime != null) rq.lastModified = node.mtime
  if (node.kind === 'directory') {
    await serveDirectory(r, rq, node)
    return
  }
  await serveFile(r, rq, node, rq.contentPath, '')
}

/** `n` bytes of a file from `offset` (a copy: the blocks go on to the body). */
async function bytesAt (node: Extract<UnixfsNode, { kind: 'file' }>, offset: number, n: number): Promise<Buffer> {
  const parts: Uint8Array[] = []
  for await (const chunk of node.read(offset, n, { recycle: 'look' })) parts.push(chunk)
  return Buffer.concat(parts)
}

/** First bytes of a file, for sniffing; undefined when they cannot be read. */
async function head (node: Extract<UnixfsNode, { kind: 'file' }>): Promise<Uint8Array | undefined> {
  try {
    return await bytesAt(node, 0, Math.min(node.size, SNIFF_LEN))
  } catch {
    return undefined
  }
}

/** A file or symlink; `etagNode` differs from `node` when a directory is served through its index.html. */
export async function serveFile (r: GatewayRequest, rq: RequestData, node: UnixfsNode, contentPath: ContentPath, fallbackType: string, etagNode: UnixfsNode = node): Promise<void> {
  if (node.kind === 'directory') throw new GatewayError(500, 'not a file')
  const size = node.kind === 'symlink' ? node.target.byteLength : node.size
  const max = r.settings.maxRangeRequestFileSize
  if (max > 0 && r.ctx.get('Range') !== '' && size > max) {
    throw new GatewayError(501, `range requests not supported for files larger than ${max} bytes: switch to verifiable block requests (application/vnd.ipld.raw)`)
  }
  if (node.kind === 'file' && r.method === 'GET' && suffixPastStart(r.ctx.get('Range'), size)) {
    throw new GatewayError(500, `failed to resolve ${debugStr(contentPath.str)}: ${SUFFIX_PAST_START}`)
  }
  const modtime = addCacheHeaders(r, rq, etagNode.cid, '', contentPath)
  const name = addContentDisposition(r, contentPath)

  let ctype: string
  let type: ((range?: ByteRange) => Promise<string>) | undefined
  let read: (offset: number, length: number) => AsyncIterable<Uint8Array>
  if (node.kind === 'symlink') {
    ctype = 'inode/symlink'
    const target = node.target
    read = async function * (o, l) { yield target.subarray(o, o + l) }
  } else {
    ctype = typeByExtension(extname(name))
    if (ctype === '') ctype = fallbackType
    const file = node
    const fileType = async (range?: ByteRange): Promise<string> => {
      // Kubo: boxo sniffs a file's start only for a range at 0, else net/http sniffs the range body
      if (range != null) return goSniff(await bytesAt(file, range.start, Math.min(range.length, GO_SNIFF_LEN)))
      const first = await head(file)
      const t = first != null ? sniff(first, file.size <= SNIFF_LEN) : ''
      return t.startsWith('text/html;') ? 'text/html' : t
    }
    if (ctype === '' && r.method === 'GET' && r.ctx.get('Range') !== '') {
      // decided once the range is known (serveContent); set now so that the header keeps its place
      type = fileType
      ctype = 'application/octet-stream'
    } else if (ctype === '') {
      ctype = await fileType()
    }
    if (ctype.startsWith('text/html;')) ctype = 'text/html'
    read = node.read
  }
  if (ctype !== '') r.ctx.set('Content-Type', ctype)
  await serveContent(r, { size, modtime, read, type })
}

export async function serveDirectory (r: GatewayRequest, rq: RequestData, dir: Extract<UnixfsNode, { kind: 'directory' }>): Promise<void> {
  if (!r.urlPath.endsWith('/') && r.query.get('go-get') !== '1') {
    sendRedirect(r.ctx, 301, escapePath(r.urlPath) + '/' + (r.rawQuery !== '' ? '?' + r.rawQuery : ''))
    return
  }
  const index = await findEntry(r.blocks, dir.cid, 'index.html')
  if (index != null) {
    const file = await loadUnixfs(r.blocks, index)
    if (file.kind !== 'file') throw new GatewayError(422, 'index.html could not be read: not a file')
    const cp = rq.contentPath
    const indexPath: ContentPath = { ...cp, segments: [...cp.segments, 'index.html'], trailingSlash: false, str: joinPath(cp.namespace, cp.root, [...cp.segments, 'index.html']) }
    await serveFile(r, rq, file, indexPath, 'text/html', dir)
    return
  }

  r.ctx.set('Content-Type', 'text/html')
  r.ctx.set('Etag', dirListingEtag(dir.cid))
  const cc = listingCacheControl(rq)
  if (cc !== '') r.ctx.set('Cache-Control', cc)
  if (r.method === 'HEAD') {
    r.ctx.status = 200
    return
  }
  // no link above the content root
  const parts = rq.contentPath.str.split('/')
  let backLink = ''
  if (!(parts.length === 3 || (parts.length === 4 && parts[3] === ''))) {
    backLink = r.urlPath + (r.urlPath.endsWith('/') ? '..' : '/..')
  }
  const gatewayURL = r.subdomainHost != null ? `//${r.subdomainHost}` : r.dnslinkHost != null ? `//${r.dnslinkHost}` : ''
  const dnslink = r.dnslinkHost != null && isMutable(rq) && rq.contentPath.root === stripPort(r.dnslinkHost)
  sendStream(r, 200, directoryListing({
    contentPath: rq.contentPath.str,
    urlPath: r.urlPath,
    gatewayURL,
    dnslink,
    cid: dir.cid,
    size: dir.size,
    backLink,
    entries: dir.entries(),
    isDirectory: async (cid) => await isLocalDirectory(r.deps.localBlockstore, cid)
  }))
}

/** A dag-pb entry whose block is here and says Directory or HAMTShard (never fetches). */
async function isLocalDirectory (blockstore: Blockstore, cid: CID): Promise<boolean> {
  if (cid.code !== dagPb.code || !await blockstore.has(cid)) return false
  const parts: Uint8Array[] = []
  for await (const chunk of blockstore.get(cid)) parts.push(chunk)
  const block = parts.length === 1 ? parts[0] : Buffer.concat(parts)
  const data = dagPb.decode(block).Data
  if (data == null) return false
  const type = decodeUnixfsData(data).type
  return type === DataType.Directory || type === DataType.HAMTShard
}
