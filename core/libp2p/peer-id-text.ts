// The text of a peer ID, remembered by its bytes: every received pubsub message carries a new PeerId object of its
// author, and base58 encoding it again for each message (seqno check, `pubsub sub` output) is per-message work.
import type { PeerId } from '@libp2p/interface'

const texts = new Map<string, string>()
const MAX_TEXTS = 1024

/** peer.toString(), from a table of the last MAX_TEXTS peers seen */
export function peerIdText (peer: PeerId): string {
  const bytes = (peer as Partial<PeerId>).toMultihash?.().bytes
  if (bytes == null) return peer.toString()
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
  let text = texts.get(key)
  if (text == null) {
    text = peer.toString()
    if (texts.size >= MAX_TEXTS) texts.delete(texts.keys().next().value as string)
    texts.set(key, text)
  }
  return text
}
