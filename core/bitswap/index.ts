// Block exchange over libp2p: @helia/bitswap on the node's host (Kubo's online exchange).
// While started it is the NodeBlockstore's network side:
// - fetcher: a read of a missing block wants it from peers until the caller's signal aborts (no signal:
//   forever, as Kubo); the bytes are checked against the CID's multihash and written to the local store;
// - announcer: every block put into the store is offered to peers that want it (and wakes local wants).
// Serving peers reads the local store only (no fetching on their behalf); Bitswap.ServerEnabled=false
// serves nothing and Bitswap.Libp2pEnabled=false leaves the node without an exchange (core/container.ts).
import { withBitswap, type Bitswap, type BitswapComponents, type BitswapOptions, type WantListEntry } from '@helia/bitswap'
import type { AbortOptions, Libp2p, PeerId } from '@libp2p/interface'
import type { Blockstore } from 'interface-blockstore'
import type { CID } from 'multiformats/cid'
import type { Logger } from 'winston'
import { hashByCode } from '../hashes.js'
import { getBlock, offlineNotFound, type NodeBlockstore } from '../blockstore/index.js'
import type { Startable } from '../lifecycle.js'
import { libp2pRouting } from './routing.js'
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

/** Do these bytes hash to the CID's multihash (function, length and digest)? */
export function matchesCid (cid: CID, bytes: Uint8Array): boolean {
  const fn = hashByCode(cid.multihash.code)
  if (fn == null) return false
  try {
    return Buffer.from(fn.digest(bytes, cid.multihash.size).bytes).equals(cid.multihash.bytes)
  } catch {
    return false
  }
}

/** Serves nothing: the exchange's view of the store with Bitswap.ServerEnabled=false. */
const NOTHING: Pick<Blockstore, 'has' | 'get'> = {
  has: async () => false,
  // eslint-disable-next-line require-yield
  get: async function * (cid: CID) { throw offlineNotFound(cid) }
}

const keyOf = (cid: CID): string => Buffer.from(cid.multihash.bytes).toString('base64')

export function createBitswap (deps: BitswapDeps, init: BitswapInit = {}): BlockExchange {
  const { libp2p, blockstore, logger } = deps
  const { serverEnabled = true, ...options } = init
  /** the store without the network: what we serve and where arrivals are checked */
  const local = blockstore.offline()
  let broker: Broker | undefined
  let running: AbortController | undefined
  /** local wants waiting for a block by multihash: woken when the block is put locally */
  const arrivals = new Map<string, Set<() => void>>()

  const inner = (): Bitswap | undefined => (broker as unknown as { bitswap?: Bitswap } | undefined)?.bitswap
  /** counters live as long as the node (a restart of the exchange keeps them) */
  const stats = new BitswapStats()

  const notify = (cid: CID): void => {
    if (arrivals.size > 0) {
      const waiters = arrivals.get(keyOf(cid))
      if (waiters != null) for (const wake of waiters) wake()
    }
    broker?.announce(cid).catch(() => {})
  }

  const want = async (cid: CID, opts: AbortOptions = {}): Promise<Uint8Array> => {
    const signal = opts.signal
    signal?.throwIfAborted()
    if (broker == null || running == null) throw offlineNotFound(cid)
    const b = broker
    const stopped = running.signal
    // a put of the same block (another request, or a peer's push) ends the want as well
    const key = keyOf(cid)
    const arrived = new AbortController()
    const wake = (): void => { arrived.abort() }
    let waiters = arrivals.get(key)
    if (waiters == null) arrivals.set(key, waiters = new Set())
    waiters.add(wake)
    const any = AbortSignal.any(signal != null ? [signal, stopped, arrived.signal] : [stopped, arrived.signal])
    try {
      if (await local.has(cid)) arrived.abort()
      while (!any.aborted) {
        let bytes: Uint8Array
        try {
          bytes = await b.retrieve(cid, { signal: any })
        } catch (err) {
          if (any.aborted) break
          throw err
        }
        if (!matchesCid(cid, bytes)) {
          logger?.warn(`bitswap: a peer sent a block that does not hash to ${cid.toString()}`)
          continue
        }
        await blockstore.put(cid, bytes, { signal })
        return bytes
      }
      if (signal?.aborted === true) throw signal.reason
      if (arrived.signal.aborted) return await getBlock(local, cid, { signal })
      throw offlineNotFound(cid)
    } finally {
      waiters.delete(wake)
      if (waiters.size === 0 && arrivals.get(key) === waiters) arrivals.delete(key)
    }
  }

  return {
    want,
    notify,
    wantlist: () => inner()?.getWantlist().map((e: WantListEntry) => e.cid) ?? [],
    peerWantlist: (peer) => inner()?.getPeerWantlist(peer)?.map(e => e.cid),
    isStarted: () => broker != null,
    counters: () => ({ ...stats.counters }),
    partners: () => {
      const internals = inner() as unknown as BitswapInternals | undefined
      if (internals == null) return []
      return internals.peerWantLists.peers().filter(p => (internals.peerWantLists.wantListForPeer(p)?.length ?? 0) > 0)
    },
    ledger: (peer) => stats.ledger(peer),
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
      const internals = inner() as unknown as BitswapInternals | undefined
      if (internals != null) instrument(internals, stats)
      running = new AbortController()
      blockstore.setFetcher(want)
      blockstore.setAnnouncer(notify)
    },
    async stop () {
      if (broker == null) return
      blockstore.setFetcher(undefined)
      blockstore.setAnnouncer(undefined)
      running?.abort()
      const b = broker
      broker = undefined
      running = undefined
      await b.stop()
    }
  }
}
