// Serving a peer's wants, in place of @helia/bitswap's Ledger.sendBlocksToPeer (4.0.19), which reads every
// wanted block (has, then get copied into one buffer) before sending anything, then sends them all: a
// peer wanting 32 MiB waited for 32 MiB of reads. Here the blocks go in messages of up to BATCH_BYTES
// while the next ones are read (a few messages in flight, one per sending stream), read once, as stored. The want states, the
// do-not-resend window and the DONT_HAVE answers are the ledger's, as @helia/bitswap keeps them.
import type { AbortOptions, PeerId } from '@libp2p/interface'
import type { CID } from 'multiformats/cid'
import { isNotFound } from '../blockstore/index.js'
import type { SendMessage } from './sender.js'

/** a message's worth of blocks (under the 4 MiB limit with one more 256 KiB block) */
const BATCH_BYTES = 3 * 1024 * 1024

export interface ServedWant {
  cid: CID
  status: string
  wantType: string
  sendDontHave?: boolean
  sentDoNotHave?: boolean
  haveBlock?: boolean
  expires?: number
}

/** the parts of @helia/bitswap's Ledger that serving uses */
export interface ServingLedger {
  peerId: PeerId
  wants: Map<string, ServedWant>
  doNotResendBlockWindow: number
  maxSizeReplaceHasWithBlock: number
  removeExpiredWants: () => void
  sentBytes: (n: number) => void
}

export interface ServeDeps {
  /** a stored block (NotFoundError when missing) */
  read: (cid: CID, options?: AbortOptions) => Promise<Uint8Array>
  send: (peer: PeerId, msg: SendMessage, options?: AbortOptions) => Promise<void>
  /** messages in flight at once (default 1) */
  window?: number
}

/** the block prefix: version, codec, hash function, digest length (varints) */
export function cidPrefix (cid: CID): Uint8Array {
  const out: number[] = []
  for (let n of [cid.version, cid.code, cid.multihash.code, cid.multihash.digest.byteLength]) {
    while (n >= 0x80) { out.push((n % 128) | 0x80); n = Math.floor(n / 128) }
    out.push(n)
  }
  return Uint8Array.from(out)
}

const empty = (): SendMessage => ({ full: false, pendingBytes: 0, wantlist: new Map(), blocks: new Map(), blockPresences: new Map() })

/**
 * Sends what the peer wants and we have (or DONT_HAVE when asked for), a few messages in flight while reading the
 * next blocks. Wants that come meanwhile are served in the same pass, behind the messages in flight: waiting for
 * those to drain first left the connection idle for a round trip per batch of wants (the peer asks as it reads).
 */
export async function serveWants (ledger: ServingLedger, deps: ServeDeps, options: AbortOptions = {}): Promise<void> {
  let msg = empty()
  let bytes = 0
  const inflight: Array<Promise<void>> = []
  /** messages sent and not yet handed to the stream */
  let pending = 0
  const flush = async (): Promise<void> => {
    if (msg.blocks.size === 0 && msg.blockPresences.size === 0) return
    const m = msg
    const n = bytes
    msg = empty()
    bytes = 0
    // at most `window` messages in flight: the next waits for the oldest (backpressure)
    if (inflight.length >= (deps.window ?? 1)) await inflight.shift()
    const sent = deps.send(ledger.peerId, m, options).then(() => { ledger.sentBytes(n) })
    sent.catch(() => {}).finally(() => { pending-- })
    pending++
    inflight.push(sent)
  }
  // the first pass looks again at wants we had not got; later ones only at new wants
  let first = true
  for (;;) {
    ledger.removeExpiredWants()
    const unsent = [...ledger.wants.entries()].filter(([, w]) => w.status === 'want' && (first || w.haveBlock !== false))
    first = false
    if (unsent.length === 0) break
    for (const [, w] of unsent) w.status = 'sending'
    try {
      for (const [key, want] of unsent) {
        let block: Uint8Array
        try {
          block = await deps.read(want.cid, options)
        } catch (err) {
          if (!isNotFound(err)) throw err
          // asked again later (the ledger keeps it), DONT_HAVE once when the peer wants to know
          want.status = 'want'
          want.haveBlock = false
          if (want.sendDontHave === true && want.sentDoNotHave !== true) {
            want.sentDoNotHave = true
            msg.blockPresences.set(key, { cid: want.cid.bytes, type: 'DoNotHaveBlock' })
          }
          continue
        }
        // a cancel (or a new want) came while reading
        if (want.status !== 'sending') continue
        if (want.wantType === 'WantHave' && block.byteLength >= ledger.maxSizeReplaceHasWithBlock) {
          msg.blockPresences.set(key, { cid: want.cid.bytes, type: 'HaveBlock' })
        } else {
          msg.blocks.set(key, { data: block, prefix: cidPrefix(want.cid) })
          bytes += block.byteLength
        }
        want.status = 'sent'
        want.expires = Date.now() + ledger.doNotResendBlockWindow
        if (bytes >= BATCH_BYTES) await flush()
      }
    } finally {
      // wants not reached (an error) can be served by the next round
      for (const [, w] of unsent) if (w.status === 'sending') w.status = 'want'
    }
    if (options.signal?.aborted === true) break
    // a room in the window: what was read goes now (else it fills up with the next wants' blocks)
    if (pending < (deps.window ?? 1)) await flush()
  }
  await flush()
  await Promise.all(inflight)
}
