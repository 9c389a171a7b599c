// IPNS records the way boxo reads them (ipns.UnmarshalRecord, ipns.ValidateWithName), with boxo's
// error texts: the gateway's routing API, `name put` and `name inspect` answer with them.
import type { PublicKey } from '@libp2p/interface'
import { CID } from 'multiformats/cid'
import type { MultihashDigest } from 'multiformats/hashes/interface'
import { multihashToIPNSRoutingKey } from 'ipns'
import { ipnsSelector } from 'ipns/selector'
import * as dagCbor from '@ipld/dag-cbor'
import { publicKeyFromMultihash, publicKeyFromProtobuf } from '@libp2p/crypto/keys'

/** The fields of an IpnsEntry protobuf (ipns.proto), as a Go reader sees them. */
export interface IpnsEntryFields {
  value?: Uint8Array
  signatureV1?: Uint8Array
  validityType?: bigint
  validity?: Uint8Array
  sequence?: bigint
  ttl?: bigint
  pubKey?: Uint8Array
  signatureV2?: Uint8Array
  data?: Uint8Array
}

/** IPNS record size limit (boxo ipns.MaxRecordSize). */
export const MAX_RECORD_SIZE = 10 << 10

const PROTO_ERROR = 'proto: cannot parse invalid wire-format data'

/** Decode an IpnsEntry; unknown fields are skipped, malformed input throws. */
export function decodeIpnsEntry (buf: Uint8Array): IpnsEntryFields {
  const out: IpnsEntryFields = {}
  let i = 0
  const varint = (): bigint => {
    let x = 0n
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (i >= buf.length) throw new Error(PROTO_ERROR)
      const b = buf[i++]
      x |= BigInt(b & 0x7f) << shift
      if (b < 0x80) return x & ((1n << 64n) - 1n)
    }
    throw new Error(PROTO_ERROR)
  }
  const bytes = (): Uint8Array => {
    const len = Number(varint())
    if (i + len > buf.length) throw new Error(PROTO_ERROR)
    const b = buf.subarray(i, i + len)
    i += len
    return b
  }
  while (i < buf.length) {
    const tag = varint()
    const field = Number(tag >> 3n)
    const wire = Number(tag & 7n)
    if (field === 0) throw new Error(PROTO_ERROR)
    const names: Record<number, keyof IpnsEntryFields> = { 1: 'value', 2: 'signatureV1', 3: 'validityType', 4: 'validity', 5: 'sequence', 6: 'ttl', 7: 'pubKey', 8: 'signatureV2', 9: 'data' }
    const name = names[field]
    if (wire === 2) {
      const b = bytes()
      if (name != null && name !== 'validityType' && name !== 'sequence' && name !== 'ttl') (out as Record<string, unknown>)[name] = b
      else if (name != null) throw new Error(PROTO_ERROR)
    } else if (wire === 0) {
      const v = varint()
      if (name === 'validityType' || name === 'sequence' || name === 'ttl') out[name] = v
      else if (name != null) throw new Error(PROTO_ERROR)
    } else if (wire === 1 || wire === 5) {
      if (name != null) throw new Error(PROTO_ERROR)
      i += wire === 1 ? 8 : 4
      if (i > buf.length) throw new Error(PROTO_ERROR)
    } else {
      throw new Error(PROTO_ERROR)
    }
  }
  return out
}

/** A record parsed the way boxo's ipns.UnmarshalRecord does, with its CBOR data. */
export interface ParsedIpnsRecord {
  pb: IpnsEntryFields
  data: Record<string, unknown>
}

/** boxo ipns.UnmarshalRecord, with its error texts. */
export function unmarshalRecordGo (raw: Uint8Array): ParsedIpnsRecord {
  if (raw.byteLength > MAX_RECORD_SIZE) throw new Error('record exceeds allowed size limit')
  let pb: IpnsEntryFields
  try {
    pb = decodeIpnsEntry(raw)
  } catch (err) {
    throw new Error(`record is malformed\n${(err as Error).message}`)
  }
  if (pb.data == null || pb.data.byteLength === 0) throw new Error('record is malformed\nrecord is missing the dag-cbor data field')
  let data: unknown
  try {
    data = dagCbor.decode(pb.data)
  } catch (err) {
    throw new Error(`record is malformed\n${(err as Error).message}`)
  }
  if (data == null || typeof data !== 'object' || Array.isArray(data) || data instanceof Uint8Array || CID.asCID(data) != null) {
    throw new Error('record is malformed\nfunc called on wrong kind: "BeginMap" called on a map node, but got something else')
  }
  return { pb, data: data as Record<string, unknown> }
}

