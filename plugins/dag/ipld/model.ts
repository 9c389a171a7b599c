// The IPLD data model as go-ipld-prime's basicnode holds it: maps keep their key order (the
// order of the encoded bytes, which decides link traversal order and the output of the
// unsorted json/cbor codecs), and floats stay floats even when integral (1.0 is not 1).
import { CID } from 'multiformats/cid'

/** A float (Kind_Float); integers are plain numbers (safe range) or bigints. */
export class IpldFloat {
  constructor (readonly value: number) {}
}

export type IpldMap = Map<string, IpldValue>
export type IpldValue = null | boolean | number | bigint | IpldFloat | string | Uint8Array | CID | IpldValue[] | IpldMap

export type Kind = 'null' | 'bool' | 'int' | 'float' | 'string' | 'bytes' | 'link' | 'list' | 'map'

export function kindOf (v: IpldValue): Kind {
  if (v === null) return 'null'
  switch (typeof v) {
    case 'boolean': return 'bool'
    case 'number': case 'bigint': return 'int'
    case 'string': return 'string'
  }
  if (v instanceof IpldFloat) return 'float'
  if (v instanceof Uint8Array) return 'bytes'
  if (v instanceof Map) return 'map'
  if (Array.isArray(v)) return 'list'
  if (CID.asCID(v) != null) return 'link'
  throw new Error('not an IPLD value')
}
