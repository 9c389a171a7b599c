// GET_VALUE lookups as go-libp2p-kad-dht runs them (SearchValue): ALPHA requests in flight, the closer peers
// of each answer joining the candidates, the lookup ending when the caller has enough values or when the K
// closest known peers have all answered (or failed). One stream per peer and DHT protocol is kept and
// reused (go-libp2p-kad-dht's message sender; the server reads request after request on a stream). js kad-dht's
// own query opens and negotiates a new stream per request and turns every closer peer of every answer into a
// peer-store merge and a routing-table update: in a 20-node DHT ~380 of each per lookup, most of the CPU
// of an uncached `name resolve`.
import { createHash } from 'node:crypto'
import { lpStream, type LengthPrefixedStream } from '@libp2p/utils'
import { peerIdFromMultihash } from '@libp2p/peer-id'
import { Libp2pRecord } from '@libp2p/record'
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr'
import * as Digest from 'multiformats/hashes/digest'
import type { Libp2p, PeerId, PeerInfo, Stream } from '@libp2p/interface'

/** go-libp2p-kad-dht: requests in flight per lookup, and the K closest peers a lookup ends on */
export const ALPHA = 10
export const K = 20
/** one request (a peer that does not answer fails after this) */
const REQUEST_TIMEOUT_MS = 10_000
const MAX_MESSAGE = 4 * 1024 * 1024
const GET_VALUE = 1

/** The parts of a js kad-dht service a lookup uses. */
export interface LookupTable {
  closestPeers: (kadId: Uint8Array, options?: { count?: number }) => PeerId[]
}

export interface LookupTarget {
  protocol: string
  table: LookupTable
  /** the DHT's view of a peer's addresses (LAN: private ones, WAN: public ones) */
  mapper: (peer: PeerInfo) => PeerInfo
}

export interface LookupOptions {
  /** aborts the lookup and its requests */
  signal?: AbortSignal
  /** ends the lookup; requests in flight finish on their own (their streams stay usable) */
  stop?: AbortSignal
  /** a record value for the key (its record key checked); true: enough, the lookup ends */
  onRecord: (value: Uint8Array, from: PeerId) => boolean | Promise<boolean>
}

interface Candidate { id: PeerId, dist: Uint8Array, state: 'new' | 'querying' | 'done' | 'failed', addrs?: Multiaddr[] }

interface Sender { stream: Stream, lp: LengthPrefixedStream<Stream>, busy: boolean }

interface Answer { record?: Uint8Array, closer: Array<{ id: Uint8Array, addrs: Uint8Array[] }> }

const sha256 = (b: Uint8Array): Uint8Array => createHash('sha256').update(b).digest()

function xor (a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length)
  for (let i = 0; i < a.length; i++) out[i] = a[i] ^ b[i]
  return out
}

function compare (a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return 0
}

/** dht.pb Message{type: GET_VALUE, key} */
export function encodeGetValue (key: Uint8Array): Uint8Array {
  const len = varint(key.length)
  const out = new Uint8Array(2 + 1 + len.length + key.length)
  out.set([0x08, GET_VALUE, 0x12], 0)
  out.set(len, 3)
  out.set(key, 3 + len.length)
  return out
}

/** A message with its unsigned-varint length prefix (the framing of DHT streams). */
export function lengthPrefixed (message: Uint8Array): Uint8Array {
  const len = varint(message.length)
  const out = new Uint8Array(len.length + message.length)
  out.set(len, 0)
  out.set(message, len.length)
  return out
}

/**
 * The outer signal or REQUEST_TIMEOUT_MS (an unref'd timer), whichever comes first; done() clears the timer and the listener
 * (AbortSignal.any + AbortSignal.timeout per request left a 10 s timer and a weak-ref registration behind each).
 */
