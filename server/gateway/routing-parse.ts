// What a Delegated Routing V1 request carries, parsed as boxo parses it: the Accept header (Go's
// mime.ParseMediaType), the IPIP-0484 filters, peer IDs, keys and IPNS names. Used by routing.ts.
import type { Context } from 'koa'
import { registry, multiaddr } from '@multiformats/multiaddr'
import { decodeCid, decodeMultihash, LIBP2P_KEY, type GoCid } from '../../core/go/cid.js'
import { decodeMultibase } from '../../core/go/multibase.js'
import { codecName } from '../../core/go/multicodec.js'

export const JSON_TYPE = 'application/json'
export const NDJSON_TYPE = 'application/x-ndjson'

/** A record of the "peer" schema. */
export interface PeerRecord {
  ID: string
  Addrs?: string[]
  Protocols?: string[]
}

// --- Accept: Go's mime.ParseMediaType (the checks boxo's detectResponseType relies on) ---

const isTokenChar = (c: string): boolean => c > ' ' && c < '\x7f' && !'()<>@,;:\\"/[]?='.includes(c)
function consumeToken (s: string): [string, string] {
  let i = 0
  while (i < s.length && isTokenChar(s[i])) i++
  return [s.slice(0, i), s.slice(i)]
}
function consumeValue (s: string): [string, string] {
  if (!s.startsWith('"')) return consumeToken(s)
  let out = ''
  for (let i = 1; i < s.length; i++) {
    const c = s[i]
    if (c === '"') return [out, s.slice(i + 1)]
    if (c === '\\' && i + 1 < s.length && isTokenChar(s[i + 1])) { out += s[++i]; continue }
    if (c === '\r' || c === '\n') return ['', s]
    out += c
  }
  return ['', s]
}
const trimLeft = (s: string): string => s.replace(/^\s+/, '')

/** The media type of one Accept entry, or Go's error text. */
export function parseMediaType (v: string): { type: string } | { error: string } {
  const semi = v.indexOf(';')
  const base = semi >= 0 ? v.slice(0, semi) : v
  const type = base.toLowerCase().trim()
  const [t, rest] = consumeToken(type)
  if (t === '') return { error: 'mime: no media type' }
  if (rest !== '') {
    if (!rest.startsWith('/')) return { error: 'mime: expected slash after first token' }
    const [sub, after] = consumeToken(rest.slice(1))
    if (sub === '') return { error: 'mime: expected token after slash' }
    if (after !== '') return { error: 'mime: unexpected content after media subtype' }
  }
  let params = v.slice(base.length)
  const seen = new Set<string>()
  while (params.length > 0) {
    params = trimLeft(params)
    if (params === '') break
    // consumeMediaParam
    let r = trimLeft(params)
    let ok = false
    let key = ''
    if (r.startsWith(';')) {
      r = trimLeft(r.slice(1))
      const [k, afterKey] = consumeToken(r)
      key = k.toLowerCase()
      r = trimLeft(afterKey)
      if (key !== '' && r.startsWith('=')) {
        r = trimLeft(r.slice(1))
        const [value, after] = consumeValue(r)
        if (!(value === '' && after === r)) { ok = true; r = after }
      }
    }
    if (!ok) {
      if (params.trim() === ';') break
      return { error: 'mime: invalid media parameter' }
    }
    if (seen.has(key)) return { error: 'mime: duplicate parameter name' }
    seen.add(key)
    params = r
  }
  return { type }
}

/** JSON or NDJSON from the Accept headers (boxo detectResponseType), or the 400 text. */
export function detectResponseType (ctx: Context): { type: string } | { error: string } {
  const values = ctx.req.headersDistinct.accept ?? []
  if (values.length === 0) return { type: JSON_TYPE }
  let json = false
  let ndjson = false
  for (const header of values) {
    for (const accept of header.split(',')) {
      const mt = parseMediaType(accept)
      if ('error' in mt) return { error: `unable to parse Accept header: ${mt.error}` }
      if (mt.type === JSON_TYPE || mt.type === '*/*') json = true
      else if (mt.type === NDJSON_TYPE) ndjson = true
    }
  }
  if (ndjson) return { type: NDJSON_TYPE }
  if (json) return { type: JSON_TYPE }
  return { error: 'no supported content types' }
}

