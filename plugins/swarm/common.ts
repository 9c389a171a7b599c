// What the networked commands share: Kubo's offline errors, peer ID and multiaddr parsing with
// go-libp2p's messages, the stringList output and its text encoder.
import { peerIdFromMultihash } from '@libp2p/peer-id'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import type { Libp2p, PeerId } from '@libp2p/interface'
import * as Digest from 'multiformats/hashes/digest'
import { decodeCid, decodeMultihash, LIBP2P_KEY } from '../../core/go/cid.js'
import { decodeMultibase } from '../../core/go/multibase.js'
import { codecName } from '../../core/go/multicodec.js'
import { escNonPrint } from '../../core/go/strings.js'
import { NotOnlineError, RpcError } from '../../core/errors.js'
import type { Network } from '../../core/libp2p/network.js'

/** coreiface.ErrOffline (the CoreAPI's answer when the node, or the request, is offline) */
export const ERR_OFFLINE = "this action must be run in online mode, try running 'ipfs daemon' first"

export interface StringList { Strings: string[] | null }

/** safeTextListEncoder */
export const stringListText = (out: StringList): string => (out.Strings ?? []).map(s => escNonPrint(s) + '\n').join('')

/** The host, or Kubo's ErrNotOnline (commands that read the node directly). */
export function online (libp2p: Libp2p | null, network: Network | null): { libp2p: Libp2p, network: Network } {
  if (libp2p == null || network == null) throw new NotOnlineError()
  return { libp2p, network }
}

/** The host through the CoreAPI: offline node or offline request → ErrOffline. */
export function coreOnline (libp2p: Libp2p | null, network: Network | null, offline: boolean | undefined): { libp2p: Libp2p, network: Network } {
  if (libp2p == null || network == null || offline === true) throw new RpcError(ERR_OFFLINE)
  return { libp2p, network }
}

/** go-libp2p peer.Decode with its error texts (prefixed "failed to parse peer ID: "). */
export function parsePeerId (text: string): PeerId {
  const fail = (msg: string): never => { throw new RpcError(`failed to parse peer ID: ${msg}`) }
  if (text.startsWith('Qm') || text.startsWith('1')) {
    let bytes: Uint8Array = new Uint8Array()
    try { bytes = decodeMultibase('z' + text).data } catch { fail("input isn't valid multihash") }
    try { decodeMultihash(bytes) } catch (err) { fail((err as Error).message) }
    return peerIdFromMultihash(Digest.decode(bytes))
  }
  let c: ReturnType<typeof decodeCid> | undefined
  try { c = decodeCid(text) } catch (err) { fail((err as Error).message) }
  if (c == null) return fail('invalid cid')
  // peer.FromCid's error goes out as it is (multicodec name)
  if (c.codec !== LIBP2P_KEY) throw new RpcError(`can't convert CID of type "${codecName(c.codec)}" to a peer ID`)
  try { return peerIdFromMultihash(Digest.decode(c.hash)) } catch (err) { return fail((err as Error).message) }
}

export function parseMultiaddr (text: string): Multiaddr {
  if (!text.startsWith('/')) throw new RpcError(`failed to parse multiaddr "${text}": must begin with /`)
  try {
    return multiaddr(text)
  } catch (err) {
    throw new RpcError(`failed to parse multiaddr "${text}": ${(err as Error).message}`)
  }
}

export interface AddrInfo { id: PeerId, addrs: Multiaddr[] }

/** the /p2p/<id> at the end of an address, and the transport part before it */
export function splitP2p (ma: Multiaddr): { transport: Multiaddr | undefined, id: string | undefined } {
  const parts = ma.getComponents()
  const last = parts[parts.length - 1]
  if (last == null || (last.name !== 'p2p' && last.name !== 'ipfs') || last.value == null) return { transport: undefined, id: undefined }
  const rest = parts.slice(0, -1)
  return { transport: rest.length > 0 ? multiaddr(rest) : undefined, id: last.value }
}

/** peer.AddrInfosFromP2pAddrs: group by peer, first-seen order; an address without /p2p is an error. */
export function addrInfos (addrs: Multiaddr[], noPeerError: (a: Multiaddr) => string = () => 'invalid p2p multiaddr'): AddrInfo[] {
  const out = new Map<string, AddrInfo>()
  for (const a of addrs) {
    const { transport, id } = splitP2p(a)
    if (id == null) throw new RpcError(noPeerError(a))
    let info = out.get(id)
    if (info == null) { info = { id: parsePeerId(id), addrs: [] }; out.set(id, info) }
    if (transport != null) info.addrs.push(transport)
  }
  return [...out.values()]
}

/** Kubo's parseAddresses for swarm connect/disconnect (no DNS here: an address must end in /p2p/<id>). */
export function parseAddresses (args: string[]): AddrInfo[] {
  const mas = args.map(parseMultiaddr)
  return addrInfos(mas, (a) => `found no ipfs peers at ${a.toString()}`)
}