export function requestSignal (outer?: AbortSignal): { signal: AbortSignal, done: () => void } {
  const controller = new AbortController()
  const timer = setTimeout(() => { controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')) }, REQUEST_TIMEOUT_MS)
  timer.unref() // as AbortSignal.timeout: a request in flight does not keep the process alive
  const onAbort = (): void => { controller.abort(outer?.reason) }
  if (outer?.aborted === true) controller.abort(outer.reason)
  else outer?.addEventListener('abort', onAbort, { once: true })
  return { signal: controller.signal, done: () => { clearTimeout(timer); outer?.removeEventListener('abort', onAbort) } }
}

async function drained (stream: Stream, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted()
  await new Promise<void>((resolve, reject) => {
    const done = (): void => { stream.removeEventListener('drain', done); signal.removeEventListener('abort', done); if (signal.aborted) reject(signal.reason); else resolve() }
    stream.addEventListener('drain', done)
    signal.addEventListener('abort', done)
  })
}

function varint (n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) { out.push((n & 0x7f) | 0x80); n >>>= 7 }
  out.push(n)
  return out
}

/** The fields of a protobuf message: field number → values (varints as numbers, length-delimited as bytes). */
function fields (buf: Uint8Array): Map<number, Array<number | Uint8Array>> {
  const out = new Map<number, Array<number | Uint8Array>>()
  let pos = 0
  const readVarint = (): number => {
    let n = 0
    let mul = 1
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint')
      const b = buf[pos++]
      n += (b & 0x7f) * mul
      if (b < 0x80) return n
      mul *= 128
      if (mul > 2 ** 63) throw new Error('varint too long')
    }
  }
  while (pos < buf.length) {
    const tag = readVarint()
    const field = Math.floor(tag / 8)
    let value: number | Uint8Array
    switch (tag & 7) {
      case 0: value = readVarint(); break
      case 1: pos += 8; value = 0; break
      case 5: pos += 4; value = 0; break
      case 2: {
        const len = readVarint()
        if (pos + len > buf.length) throw new Error('truncated field')
        value = buf.subarray(pos, pos + len)
        pos += len
        break
      }
      default: throw new Error(`wire type ${tag & 7}`)
    }
    if (pos > buf.length) throw new Error('truncated field')
    const list = out.get(field)
    if (list == null) out.set(field, [value]); else list.push(value)
  }
  return out
}

const bytesOf = (list: Array<number | Uint8Array> | undefined): Uint8Array[] => (list ?? []).filter((v): v is Uint8Array => v instanceof Uint8Array)

/** A dht.pb Message answer: its record (field 3) and closer peers (field 8: Peer{id = 1, addrs = 2}). */
export function decodeAnswer (buf: Uint8Array): Answer {
  const f = fields(buf)
  const record = bytesOf(f.get(3))[0]
  const closer = bytesOf(f.get(8)).map(p => { const pf = fields(p); return { id: bytesOf(pf.get(1))[0], addrs: bytesOf(pf.get(2)) } })
  return { record, closer: closer.filter(p => p.id != null) }
}

export class ValueLookup {
  /** the stream kept per peer and protocol */
  private readonly senders = new Map<string, Sender>()

  constructor (private readonly libp2p: Libp2p) {}

  /** Asks the DHT for `key` until onRecord says enough, the K closest peers have answered, or the signal aborts. */
  async search (target: LookupTarget, key: Uint8Array, options: LookupOptions): Promise<void> {
    const signal = options.signal
    signal?.throwIfAborted()
    const kadKey = sha256(key)
    const self = this.libp2p.peerId
    const candidates: Candidate[] = []
    // peers by their multihash bytes (a PeerId is only made for a new one: toString() is a base58 encoding)
    const known = new Set<string>([Buffer.from(self.toMultihash().bytes).toString('base64')])
    const add = (mh: Uint8Array, id: () => PeerId, addrs?: () => Multiaddr[]): void => {
      const s = Buffer.from(mh).toString('base64')
      if (known.has(s)) return
      known.add(s)
      const c: Candidate = { id: id(), dist: xor(sha256(mh), kadKey), state: 'new', addrs: addrs?.() }
      let i = candidates.length
      while (i > 0 && compare(candidates[i - 1].dist, c.dist) > 0) i--
      candidates.splice(i, 0, c)
    }
    for (const id of target.table.closestPeers(kadKey, { count: K })) add(id.toMultihash().bytes, () => id)
    const request = lengthPrefixed(encodeGetValue(key))

    await new Promise<void>((resolve) => {
      let active = 0
      let finished = false
      const finish = (): void => {
        if (finished) return
        finished = true
        signal?.removeEventListener('abort', finish)
        options.stop?.removeEventListener('abort', finish)
        resolve()
      }
      signal?.addEventListener('abort', finish)
      options.stop?.addEventListener('abort', finish)
      if (options.stop?.aborted === true) finish()
      const query = async (c: Candidate): Promise<void> => {
        try {
          const answer = await this.request(target, c, request, signal)
          c.state = 'done'
          for (const p of answer.closer) {
            try {
              add(p.id, () => peerIdFromMultihash(Digest.decode(p.id)), () => p.addrs.map(a => multiaddr(a)))
            } catch {}
          }
          if (answer.record != null && !finished) {
            const rec = Libp2pRecord.deserialize(answer.record)
            if (Buffer.from(rec.key).equals(key) && await options.onRecord(rec.value, c.id)) finish()
          }
        } catch {
          if (c.state === 'querying') c.state = 'failed'
        }
      }
      const pump = (): void => {
        if (finished) return
        let live = 0
        for (const c of candidates) {
          if (c.state === 'failed') continue
          if (live++ >= K || active >= ALPHA) break
          if (c.state !== 'new') continue
          c.state = 'querying'
          active++
          void query(c).finally(() => { active--; pump() })
        }
        if (active === 0) finish()
      }
      pump()
    })
    signal?.throwIfAborted()
  }

