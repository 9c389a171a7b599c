// `daemon --enable-gc` (kubo corerepo.PeriodicGC / maybeGC): every Datastore.GCPeriod, collect
// garbage when the repo takes more than Datastore.StorageGCWatermark percent of Datastore.StorageMax.
import type { Logger } from '../logger/index.js'
import type { Blockstore } from 'interface-blockstore'
import type { ConfigStore } from '../config/index.js'
import { parseGoDuration, parseHumanBytes } from '../config/units.js'
import type { Pins } from '../pins/index.js'
import type { RwLock } from '../util/rwlock.js'
import type { GcRoots } from './roots.js'
import { collectGc, runGc } from './index.js'
import { storageUsage } from './usage.js'

export const ERR_MAX_STORAGE_EXCEEDED = 'maximum storage limit exceeded. Try to unpin some files'

export interface PeriodicGcDeps {
  config: ConfigStore
  blockstore: Blockstore
  pins: Pins
  gcLock: RwLock
  gcRoots?: GcRoots
  repoPath: string
  logger: Logger
}

export interface PeriodicGc {
  /** ms between checks (0: disabled) */
  readonly period: number
  /** bytes above which a check collects (StorageMax × watermark / 100) */
  readonly threshold: number
  readonly storageMax: number
  /** one check now (maybeGC); resolves true when it collected */
  check: () => Promise<boolean>
  /** stop the timer and wait for a run in progress (it is aborted) */
  stop: () => Promise<void>
}

/**
 * Read the settings (filling StorageMax/StorageGCWatermark defaults into the config as Kubo's
 * NewGC does) and start the timer. Throws on an invalid GCPeriod or StorageMax.
 */
export async function startPeriodicGc (deps: PeriodicGcDeps): Promise<PeriodicGc> {
  const { config, logger } = deps
  const log = logger.child({ logger: 'corerepo' })
  let periodText = config.getKey('Datastore.GCPeriod')
  if (typeof periodText !== 'string' || periodText === '') periodText = '1h'
  const periodNs = parseGoDuration(periodText)
  const period = periodNs <= 0n ? 0 : Math.max(1, Number(periodNs / 1_000_000n))

  let maxText = config.getKey('Datastore.StorageMax')
  if (typeof maxText !== 'string' || maxText === '') {
    maxText = '10GB'
    await config.setKey('Datastore.StorageMax', maxText)
  }
  let watermark = Number(config.getKey('Datastore.StorageGCWatermark') ?? 0)
  if (!Number.isFinite(watermark) || watermark === 0) {
    watermark = 90
    await config.setKey('Datastore.StorageGCWatermark', watermark)
  }
  const max = parseHumanBytes(maxText)
  const threshold = Math.floor(max * watermark / 100)

  const controller = new AbortController()
  let running: Promise<boolean> | undefined
  let timer: NodeJS.Timeout | undefined

  const check = async (): Promise<boolean> => {
    const { size } = await storageUsage(deps.repoPath, deps.blockstore, { signal: controller.signal, sizeOnly: true })
    if (size <= threshold) return false
    if (size > max) log.warn(`pre-GC: ${ERR_MAX_STORAGE_EXCEEDED}`)
    log.info('Watermark exceeded. Starting repo GC...')
    const err = await collectGc(runGc({
      blockstore: deps.blockstore,
      pins: deps.pins,
      gcLock: deps.gcLock,
      roots: deps.gcRoots != null ? async (o) => await (deps.gcRoots as GcRoots).collect(o) : undefined,
      signal: controller.signal
    }))
    if (err != null) throw err
    log.info('Repo GC done. See `ipfs repo stat` to see how much space got freed.\n')
    return true
  }

  const schedule = (): void => {
    if (period === 0 || controller.signal.aborted) return
    timer = setTimeout(() => {
      running = check().catch((err) => {
        if (!controller.signal.aborted) log.error((err as Error).message)
        return false
      })
      void running.finally(() => { running = undefined; schedule() })
    }, period)
    timer.unref()
  }
  schedule()

  return {
    period,
    threshold,
    storageMax: max,
    check,
    stop: async () => {
      controller.abort()
      if (timer != null) clearTimeout(timer)
      await running
    }
  }
}
