// One GET/HEAD request on /ipfs/ or /ipns/, in boxo's order (gateway/handler.go getOrHeadHandler):
// early redirects, path parsing, only-if-cached, format negotiation, IPNS records, name resolution,
// CAR, path resolution (with _redirects on origin-isolated hosts), If-None-Match / If-Modified-Since,
// then the response for the format.
import path from 'node:path'
import { base36 } from 'multiformats/bases/base36'
import { CID } from 'multiformats/cid'
import { parseCid } from '../../core/cid-encoder.js'
import { GatewayBlocks } from './blocks.js'
import { knownGateway } from './config.js'
import type { GatewayRequest, RequestData } from './context.js'
import { isMutable } from './context.js'
import { GatewayError, isNotFound, messageOf, statusOf } from './errors.js'
import { CAR, CBOR, DAG_CBOR, DAG_JSON, etagFor, IPNS_RECORD, JSON_TYPE, RAW, responseFormat, TAR, TYPE_TO_FORMAT } from './format.js'
import { addCacheHeaders, contentCacheControl, dagIndexEtag, dirListingEtag, listingCacheControl } from './headers.js'
import { debugStr, etagMatch, INVALID_HEADER_CHAR, parseHttpDate, pathEscape, rawHeader } from './http.js'
import { LIBP2P_KEY, parseIpnsName, resolveMutable, type IpnsDeps } from './ipns.js'
import { matchRule, MAX_REDIRECTS_FILE_SIZE, parseRedirects } from './redirects.js'
import { escapePath, parseContentPath, resolveIpfsPath, type ContentPath, type ResolvedPath } from './resolve.js'
import { sendError, sendNotModified, sendRedirect } from './respond.js'
import { serveCar } from './car.js'
import { serveCodec } from './serve-codec.js'
import { serveIpnsRecord, serveRawBlock, serveTar } from './serve-trustless.js'
import { serveDefaults } from './serve-unixfs.js'
import { findEntry, loadUnixfs } from './unixfs.js'

const withQuery = (p: string, rawQuery: string): string => rawQuery !== '' ? `${p}?${rawQuery}` : p

export const ipnsDeps = (r: GatewayRequest): IpnsDeps => ({
  nameSystem: r.deps.nameSystem,
  dnslink: r.deps.dnslink,
  noFetch: r.settings.noFetch,
  noDNSLink: r.settings.noDNSLink
})

