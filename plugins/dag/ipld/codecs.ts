// The codecs Kubo registers in go-ipld-prime's multicodec registry (dag-pb, raw, dag-cbor, dag-json,
// json, cbor, and dag-jose from its plugin), as decode/encode over the IPLD data model, plus the
// links of a block in traversal order.
import { CID } from 'multiformats/cid'
import * as dagPb from '@ipld/dag-pb'
import { decodeCbor, encodeCbor } from './cbor.js'
import { decodeJson, encodeJson } from './json.js'
import { kindOf, type IpldMap, type IpldValue } from './model.js'

export const RAW = 0x55
export const DAG_PB = 0x70
export const DAG_CBOR = 0x71
export const CBOR = 0x51
export const DAG_JOSE = 0x85
export const DAG_JSON = 0x0129
export const JSON_CODEC = 0x0200

const DECODABLE = new Set([RAW, DAG_PB, DAG_CBOR, CBOR, DAG_JOSE, DAG_JSON, JSON_CODEC])

export const hasDecoder = (code: number): boolean => DECODABLE.has(code)
export const hasEncoder = (code: number): boolean => DECODABLE.has(code)

export const noDecoder = (code: number): Error => new Error(`no decoder registered for multicodec code ${code} (0x${code.toString(16)})`)
export const noEncoder = (code: number): Error => new Error(`no encoder registered for multicodec code ${code} (0x${code.toString(16)})`)

/** go-ipld-prime ErrWrongKind text for untyped nodes. */
export function wrongKind (method: string, actual: string, appropriate: string): Error {
  return new Error(`func called on wrong kind: "${method}" called on a ${actual} node, but only makes sense on ${appropriate}`)
}

/** dag-pb bytes as data-model value: PBNode { Links, Data? } (schema field order). */
function pbToModel (bytes: Uint8Array): IpldMap {
  const node = dagPb.decode(bytes)
  const out: IpldMap = new Map()
  out.set('Links', node.Links.map(l => {
    const link: IpldMap = new Map([['Hash', l.Hash]])
    if (l.Name !== undefined) link.set('Name', l.Name)
    if (l.Tsize !== undefined) link.set('Tsize', l.Tsize)
    return link
  }))
  if (node.Data !== undefined) out.set('Data', node.Data)
  return out
}

/** A data-model value in the dag-pb schema shape, encoded (go-codec-dagpb: typed assignment, links sorted by Name). */
function modelToPb (v: IpldValue): Uint8Array {
  if (!(v instanceof Map)) throw wrongKind('AssignNode', kindOf(v), 'map')
  for (const k of v.keys()) {
    if (k !== 'Links' && k !== 'Data') throw new Error(`invalid key for map dagpb.PBNode: ${JSON.stringify(k)}: no such field`)
  }
  const links = v.get('Links')
  if (links === undefined) throw new Error('missing required fields: Links')
  if (!Array.isArray(links)) throw wrongKind('BeginList', kindOf(links), 'list')
  const data = v.get('Data')
  if (data !== undefined && !(data instanceof Uint8Array)) throw wrongKind('AssignBytes', kindOf(data), 'bytes')
  const pbLinks: dagPb.PBLink[] = links.map((l) => {
    if (!(l instanceof Map)) throw wrongKind('BeginMap', kindOf(l), 'map')
    for (const k of l.keys()) {
      if (k !== 'Hash' && k !== 'Name' && k !== 'Tsize') throw new Error(`invalid key for map dagpb.PBLink: ${JSON.stringify(k)}: no such field`)
    }
    const hash = l.get('Hash')
    if (hash === undefined) throw new Error('missing required fields: Hash')
    const cid = kindOf(hash) === 'link' ? CID.asCID(hash) : null
    if (cid == null) throw wrongKind('AssignLink', kindOf(hash), 'link')
    const link: dagPb.PBLink = { Hash: cid }
    const name = l.get('Name')
    if (name !== undefined) {
      if (typeof name !== 'string') throw wrongKind('AssignString', kindOf(name), 'string')
      link.Name = name
    }
    const tsize = l.get('Tsize')
    if (tsize !== undefined) {
      if (typeof tsize !== 'number' && typeof tsize !== 'bigint') throw wrongKind('AssignInt', kindOf(tsize), 'int')
      if (tsize < 0) throw new Error(`Link has negative Tsize value [${tsize}]`)
      link.Tsize = Number(tsize)
    }
    return link
  })
  // stable sort by name bytes (absent names sort as "")
  const keyed = pbLinks.map((l, i) => ({ l, i, k: Buffer.from(l.Name ?? '') }))
  keyed.sort((a, b) => Buffer.compare(a.k, b.k) || a.i - b.i)
  const node: dagPb.PBNode = { Links: keyed.map(x => x.l) }
  if (data !== undefined) node.Data = data
  return dagPb.encode(node)
}