const cborField = (data: Record<string, unknown>, key: string): unknown => {
  if (!(key in data)) throw new Error(`key not found: "${key}"`)
  return data[key]
}
const cborBytes = (data: Record<string, unknown>, key: string): Uint8Array => {
  const v = cborField(data, key)
  if (!(v instanceof Uint8Array)) throw new Error(`func called on wrong kind: "AsBytes" called on a ${typeof v === 'string' ? 'string' : 'non-bytes'} node, but only makes sense on bytes`)
  return v
}
const cborInt = (data: Record<string, unknown>, key: string): bigint => {
  const v = cborField(data, key)
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v)
  if (typeof v === 'bigint') return v
  throw new Error(`func called on wrong kind: "AsInt" called on a non-int node, but only makes sense on int`)
}
const bytesEqual = (a: Uint8Array | undefined, b: Uint8Array): boolean => Buffer.compare(a ?? new Uint8Array(0), b) === 0

/** Go's time.Parse(time.RFC3339Nano) as ms since the epoch, or undefined. */
function parseRfc3339 (s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(s)
  if (m == null) return undefined
  const [, y, mo, d, h, mi, sec, frac, zone] = m
  let t = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec))
  if (frac != null) t += Math.floor(Number('0' + frac) * 1000)
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1
    t -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000
  }
  return t
}

/** The record's EOL (boxo Record.Validity). */
export function recordValidity (rec: ParsedIpnsRecord): number {
  const type = cborInt(rec.data, 'ValidityType')
  if (type !== 0n) throw new Error('record contains an unrecognized validity type')
  const text = Buffer.from(cborBytes(rec.data, 'Validity')).toString('utf8')
  const t = parseRfc3339(text)
  if (t == null) throw new Error(`record contains an invalid validity; parsing time ${JSON.stringify(text)} as "2006-01-02T15:04:05.999999999Z07:00": cannot parse`)
  return t
}

/** The record's TTL in ns (boxo Record.TTL), undefined when it has none. */
export function recordTtlNs (rec: ParsedIpnsRecord): bigint | undefined {
  try { return cborInt(rec.data, 'TTL') } catch { return undefined }
}

/** boxo ipns.ExtractPublicKey: the embedded key (checked against the name) or the one inlined in the name. */
function extractPublicKey (rec: ParsedIpnsRecord, mh: MultihashDigest): PublicKey {
  let pk: PublicKey
  if (rec.pb.pubKey != null && rec.pb.pubKey.byteLength > 0) {
    try {
      pk = publicKeyFromProtobuf(rec.pb.pubKey)
    } catch (err) {
      throw new Error(`public key invalid\n${(err as Error).message}`)
    }
    if (Buffer.compare(pk.toMultihash().bytes, mh.bytes) !== 0) throw new Error('record public key does not match the expected public key')
    return pk
  }
  if (mh.code !== 0x00) throw new Error('public key is not embedded in peer ID')
  try {
    return publicKeyFromMultihash(mh as MultihashDigest<0x00>)
  } catch (err) {
    throw new Error((err as Error).message)
  }
}

/** boxo ipns.ValidateWithName: signature V2, V1/V2 agreement, validity; throws boxo's error texts. */
export async function validateRecordWithName (rec: ParsedIpnsRecord, mh: MultihashDigest): Promise<void> {
  const pk = extractPublicKey(rec, mh)
  const pb = rec.pb
  if (pb.signatureV2 == null || pb.signatureV2.byteLength === 0) throw new Error('signature verification failed')
  const signed = Buffer.concat([Buffer.from('ipns-signature:'), pb.data ?? new Uint8Array(0)])
  let ok = false
  try { ok = await pk.verify(signed, pb.signatureV2) } catch {}
  if (!ok) throw new Error('signature verification failed')
  if ((pb.signatureV1?.byteLength ?? 0) > 0 || (pb.value?.byteLength ?? 0) > 0) {
    const mismatch = (field: string): Error => new Error(`field "${field}" did not match between protobuf and CBOR`)
    if (!bytesEqual(pb.value, cborBytes(rec.data, 'Value'))) throw mismatch('Value')
    if (!bytesEqual(pb.validity, cborBytes(rec.data, 'Validity'))) throw mismatch('Validity')
    if ((pb.validityType ?? 0n) !== cborInt(rec.data, 'ValidityType')) throw mismatch('ValidityType')
    if ((pb.sequence ?? 0n) !== BigInt.asUintN(64, cborInt(rec.data, 'Sequence'))) throw mismatch('Sequence')
    if ((pb.ttl ?? 0n) !== BigInt.asUintN(64, cborInt(rec.data, 'TTL'))) throw mismatch('TTL')
  }
  if (Date.now() > recordValidity(rec)) throw new Error('record is expired')
}

/** The better of two valid records for the same name (ipns Validator.Select): 0 for `a`, 1 for `b`. */
export const selectRecord = (mh: MultihashDigest<0x00 | 0x12>, a: Uint8Array, b: Uint8Array): number => ipnsSelector(multihashToIPNSRoutingKey(mh), [a, b])
