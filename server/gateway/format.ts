// Response formats (?format= and Accept, IPIP-0523: ?format wins) and the Etags tied to them.
import type { CID } from 'multiformats/cid'
import { GatewayError } from './errors.js'
import { setOwn } from '../../core/util/own.js'

export const RAW = 'application/vnd.ipld.raw'
export const CAR = 'application/vnd.ipld.car'
export const TAR = 'application/x-tar'
export const JSON_TYPE = 'application/json'
export const CBOR = 'application/cbor'
export const DAG_JSON = 'application/vnd.ipld.dag-json'
export const DAG_CBOR = 'application/vnd.ipld.dag-cbor'
export const IPNS_RECORD = 'application/vnd.ipfs.ipns-record'

export const FORMAT_TO_TYPE: Record<string, string> = {
  raw: RAW, car: CAR, tar: TAR, json: JSON_TYPE, cbor: CBOR, 'dag-json': DAG_JSON, 'dag-cbor': DAG_CBOR, 'ipns-record': IPNS_RECORD
}
export const TYPE_TO_FORMAT: Record<string, string> = Object.fromEntries(Object.entries(FORMAT_TO_TYPE).map(([k, v]) => [v, k]))

export const CODEC_DAG_PB = 0x70
export const CODEC_RAW = 0x55
export const CODEC_DAG_CBOR = 0x71
export const CODEC_DAG_JSON = 0x0129
export const CODEC_JSON = 0x0200
export const CODEC_CBOR = 0x51
export const CODEC_IDENTITY = 0x00

export const CODEC_TO_TYPE: Record<number, string> = {
  [CODEC_JSON]: JSON_TYPE, [CODEC_CBOR]: CBOR, [CODEC_DAG_JSON]: DAG_JSON, [CODEC_DAG_CBOR]: DAG_CBOR
}

export const CODEC_NAMES: Record<number, string> = {
  [CODEC_DAG_PB]: 'dag-pb', [CODEC_RAW]: 'raw', [CODEC_DAG_CBOR]: 'dag-cbor', [CODEC_DAG_JSON]: 'dag-json',
  [CODEC_JSON]: 'json', [CODEC_CBOR]: 'cbor', [CODEC_IDENTITY]: 'identity', 0x72: 'libp2p-key'
}

export const codecName = (code: number): string => CODEC_NAMES[code] ?? `0x${code.toString(16)}`

export interface ResponseFormat {
  /** '' for the implicit (deserialized / UnixFS) response */
  type: string
  /** media type parameters from Accept, when Accept asked for the same type */
  params: Record<string, string>
}

/** mime.ParseMediaType, enough for Accept entries: `type/sub; k=v; k="v"`. */
export function parseMediaType (s: string): { type: string, params: Record<string, string> } {
  const [head, ...rest] = s.split(';')
  const type = head.trim().toLowerCase()
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+*-]+$/.test(type)) throw new Error('mime: expected slash after first token')
  const params: Record<string, string> = {}
  for (const p of rest) {
    if (p.trim() === '') continue
    const eq = p.indexOf('=')
    if (eq < 0) throw new Error('mime: invalid media parameter')
    const k = p.slice(0, eq).trim().toLowerCase()
    let v = p.slice(eq + 1).trim()
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1)
    if (k === '') throw new Error('mime: invalid media parameter')
    setOwn(params, k, v)
  }
  return { type, params }
}

const VENDOR_PREFIXES = ['application/vnd.ipld', 'application/vnd.ipfs', TAR, JSON_TYPE, CBOR]

/** boxo customResponseFormat: ?format first, else the first explicit Accept entry of interest. */
export function responseFormat (format: string | null, accept: string[]): ResponseFormat {
  const formatType = format != null && format !== '' ? FORMAT_TO_TYPE[format] : undefined
  let acceptType = ''
  let acceptParams: Record<string, string> = {}
  outer: for (const header of accept) {
    for (const value of header.split(',')) {
      const entry = value.trim()
      if (VENDOR_PREFIXES.some(p => entry.startsWith(p))) {
        try {
          const mt = parseMediaType(entry)
          acceptType = mt.type
          acceptParams = mt.params
        } catch (err) {
          throw new GatewayError(400, `error while processing the Accept header: ${(err as Error).message}`)
        }
        break outer
      }
    }
  }
  if (formatType != null) return { type: formatType, params: acceptType === formatType ? acceptParams : {} }
  if (acceptType !== '') return { type: acceptType, params: acceptParams }
  return { type: '', params: {} }
}

/** boxo getEtag: "<cid>" for the implicit response, "<cid>.<short format>" otherwise (weak for TAR). */
export function etagFor (cid: CID, type: string): string {
  if (type === '') type = CODEC_TO_TYPE[cid.code] ?? ''
  if (type === '') return `"${cid.toString()}"`
  if (type === CAR || type === IPNS_RECORD) return ''
  const short = type.slice(Math.max(type.lastIndexOf('/'), type.lastIndexOf('.')) + 1)
  return `${type === TAR ? 'W/' : ''}"${cid.toString()}.${short}"`
}
