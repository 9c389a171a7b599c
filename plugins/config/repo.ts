// Helpers shared by the config commands (kubo core/commands/config.go, config/config.go).
import { base58btc } from 'multiformats/bases/base58'
import { bases } from 'multiformats/basics'
import { CID } from 'multiformats/cid'
import * as Digest from 'multiformats/hashes/digest'
import { equals } from 'uint8arrays/equals'
import { mapGetKV, type Json, type KuboConfig } from '../../core/config/index.js'
import { goMarshal } from './gojson.js'
import { setOwn } from '../../core/util/own.js'

/** config.PinningConcealSelector */
export const PINNING_CONCEAL = ['Pinning', 'RemoteServices', '*', 'API', 'Key']
export const PRIVKEY_SELECTOR = 'Identity.PrivKey'

const isObject = (v: unknown): v is { [k: string]: Json } => v != null && typeof v === 'object' && !Array.isArray(v)
const equalFold = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase()

/** Kubo matchesGlobPrefix: the key's first parts match the glob's ("*" matches anything). */
export function matchesGlobPrefix (key: string, glob: string[]): boolean {
  const parts = key.split('.')
  for (let i = 0; i < glob.length && i < parts.length; i++) {
    if (glob[i] === '*') continue
    if (!equalFold(parts[i], glob[i])) return false
  }
  return true
}

/** config.HumanOutput: strings bare (newlines trimmed at both ends), anything else as indented JSON. */
export function humanOutput (value: Json): string {
  if (typeof value === 'string') return value.replace(/^\n+|\n+$/g, '')
  return goMarshal(value, true)
}

/**
 * Kubo's scrubMapInternal: drops the value at `key` ("*" matches every key, names compare
 * case-insensitively). A non-object at the end is removed; an object there becomes {}.
 */
export function scrub (m: { [k: string]: Json }, key: string[]): { [k: string]: Json } {
  if (key.length === 0) return {}
  const out: { [k: string]: Json } = {}
  for (const [k, v] of Object.entries(m)) {
    if (key[0] === '*' || equalFold(key[0], k)) {
      if (isObject(v)) setOwn(out, k, scrub(v, key.slice(1)))
    } else {
      setOwn(out, k, v)
    }
  }
  return out
}

/** What `config show` and `config profile apply` hide: the private key (and for show, secrets). */
export const scrubPrivKey = (m: { [k: string]: Json }): { [k: string]: Json } => scrub(m, ['Identity', 'PrivKey'])

/** go-libp2p peer.Decode, as multihash bytes: base58 (Qm…, 1…) or a libp2p-key CID. */
export function decodePeerId (text: string): Uint8Array {
  if (text.startsWith('Qm') || text.startsWith('1')) return Digest.decode(base58btc.baseDecode(text)).bytes
  const base = Object.values(bases).find(b => b.prefix === text[0])
  if (base == null) throw new Error(`selected encoding not supported`)
  const cid = CID.decode(base.decode(text))
  if (cid.code !== 0x72) throw new Error(`can't convert CID of type "${cid.code}" to a peer ID`)
  return cid.multihash.bytes
}

/** Kubo nodePeerID: the PeerID implied by Identity.PrivKey (the key modules load only here). */
export async function nodePeerId (cfg: KuboConfig): Promise<{ text: string, multihash: Uint8Array }> {
  let pk: Json
  try { pk = mapGetKV(cfg, PRIVKEY_SELECTOR) } catch { throw new Error('failed to get PrivKey') }
  if (typeof pk !== 'string') throw new Error('private key in config was not a string')
  const [{ privateKeyFromProtobuf }, { peerIdFromPrivateKey }] = await Promise.all([import('@libp2p/crypto/keys'), import('@libp2p/peer-id')])
  try {
    const id = peerIdFromPrivateKey(privateKeyFromProtobuf(Buffer.from(pk, 'base64')))
    return { text: id.toString(), multihash: id.toMultihash().bytes }
  } catch (err) {
    throw new Error(`failed to decode PrivKey: ${(err as Error).message}`)
  }
}

/** Whether `text` names the same peer as `multihash`. */
export function samePeer (text: string, multihash: Uint8Array): boolean {
  try { return equals(decodePeerId(text), multihash) } catch { return false }
}
