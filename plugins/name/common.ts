// Shared pieces of the name commands: key lookup, the offline rule, duration options.
import type { PeerId, PrivateKey } from '@libp2p/interface'
import { peerIdFromPublicKey } from '@libp2p/peer-id'
import { RpcError } from '../../core/errors.js'
import { NoSuchKeyError, type Keystore } from '../../core/keystore/index.js'
import { parsePeerId } from '../swarm/common.js'
import { parseGoDuration } from '../../core/util/duration.js'

export const ERR_ALLOW_OFFLINE = "can't publish while offline: pass `--allow-offline` to override or `--allow-delegated` if Ipns.DelegatedPublishers are set up"
export const ERR_PUT_ALLOW_OFFLINE = "can't put while offline: pass `--allow-offline` to store locally or `--allow-delegated` if Ipns.DelegatedPublishers are set up"
export const ERR_BOTH_FLAGS = 'cannot use both --allow-offline and --allow-delegated flags'
export const ERR_NO_DELEGATED = 'no delegated publishers configured: add Ipns.DelegatedPublishers or use --allow-offline for local-only publishing'
export const ERR_PUBSUB_DISABLED = 'IPNS pubsub subsystem is not enabled'

/** Kubo coreapi keylookup: "self", a key name, or the peer ID of a stored key. */
export async function keyLookup (keystore: Keystore, k: string): Promise<PrivateKey> {
  if (k === 'self') return keystore.self()
  try { return await keystore.get(k) } catch {}
  // by peer ID (peer.Decode: base58 or a libp2p-key CID such as k51…), self first
  let target: PeerId
  try { target = parsePeerId(k) } catch { throw new NoSuchKeyError() }
  const self = keystore.self()
  if (peerIdFromPublicKey(self.publicKey).equals(target)) return self
  for (const name of await keystore.list()) {
    const key = await keystore.get(name)
    if (peerIdFromPublicKey(key.publicKey).equals(target)) return key
  }
  throw new RpcError('no key by the given name or PeerID was found')
}

/** time.ParseDuration in ms, with Go's error text behind a prefix (or none). */
export function durationMs (text: string, prefix = ''): number {
  try {
    return Number(parseGoDuration(text)) / 1e6
  } catch (err) {
    throw new RpcError(prefix + (err as Error).message)
  }
}

/** The DHT timeout option of name resolve / resolve: a duration >= 0 (0: none). */
export function dhtTimeout (text: string | undefined): number | undefined {
  if (text == null) return undefined
  const ms = durationMs(text)
  if (ms < 0) throw new RpcError('DHT timeout value must be >= 0')
  return ms
}

export { escNonPrint } from '../../core/go/strings.js'
