// The provide system (Kubo's provider, config Provide.*): what the node stores is announced to the
// routing system per Provide.Strategy and re-announced every Provide.DHT.Interval.
// - "all": every block put into the node's store (added, imported, fetched);
// - "pinned": every block of a DAG when it is pinned recursively, a directly pinned block;
// - "roots": only the pinned roots; "mfs": the blocks under the MFS root (checked after writes);
// - combinations with "+" ("pinned+mfs"); "unique"/"entities" modifiers are accepted (dedup is always on).
// New CIDs wait in the provide queue (`provide clear` empties it) and are announced by up to
// Provide.DHT.MaxWorkers workers while the node has peers; the reprovide cycle walks the strategy's
// set again. `provide stat` reports the queue, schedule, workers and counters in Kubo's sweep shape.
import type { Libp2p } from '@libp2p/interface'
import type { CID } from 'multiformats/cid'
import type { Logger } from '../logger/index.js'
import type { ConfigStore } from '../config/index.js'
import type { NodeBlockstore } from '../blockstore/index.js'
import type { Pins } from '../pins/index.js'
import { CidSet, walkDag } from '../pins/walk.js'
import type { Routing } from '../routing/index.js'
import type { Startable } from '../lifecycle.js'
import { parseGoDuration } from '../config/units.js'
import { emptyStats, type SweepStats } from './stats.js'

export { type SweepStats } from './stats.js'

export const STRATEGY_ALL = 1
export const STRATEGY_PINNED = 2
export const STRATEGY_ROOTS = 4
export const STRATEGY_MFS = 8
const STRATEGY_UNIQUE = 16
const STRATEGY_ENTITIES = 32

/** Kubo's ParseProvideStrategy (config/provide.go), same errors. */
export function parseProvideStrategy (s: string): number {
  let strategy = 0
  for (const part of s.split('+')) {
    switch (part) {
      case 'all': case 'flat': strategy |= STRATEGY_ALL; break
      case '':
        if (s !== '') throw new Error(`invalid provide strategy: empty token in "${s}"`)
        strategy |= STRATEGY_ALL
        break
      case 'pinned': strategy |= STRATEGY_PINNED; break
      case 'roots': strategy |= STRATEGY_ROOTS; break
      case 'mfs': strategy |= STRATEGY_MFS; break
      case 'unique': strategy |= STRATEGY_UNIQUE; break
      case 'entities': strategy |= STRATEGY_ENTITIES | STRATEGY_UNIQUE; break
      default: throw new Error(`unknown provide strategy token: "${part}" in "${s}"`)
    }
  }
  if ((strategy & STRATEGY_ALL) !== 0 && strategy !== STRATEGY_ALL) throw new Error(`"all" strategy cannot be combined with other strategies in "${s}"`)
  return strategy
}

/** Kubo's ShouldProvideForStrategy (fast-provide-root). */
export function shouldProvide (strategy: number, what: { pinned?: boolean, pinnedRoot?: boolean, mfs?: boolean }): boolean {
  if ((strategy & STRATEGY_ALL) !== 0) return true
  return ((strategy & STRATEGY_PINNED) !== 0 && what.pinned === true) ||
    ((strategy & STRATEGY_ROOTS) !== 0 && what.pinnedRoot === true) ||
    ((strategy & STRATEGY_MFS) !== 0 && what.mfs === true)
}

export interface ProviderDeps {
  libp2p: Libp2p
  routing: Routing
  /** the node's store: puts are watched ("all"); walks read its offline view */
  blockstore: NodeBlockstore
  pins: Pins
  config: ConfigStore
  /** the MFS root, when the files family is loaded */
  mfsRoot?: () => Promise<CID | undefined>
  /** when bitswap last moved a block (ms since the epoch): announcements wait while blocks flow */
  lastTransfer?: () => number
  logger?: Logger
}

/** announcements wait until bitswap moved no block for this long (a transfer runs at full speed) */
export const PROVIDE_QUIET_MS = 1000
/** ... but no longer than this: then one worker announces while the transfer goes on */
export const PROVIDE_MAX_DEFER_MS = 30_000

