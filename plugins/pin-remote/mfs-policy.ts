// The MFS pin policy (kubo cmd/ipfs/kubo/pinmfs.go): in the daemon, every MFS_PIN_POLL_INTERVAL (Go
// duration, default 30s) read Pinning.RemoteServices and, for each service with Policies.MFS.Enable, pin
// the MFS root there under Policies.MFS.PinName (default `policy/<peerID>/mfs`): an existing pin of that
// name is replaced (POST /pins/{requestid}), none is added; a root already pinned (or pinning) is left, and
// a service is not asked again before Policies.MFS.RepinInterval (default 5m) unless its config changes.
import type { CID } from 'multiformats/cid'
import type { Logger } from '../../core/logger/index.js'
import type { ConfigStore } from '../../core/config/index.js'
import type { Libp2p } from '@libp2p/interface'
import { PIN_STATUSES, PinningServiceClient } from '../../core/pinning/client.js'
import type { Startable } from '../../core/lifecycle.js'
import { parseDurationMs } from '../../core/util/duration.js'
import { remoteServices, type RemoteServiceConfig } from './common.js'

const DEFAULT_POLL_MS = 30_000
const DEFAULT_REPIN_MS = 5 * 60_000

interface LastPin { time: number, config: string, cid: string }

export interface MfsPinPolicyDeps {
  config: ConfigStore
  daemon: boolean
  logger: Logger
  peerId: () => string
  libp2p: () => Libp2p | null
  /** the MFS root, flushed (null without the files plugin) */
  mfsRoot: () => Promise<CID | null>
  /** MFS_PIN_POLL_INTERVAL */
  pollInterval?: string
}

export class MfsPinPolicy implements Startable {
  private timer: NodeJS.Timeout | undefined
  private controller = new AbortController()
  private readonly lastPins = new Map<string, LastPin>()
  private readonly pollMs: number
  /** rounds run so far */
  rounds = 0

  constructor (private readonly deps: MfsPinPolicyDeps) {
    const env = deps.pollInterval
    let ms = env != null && env !== '' ? parseDurationMs(env) : DEFAULT_POLL_MS
    if (ms == null) {
      deps.logger.error(`error parsing MFS_PIN_POLL_INTERVAL, using default: time: invalid duration ${JSON.stringify(env)}`)
      ms = DEFAULT_POLL_MS
    }
    this.pollMs = Math.max(ms, 1)
  }

  start (): void {
    if (!this.deps.daemon) return
    this.controller = new AbortController()
    this.schedule()
  }

  stop (): void {
    clearTimeout(this.timer)
    this.timer = undefined
    this.controller.abort()
  }

  private schedule (): void {
    this.timer = setTimeout(() => {
      this.pinAll().catch(err => { this.deps.logger.error(`pinning MFS root (${(err as Error).message})`) }).finally(() => {
        this.rounds++
        if (!this.controller.signal.aborted) this.schedule()
      })
    }, this.pollMs)
    this.timer.unref()
  }

  /** pinAllMFS: one round over the services. */
  async pinAll (): Promise<void> {
    const services = remoteServices(this.deps.config)
    if (services.size === 0) return
    const root = await this.deps.mfsRoot()
    if (root == null) return
    const signal = this.controller.signal
    const rounds: Array<Promise<void>> = []
    for (const [name, svc] of services) {
      if (signal.aborted) break
      if (!svc.Policies.MFS.Enable) continue
      let repinMs = DEFAULT_REPIN_MS
      if (svc.Policies.MFS.RepinInterval !== '') {
        const ms = parseDurationMs(svc.Policies.MFS.RepinInterval)
        if (ms == null) {
          this.deps.logger.error(`remote pinning service ${JSON.stringify(name)} has invalid MFS.RepinInterval (time: invalid duration ${JSON.stringify(svc.Policies.MFS.RepinInterval)})`)
          continue
        }
        repinMs = ms
      }
      const config = JSON.stringify(svc)
      const last = this.lastPins.get(name)
      if (last != null && last.config === config && (last.cid === root.toString() || Date.now() - last.time < repinMs)) continue
      rounds.push(this.pinMfs(root, name, svc, signal).then(pin => { this.lastPins.set(name, { ...pin, config }) }, err => {
        this.deps.logger.error(`pinning MFS root ${JSON.stringify(root.toString())} to ${JSON.stringify(name)} (${(err as Error).message})`)
      }))
    }
    await Promise.all(rounds)
  }

  private async pinMfs (root: CID, name: string, svc: RemoteServiceConfig, signal: AbortSignal): Promise<{ time: number, cid: string }> {
    const client = new PinningServiceClient(svc.API.Endpoint, svc.API.Key)
    const pinName = svc.Policies.MFS.PinName !== '' ? svc.Policies.MFS.PinName : `policy/${this.deps.peerId()}/mfs`
    const cid = root.toString()
    let existing = ''
    let pinning = false
    let time = Date.now()
    try {
      for await (const ps of client.ls({ name: pinName, status: PIN_STATUSES }, signal)) {
        existing = ps.requestid
        if (ps.pin?.cid === cid && ps.status === 'failed') {
          this.deps.logger.error(`pinning to ${JSON.stringify(name)}: received pre-existing "failed" status for ${JSON.stringify(cid)} (requestid=${JSON.stringify(existing)})`)
        }
        if (ps.pin?.cid === cid && ps.status !== 'failed') {
          pinning = true
          const created = Date.parse(ps.created)
          if (!Number.isNaN(created)) time = created
          break
        }
      }
    } catch (err) {
      throw new Error(`error while listing remote pins: ${(err as Error).message}`)
    }
    if (!pinning) {
      const libp2p = this.deps.libp2p()
      const origins = libp2p != null ? libp2p.getMultiaddrs().map(a => a.toString()) : undefined
      if (existing !== '') await client.replace(existing, { cid, name: pinName, origins }, signal)
      else await client.add({ cid, name: pinName, origins }, signal)
    }
    return { time, cid }
  }
}
