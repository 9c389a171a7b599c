// The fetching side of bitswap (Kubo's client), over @helia/bitswap's network layer (streams, message
// encoding, per-peer send queue), replacing its WantList, which (4.0.19) shares one entry between the
// requests for a CID so that aborting one cancels all (the client suite's "keep blocks in the wantlist
// when only one request is cancelled"), never sends cancels, never asks again when a peer's reply is
// lost (a failed send under load stalled a 256 MiB `cat` for good), and starts a routing query for
// every block it wants (one DHT lookup per 256 KiB).
// Here, as boxo's client does:
// - one want per CID whatever the number of requests; it is cancelled (and the cancel sent to the peers
//   that were asked) once no request waits for it;
// - new wants go to every connected bitswap peer in one message per peer per tick, a peer that connects
//   gets the whole list; a want unanswered for REBROADCAST_MS is sent again;
// - providers are searched for (routing, then dialed) only for a want unanswered for SEARCH_DELAY_MS,
//   or when every connected peer said DONT_HAVE, a few searches at a time (boxo's session search);
// - a block is accepted when its bytes hash to a wanted multihash (the key is the multihash: function,
//   length and digest), then stored before the requests see it.
import type { AbortOptions, PeerId } from '@libp2p/interface'
import { peerIdFromCID } from '@libp2p/peer-id'
import { CID } from 'multiformats/cid'
import type { BitswapStats } from './stats.js'

/** what this client needs from @helia/bitswap's Network */
export interface BitswapNetwork {
  addEventListener: ((type: 'bitswap:message', fn: (evt: CustomEvent<{ peer: PeerId, message: ReceivedMessage }>) => void) => void) &
  ((type: 'peer:connected' | 'peer:disconnected', fn: (evt: CustomEvent<PeerId>) => void) => void)
  removeEventListener: (type: string, fn: (evt: any) => void) => void
  sendMessage: (peer: PeerId, message: OutgoingMessage, options?: AbortOptions) => Promise<void>
  findProviders: (cid: CID, options?: AbortOptions) => AsyncIterable<{ id: CID | PeerId }>
  connectTo: (peer: CID | PeerId, options?: AbortOptions) => Promise<unknown>
}

export interface ReceivedMessage {
  blocks: Array<{ prefix?: Uint8Array, data?: Uint8Array }>
  blockPresences: Array<{ cid: Uint8Array, type: string }>
}

interface WantEntry { cid: Uint8Array, priority: number, wantType: 'WantBlock' | 'WantHave', cancel: boolean, sendDontHave: boolean }

/** the shape @helia/bitswap's network sends (its QueuedBitswapMessage) */
export interface OutgoingMessage {
  full: boolean
  pendingBytes: number
  wantlist: Map<string, WantEntry>
  blocks: Map<string, unknown>
  blockPresences: Map<string, unknown>
}

type Hasher = (code: number, bytes: Uint8Array, size: number) => Uint8Array | undefined

export interface ClientInit {
  network: BitswapNetwork
  /** the multihash (code, size) of bytes, or undefined for an unsupported function */
  hash: Hasher
  /** stores a received block; the requests get the bytes once it resolves */
  store: (cid: CID, bytes: Uint8Array) => Promise<void>
  /** reads a block that arrived locally (another request stored it) */
  local: (cid: CID) => Promise<Uint8Array>
  stats: BitswapStats
  warn?: (msg: string) => void
  /** peers connected at start */
  peers?: PeerId[]
}

/** a want unanswered this long, while no block arrives, is sent again to every peer */
const REBROADCAST_MS = 5_000
/** a want unanswered this long, while no block arrives, starts a provider search (boxo: 1 s) */
const SEARCH_DELAY_MS = 1_000
/** the same want is searched for again after this long */
const SEARCH_AGAIN_MS = 30_000
const MAX_SEARCHES = 3
const PROVIDERS_PER_SEARCH = 3

interface Want {
  cid: CID
  key: string
  refs: number
  since: number
  sentAt: number
  searchedAt: number
  /** peers that were sent this want */
  sentTo: Set<string>
  dontHave: Set<string>
  done: boolean
  promise: Promise<Uint8Array>
  resolve: (p: Promise<Uint8Array>) => void
  reject: (err: Error) => void
}

const keyOf = (multihash: Uint8Array): string => Buffer.from(multihash).toString('base64')

function message (): OutgoingMessage {
  return { full: false, pendingBytes: 0, wantlist: new Map(), blocks: new Map(), blockPresences: new Map() }
}