export interface Provider extends Startable {
  /** Provide.Enabled */
  readonly enabled: boolean
  /** the parsed Provide.Strategy */
  readonly strategy: number
  /** announce now, outside the schedule (fast-provide-root, provide once); resolves when done */
  provideNow: (cid: CID, options?: { signal?: AbortSignal }) => Promise<void>
  /** queue CIDs for a first announcement and keep them in the reprovide schedule */
  enqueue: (cids: Iterable<CID>) => void
  /** `provide clear`: drop the queue; returns how many were dropped */
  clear: () => number
  /** run a reprovide cycle now (tests, legacy `routing reprovide`) */
  reprovide: () => Promise<void>
  /** Kubo's sweep provider stats */
  stat: () => SweepStats
  /** the CIDs announced at least once (tests) */
  provided: (cid: CID) => boolean
}

const ns = (ms: number): number => Math.round(ms * 1e6)

/** Provide.DHT.Interval in ms (default 22h, 0 disables reproviding). */
export function provideInterval (config: ConfigStore): number {
  const v = config.getKey('Provide.DHT.Interval')
  if (typeof v !== 'string' || v === '') return 22 * 3600_000
  return Number(parseGoDuration(v) / 1_000_000n)
}

export function createProvider (deps: ProviderDeps): Provider {
  const { libp2p, routing, blockstore, pins, config, logger } = deps
  const enabled = config.getKey('Provide.Enabled') !== false
  const strategyText = config.getKey('Provide.Strategy')
  const strategy = parseProvideStrategy(typeof strategyText === 'string' ? strategyText : 'all')
  const maxWorkersCfg = config.getKey('Provide.DHT.MaxWorkers')
  const maxWorkers = typeof maxWorkersCfg === 'number' && maxWorkersCfg > 0 ? maxWorkersCfg : 16
  const interval = provideInterval(config)
  const local = blockstore.offline()

  /** CIDs waiting for their first announcement, in arrival order */
  const queue = new Map<string, CID>()
  /** the reprovide schedule (Kubo's keystore) */
  const scheduled = new CidSet()
  let scheduledCount = 0
  const announced = new CidSet()
  let active = 0
  let activeReprovides = 0
  let running: AbortController | undefined
  let timer: NodeJS.Timeout | undefined
  let mfsTimer: NodeJS.Timeout | undefined
  let startedAt = Date.now()
  let cycleStart = 0
  let online = false
  let onlineSince = 0
  let lastMfsRoot: string | undefined
  /** since when queued announcements have been waiting for bitswap to go quiet (0: not waiting) */
  let deferredSince = 0
  let resumeTimer: NodeJS.Timeout | undefined
  const past = { records: 0, keys: 0, failed: 0, reprovided: 0, provideMs: 0, reprovideMs: 0, lastCycleKeys: 0, cycles: 0 }
  const unsubscribe: Array<() => void> = []

  const connected = (): boolean => libp2p.getConnections().length > 0

  /** ms until bitswap has been quiet for PROVIDE_QUIET_MS (0: quiet now) */
  const busyFor = (): number => {
    const last = deps.lastTransfer?.() ?? 0
    return last === 0 ? 0 : Math.max(0, last + PROVIDE_QUIET_MS - Date.now())
  }

  /** workers allowed now: all while bitswap is quiet, none while blocks flow (one after PROVIDE_MAX_DEFER_MS) */
  function allowedWorkers (): number {
    const wait = busyFor()
    if (wait === 0) { deferredSince = 0; return maxWorkers }
    const now = Date.now()
    if (deferredSince === 0) deferredSince = now
    if (resumeTimer == null) {
      resumeTimer = setTimeout(() => { resumeTimer = undefined; pump() }, Math.min(Math.max(wait, 50), PROVIDE_QUIET_MS))
      resumeTimer.unref()
    }
    return now - deferredSince >= PROVIDE_MAX_DEFER_MS ? 1 : 0
  }

  /** a reprovide cycle waits like the queue does */
  async function quiet (signal: AbortSignal): Promise<void> {
    const start = Date.now()
    for (let wait = busyFor(); wait > 0 && !signal.aborted && Date.now() - start < PROVIDE_MAX_DEFER_MS; wait = busyFor()) {
      await new Promise(resolve => setTimeout(resolve, Math.min(Math.max(wait, 50), PROVIDE_QUIET_MS)).unref())
    }
  }

  const schedule = (cid: CID): boolean => {
    if (scheduled.has(cid)) return false
    scheduled.add(cid)
    scheduledCount++
    return true
  }

  async function announce (cid: CID, signal?: AbortSignal): Promise<void> {
    const t0 = Date.now()
    try {
      for await (const _ of routing.provide(cid, { signal, onRecord: () => { past.records++ } })) { /* drained */ }
      announced.add(cid)
      past.keys++
      past.provideMs += Date.now() - t0
    } catch (err) {
      past.failed++
      throw err
    }
  }

  function pump (): void {
    const signal = running?.signal
    if (signal == null || signal.aborted) return
    online = connected()
    if (online && onlineSince === 0) onlineSince = Date.now()
    if (!online) { onlineSince = 0; return }
    if (queue.size === 0) return
    const workers = allowedWorkers()
    while (active < workers && queue.size > 0) {
      const [key, cid] = queue.entries().next().value as [string, CID]
      queue.delete(key)
      active++
      announce(cid, signal)
        .catch((err) => { logger?.debug(`provide ${cid.toString()}: ${(err as Error).message}`) })
        .finally(() => { active--; pump() })
    }
  }

  const enqueue = (cids: Iterable<CID>): void => {
    if (!enabled) return
    for (const cid of cids) {
      if (!schedule(cid) && announced.has(cid)) continue
      queue.set(CidSet.key(cid), cid)
    }
    pump()
  }

  /** the blocks of a DAG in the local store; subtrees already scheduled are not walked again */
  async function dagBlocks (root: CID, signal?: AbortSignal): Promise<CID[]> {
    const out: CID[] = []
    const seen = new CidSet()
    await walkDag(local, root, {
      signal,
      visit: (c) => {
        if (!seen.visit(c)) return false
        if (scheduled.has(c) && !c.equals(root)) return false
        out.push(c)
        return true
      }
    }).catch((err) => { logger?.debug(`provide: walking ${root.toString()}: ${(err as Error).message}`) })
    return out
  }

  async function pinnedSet (signal?: AbortSignal): Promise<CID[]> {
    const out: CID[] = []
    for await (const c of pins.recursiveKeys()) {
      if ((strategy & STRATEGY_PINNED) !== 0) out.push(...await dagBlocks(c, signal))
      else out.push(c)
    }
    for await (const c of pins.directKeys()) out.push(c)
    return out
  }

  async function mfsSet (signal?: AbortSignal): Promise<CID[]> {
    const root = await deps.mfsRoot?.().catch(() => undefined)
    if (root == null) return []
    lastMfsRoot = root.toString()
    return await dagBlocks(root, signal)
  }

  /** everything the strategy announces (Kubo's KeyChanFunc) */
  async function strategySet (signal?: AbortSignal): Promise<CID[]> {
    if ((strategy & STRATEGY_ALL) !== 0) {
      const out: CID[] = []
      for await (const { cid } of blockstore.getAll({ signal })) out.push(cid)
      return out
    }
    const out: CID[] = []
    if ((strategy & (STRATEGY_PINNED | STRATEGY_ROOTS)) !== 0) out.push(...await pinnedSet(signal))
    if ((strategy & STRATEGY_MFS) !== 0) out.push(...await mfsSet(signal))
    return out
  }

  async function reprovide (): Promise<void> {
    if (!enabled || running == null) return
    const signal = running.signal
    cycleStart = Date.now()
    const t0 = Date.now()
    const keys = await strategySet(signal)
    let n = 0
    activeReprovides = keys.length
    for (const cid of keys) {
      schedule(cid)
      await quiet(signal)
      if (signal.aborted || !connected()) break
      await announce(cid, signal).then(() => { n++; past.reprovided++ }, () => {})
      activeReprovides--
    }
    activeReprovides = 0
    past.lastCycleKeys = n
    past.cycles++
    past.reprovideMs = Date.now() - t0
  }

  /** after MFS writes: schedule blocks under a new MFS root (debounced) */
  const mfsChanged = (): void => {
    if (mfsTimer != null || running == null) return
    mfsTimer = setTimeout(() => {
      mfsTimer = undefined
      deps.mfsRoot?.().then(async (root) => {
        if (root == null || root.toString() === lastMfsRoot) return
        lastMfsRoot = root.toString()
        enqueue(await dagBlocks(root, running?.signal))
      }).catch(() => {})
    }, 1000)
    mfsTimer.unref()
  }

  return {
    enabled,
    strategy,
    enqueue,
    clear () {
      const n = queue.size
      queue.clear()
      return n
    },
    reprovide,
    provided: (cid) => announced.has(cid),
    async provideNow (cid, options = {}) {
      if (!enabled) return
      schedule(cid)
      await announce(cid, options.signal)
    },
    start () {
      if (running != null) return
      running = new AbortController()
      startedAt = Date.now()
      cycleStart = startedAt
      if (!enabled) return
      if ((strategy & STRATEGY_ALL) !== 0) {
        unsubscribe.push(blockstore.onPut((cid) => { enqueue([cid]) }))
      } else if ((strategy & STRATEGY_MFS) !== 0) {
        unsubscribe.push(blockstore.onPut(() => { mfsChanged() }))
      }
      if ((strategy & (STRATEGY_PINNED | STRATEGY_ROOTS)) !== 0) {
        unsubscribe.push(pins.onPin((cid, recursive) => {
          if (recursive && (strategy & STRATEGY_PINNED) !== 0) {
            void dagBlocks(cid, running?.signal).then(enqueue)
          } else {
            enqueue([cid])
          }
        }))
      }
      const kick = (): void => { pump() }
      libp2p.addEventListener('connection:open', kick)
      unsubscribe.push(() => { libp2p.removeEventListener('connection:open', kick) })
      // the first cycle a minute after start (Kubo's initial reprovide delay), then every Interval
      const cycle = (delay: number): void => {
        timer = setTimeout(() => {
          reprovide().catch(() => {}).finally(() => { if (interval > 0 && running != null) cycle(interval) })
        }, delay)
        timer.unref()
      }
      if (interval > 0) cycle(Math.min(60_000, interval))
    },
    stop () {
      running?.abort()
      running = undefined
      clearTimeout(timer)
      clearTimeout(mfsTimer)
      mfsTimer = undefined
      clearTimeout(resumeTimer)
      resumeTimer = undefined
      for (const u of unsubscribe.splice(0)) u()
    },
    stat () {
      const now = Date.now()
      const s = emptyStats()
      online = connected()
      s.closed = running == null
      s.connectivity = { status: online ? 'online' : 'offline', since: online && onlineSince > 0 ? new Date(onlineSince).toISOString() : '0001-01-01T00:00:00Z' }
      s.queues.pending_key_provides = queue.size
      s.queues.pending_region_provides = queue.size > 0 ? 1 : 0
      s.schedule.keys = scheduledCount
      s.schedule.next_reprovide_at = interval > 0 ? new Date(cycleStart + interval).toISOString() : '0001-01-01T00:00:00Z'
      s.workers.max = maxWorkers
      s.workers.active = active + (activeReprovides > 0 ? 1 : 0)
      s.workers.active_burst = active
      s.workers.active_periodic = activeReprovides > 0 ? 1 : 0
      s.workers.queued_burst = queue.size > 0 && active >= maxWorkers ? 1 : 0
      s.timing.uptime = ns(now - startedAt)
      s.timing.reprovides_interval = ns(interval)
      s.timing.cycle_start = new Date(cycleStart).toISOString()
      s.timing.current_time_offset = ns(now - cycleStart)
      s.operations.ongoing.key_provides = active
      s.operations.ongoing.key_reprovides = activeReprovides
      s.operations.past.records_provided = past.records
      s.operations.past.keys_provided = past.keys
      s.operations.past.keys_failed = past.failed
      s.operations.past.keys_provided_per_minute = past.provideMs > 0 ? past.keys / (past.provideMs / 60_000) : 0
      s.operations.past.keys_reprovided_per_minute = past.reprovideMs > 0 ? past.lastCycleKeys / (past.reprovideMs / 60_000) : 0
      s.operations.past.reprovide_duration = ns(past.reprovideMs)
      s.operations.past.avg_keys_per_reprovide = past.cycles > 0 ? past.reprovided / past.cycles : 0
      s.network.peers = libp2p.getPeers().length
      s.network.reachable = libp2p.getPeers().length
      return s
    }
  }
}
