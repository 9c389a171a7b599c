// Decoded peers kept between reads of the peer store. Each peerStore.get (and getInfo, which calls it) takes
// a read lock, builds the base32 CID key and decodes the peer's protobuf with its multiaddrs: js kad-dht
// servers do that for the K closer peers of every GET_VALUE and FIND_NODE they answer (~4-8 ms CPU per
// request in a 20-node DHT). Here a read returns a copy of the last decoded peer while no write touched it:
// any save/patch/merge/delete of the peer forgets it (a consumed peer record patches), and an entry lives at
// most FRESH_MS and never past its first tag expiry (the store drops expired tags and addresses on read).
import type { Peer, PeerId, PeerStore } from '@libp2p/interface'

const FRESH_MS = 2_000
const MAX_ENTRIES = 5_000

interface Entry { peer: Peer, until: number }

/** a copy callers may change without touching the cached peer */
const copy = (p: Peer): Peer => ({ ...p, addresses: p.addresses.map(a => ({ ...a })), protocols: [...p.protocols], metadata: new Map(p.metadata), tags: new Map(p.tags) })

function expiry (p: Peer, now: number): number {
  let until = now + FRESH_MS
  for (const tag of p.tags.values()) {
    const e = (tag as { expiry?: bigint | number }).expiry
    if (e != null && Number(e) < until) until = Number(e)
  }
  return until
}

export function cachePeerReads (store: PeerStore): void {
  const cache = new Map<string, Entry>()
  // per peer: writes in progress, and the clock of its last write start or end (a read that overlapped one is not kept)
  const writing = new Map<string, number>()
  const lastWrite = new Map<string, number>()
  let clock = 0
  /** reads started before the write clocks were last forgotten are not kept */
  let floor = 0
  const s = store as unknown as Record<'get' | 'merge' | 'patch' | 'save' | 'delete', (...args: any[]) => Promise<any>>
  for (const name of ['save', 'patch', 'merge', 'delete'] as const) {
    const fn = s[name].bind(store)
    s[name] = async (...args: any[]) => {
      const key = String(args[0])
      cache.delete(key)
      writing.set(key, (writing.get(key) ?? 0) + 1)
      lastWrite.set(key, ++clock)
      try {
        return await fn(...args)
      } finally {
        cache.delete(key)
        const n = (writing.get(key) ?? 1) - 1
        if (n === 0) writing.delete(key); else writing.set(key, n)
        lastWrite.set(key, ++clock)
      }
    }
  }
  const get = s.get.bind(store)
  s.get = async (id: PeerId, options?: unknown) => {
    const key = id.toString()
    const now = Date.now()
    const hit = cache.get(key)
    if (hit != null) {
      if (hit.until > now) return copy(hit.peer)
      cache.delete(key)
    }
    const start = clock
    const peer: Peer = await get(id, options)
    if (start >= floor && !writing.has(key) && (lastWrite.get(key) ?? 0) <= start) {
      if (cache.size >= MAX_ENTRIES) cache.clear()
      if (lastWrite.size >= MAX_ENTRIES) {
        for (const k of lastWrite.keys()) if (!writing.has(k)) lastWrite.delete(k)
        floor = ++clock
      }
      cache.set(key, { peer: copy(peer), until: expiry(peer, now) })
    }
    return peer
  }
}
