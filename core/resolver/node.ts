// Blocks as IPLD data: decoding by codec, the links of a node (what `refs` walks), and one step of
// path traversal in the data model (go-ipld-prime basicnode semantics and error texts).
import * as dagCbor from '@ipld/dag-cbor'
import * as dagJson from '@ipld/dag-json'
import { CID } from 'multiformats/cid'
import { RpcError } from '../errors.js'
import { goQuote } from '../go/strings.js'
import { DAG_PB_CODEC, RAW_CODEC, decodePb } from './unixfs.js'

export const DAG_CBOR_CODEC = 0x71
export const DAG_JSON_CODEC = 0x0129
export const JSON_CODEC = 0x0200
export const CBOR_CODEC = 0x51

/** Decode a block into its data-model value (dag-pb as { Data?, Links }). */
export function decodeBlock (cid: CID, block: Uint8Array): unknown {
  try {
    return decodeByCodec(cid, block)
  } catch (err) {
    // the recursive decoders run out of stack on deeply nested input (Go's stack would grow): an
    // error about the block, never the runtime's own text
    if (err instanceof RangeError) throw new RpcError(`failed to decode block ${cid.toString()}: nesting too deep`)
    throw err
  }
}

function decodeByCodec (cid: CID, block: Uint8Array): unknown {
  switch (cid.code) {
    case DAG_PB_CODEC: return decodePb(block)
    case RAW_CODEC: return block
    case DAG_CBOR_CODEC: case CBOR_CODEC: return dagCbor.decode(block)
    case DAG_JSON_CODEC: return dagJson.decode(block)
    case JSON_CODEC: return JSON.parse(new TextDecoder().decode(block))
    default: throw new RpcError(`no decoder registered for multicodec code ${cid.code} (0x${cid.code.toString(16)})`)
  }
}

export interface NodeLink {
  name: string
  cid: CID
}

function collectLinks (value: unknown, out: NodeLink[]): void {
  const cid = CID.asCID(value)
  if (cid != null) { out.push({ name: '', cid }); return }
  if (value == null || typeof value !== 'object' || value instanceof Uint8Array) return
  if (Array.isArray(value)) { for (const v of value) collectLinks(v, out); return }
  for (const v of Object.values(value)) collectLinks(v, out)
}

/** The links of a node in order (ipld.Node.Links()): dag-pb links with names, CIDs found in cbor/json. */
export function nodeLinks (cid: CID, block: Uint8Array): NodeLink[] {
  if (cid.code === RAW_CODEC) return []
  if (cid.code === DAG_PB_CODEC) return decodePb(block).Links.map(l => ({ name: l.Name ?? '', cid: l.Hash }))
  const out: NodeLink[] = []
  collectLinks(decodeBlock(cid, block), out)
  return out
}

/** Outcome of looking one path segment up in a value. */
export type Step =
  | { found: true, value: unknown }
  | { found: false, /** schema.ErrNoSuchField: reported as `no link named` */ noSuchField: boolean, message: string }

const KIND_NAMES: Record<string, string> = { string: 'string', number: 'int', boolean: 'bool' }

function kindOf (value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (value instanceof Uint8Array) return 'bytes'
  if (CID.asCID(value) != null) return 'link'
  if (typeof value === 'number' && !Number.isInteger(value)) return 'float'
  return KIND_NAMES[typeof value] ?? 'map'
}

/** Go strconv.ParseInt(s, 10, 64) for a list index. */
function parseIndex (seg: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(seg)) return `strconv.ParseInt: parsing ${goQuote(seg)}: invalid syntax`
  const big = BigInt(seg)
  if (big > 2n ** 63n - 1n || big < -(2n ** 63n)) return `strconv.ParseInt: parsing ${goQuote(seg)}: value out of range`
  return Number(big)
}

/** Is this a dag-pb node decoded by @ipld/dag-pb (a schema-typed struct in Go)? */
function isPbStruct (value: object): boolean {
  return Array.isArray((value as { Links?: unknown }).Links) && Object.keys(value).every(k => k === 'Links' || k === 'Data')
}

/** One traversal step in the data model (basicnode LookupBySegment). */
export function lookupSegment (value: unknown, seg: string, typed = false): Step {
  if (Array.isArray(value)) {
    const idx = parseIndex(seg)
    if (typeof idx === 'string') {
      return { found: false, noSuchField: false, message: `invalid segment for lookup on a list: ${goQuote(seg)}: ${idx}` }
    }
    if (idx < 0 || idx >= value.length) return { found: false, noSuchField: false, message: `key not found: ${goQuote(String(idx))}` }
    return { found: true, value: value[idx] }
  }
  const kind = kindOf(value)
  if (kind !== 'map') {
    return { found: false, noSuchField: false, message: `func called on wrong kind: "LookupBySegment" called on a ${kind} node (kind: ${kind}), but only makes sense on map or list` }
  }
  const obj = value as Record<string, unknown>
  if (typed) {
    // dag-pb structs: PBNode { Links, Data? }, PBLink { Hash, Name?, Tsize? }; unknown fields are ErrNoSuchField
    const fields = isPbStruct(obj) ? ['Links', 'Data'] : ['Hash', 'Name', 'Tsize']
    if (!fields.includes(seg)) return { found: false, noSuchField: true, message: '' }
    return { found: true, value: obj[seg] }
  }
  if (!Object.prototype.hasOwnProperty.call(obj, seg)) return { found: false, noSuchField: false, message: `key not found: ${goQuote(seg)}` }
  return { found: true, value: obj[seg] }
}
