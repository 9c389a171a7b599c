// Block exchange over libp2p: @helia/bitswap on the node's host (Kubo's online exchange).
// While started it is the NodeBlockstore's network side:
// - fetcher: a read of a missing block wants it from peers until the caller's signal aborts (no signal:
//   forever, as Kubo), through our client (client.ts, over @helia/bitswap's network layer); the bytes
//   are checked against the CID's multihash and written to the local store;
// - announcer: every block put into the store is offered to peers that want it (and wakes local wants).
// Serving peers reads the local store only (no fetching on their behalf); Bitswap.ServerEnabled=false
// serves nothing and Bitswap.Libp2pEnabled=false leaves the node without an exchange (core/container.ts).
import { withBitswap, type Bitswap, type BitswapComponents, type BitswapOptions } from '@helia/bitswap'
import type { AbortOptions, Libp2p, PeerId } from '@libp2p/interface'
import type { Blockstore } from 'interface-blockstore'
import type { CID } from 'multiformats/cid'
import type { Logger } from '../logger/index.js'
import { hashByCode } from '../hashes.js'
import { getBlock, offlineNotFound, type NodeBlockstore } from '../blockstore/index.js'
import type { Startable } from '../lifecycle.js'
import { libp2pRouting } from './routing.js'
import { BitswapClient, type BitswapNetwork } from './client.js'
import { LANES, MessageSender, type SendMessage } from './sender.js'
import { readStream } from './receiver.js'
import { serveWants, type ServeDeps, type ServingLedger } from './serve.js'
import { BitswapStats, instrument, type BitswapCounters, type BitswapInternals, type LedgerOutput } from './stats.js'

export { libp2pRouting, type Routing } from './routing.js'
export { BitswapStats, type BitswapCounters, type LedgerOutput } from './stats.js'

type Hasher = Awaited<ReturnType<BitswapComponents['getHasher']>>

export interface BitswapDeps {
  libp2p: Libp2p
  /** the node's store: fetches for it go through this exchange, its puts are announced */
  blockstore: NodeBlockstore
  /** warnings (a peer sending bytes that do not match the CID) */
  logger?: Logger
}

export interface BitswapInit extends BitswapOptions {
  /** false: never send blocks to peers (Kubo Bitswap.ServerEnabled) */
  serverEnabled?: boolean
}

export interface BlockExchange extends Startable {
  /** a block from the network, verified and stored locally */
  want: (cid: CID, options?: AbortOptions) => Promise<Uint8Array>
  /** a new local block: send it to peers that want it */
  notify: (cid: CID) => void
  /** our wants (Kubo `bitswap wantlist`) */
  wantlist: () => CID[]
  /** what a peer wants from us, if we track it (Kubo `bitswap wantlist --peer`) */
  peerWantlist: (peer: PeerId) => CID[] | undefined
  isStarted: () => boolean
  /** Kubo's counters (bitswap stat) */
  counters: () => BitswapCounters
  /** peers with wants on us (Kubo's partners) */
  partners: () => PeerId[]
  /** Kubo's ledger for a peer (zeros for a stranger) */
  ledger: (peer: PeerId) => LedgerOutput
  /** when a block was last received or sent (ms since the epoch, 0 before one) */
  lastTransfer: () => number
}

/** BlockBroker's methods that we use (the broker class itself is not exported by @helia/bitswap) */
interface Broker {
  retrieve: (cid: CID, options?: AbortOptions) => Promise<Uint8Array>
  announce: (cid: CID) => Promise<void>
  start: () => Promise<void>
  stop: () => Promise<void>
}

const hashers = new Map<number, Hasher>()

/** Helia's HasherLoader over core/hashes: every multihash function we support. */
export function getHasher (code: number): Hasher {
  const known = hashers.get(code)
  if (known != null) return known
  const fn = hashByCode(code)
  if (fn == null) throw new Error(`unsupported multihash function 0x${code.toString(16)}`)
  const hasher: Hasher = {
    name: fn.name,
    code: fn.code,
    digest: (input, options) => fn.digest(input, options?.truncate ?? -1),
    encode: (input) => new Uint8Array(fn.digest(input).digest)
  }
  hashers.set(code, hasher)
  return hasher
}

/** The multihash of bytes with function `code` and digest length `size` (undefined: unsupported or bad length). */
export function multihashOf (code: number, bytes: Uint8Array, size: number): Uint8Array | undefined {
  const fn = hashByCode(code)
  if (fn == null) return undefined
  try {
    return fn.digest(bytes, size).bytes
  } catch {
    return undefined
  }
}