/** the varints of a block prefix: version, codec, hash function, digest length */
function readPrefix (prefix: Uint8Array): number[] {
  const out: number[] = []
  let value = 0
  let shift = 0
  for (const byte of prefix) {
    value += (byte & 0x7f) * 2 ** shift
    if ((byte & 0x80) === 0) { out.push(value); value = 0; shift = 0 } else shift += 7
  }
  return out
}

export class BitswapClient {
  private readonly wants = new Map<string, Want>()
  private readonly peers = new Map<string, PeerId>()
  /** per peer: entries to send at the next flush */
  private readonly outbox = new Map<string, OutgoingMessage>()
  private flushing: ReturnType<typeof setTimeout> | undefined
  private timer: ReturnType<typeof setInterval> | undefined
  private searches = 0
  /** when the last wanted block arrived: rebroadcasts and searches happen only when blocks stop coming */
  private lastBlockAt = 0
  private readonly stopped = new AbortController()
  private readonly listeners: Array<[string, (evt: any) => void]> = []

  constructor (private readonly init: ClientInit) {
    for (const p of init.peers ?? []) this.peers.set(p.toString(), p)
    const on = (type: string, fn: (evt: any) => void): void => {
      (init.network.addEventListener as (t: string, f: (evt: any) => void) => void)(type, fn)
      this.listeners.push([type, fn])
    }
    on('bitswap:message', (evt: CustomEvent<{ peer: PeerId, message: ReceivedMessage }>) => { this.receive(evt.detail.peer, evt.detail.message) })
    on('peer:connected', (evt: CustomEvent<PeerId>) => { this.connected(evt.detail) })
    on('peer:disconnected', (evt: CustomEvent<PeerId>) => { this.disconnected(evt.detail) })
    this.timer = setInterval(() => { this.tick() }, 500)
    this.timer.unref?.()
  }

  stop (): void {
    for (const [type, fn] of this.listeners) this.init.network.removeEventListener(type, fn)
    this.peers.clear()
    for (const want of this.wants.values()) this.finish(want, undefined, new Error('bitswap stopped'))
    clearInterval(this.timer)
    clearTimeout(this.flushing)
    this.flushing = undefined
    this.outbox.clear()
    this.stopped.abort()
  }

  /** our wants (Kubo `bitswap wantlist`) */
  wantlist (): CID[] {
    return [...this.wants.values()].map(w => w.cid)
  }

  /** a block from the network, stored; rejects when the signal aborts (the want stays while others wait) */
  async want (cid: CID, options: AbortOptions = {}): Promise<Uint8Array> {
    const signal = options.signal
    signal?.throwIfAborted()
    const key = keyOf(cid.multihash.bytes)
    let want = this.wants.get(key)
    if (want == null) {
      let resolve!: Want['resolve']
      let reject!: Want['reject']
      const promise = new Promise<Uint8Array>((res, rej) => { resolve = res; reject = rej })
      promise.catch(() => {})
      const now = Date.now()
      want = { cid, key, refs: 0, since: now, sentAt: now, searchedAt: 0, sentTo: new Set(), dontHave: new Set(), done: false, promise, resolve, reject }
      this.wants.set(key, want)
      for (const peer of this.peers.keys()) this.queueWant(peer, want)
      if (this.peers.size === 0) this.search(want)
    }
    const w = want
    w.refs++
    try {
      if (signal == null) return await w.promise
      return await new Promise<Uint8Array>((resolve, reject) => {
        const abort = (): void => { reject(signal.reason) }
        signal.addEventListener('abort', abort, { once: true })
        w.promise.then(resolve, reject).finally(() => { signal.removeEventListener('abort', abort) })
      })
    } finally {
      if (--w.refs === 0 && !w.done) this.cancel(w)
    }
  }

  /** a block was stored locally: the want for it (if any) ends with the stored copy */
  arrived (cid: CID): void {
    const want = this.wants.get(keyOf(cid.multihash.bytes))
    if (want == null || want.done) return
    this.finish(want, this.init.local(cid))
  }

  private finish (want: Want, bytes: Promise<Uint8Array> | undefined, err?: Error, from?: string): void {
    if (want.done) return
    want.done = true
    if (this.wants.get(want.key) === want) this.wants.delete(want.key)
    for (const peer of want.sentTo) if (peer !== from) this.queueCancel(peer, want.cid)
    if (bytes != null) want.resolve(bytes)
    else want.reject(err ?? new Error('want cancelled'))
  }

  private cancel (want: Want): void {
    this.finish(want, undefined, new Error('want cancelled'))
  }

  private outboxOf (peer: string): OutgoingMessage {
    let m = this.outbox.get(peer)
    if (m == null) this.outbox.set(peer, m = message())
    if (this.flushing == null) this.flushing = setTimeout(() => { this.flush() }, 2)
    return m
  }

