// ipfs id (kubo core/commands/id.go): this node, or another peer through libp2p.
import { peerIdFromCID, peerIdFromMultihash, peerIdFromPrivateKey } from '@libp2p/peer-id'
import { publicKeyToProtobuf } from '@libp2p/crypto/keys'
import type { Libp2p, PeerId } from '@libp2p/interface'
import { CID } from 'multiformats/cid'
import { base58btc } from 'multiformats/bases/base58'
import * as Digest from 'multiformats/hashes/digest'
import { RpcError } from '../../core/errors.js'
import { multibase, multibaseOf } from '../../core/multibase.js'
import { agentVersion } from '../../core/version.js'
import { defineCommand } from '../../registry/define.js'
import type { IdOutput } from './output.js'

const OFFLINE_MESSAGE = "'ipfs id' cannot query information on remote peers without a running daemon; if you only want to convert --peerid-base, pass --offline option"
const LIBP2P_KEY = 0x72

/** kubo keyencode.KeyEncoderFromString: b58mh/v0 = base58btc multihash, else a CIDv1 in that multibase. */
export function peerIdFormatter (label: string): (id: PeerId) => string {
  if (label === 'b58mh' || label === 'v0') return (id) => id.toString()
  if (label === '') throw new RpcError('empty multibase encoding')
  const base = multibase(label)
  if (base == null) throw new RpcError(`unsupported multibase encoding: ${label}`)
  return (id) => id.toCID().toString(base.encoder)
}

/** go-libp2p peer.Decode: a base58btc multihash (Qm…, 1…) or a libp2p-key CID in any multibase. */
export function decodePeerId (text: string): PeerId {
  if (text.startsWith('Qm') || text.startsWith('1')) {
    return peerIdFromMultihash(Digest.decode(base58btc.baseDecode(text)))
  }
  const base = multibaseOf(text)
  if (base == null) throw new Error('unknown multibase')
  const cid = CID.decode(base.decoder.decode(text))
  if (cid.code !== LIBP2P_KEY) throw new Error('not a libp2p-key CID')
  return peerIdFromCID(cid)
}

/** go-libp2p cmdutils.CleanAndTrim: control/format/surrogate code points → U+FFFD, trim, 128 runes. */
export function cleanAndTrim (text: string): string {
  const cleaned = [...text].map(ch => /[\p{Cc}\p{Cf}\p{Cs}]/u.test(ch) ? '\uFFFD' : ch).join('').trim()
  const runes = [...cleaned]
  return runes.length > 128 ? runes.slice(0, 128).join('') : cleaned
}

const withP2p = (addr: string, id: PeerId): string => {
  const suffix = `/p2p/${id.toString()}`
  return addr.endsWith(suffix) ? addr : addr + suffix
}
const sortedOrNull = (list: string[]): string[] | null => list.length > 0 ? list.sort() : null
const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64')

async function printSelf (format: (id: PeerId) => string, id: PeerId, publicKey: Uint8Array, libp2p: Libp2p | null): Promise<IdOutput> {
  let addresses: string[] | null = null
  let protocols: string[] | null = null
  if (libp2p != null) {
    addresses = sortedOrNull(libp2p.getMultiaddrs().map(a => withP2p(a.toString(), id)))
    protocols = [...libp2p.getProtocols()].sort()
  }
  return { ID: format(id), PublicKey: base64(publicKey), Addresses: addresses, AgentVersion: cleanAndTrim(agentVersion()), Protocols: protocols }
}

export async function printPeer (format: (id: PeerId) => string, id: PeerId, libp2p: Libp2p | null): Promise<IdOutput> {
  const out: IdOutput = { ID: format(id), PublicKey: '', Addresses: null, AgentVersion: '', Protocols: null }
  // the peer store derives inlined keys from the ID (Ed25519, secp256k1)
  if (id.publicKey != null) out.PublicKey = base64(publicKeyToProtobuf(id.publicKey))
  const peer = libp2p != null ? await libp2p.peerStore.get(id).catch(() => undefined) : undefined
  if (peer == null) return out
  if (out.PublicKey === '' && peer.id.publicKey != null) out.PublicKey = base64(publicKeyToProtobuf(peer.id.publicKey))
  out.Addresses = sortedOrNull(peer.addresses.map(a => withP2p(a.multiaddr.toString(), id)))
  out.Protocols = sortedOrNull(peer.protocols.map(cleanAndTrim))
  const agent = peer.metadata.get('AgentVersion')
  if (agent != null) out.AgentVersion = cleanAndTrim(new TextDecoder().decode(agent))
  return out
}