  /** One GET_VALUE exchange on the peer's kept stream (a new one when it has none, it is busy or it fails). */
  private async request (target: LookupTarget, c: Candidate, message: Uint8Array, outer?: AbortSignal): Promise<Answer> {
    const { signal, done } = requestSignal(outer)
    try {
      return await this.requestOn(target, c, message, signal)
    } finally {
      done()
    }
  }

  private async requestOn (target: LookupTarget, c: Candidate, message: Uint8Array, signal: AbortSignal): Promise<Answer> {
    const slot = `${target.protocol} ${c.id.toString()}`
    const kept = this.senders.get(slot)
    if (kept != null && !kept.busy && usable(kept.stream)) {
      try {
        return await this.exchange(slot, kept, message, signal)
      } catch (err) {
        if (signal.aborted) throw err
      }
    }
    const stream = await this.open(target, c, signal)
    const sender: Sender = { stream, lp: lpStream(stream, { maxDataLength: MAX_MESSAGE }), busy: false }
    const current = this.senders.get(slot)
    if (current == null || !usable(current.stream)) {
      this.senders.set(slot, sender)
      // closed by the peer (js kad-dht servers after 10 s idle, Kubo's after 1 min) or with its connection
      stream.addEventListener('close', () => { if (this.senders.get(slot) === sender) this.senders.delete(slot) }, { once: true })
    }
    const answer = await this.exchange(slot, sender, message, signal)
    if (this.senders.get(slot) !== sender) void stream.close().catch(() => { stream.abort(new Error('closed')) })
    return answer
  }

  private async exchange (slot: string, sender: Sender, message: Uint8Array, signal: AbortSignal): Promise<Answer> {
    sender.busy = true
    try {
      // the length prefix and the message in one buffer: js-libp2p's TLS writes each part of a list separately
      if (!sender.stream.send(message)) await drained(sender.stream, signal)
      const answer = decodeAnswer((await sender.lp.read({ signal })).subarray())
      sender.busy = false
      return answer
    } catch (err) {
      // the stream's state is unknown (an answer may still come): it is not reused
      if (this.senders.get(slot) === sender) this.senders.delete(slot)
      sender.stream.abort(err as Error)
      throw err
    }
  }

  private async open (target: LookupTarget, c: Candidate, signal: AbortSignal): Promise<Stream> {
    const connection = this.libp2p.getConnections(c.id).find(conn => conn.status === 'open')
    if (connection != null) return await connection.newStream(target.protocol, { signal })
    const addrs = target.mapper({ id: c.id, multiaddrs: c.addrs ?? [] }).multiaddrs
    if (addrs.length > 0) await this.libp2p.peerStore.merge(c.id, { multiaddrs: addrs })
    return await this.libp2p.dialProtocol(c.id, target.protocol, { signal })
  }

  /** Drops the kept streams (host stopping). */
  clear (): void {
    for (const s of this.senders.values()) { try { s.stream.abort(new Error('lookup closed')) } catch {} }
    this.senders.clear()
  }
}

const usable = (s: Stream): boolean => s.status === 'open' && s.writeStatus === 'writable' && (s.readStatus === 'readable' || s.readStatus === 'paused')
