// Our bitswap message sender, in place of @helia/bitswap's Network.sendMessage (4.0.19), which encodes each
// block twice (once to measure it, once in the message: two 256 KiB copies per block) and opens a stream
// per message, whose yamux window starts again at 256 KiB (a round trip per 256 KiB of a 4 MiB message).
// Here, as boxo's MessageSender: outbound streams kept per peer while messages flow (closed after IDLE_MS
// without one, before js peers' 10 s receive timeout; wants on one, blocks over LANES of them), messages encoded once with the block bytes
// sent as views (no copy), split under the 4 MiB message limit. A send that fails on a reused stream is
// retried once on a new stream.
import type { AbortOptions, Libp2p, PeerId, Stream } from '@libp2p/interface'
import { Uint8ArrayList } from 'uint8arraylist'

export const BITSWAP_120 = '/ipfs/bitswap/1.2.0'
/** boxo and @helia/bitswap: a message is at most 4 MiB */
export const MAX_MESSAGE_SIZE = 4 * 1024 * 1024
/** an idle stream is closed after this long (js peers abort an inbound stream silent for 10 s) */
const IDLE_MS = 5_000
const SEND_TIMEOUT_MS = 10_000
/**
 * streams per peer for blocks: each yamux stream starts with a 256 KiB window that the receiver widens
 * only when its updates come back within 4 RTTs (on loopback, rarely), so one stream moves 256 KiB per
 * round trip through the receiver's event loop
 */
export const LANES = 3

export interface SendEntry { cid: Uint8Array, priority?: number, cancel?: boolean, wantType?: 'WantBlock' | 'WantHave', sendDontHave?: boolean }
export interface SendBlock { prefix?: Uint8Array, data: Uint8Array }
export interface SendPresence { cid: Uint8Array, type: 'HaveBlock' | 'DoNotHaveBlock' }
/** @helia/bitswap's QueuedBitswapMessage shape (maps keyed by CID) */
export interface SendMessage {
  full?: boolean
  pendingBytes?: number
  wantlist: Map<string, SendEntry>
  blocks: Map<string, SendBlock>
  blockPresences: Map<string, SendPresence>
}

const varintLength = (n: number): number => { let len = 1; while (n >= 0x80) { n = Math.floor(n / 128); len++ } return len }

/** protobuf writer for the small parts of a message */
class Writer {
  private buf = new Uint8Array(256)
  pos = 0
  private ensure (n: number): void {
    if (this.pos + n <= this.buf.length) return
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.pos + n))
    next.set(this.buf.subarray(0, this.pos))
    this.buf = next
  }

  varint (n: number): this {
    this.ensure(10)
    if (n < 0) n += 2 ** 64 // int32 negatives are 10-byte varints
    while (n >= 0x80) { this.buf[this.pos++] = (n % 128) | 0x80; n = Math.floor(n / 128) }
    this.buf[this.pos++] = n
    return this
  }

  bytes (b: Uint8Array): this {
    this.varint(b.byteLength)
    this.ensure(b.byteLength)
    this.buf.set(b, this.pos)
    this.pos += b.byteLength
    return this
  }

  /** a length-delimited field holding what `fill` writes */
  field (tag: number, fill: (w: Writer) => void): this {
    const inner = new Writer()
    fill(inner)
    this.varint(tag)
    return this.bytes(inner.finish())
  }

  finish (): Uint8Array { return this.buf.subarray(0, this.pos) }
}

function entry (w: Writer, e: SendEntry): void {
  w.varint(10).bytes(e.cid)
  if (e.priority != null && e.priority !== 0) w.varint(16).varint(e.priority)
  if (e.cancel != null) w.varint(24).varint(e.cancel ? 1 : 0)
  if (e.wantType != null) w.varint(32).varint(e.wantType === 'WantHave' ? 1 : 0)
  if (e.sendDontHave != null) w.varint(40).varint(e.sendDontHave ? 1 : 0)
}

const entrySize = (e: SendEntry): number => e.cid.byteLength + 32
const blockHeader = (b: SendBlock): Uint8Array => {
  const w = new Writer()
  const prefix = b.prefix ?? new Uint8Array(0)
  const inner = 1 + varintLength(prefix.byteLength) + prefix.byteLength + 1 + varintLength(b.data.byteLength) + b.data.byteLength
  w.varint(26).varint(inner).varint(10).bytes(prefix).varint(18).varint(b.data.byteLength)
  return w.finish()
}

/**
 * The message as length-prefixed frames, each under `maxSize`: block bytes are views of the caller's
 * (the frames are lists of chunks), the wants and presences are encoded once.
 */
