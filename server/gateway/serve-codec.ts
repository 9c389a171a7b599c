// dag-json, dag-cbor, json and cbor responses (path-dag-gateway, IPIP-0328 as narrowed by IPIP-0524:
// a format that does not match the block's codec is 406 unless Gateway.AllowCodecConversion is set),
// and the HTML preview browsers get.
import * as dagCbor from '@ipld/dag-cbor'
import * as dagJson from '@ipld/dag-json'
import * as dagPb from '@ipld/dag-pb'
import * as json from 'multiformats/codecs/json'
import type { GatewayRequest, RequestData } from './context.js'
import { GatewayError } from './errors.js'
import {
  CBOR, CODEC_CBOR, CODEC_DAG_CBOR, CODEC_DAG_JSON, CODEC_DAG_PB, CODEC_JSON, CODEC_RAW, CODEC_TO_TYPE, codecName,
  DAG_CBOR, DAG_JSON, JSON_TYPE
} from './format.js'
import { addCacheHeaders, dagIndexEtag, setRootsHeader } from './headers.js'
import { dagPreview } from './html.js'
import { contentDisposition, httpDate } from './http.js'
import { escapePath, type ResolvedPath } from './resolve.js'
import { sendBody, sendRedirect, serveContent } from './respond.js'

const CODEC_HINT = 'codec conversion is not supported, fetch raw block with ?format=raw and convert client-side'

/** Codecs whose bytes may be returned as-is for a plain json/cbor request. */
const RAW_OK: Record<string, number[]> = { [JSON_TYPE]: [CODEC_JSON, CODEC_DAG_JSON], [CBOR]: [CODEC_CBOR, CODEC_DAG_CBOR] }
const TARGET_CODEC: Record<string, number> = { [DAG_JSON]: CODEC_DAG_JSON, [DAG_CBOR]: CODEC_DAG_CBOR }
const EXTENSION: Record<string, string> = { [JSON_TYPE]: '.json', [DAG_JSON]: '.json', [CBOR]: '.cbor', [DAG_CBOR]: '.cbor' }

/** ?format=dag-json / dag-cbor (or the Accept equivalents). */
export async function serveCodec (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath): Promise<void> {
  const block = await r.blocks.get(resolved.terminal)
  setRootsHeader(r, resolved)
  await renderCodec(r, rq, resolved, block)
}

/** Decode a block of any supported codec into the IPLD data model (undefined when it cannot be). */
export function decodeBlock (code: number, bytes: Uint8Array): unknown {
  try {
    switch (code) {
      case CODEC_DAG_CBOR: case CODEC_CBOR: return dagCbor.decode(bytes)
      case CODEC_DAG_JSON: return dagJson.decode(bytes)
      case CODEC_JSON: return json.decode(bytes)
      case CODEC_DAG_PB: return dagPb.decode(bytes)
      case CODEC_RAW: return bytes
      default: return undefined
    }
  } catch {
    return undefined
  }
}

function setCodecContentDisposition (r: GatewayRequest, cid: string, type: string): void {
  const ext = EXTENSION[type] ?? '.bin'
  const filename = r.query.get('filename')
  const name = filename != null && filename !== '' ? filename : cid + ext
  const disposition = r.query.get('download') === 'true' ? 'attachment' : ext === '.json' ? 'inline' : 'attachment'
  r.ctx.set('Content-Disposition', contentDisposition(name, disposition))
}

export async function renderCodec (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath, block: Uint8Array): Promise<void> {
  const cid = resolved.terminal
  if (resolved.remainder.length > 0) {
    const rem = '/' + resolved.remainder.join('/')
    const full = `/ipfs/${cid.toString()}${rem}`
    throw new GatewayError(501, `${JSON.stringify(rem)} of ${JSON.stringify(full)} could not be returned: reading IPLD Kinds other than Links (CBOR Tag 42) is not implemented: try reading ${JSON.stringify(`/ipfs/${cid.toString()}`)} instead`)
  }
  const type = rq.format !== '' ? rq.format : CODEC_TO_TYPE[cid.code]
  if (type == null) throw new GatewayError(500, `content type not found for codec: ${codecName(cid.code)}`)

  const modtime = addCacheHeaders(r, rq, cid, type)
  setCodecContentDisposition(r, cid.toString(), type)
  r.ctx.set('Content-Type', type)
  r.ctx.set('X-Content-Type-Options', 'nosniff')

  const raw = async (): Promise<void> => await serveContent(r, { size: block.byteLength, modtime, read: async function * (o, l) { yield block.subarray(o, o + l) } })

  if (rq.format === '') {
    const isDag = cid.code === CODEC_DAG_JSON || cid.code === CODEC_DAG_CBOR
    if (isDag && r.ctx.get('Accept').includes('text/html') && r.query.get('download') !== 'true') {
      serveCodecHtml(r, rq, resolved, block)
      return
    }
    await raw()
    return
  }
  if (RAW_OK[rq.format]?.includes(cid.code) === true) {
    await raw()
    return
  }
  const target = TARGET_CODEC[rq.format]
  if (target === cid.code) {
    await raw()
    return
  }
  if (target == null || !r.settings.allowCodecConversion) {
    throw new GatewayError(406, `format ${JSON.stringify(rq.format)} requested but block has codec ${JSON.stringify(codecName(cid.code))}: ${CODEC_HINT}`)
  }
  const node = decodeBlock(cid.code, block)
  if (node === undefined) throw new GatewayError(500, `cannot decode ${codecName(cid.code)} block ${cid.toString()}`)
  const out = target === CODEC_DAG_JSON ? dagJson.encode(node) : dagCbor.encode(node)
  if (modtime != null) r.ctx.set('Last-Modified', httpDate(modtime))
  sendBody(r, 200, out)
}

function serveCodecHtml (r: GatewayRequest, rq: RequestData, resolved: ResolvedPath, block: Uint8Array): void {
  if (!r.urlPath.endsWith('/')) {
    sendRedirect(r.ctx, 301, escapePath(r.urlPath) + '/' + (r.rawQuery !== '' ? '?' + r.rawQuery : ''))
    return
  }
  const cid = resolved.terminal
  r.ctx.set('Content-Type', 'text/html')
  r.ctx.remove('Content-Disposition')
  r.ctx.set('Etag', dagIndexEtag(cid))
  r.ctx.remove('Cache-Control')
  const gatewayURL = r.subdomainHost != null ? `//${r.subdomainHost}` : r.dnslinkHost != null ? `//${r.dnslinkHost}` : ''
  sendBody(r, 200, dagPreview({
    contentPath: rq.contentPath.str,
    cid,
    codecName: codecName(cid.code),
    codecCode: cid.code,
    gatewayURL,
    dnslink: r.dnslinkHost != null,
    allowCodecConversion: r.settings.allowCodecConversion,
    node: decodeBlock(cid.code, block)
  }))
}
