// Bootstrap addresses as Kubo reads them: go-multiaddr's parser (its error texts, its canonical
// string form) and go-libp2p's AddrInfo grouping (config/bootstrap_peers.go).
import { registry } from '@multiformats/multiaddr'
import { base58btc } from 'multiformats/bases/base58'
import * as Digest from 'multiformats/hashes/digest'
import { decodePeerId } from '../config/repo.js'

export interface Component { name: string, value?: string }

const PORTS = new Set(['tcp', 'udp', 'dccp', 'sctp'])

function portError (s: string): string | undefined {
  if (!/^[0-9]+$/.test(s)) return `failed to parse port addr: strconv.ParseUint: parsing "${s}": invalid syntax`
  if (Number(s) > 65535) return `failed to parse port addr: strconv.ParseUint: parsing "${s}": value out of range`
  return undefined
}

/** The p2p value as go-multiaddr stores it (multihash bytes), printed back in base58. */
function p2pValue (s: string): string {
  let mh: Uint8Array
  try {
    mh = decodePeerId(s)
  } catch (err) {
    throw new Error(`failed to parse p2p addr: ${s} ${(err as Error).message}`)
  }
  const digest = Digest.decode(mh)
  if (digest.code !== 0x12 && digest.code !== 0x00) throw new Error(`invalid multihash code ${digest.code} expected sha-256 or identity`)
  if (digest.code === 0x12 && digest.digest.length !== 32) throw new Error(`invalid digest length ${digest.digest.length} for sha256 addr: expected 32`)
  return base58btc.baseEncode(mh)
}

/** One value through the protocol's codec, in its canonical text (Go prints from the bytes). */
function canonicalValue (name: string, value: string): string {
  if (PORTS.has(name)) {
    const err = portError(value)
    if (err != null) throw new Error(err)
    return String(Number(value))
  }
  if (name === 'p2p') return p2pValue(value)
  const codec = registry.getProtocol(name)
  try {
    const v = codec.stringToValue?.(value) ?? value
    codec.validate?.(v)
    if (codec.valueToBytes != null && codec.bytesToValue != null) return codec.bytesToValue(codec.valueToBytes(v))
    return value
  } catch (err) {
    if (name === 'ip4') throw new Error(`failed to parse ip4 addr: ${value}`)
    if (name === 'ip6') throw new Error(`failed to parse ip6 addr: ${value}`)
    throw err
  }
}

export class GoMultiaddr {
  constructor (readonly components: Component[]) {}
  toString (): string {
    return this.components.map(c => c.value == null ? `/${c.name}` : c.name === 'unix' ? `/unix${c.value}` : `/${c.name}/${c.value}`).join('')
  }
}

/** go-multiaddr NewMultiaddr, with its error texts. */
export function parseMultiaddr (input: string): GoMultiaddr {
  const s = input.replace(/\/+$/, '')
  const parts = s.split('/')
  if (parts[0] !== '') throw new Error(`failed to parse multiaddr ${JSON.stringify(s)}: must begin with /`)
  let sp = parts.slice(1)
  if (sp.length === 0) throw new Error(`failed to parse multiaddr ${JSON.stringify(s)}: empty multiaddr`)
  const out: Component[] = []
  while (sp.length > 0) {
    let codec
    try { codec = registry.getProtocol(sp[0]) } catch { throw new Error(`failed to parse multiaddr ${JSON.stringify(s)}: unknown protocol ${sp[0]}`) }
    sp = sp.slice(1)
    const size = codec.size ?? 0
    if (size === 0) {
      out.push({ name: codec.name })
      continue
    }
    if (sp.length < 1) throw new Error(`failed to parse multiaddr ${JSON.stringify(s)}: unexpected end of multiaddr`)
    // unix is a path protocol: it takes the rest of the address
    if (codec.name === 'unix') sp = ['/' + sp.join('/')]
    const raw = sp[0]
    let value: string
    try {
      value = codec.name === 'unix' ? raw : canonicalValue(codec.name, raw)
    } catch (err) {
      throw new Error(`failed to parse multiaddr ${JSON.stringify(s)}: invalid value ${JSON.stringify(raw)} for protocol ${codec.name}: ${(err as Error).message}`)
    }
    if (value === '' && codec.name.startsWith('dns')) {
      throw new Error(`failed to validate multiaddr ${JSON.stringify(s)}: invalid value ${JSON.stringify(raw)} for protocol ${codec.name}: empty dns addr`)
    }
    out.push({ name: codec.name, value })
    sp = sp.slice(1)
  }
  return new GoMultiaddr(out)
}

export interface AddrInfo { id: string, addrs: GoMultiaddr[] }

/** peer.AddrInfosFromP2pAddrs (Go groups through a map; first-seen order here). */
export function addrInfosFromP2pAddrs (addrs: GoMultiaddr[]): AddrInfo[] {
  const byId = new Map<string, GoMultiaddr[]>()
  for (const m of addrs) {
    const last = m.components[m.components.length - 1]
    if (last?.name !== 'p2p' || last.value == null) throw new Error('invalid p2p multiaddr')
    const list = byId.get(last.value) ?? []
    if (m.components.length > 1) list.push(new GoMultiaddr(m.components.slice(0, -1)))
    byId.set(last.value, list)
  }
  return [...byId].map(([id, list]) => ({ id, addrs: list }))
}

/** config.ParseBootstrapPeers */
export const parseBootstrapPeers = (list: string[]): AddrInfo[] => addrInfosFromP2pAddrs(list.map(parseMultiaddr))

/** config.BootstrapPeerStrings */
export function bootstrapPeerStrings (infos: AddrInfo[]): string[] {
  const out: string[] = []
  for (const info of infos) {
    if (info.addrs.length === 0) out.push(`/p2p/${info.id}`)
    for (const a of info.addrs) out.push(`${a.toString()}/p2p/${info.id}`)
  }
  return out
}