/** `?uri=ipfs://…` from navigator.registerProtocolHandler → /ipfs/… (true when handled). */
export function protocolHandlerRedirect (r: Pick<GatewayRequest, 'ctx' | 'query'>, htmlErrors: boolean): boolean {
  const uri = r.query.get('uri')
  if (uri == null || uri === '') return false
  let u: URL
  try {
    u = new URL(uri)
  } catch {
    sendError(r.ctx, 400, 'failed to parse uri query parameter', htmlErrors)
    return true
  }
  const scheme = u.protocol.replace(/:$/, '')
  if (scheme !== 'ipfs' && scheme !== 'ipns') {
    sendError(r.ctx, 400, 'uri query parameter scheme must be ipfs or ipns', htmlErrors)
    return true
  }
  // the authority of ipfs://<cid>/… is the CID or name; take the parts from the text
  const rest = uri.slice(scheme.length + 3).replace(/#.*$/, '')
  const cut = rest.search(/[/?]/)
  const host = cut < 0 ? rest : rest.slice(0, cut)
  const tail = cut < 0 ? '' : rest.slice(cut)
  const q = tail.indexOf('?')
  let p = q >= 0 ? tail.slice(0, q) : tail
  if (q >= 0 && q < tail.length - 1) p += '?' + pathEscape(tail.slice(q + 1))
  const target = path.posix.join('/', scheme, host, p)
  sendRedirect(r.ctx, 301, target)
  return true
}

/** Is the request one a trustless-only gateway answers? (boxo isTrustlessRequest) */
function isTrustlessRequest (cp: ContentPath, format: string): boolean {
  if (format !== CAR && cp.segments.length !== 0) return false
  if (cp.namespace === 'ipns') return format === IPNS_RECORD && parseIpnsName(cp.root) != null
  return format === RAW || format === CAR
}

function deserializedAllowed (r: GatewayRequest): boolean {
  const gw = knownGateway(r.settings, r.host)
  return gw != null ? gw.deserializedResponses : r.settings.deserializedResponses
}

/** Content-Location for a format chosen by Accept (so caches keep formats apart). */
function addContentLocation (r: GatewayRequest, rq: RequestData): void {
  if (rq.format === '') return
  const format = TYPE_TO_FORMAT[rq.format]
  if (format == null || r.query.get('format') === format) return
  const q = new URLSearchParams(r.query)
  q.set('format', format)
  for (const [k, v] of Object.entries(rq.formatParams)) if (!q.has(`${format}-${k}`)) q.set(`${format}-${k}`, v)
  q.sort()
  r.ctx.set('Content-Location', `${escapePath(r.urlPath)}?${q.toString()}`)
}

/** Cache-Control: only-if-cached → 412 unless the content is in the local store. */
async function onlyIfCached (r: GatewayRequest, cp: ContentPath): Promise<boolean> {
  if (r.ctx.get('Cache-Control') !== 'only-if-cached') return false
  let cached = false
  try {
    // walk the path without fetching anything
    const local = new GatewayBlocks(r.deps.localBlockstore, r.signal)
    const im = cp.namespace === 'ipns' ? parseContentPath((await resolveMutable({ ...ipnsDeps(r), noFetch: true }, cp.str, r.signal)).path) : cp
    const resolved = await resolveIpfsPath(local, im)
    cached = await local.has(resolved.terminal)
  } catch {}
  if (cached && r.method === 'GET') return false
  r.ctx.status = cached ? 200 : 412
  if (!cached && r.method === 'GET') sendError(r.ctx, 412, `${JSON.stringify(cp.str)} not in local datastore`, false)
  else r.ctx.body = Buffer.alloc(0)
  if (r.method === 'HEAD') r.ctx.remove('Content-Type')
  return true
}

/** _redirects of the content root, for a path that does not exist (origin-isolated hosts only). */
async function applyRedirects (r: GatewayRequest, rq: RequestData): Promise<'handled' | ContentPath | undefined> {
  const im = rq.immutablePath
  if (im.segments.length === 0) return undefined
  const root = parseCid(im.root)
  if (root.code !== 0x70) return undefined
  const redirectsPath = `/ipfs/${im.root}/_redirects`
  const trouble = (err: unknown): GatewayError => new GatewayError(500, `trouble processing _redirects file at ${JSON.stringify(redirectsPath)}: ${messageOf(err)}`, { cause: err })
  let fileCid: CID | undefined
  try {
    fileCid = await findEntry(r.blocks, root, '_redirects')
  } catch (err) {
    if (isNotFound(err)) return undefined
    throw trouble(err)
  }
  if (fileCid == null) return undefined
  let rules
  try {
    const file = await loadUnixfs(r.blocks, fileCid)
    if (file.kind !== 'file') throw new Error(' _redirects is not a file')
    const parts: Uint8Array[] = []
    for await (const chunk of file.read(0, Math.min(file.size, MAX_REDIRECTS_FILE_SIZE + 1))) parts.push(chunk)
    try {
      rules = parseRedirects(Buffer.concat(parts))
    } catch (err) {
      throw new Error(`could not parse _redirects: ${messageOf(err)}`)
    }
  } catch (err) {
    throw trouble(err)
  }

  const urlPath = ('/' + im.segments.join('/')).replace(/\/$/, '')
  for (const rule of rules) {
    const to = matchRule(rule, urlPath)
    if (to == null) continue
    if (rule.status === 200) return parseContentPath(`/ipfs/${im.root}${to}`)
    if (rule.status === 404 || rule.status === 410 || rule.status === 451) {
      try {
        const target = parseContentPath(`/ipfs/${im.root}${to}`)
        const resolved = await resolveIpfsPath(r.blocks, target)
        const file = await loadUnixfs(r.blocks, resolved.terminal)
        if (file.kind !== 'file') throw new Error(`could not convert node for ${rule.status} page to file`)
        const cp = rq.contentPath
        const pagePath = parseContentPath(`/${cp.namespace}/${cp.root}${to}`)
        r.ctx.set('Content-Type', 'text/html')
        addCacheHeaders(r, { ...rq, ttl: undefined, lastModified: undefined }, resolved.terminal, '', pagePath)
        r.ctx.status = rule.status
        r.ctx.set('Content-Length', String(file.size))
        if (r.method === 'GET') {
          const parts: Uint8Array[] = []
          for await (const chunk of file.read(0, file.size)) parts.push(chunk)
          r.ctx.body = Buffer.concat(parts)
        }
      } catch (err) {
        throw trouble(err)
      }
      return 'handled'
    }
    if (rule.status >= 301 && rule.status <= 308) {
      let location = to
      if (r.rawQuery !== '') {
        const u = new URL(to, 'http://placeholder.invalid')
        for (const [k, v] of new URLSearchParams(r.rawQuery)) u.searchParams.append(k, v)
        u.searchParams.sort()
        location = /^[a-z][a-z0-9+.-]*:/i.test(to) ? u.toString() : u.pathname + u.search + u.hash
      }
      sendRedirect(r.ctx, rule.status, location)
      return 'handled'
    }
  }
  return undefined
}

/** Resolve the immutable path; a missing path may be rescued by _redirects. */
async function resolveContent (r: GatewayRequest, rq: RequestData): Promise<ResolvedPath | 'handled'> {
  const fail = (err: unknown): never => {
    if (err instanceof GatewayError && err.status !== 404 && err.status !== 500) throw err
    throw new GatewayError(statusOf(err), `failed to resolve ${debugStr(rq.contentPath.str)}: ${messageOf(err)}`, { cause: err })
  }
  try {
    return await resolveIpfsPath(r.blocks, rq.immutablePath)
  } catch (err) {
    const originIsolated = r.subdomainHost != null || r.dnslinkHost != null
    if (rq.format !== '' || !isNotFound(err) || !originIsolated) fail(err)
    const outcome = await applyRedirects(r, rq)
    if (outcome === 'handled') return 'handled'
    if (outcome == null) fail(err)
    rq.immutablePath = outcome as ContentPath
    try {
      return await resolveIpfsPath(r.blocks, rq.immutablePath)
    } catch (err2) {
      return fail(err2)
    }
  }
}

/** 304 when If-None-Match names the Etag of any representation of the terminal CID. */
function ifNoneMatch (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath): boolean {
  const inm = r.ctx.get('If-None-Match')
  if (inm === '') return false
  const t = resolved.terminal
  const candidates: Array<[string, string]> = [
    [etagFor(t, rq.format), contentCacheControl(rq)],
    [dirListingEtag(t), listingCacheControl(rq)],
    [dagIndexEtag(t), '']
  ]
  for (const [etag, cc] of candidates) {
    if (etag !== '' && etagMatch(inm, etag)) {
      sendNotModified(r.ctx, etag, cc)
      return true
    }
  }
  return false
}

/** 304 when If-Modified-Since is not older than the UnixFS mtime. */
async function ifModifiedSince (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath): Promise<boolean> {
  const since = parseHttpDate(r.ctx.get('If-Modified-Since'))
  if (since == null || resolved.terminal.code !== 0x70) return false
  const node = await loadUnixfs(r.blocks, resolved.terminal)
  if (node.mtime == null) return false
  if (Math.floor(node.mtime.getTime() / 1000) > Math.floor(since.getTime() / 1000)) return false
  sendNotModified(r.ctx, etagFor(resolved.terminal, rq.format), contentCacheControl(rq))
  return true
}

export async function serveGatewayPath (r: GatewayRequest): Promise<void> {
  const ctx = r.ctx
  const htmlErrors = !r.settings.disableHTMLErrors
  if (protocolHandlerRedirect(r, htmlErrors)) return

  if (ctx.get('Service-Worker') === 'script' && /^\/ip[fn]s\/[^/]+$/.test(r.path)) {
    throw new GatewayError(400, 'navigator.serviceWorker: registration is not allowed for this scope')
  }

  // /ipns/<base58 peer id> → /ipns/<base36 libp2p-key CID> (not on DNSLink hosts: it would break sites)
  if (r.dnslinkHost == null) {
    const parts = r.path.split('/')
    if (parts.length >= 3 && parts[1] === 'ipns') {
      const mh = parseIpnsName(parts[2])
      if (mh != null) {
        const canonical = CID.createV1(LIBP2P_KEY, mh).toString(base36)
        if (canonical !== parts[2]) {
          parts[2] = canonical
          sendRedirect(ctx, 302, withQuery(escapePath(parts.join('/')), r.rawQuery))
          return
        }
      }
    }
  }

  // /ipfs/ipfs/<cid> and /ipfs/ipns/<name>: drop the extra namespace
  if (r.path.startsWith('/ipfs/ipfs/') || r.path.startsWith('/ipfs/ipns/')) {
    let intended: ContentPath
    try {
      intended = parseContentPath(r.path.slice('/ipfs'.length))
    } catch (err) {
      throw new GatewayError(400, `invalid ipfs path: ${messageOf(err)}`)
    }
    const q = new URLSearchParams(r.rawQuery)
    q.sort()
    sendRedirect(ctx, 301, withQuery(escapePath(intended.str), q.toString()))
    return
  }

  const contentPath = parseContentPath(r.path)
  if (await onlyIfCached(r, contentPath)) return

  const fmt = responseFormat(r.query.get('format'), ctx.req.headers.accept != null ? [ctx.req.headers.accept] : [])
  const rq: RequestData = { contentPath, immutablePath: contentPath, format: fmt.type, formatParams: fmt.params }
  // Go writes control characters (a %00 in the path) into the header as they are; Node refuses them,
  // so such a path goes without X-Ipfs-Path and the answer is otherwise Kubo's
  const xIpfsPath = rawHeader(contentPath.str)
  if (!INVALID_HEADER_CHAR.test(xIpfsPath)) ctx.set('X-Ipfs-Path', xIpfsPath)

  if (!deserializedAllowed(r) && !isTrustlessRequest(contentPath, rq.format)) {
    throw new GatewayError(406, 'only trustless requests are accepted on this gateway: https://specs.ipfs.tech/http-gateways/trustless-gateway/')
  }
  addContentLocation(r, rq)

  if (rq.format === IPNS_RECORD) {
    await serveIpnsRecord(r, rq, ipnsDeps(r))
    return
  }

  if (isMutable(rq)) {
    try {
      const m = await resolveMutable(ipnsDeps(r), contentPath.str, r.signal)
      rq.immutablePath = parseContentPath(m.path + (contentPath.trailingSlash && !m.path.endsWith('/') ? '/' : ''))
      rq.ttl = m.ttl
    } catch (err) {
      throw new GatewayError(statusOf(err), `failed to resolve ${debugStr(contentPath.str)}: ${messageOf(err)}`, { cause: err })
    }
  }

  if (rq.format === CAR) {
    await serveCar(r, rq)
    return
  }

  const resolved = await resolveContent(r, rq)
  if (resolved === 'handled') return
  rq.resolved = resolved

  if (ifNoneMatch(r, rq, resolved)) return
  if (await ifModifiedSince(r, rq, resolved)) return

  switch (rq.format) {
    case '': case JSON_TYPE: case CBOR:
      await serveDefaults(r, rq, resolved)
      return
    case RAW:
      await serveRawBlock(r, rq, resolved)
      return
    case TAR:
      await serveTar(r, rq, resolved)
      return
    case DAG_JSON: case DAG_CBOR:
      await serveCodec(r, rq, resolved)
      return
    default:
      throw new GatewayError(400, 'unsupported response format requested')
  }
}