/**
 * @helia/bitswap sends a peer's blocks one batch at a time and drops the send a message asks for when
 * 10 are queued, so wants that came meanwhile waited for the peer's next message (a stall of seconds
 * when the peer had sent its whole list): after each batch, the wants that came meanwhile go at once.
 * The batches are ours (serve.ts).
 */
function serveLedger (ledger: ServingLedger, deps: ServeDeps): void {
  const own = ledger as ServingLedger & { sendBlocksToPeer: (options?: AbortOptions) => Promise<void> }
  if (served.has(ledger)) return
  served.add(ledger)
  const waiting = (): boolean => [...ledger.wants.values()].some(w => w.status === 'want' && w.haveBlock !== false)
  own.sendBlocksToPeer = async (options) => {
    do await serveWants(ledger, deps, options)
    while (waiting() && options?.signal?.aborted !== true)
  }
}

const served = new WeakSet<object>()

/**
 * What a peer still wants from us (boxo's ledger): @helia/bitswap keeps a served want as 'sent' for its
 * do-not-resend window, boxo drops it once answered, so a peer served in full is no partner (Kubo's
 * `bitswap stat` Peers, `bitswap wantlist --peer`).
 */
function openWants (internals: BitswapInternals, peer: PeerId): CID[] {
  const ledger = internals.peerWantLists.ledgerMap.get(peer)
  if (ledger == null) return []
  ledger.removeExpiredWants()
  return [...ledger.wants.values()].filter(w => w.status !== 'sent').map(w => w.cid)
}

/** Serves nothing: the exchange's view of the store with Bitswap.ServerEnabled=false. */
const NOTHING: Pick<Blockstore, 'has' | 'get'> = {
  has: async () => false,
  // eslint-disable-next-line require-yield
  get: async function * (cid: CID) { throw offlineNotFound(cid) }
}

