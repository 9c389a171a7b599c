// /ipns/<name> resolution for the gateway (read only): IPNS records stored in the datastore under
// /ipns/<BASE32(peer ID bytes)> (behaviour.md §12), checked with the `ipns` package, or fetched through
// libp2p routing when online; DNSLink for names that are not keys. Values that are /ipns/ paths are
// followed up to 32 times. Also boxo's record parsing and validation with its error texts (used by the
// routing API's PUT /routing/v1/ipns/).
import { Key } from 'interface-datastore'
import type { Datastore } from 'interface-datastore'
import type { Libp2p, PublicKey } from '@libp2p/interface'
import { base32upper } from 'multiformats/bases/base32'
import { base36 } from 'multiformats/bases/base36'
import { base58btc } from 'multiformats/bases/base58'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import type { MultihashDigest } from 'multiformats/hashes/interface'
import { multihashToIPNSRoutingKey, unmarshalIPNSRecord, type IPNSRecord } from 'ipns'
import { ipnsValidator } from 'ipns/validator'
import { ipnsSelector } from 'ipns/selector'
import * as dagCbor from '@ipld/dag-cbor'
import { publicKeyFromMultihash, publicKeyFromProtobuf } from '@libp2p/crypto/keys'
import { multibaseOf } from '../../core/multibase.js'
import type { DnslinkLookup } from './dnslink.js'
import { GatewayError } from './errors.js'

export const LIBP2P_KEY = 0x72
const MAX_DEPTH = 32

/** The multihash of an IPNS key name: a base58 peer ID or a libp2p-key CID (boxo ipns.NameFromString). */
export function parseIpnsName (name: string): MultihashDigest<0x00 | 0x12> | undefined {
  try {
    let mh: MultihashDigest
    if (name.startsWith('Qm') || name.startsWith('1')) {
      mh = Digest.decode(base58btc.baseDecode(name))
    } else {
      const base = multibaseOf(name)
      if (base == null) return undefined
      const cid = CID.decode(base.decoder.decode(name))
      if (cid.code !== LIBP2P_KEY) return undefined
      mh = cid.multihash
    }
    return mh.code === 0x00 || mh.code === 0x12 ? mh as MultihashDigest<0x00 | 0x12> : undefined
  } catch {
    return undefined
  }
}

/** The canonical text of a key: CIDv1 libp2p-key in base36. */
export const ipnsNameString = (mh: MultihashDigest): string => CID.createV1(LIBP2P_KEY, mh).toString(base36)

/** The datastore key of a stored record. */
export const ipnsDatastoreKey = (mh: MultihashDigest): Key => new Key('/ipns/' + base32upper.baseEncode(mh.bytes))

export interface IpnsDeps {
  datastore: Datastore
  libp2p: Libp2p | null
  dnslink: DnslinkLookup
  noFetch: boolean
  noDNSLink: boolean
}

/**
 * Can a DHT lookup run now? go-libp2p-kad-dht fails at once with an empty routing table where js
 * kad-dht waits for a peer, so lookups are skipped then.
 */
export function dhtHasPeers (libp2p: Libp2p): boolean {
  const dht = (libp2p.services as Record<string, unknown> | undefined)?.dht as { routingTable?: { size: number } } | undefined
  return dht?.routingTable != null && dht.routingTable.size > 0
}

/** The raw record for a key: the local datastore first, then the routing system when allowed. */
export async function getIpnsRecord (deps: IpnsDeps, mh: MultihashDigest<0x00 | 0x12>, signal?: AbortSignal): Promise<Uint8Array> {
  try {
    return await deps.datastore.get(ipnsDatastoreKey(mh), { signal })
  } catch (err) {
    if ((err as Error)?.name !== 'NotFoundError') throw err
  }
  if (!deps.noFetch && deps.libp2p != null && dhtHasPeers(deps.libp2p)) {
    try {
      return await deps.libp2p.contentRouting.get(multihashToIPNSRoutingKey(mh), { signal })
    } catch {}
  }
  throw new GatewayError(500, 'could not resolve name')
}

/** A record checked against its name (signature V2, V1/V2 agreement, expiry). */
export async function validIpnsRecord (mh: MultihashDigest<0x00 | 0x12>, raw: Uint8Array): Promise<IPNSRecord> {
  try {
    await ipnsValidator(multihashToIPNSRoutingKey(mh), raw)
    return unmarshalIPNSRecord(raw)
  } catch (err) {
    throw new GatewayError(500, `invalid IPNS record: ${(err as Error).message}`, { cause: err })
  }
}

/** Seconds a record may be cached: its TTL, capped at the time left before it expires. */
export function recordMaxAge (record: IPNSRecord): number | undefined {
  if (record.ttl == null) return undefined
  let seconds = Number(record.ttl / 1_000_000_000n)
  const eol = Date.parse(record.validity)
  if (Number.isFinite(eol)) seconds = Math.min(seconds, Math.floor((eol - Date.now()) / 1000))
  return Math.max(0, seconds)
}

export interface MutableResolution {
  /** the /ipfs/ path the name points to, with the request's sub-path appended */
  path: string
  /** seconds, when the records say */
  ttl?: number
}

const looksLikeDomain = (name: string): boolean => name.includes('.') && /^[a-z0-9.-]+$/i.test(name)

/** Resolve `/ipns/<name>[/rest]` to an /ipfs/ path. */
export async function resolveMutable (deps: IpnsDeps, contentPath: string, signal?: AbortSignal): Promise<MutableResolution> {
  let current = contentPath
  let ttl: number | undefined
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    const m = /^\/ipns\/([^/]+)(\/.*)?$/.exec(current)
    if (m == null) return { path: current, ttl }
    const name = m[1]
    const rest = m[2] ?? ''
    let value: string
    const mh = parseIpnsName(name)
    if (mh != null) {
      const record = await validIpnsRecord(mh, await getIpnsRecord(deps, mh, signal))
      value = record.value
      const age = recordMaxAge(record)
      if (age != null) ttl = ttl == null ? age : Math.min(ttl, age)
    } else if (!deps.noDNSLink && looksLikeDomain(name)) {
      const record = await deps.dnslink(name, { signal })
      if (record == null) throw new GatewayError(500, 'could not resolve name')
      value = record.value
      if (record.ttl != null) ttl = ttl == null ? record.ttl : Math.min(ttl, record.ttl)
    } else {
      throw new GatewayError(500, 'could not resolve name')
    }
    if (!/^\/(ipfs|ipns)\/[^/]+/.test(value)) throw new GatewayError(500, `invalid value ${JSON.stringify(value)}`)
    current = value.replace(/\/+$/, '') + rest
  }
  throw new GatewayError(400, 'could not resolve name (recursion limit exceeded)')
}

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
    throw new Error(`record is malformed; ${(err as Error).message}`)
  }
  if (pb.data == null || pb.data.byteLength === 0) throw new Error('record is malformed; record is missing the dag-cbor data field')
  let data: unknown
  try {
    data = dagCbor.decode(pb.data)
  } catch (err) {
    throw new Error(`record is malformed; ${(err as Error).message}`)
  }
  if (data == null || typeof data !== 'object' || Array.isArray(data) || data instanceof Uint8Array || CID.asCID(data) != null) {
    throw new Error('record is malformed; func called on wrong kind: "BeginMap" called on a map node, but got something else')
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