/** Decode a block with the decoder registered for `code`. */
export function decodeNode (code: number, bytes: Uint8Array): IpldValue {
  switch (code) {
    case RAW: return bytes
    case DAG_PB: return pbToModel(bytes)
    case DAG_CBOR: return decodeCbor(bytes, { allowLinks: true })
    case CBOR: return decodeCbor(bytes, { allowLinks: false })
    case DAG_JSON: return decodeJson(bytes, { dag: true })
    case JSON_CODEC: return decodeJson(bytes, { dag: false })
    case DAG_JOSE: {
      // go-dag-jose: dag-cbor underneath; a JWS gets a `link` field (the CID in its payload)
      const v = decodeCbor(bytes, { allowLinks: true })
      if (v instanceof Map) {
        const payload = v.get('payload')
        if (payload instanceof Uint8Array) {
          try { v.set('link', CID.decode(payload)) } catch {}
        }
      }
      return v
    }
    default: throw noDecoder(code)
  }
}

/** Encode a value with the encoder registered for `code`. */
export function encodeNode (code: number, v: IpldValue): Uint8Array {
  switch (code) {
    case RAW:
      if (!(v instanceof Uint8Array)) throw wrongKind('AsBytes', kindOf(v), 'bytes')
      return v
    case DAG_PB: return modelToPb(v)
    case DAG_CBOR: return encodeCbor(v, { allowLinks: true, sort: true })
    case CBOR: return encodeCbor(v, { allowLinks: false, sort: false })
    case DAG_JSON: return encodeJson(v, { dag: true })
    case JSON_CODEC: return encodeJson(v, { dag: false })
    case DAG_JOSE: {
      if (v instanceof Map && v.has('link')) {
        v = new Map(v)
        v.delete('link')
      }
      return encodeCbor(v, { allowLinks: true, sort: true })
    }
    default: throw noEncoder(code)
  }
}

export interface LinkAt {
  /** data-model path of the link inside its block */
  path: string[]
  cid: CID
}

/** The links in a decoded value, in data-model order (maps in their key order). */
export function linksIn (v: IpldValue): LinkAt[] {
  const out: LinkAt[] = []
  const path: string[] = []
  const walk = (x: IpldValue): void => {
    if (x === null || typeof x !== 'object' || x instanceof Uint8Array) return
    if (x instanceof Map) {
      for (const [k, y] of x) {
        if (y === null || typeof y !== 'object' || y instanceof Uint8Array) continue
        path.push(k); walk(y); path.pop()
      }
      return
    }
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        const y = x[i]
        if (y === null || typeof y !== 'object' || y instanceof Uint8Array) continue
        path.push(String(i)); walk(y); path.pop()
      }
      return
    }
    const cid = CID.asCID(x)
    if (cid != null) out.push({ path: path.slice(), cid })
  }
  walk(v)
  return out
}

/** The links of a block in traversal order (go-ipld-prime's walk of the decoded node). */
export function blockLinks (cid: CID, bytes: Uint8Array): LinkAt[] {
  switch (cid.code) {
    case RAW: case CBOR: case JSON_CODEC: return []
    case DAG_PB: return dagPb.decode(bytes).Links.map((l, i) => ({ path: ['Links', String(i), 'Hash'], cid: l.Hash }))
    default: return linksIn(decodeNode(cid.code, bytes))
  }
}