export function createBitswap (deps: BitswapDeps, init: BitswapInit = {}): BlockExchange {
  const { libp2p, blockstore, logger } = deps
  const { serverEnabled = true, ...options } = init
  /** the store without the network: what we serve and where arrivals are checked */
  const local = blockstore.offline()
  let broker: Broker | undefined
  let client: BitswapClient | undefined
  let sender: MessageSender | undefined

  const inner = (): Bitswap | undefined => (broker as unknown as { bitswap?: Bitswap } | undefined)?.bitswap
  /** counters live as long as the node (a restart of the exchange keeps them) */
  const stats = new BitswapStats()

  const notify = (cid: CID): void => {
    client?.arrived(cid)
    broker?.announce(cid).catch(() => {})
  }

  const want = async (cid: CID, opts: AbortOptions = {}): Promise<Uint8Array> => {
    const signal = opts.signal
    signal?.throwIfAborted()
    const c = client
    if (c == null) throw offlineNotFound(cid)
    if (await local.has(cid)) return await getBlock(local, cid, { signal })
    try {
      return await c.want(cid, { signal })
    } catch (err) {
      if (signal?.aborted === true) throw signal.reason
      if (client !== c) throw offlineNotFound(cid)
      throw err
    }
  }

  return {
    want,
    notify,
    wantlist: () => client?.wantlist() ?? [],
    peerWantlist: (peer) => {
      const internals = inner() as unknown as BitswapInternals | undefined
      if (internals == null || internals.peerWantLists.wantListForPeer(peer) == null) return undefined
      return openWants(internals, peer)
    },
    isStarted: () => broker != null,
    counters: () => ({ ...stats.counters }),
    partners: () => {
      const internals = inner() as unknown as BitswapInternals | undefined
      if (internals == null) return []
      return internals.peerWantLists.peers().filter(p => openWants(internals, p).length > 0)
    },
    ledger: (peer) => stats.ledger(peer),
    lastTransfer: () => stats.lastBlockAt,
    async start () {
      if (broker != null) return
      // @helia/bitswap exports its broker only as a Helia mixin: give it a host with our components
      let mixin: { start?: (helia: unknown) => Promise<void> | void } | undefined
      let created: Broker | undefined
      const host = {
        status: 'starting',
        libp2p,
        blockstore: serverEnabled ? local : NOTHING,
        routing: libp2pRouting(libp2p),
        logger: libp2p.logger,
        getHasher,
        hasBlockBroker: () => false,
        addBlockBroker: (b: Broker) => { created = b },
        addMixin: (m: typeof mixin) => { mixin = m }
      }
      withBitswap(host as unknown as Parameters<typeof withBitswap>[0], options)
      await mixin?.start?.(host) // builds and starts the broker
      if (created == null) throw new Error('bitswap did not start')
      broker = created
      const internals = inner() as unknown as BitswapInternals
      // our sender (sender.ts) for the client's wants and the served blocks alike
      const s = sender = new MessageSender(libp2p)
      const net = internals.network as unknown as { sendMessage: (peer: PeerId, msg: SendMessage, options?: AbortOptions) => Promise<void>, addEventListener: (type: 'peer:disconnected', fn: (evt: CustomEvent<PeerId>) => void) => void }
      net.sendMessage = async (peer, msg, opts) => { await s.send(peer, msg, opts) }
      net.addEventListener('peer:disconnected', (evt: CustomEvent<PeerId>) => { s.disconnected(evt.detail) })
      // our reader of inbound streams (receiver.ts) in place of the network's, with its limits
      const inbound = internals.network as unknown as {
        running: boolean, protocols: string[], maxInboundStreams: number, maxOutboundStreams: number, runOnLimitedConnections: boolean,
        maxIncomingMessageSize: number, messageReceiveTimeout: number, safeDispatchEvent: (type: string, init: { detail: unknown }) => void
      }
      for (const protocol of inbound.protocols) {
        await libp2p.handle(protocol, (stream, connection) => {
          if (!inbound.running) return
          readStream(stream, {
            maxSize: inbound.maxIncomingMessageSize,
            timeoutMs: inbound.messageReceiveTimeout,
            onMessage: (message) => { inbound.safeDispatchEvent('bitswap:message', { detail: { peer: connection.remotePeer, message, connection } }) }
          })
        }, { maxInboundStreams: inbound.maxInboundStreams, maxOutboundStreams: inbound.maxOutboundStreams, runOnLimitedConnection: inbound.runOnLimitedConnections, force: true })
      }
      instrument(internals, stats)
      // our client replaces @helia/bitswap's want list (see client.ts): it no longer reads messages
      internals.wantList.receiveMessage = async () => {}
      internals.wantList.peerConnected = async () => {}
      // serving: a want that comes again after the do-not-resend window (our client asks again when a
      // reply was lost) finds its old entry gone, so the block is sent again (@helia/bitswap only drops
      // expired entries after reading the new wants, so the new want was swallowed)
      const wants = internals.peerWantLists
      const serving: ServeDeps = {
        read: async (cid, opts) => serverEnabled ? await getBlock(local, cid, opts) : await Promise.reject(offlineNotFound(cid)),
        send: async (peer, msg, opts) => { await internals.network.sendMessage(peer, msg as never, opts) },
        window: LANES
      }
      const receive = wants.receiveMessage.bind(wants)
      wants.receiveMessage = (peer, message) => {
        const known = wants.ledgerMap.get(peer)
        // a message without wants (blocks, presences: Kubo sends each block in its own) changes nothing
        // served; @helia/bitswap queued a send job for each (a queue job and its error objects per block)
        const list = (message as { wantlist?: { full?: boolean, entries?: unknown[] } }).wantlist
        if (known != null && list?.full !== true && (list?.entries?.length ?? 0) === 0) return
        known?.removeExpiredWants()
        receive(peer, message)
        const ledger = wants.ledgerMap.get(peer)
        if (ledger != null) serveLedger(ledger as unknown as ServingLedger, serving)
      }
      client = new BitswapClient({
        network: internals.network as unknown as BitswapNetwork,
        hash: multihashOf,
        store: async (cid, bytes) => { await blockstore.put(cid, bytes) },
        local: async (cid) => await getBlock(local, cid),
        stats,
        warn: (msg) => logger?.warn(msg),
        peers: libp2p.getConnections().map(c => c.remotePeer)
      })
      blockstore.setFetcher(want)
      blockstore.setAnnouncer(notify)
    },
    async stop () {
      if (broker == null) return
      blockstore.setFetcher(undefined)
      blockstore.setAnnouncer(undefined)
      const c = client
      client = undefined
      c?.stop()
      const b = broker
      broker = undefined
      sender?.stop()
      sender = undefined
      await b.stop()
    }
  }
}