// --- filters (IPIP-0484) ---

export const parseFilter = (param: string | null): string[] => param == null || param === '' ? [] : param.toLowerCase().split(',')

function protocolCode (name: string): number {
  try { return registry.getProtocol(name).code } catch { return -1 }
}

/** The record after filter-addrs and filter-protocols, or undefined when it is left out. */
export function applyFilters (rec: PeerRecord, filterAddrs: string[], filterProtocols: string[]): PeerRecord | undefined {
  if (filterAddrs.length === 0 && filterProtocols.length === 0) return rec
  if (filterProtocols.length > 0) {
    const protos = rec.Protocols ?? []
    const allowed = filterProtocols.some(f => (f === 'unknown' && protos.length === 0) || protos.some(p => p.toLowerCase() === f))
    if (!allowed) return undefined
  }
  const addrs = rec.Addrs ?? []
  if (filterAddrs.length === 0 || (addrs.length === 0 && filterAddrs.includes('unknown'))) return rec
  const positive = filterAddrs.filter(f => !f.startsWith('!')).map(protocolCode)
  const negative = filterAddrs.filter(f => f.startsWith('!')).map(f => protocolCode(f.slice(1)))
  const kept = addrs.filter(a => {
    let codes: number[]
    try { codes = multiaddr(a).getComponents().map(c => c.code) } catch { codes = [] }
    if (negative.some(c => codes.includes(c))) return false
    return positive.length === 0 || positive.some(c => codes.includes(c))
  })
  if (kept.length === 0) return undefined
  return { ...rec, Addrs: kept }
}

// --- identifiers ---

/** boxo parsePeerID: a peer ID string, or any CID whose multihash is taken as one. */
export function parsePeerId (s: string): Uint8Array {
  try {
    return decodePeerId(s)
  } catch (err) {
    try {
      return decodeCid(s).hash
    } catch {}
    throw err
  }
}

/** go-libp2p peer.Decode: the peer ID's multihash bytes. */
function decodePeerId (s: string): Uint8Array {
  if (s.startsWith('Qm') || s.startsWith('1')) {
    let bytes: Uint8Array
    try {
      bytes = decodeMultibase('z' + s).data
    } catch {
      throw new Error("failed to parse peer ID: input isn't valid multihash")
    }
    try {
      decodeMultihash(bytes)
    } catch (err) {
      throw new Error(`failed to parse peer ID: ${(err as Error).message}`)
    }
    return bytes
  }
  let c: GoCid
  try {
    c = decodeCid(s)
  } catch (err) {
    throw new Error(`failed to parse peer ID: ${(err as Error).message}`)
  }
  if (c.codec !== LIBP2P_KEY) throw new Error(`can't convert CID of type ${JSON.stringify(codecName(c.codec))} to a peer ID`)
  return c.hash
}

/** boxo parseKey (dht/closest): a peer ID, else any CID; the multihash bytes. */
export function parseKey (s: string): Uint8Array {
  let pidErr: Error
  try {
    return decodePeerId(s)
  } catch (err) {
    pidErr = err as Error
  }
  try {
    return decodeCid(s).hash
  } catch (err) {
    throw new Error(`unable to parse as CID or PeerID: ${(err as Error).message}\n${pidErr.message}`)
  }
}

/** The IPNS name in a /routing/v1/ipns/{name} URL: the CID and its multihash, or the 400 text. */
export function ipnsName (text: string): { mh: Uint8Array } | { error: string } {
  let cid: GoCid
  try {
    cid = decodeCid(text)
  } catch (err) {
    return { error: `unable to parse CID: ${(err as Error).message}` }
  }
  if (cid.codec !== LIBP2P_KEY) {
    return { error: `peer ID CID is not valid: CID codec ${JSON.stringify(codecName(cid.codec))} is not allowed for IPNS Names, use  "libp2p-key" instead` }
  }
  return { mh: cid.hash }
}