/** Errors that mean "no way to find this peer" (Kubo: kb.ErrLookupFailure). */
const isLookupFailure = (err: unknown): boolean =>
  ['NotFoundError', 'NoValidAddressesError', 'NoPeerRoutersError', 'NoContentRoutersError'].includes((err as Error)?.name)

interface Services {
  dht?: { routingTable?: { size: number } }
}

/** Wait (bounded) until identify has stored the peer's agent version. */
async function identified (libp2p: Libp2p, id: PeerId, signal: AbortSignal, ms: number): Promise<void> {
  const has = async (): Promise<boolean> => (await libp2p.peerStore.get(id).catch(() => undefined))?.metadata.has('AgentVersion') === true
  let resolve: () => void = () => {}
  const promise = new Promise<void>(r => { resolve = r })
  const onIdentify = (evt: CustomEvent<{ peerId: PeerId }>): void => { if (evt.detail.peerId.equals(id)) resolve() }
  const timer = setTimeout(resolve, ms)
  signal.addEventListener('abort', () => { resolve() }, { once: true })
  libp2p.addEventListener('peer:identify', onIdentify)
  try {
    if (await has()) return
    await promise
  } finally {
    clearTimeout(timer)
    libp2p.removeEventListener('peer:identify', onIdentify)
  }
}

async function connect (libp2p: Libp2p, id: PeerId, signal: AbortSignal): Promise<void> {
  const known = await libp2p.peerStore.get(id).catch(() => undefined)
  const dht = (libp2p.services as Services | undefined)?.dht
  // no address and nobody to ask: Kubo's kb.ErrLookupFailure (the JS DHT would wait for peers forever)
  if ((known?.addresses.length ?? 0) === 0 && (dht?.routingTable?.size ?? 0) === 0) throw new RpcError(OFFLINE_MESSAGE)
  try {
    await libp2p.dial(id, { signal })
  } catch (err) {
    if (isLookupFailure(err)) throw new RpcError(OFFLINE_MESSAGE)
    throw err
  }
  // identify runs on every new connection; give it a moment to fill the peer store
  await identified(libp2p, id, signal, 5_000)
}

export const idId = defineCommand({
  path: ['id'],
  description: 'Show IPFS node id info.',
  help: "Prints out information about the specified peer.\nIf no peer is specified, prints out information for local peers.\n\n'ipfs id' supports the format option for output with the following keys:\n<id> : The peers id.\n<aver>: Agent version.\n<pver>: Protocol version.\n<pubkey>: Public key.\n<addrs>: Addresses (newline delimited).\n<protocols>: Libp2p Protocol registrations (newline delimited).",
  args: [{ name: 'peerid', kind: 'string', description: 'Peer.ID of node to look up.' }],
  options: {
    format: { type: 'string', aliases: ['f'], description: 'Optional output format.' },
    'peerid-base': { type: 'string', default: 'b58mh', description: 'Encoding used for peer IDs: Can either be a multibase encoded CID or a base58btc encoded multihash. Takes {b58mh|base36|k|base32|b...}.' }
  },
  output: 'single',
  run: async ({ args, options, deps: { keystore, libp2p }, signal }): Promise<IdOutput> => {
    const format = peerIdFormatter(options.peeridBase)
    const key = keystore.self()
    const self = peerIdFromPrivateKey(key)
    let id = self
    if (args.length > 0 && args[0] !== undefined) {
      try { id = decodePeerId(args[0]) } catch { throw new RpcError('invalid peer id') }
    }
    if (id.equals(self)) return await printSelf(format, self, publicKeyToProtobuf(key.publicKey), libp2p)
    const offline = options.offline === true
    if (!offline && libp2p == null) throw new RpcError(OFFLINE_MESSAGE)
    if (!offline && libp2p != null) await connect(libp2p, id, signal)
    return await printPeer(format, id, libp2p)
  },
  text: (out, { options }) => {
    if (options.format !== undefined) {
      return options.format
        .split('<id>').join(out.ID)
        .split('<aver>').join(out.AgentVersion)
        .split('<pubkey>').join(out.PublicKey)
        .split('<addrs>').join((out.Addresses ?? []).join('\n'))
        .split('<protocols>').join((out.Protocols ?? []).join('\n'))
        .split('\\n').join('\n')
        .split('\\t').join('\t')
    }
    return goJsonIndent(out) + '\n\n'
  }
})

/** Go json.MarshalIndent(v, "", "\t"): tab indent, HTML-safe escapes. */
export function goJsonIndent (value: unknown): string {
  return JSON.stringify(value, null, '\t')
    .replace(/[<>&\u2028\u2029]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