  private queueWant (peer: string, want: Want): void {
    want.sentTo.add(peer)
    this.outboxOf(peer).wantlist.set(want.key, { cid: want.cid.bytes, priority: 1, wantType: 'WantBlock', cancel: false, sendDontHave: true })
  }

  private queueCancel (peer: string, cid: CID): void {
    if (!this.peers.has(peer)) return
    this.outboxOf(peer).wantlist.set(keyOf(cid.multihash.bytes), { cid: cid.bytes, priority: 1, wantType: 'WantBlock', cancel: true, sendDontHave: false })
  }

  private flush (): void {
    this.flushing = undefined
    const batches = [...this.outbox]
    this.outbox.clear()
    for (const [peer, msg] of batches) {
      const id = this.peers.get(peer)
      if (id == null || msg.wantlist.size === 0) continue
      this.init.network.sendMessage(id, msg, { signal: AbortSignal.any([this.stopped.signal, AbortSignal.timeout(30_000)]) }).catch(() => {
        // not delivered: these wants go to this peer again at the next rebroadcast
        for (const [key, entry] of msg.wantlist) if (!entry.cancel) this.wants.get(key)?.sentTo.delete(peer)
      })
    }
  }

  private connected (peer: PeerId): void {
    const id = peer.toString()
    if (this.peers.has(id)) return
    this.peers.set(id, peer)
    for (const want of this.wants.values()) this.queueWant(id, want)
  }

  private disconnected (peer: PeerId): void {
    const id = peer.toString()
    this.peers.delete(id)
    this.outbox.delete(id)
    for (const want of this.wants.values()) { want.sentTo.delete(id); want.dontHave.delete(id) }
  }

  private receive (peer: PeerId, msg: ReceivedMessage): void {
    const from = peer.toString()
    for (const block of msg.blocks) {
      if (block.prefix == null || block.data == null) continue
      const [version, codec, code, size] = readPrefix(block.prefix)
      const multihash = code == null ? undefined : this.init.hash(code, block.data, size ?? -1)
      if (multihash == null) { this.init.warn?.(`bitswap: a block from ${from} uses an unsupported hash function`); continue }
      const want = this.wants.get(keyOf(multihash))
      this.init.stats.blockReceived(peer, block.data.byteLength, want == null)
      if (want == null) continue
      this.lastBlockAt = Date.now()
      const cid = version === 0 ? want.cid : CID.createV1(codec, want.cid.multihash)
      const data = block.data
      this.finish(want, this.init.store(cid, data).then(() => data), undefined, from)
    }
    for (const presence of msg.blockPresences) {
      if (presence.type !== 'DoNotHaveBlock') continue
      let cid: CID
      try { cid = CID.decode(presence.cid) } catch { continue }
      const want = this.wants.get(keyOf(cid.multihash.bytes))
      if (want == null) continue
      want.dontHave.add(from)
      // every peer asked said it has not got it: look for providers now
      if ([...want.sentTo].every(p => want.dontHave.has(p))) this.search(want)
    }
  }

  private tick (): void {
    const now = Date.now()
    // blocks are coming: the wants are being served (a long list takes a while)
    if (now - this.lastBlockAt < SEARCH_DELAY_MS) return
    for (const want of this.wants.values()) {
      if (now - want.sentAt >= REBROADCAST_MS) {
        want.sentAt = now
        want.dontHave.clear()
        for (const peer of this.peers.keys()) this.queueWant(peer, want)
      }
      if (now - want.since >= SEARCH_DELAY_MS) this.search(want)
    }
  }

  /** routing: providers of the want's CID, dialed (the dial's connection sends them our wants) */
  private search (want: Want): void {
    const now = Date.now()
    if (this.searches >= MAX_SEARCHES || want.done || (want.searchedAt !== 0 && now - want.searchedAt < SEARCH_AGAIN_MS)) return
    want.searchedAt = now
    this.searches++
    const signal = AbortSignal.any([this.stopped.signal, AbortSignal.timeout(SEARCH_AGAIN_MS)])
    void (async () => {
      let found = 0
      for await (const provider of this.init.network.findProviders(want.cid, { signal })) {
        if (want.done) break
        const id = provider.id instanceof CID ? peerIdFromCID(provider.id) : provider.id
        if (this.peers.has(id.toString())) continue
        this.init.network.connectTo(provider.id, { signal }).catch(() => {})
        if (++found >= PROVIDERS_PER_SEARCH) break
      }
    })().catch(() => {}).finally(() => { this.searches-- })
  }
}