export function encodeMessage (msg: SendMessage, maxSize = MAX_MESSAGE_SIZE): Uint8ArrayList[] {
  const frames: Uint8ArrayList[] = []
  const entries = [...msg.wantlist.values()]
  const presences = [...msg.blockPresences.values()]
  const blocks = [...msg.blocks.values()]
  let e = 0
  let p = 0
  let b = 0
  let first = true
  while (first || e < entries.length || p < presences.length || b < blocks.length) {
    const before = e + p + b
    const body = new Uint8ArrayList()
    let size = 0
    // blocks first (the bulk), at least one per message
    const blockParts: Uint8Array[] = []
    while (b < blocks.length) {
      const head = blockHeader(blocks[b])
      const n = head.byteLength + blocks[b].data.byteLength
      if (blockParts.length > 0 && size + n > maxSize - 1024) break
      blockParts.push(head, blocks[b].data)
      size += n
      b++
    }
    const w = new Writer()
    const wantStart = e
    let budget = maxSize - 1024 - size
    while (e < entries.length && budget - entrySize(entries[e]) > 0) { budget -= entrySize(entries[e]); e++ }
    const presenceStart = p
    while (p < presences.length && budget - (presences[p].cid.byteLength + 8) > 0) { budget -= presences[p].cid.byteLength + 8; p++ }
    const done = e >= entries.length && b >= blocks.length && p >= presences.length
    if (e > wantStart || (first && msg.full === true)) {
      w.field(10, wl => {
        for (let i = wantStart; i < e; i++) wl.field(10, x => { entry(x, entries[i]) })
        // a list split over several messages is not the full list
        if (msg.full === true && first && done) wl.varint(16).varint(1)
      })
    }
    for (let i = presenceStart; i < p; i++) {
      const pr = presences[i]
      w.field(34, x => { x.varint(10).bytes(pr.cid); if (pr.type === 'DoNotHaveBlock') x.varint(16).varint(1) })
    }
    if (msg.pendingBytes != null && msg.pendingBytes !== 0) w.varint(40).varint(msg.pendingBytes)
    const small = w.finish()
    if (!first && e + p + b === before) throw new Error('bitswap message entry larger than the message limit')
    const total = size + small.byteLength
    const lp = new Writer().varint(total).finish()
    body.append(lp)
    if (small.byteLength > 0) body.append(small)
    for (const part of blockParts) body.append(part)
    frames.push(body)
    first = false
  }
  return frames
}

/** one kept stream and the sends on it, one after another */
interface Lane {
  stream?: Stream
  idle?: ReturnType<typeof setTimeout>
  tail: Promise<void>
  /** sends queued or running */
  queued: number
}

export class MessageSender {
  /** per peer: lane 0 carries every message without blocks (wants and cancels stay in order), blocks take the least busy lane */
  private readonly peers = new Map<string, Lane[]>()
  private running = true

  constructor (private readonly libp2p: Libp2p, private readonly protocol = BITSWAP_120, private readonly lanes = LANES) {}

  /** resolves once the message is handed to the stream (backpressure: waits for it to drain) */
  async send (peer: PeerId, msg: SendMessage, options: AbortOptions = {}): Promise<void> {
    if (!this.running) throw new Error('bitswap sender is stopped')
    const key = peer.toString()
    let lanes = this.peers.get(key)
    if (lanes == null) this.peers.set(key, lanes = Array.from({ length: Math.max(this.lanes, 1) }, () => ({ tail: Promise.resolve(), queued: 0 })))
    const lane = msg.blocks.size === 0 ? lanes[0] : lanes.reduce((a, b) => b.queued < a.queued ? b : a)
    const signal = options.signal ?? AbortSignal.timeout(SEND_TIMEOUT_MS)
    lane.queued++
    const run = lane.tail.then(async () => { await this.write(peer, lane, encodeMessage(msg), signal) })
    lane.tail = run.catch(() => {}).finally(() => { lane.queued-- })
    await run
  }

  private async open (peer: PeerId, s: Lane, signal: AbortSignal): Promise<Stream> {
    const stream = await this.libp2p.dialProtocol(peer, this.protocol, { signal })
    await stream.closeRead({ signal })
    s.stream = stream
    return stream
  }

  private async write (peer: PeerId, s: Lane, frames: Uint8ArrayList[], signal: AbortSignal): Promise<void> {
    clearTimeout(s.idle)
    let stream = s.stream
    const reused = stream != null && stream.status === 'open' && stream.writeStatus === 'writable'
    if (!reused) stream = await this.open(peer, s, signal)
    try {
      await this.frames(stream as Stream, frames, signal)
    } catch (err) {
      (stream as Stream).abort(err as Error)
      s.stream = undefined
      if (!reused || signal.aborted) throw err
      // the kept stream had died (reset by the peer): once more on a new one
      stream = await this.open(peer, s, signal)
      try {
        await this.frames(stream, frames, signal)
      } catch (err2) {
        stream.abort(err2 as Error)
        s.stream = undefined
        throw err2
      }
    }
    const used = s.stream
    s.idle = setTimeout(() => {
      if (s.stream !== used || used == null) return
      s.stream = undefined
      used.close().catch((err: Error) => { used.abort(err) })
    }, IDLE_MS)
    s.idle.unref?.()
  }

  private async frames (stream: Stream, frames: Uint8ArrayList[], signal: AbortSignal): Promise<void> {
    for (const frame of frames) {
      if (!stream.send(frame as unknown as Parameters<Stream['send']>[0])) await stream.onDrain({ signal })
    }
  }

  /** the peer is gone: forget its stream */
  disconnected (peer: PeerId): void {
    for (const lane of this.peers.get(peer.toString()) ?? []) clearTimeout(lane.idle)
    this.peers.delete(peer.toString())
  }

  stop (): void {
    this.running = false
    for (const lanes of this.peers.values()) {
      for (const lane of lanes) {
        clearTimeout(lane.idle)
        lane.stream?.abort(new Error('bitswap stopped'))
      }
    }
    this.peers.clear()
  }
}
