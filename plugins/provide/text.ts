// The text form of `provide stat` (Kubo core/commands/provide.go): a brief summary, or the sections
// chosen by flags (--all), in one tabwriter column or two (--compact).
import { RpcError } from '../../core/errors.js'
import { tabwrite } from '../../core/util/tabwriter.js'
import type { ProvideStatOutput } from '../../core/provider/stats.js'
import { humanDuration, humanDurationOrNA, humanFloatOrNA, humanInt, humanNumber, humanNumberOrNA, humanSI, humanTime, isGoZero } from './human.js'

export interface ProvideStatFlags {
  all?: boolean
  compact?: boolean
  connectivity?: boolean
  queues?: boolean
  schedule?: boolean
  network?: boolean
  timings?: boolean
  operations?: boolean
  workers?: boolean
}

const LOW_WORKERS = 2

const goFmt = (format: string, args: string[]): string => {
  let i = 0
  return format.replace(/%(-?\d+)?s/g, (_m, w: string | undefined) => {
    const v = args[i++] ?? ''
    if (w == null) return v
    const n = Number(w)
    return n < 0 ? v.padEnd(-n) : v.padStart(n)
  })
}

export function provideStatText (s: ProvideStatOutput, o: ProvideStatFlags): string {
  const flags = [o.all, o.connectivity, o.queues, o.schedule, o.network, o.timings, o.operations, o.workers].filter(f => f === true).length
  const all = o.all === true
  const sw = s.Sweep
  if (sw == null) throw new RpcError('no provide stats available')
  if (sw.closed) return tabwrite('Provider is closed\n', { minwidth: 1, tabwidth: 2, padding: 1 })
  if (o.compact === true && !all) throw new RpcError('--compact requires --all flag')
  const brief = flags === 0
  const showHeadings = flags > 1 || all
  const compactMode = all && o.compact === true
  const cols: [string[], string[]] = [[], []]
  let col0Max = 0
  const line = (col: 0 | 1, format: string, ...a: string[]): void => {
    if (compactMode) {
      const v = goFmt(format, a)
      cols[col].push(v)
      if (col === 0) col0Max = Math.max(col0Max, [...v].length)
      return
    }
    cols[0].push(goFmt(format.replace(': ', ':\t').replace(', ', ',\t'), a))
  }
  const blank = (col: 0 | 1): void => { if (!brief) line(col, '') }
  const title = (col: 0 | 1, t: string): void => { if (!brief && showHeadings) line(col, '%s:', t) }
  const ind = brief || !showHeadings ? '' : '  '

  if (all || o.connectivity === true || (brief && sw.connectivity.status !== 'online')) {
    title(1, 'Connectivity')
    if (isGoZero(sw.connectivity.since)) line(1, '%sStatus: %s', ind, sw.connectivity.status)
    else line(1, '%sStatus: %s (%s)', ind, sw.connectivity.status, humanTime(sw.connectivity.since))
    blank(1)
  }
  if (all || o.queues === true || brief) {
    title(1, 'Queues')
    line(1, '%sProvide queue: %s CIDs, %s regions', ind, humanSI(sw.queues.pending_key_provides, 1), humanSI(sw.queues.pending_region_provides, 1))
    line(1, '%sReprovide queue: %s regions', ind, humanSI(sw.queues.pending_region_reprovides, 1))
    blank(1)
  }
  if (all || o.schedule === true || brief) {
    title(0, 'Schedule')
    line(0, '%sCIDs scheduled: %s', ind, humanNumber(sw.schedule.keys))
    line(0, '%sRegions scheduled: %s', ind, humanNumberOrNA(sw.schedule.regions))
    if (!brief) {
      line(0, '%sAvg prefix length: %s', ind, humanFloatOrNA(sw.schedule.avg_prefix_length))
      line(0, '%sNext region prefix: %s', ind, sw.schedule.next_reprovide_prefix === '' ? 'N/A' : sw.schedule.next_reprovide_prefix)
      line(0, '%sNext region reprovide: %s', ind, isGoZero(sw.schedule.next_reprovide_at) ? 'N/A' : humanTime(sw.schedule.next_reprovide_at).slice(11))
    }
    blank(0)
  }
  if (all || o.timings === true) {
    title(1, 'Timings')
    line(1, '%sUptime: %s (%s)', ind, humanDuration(sw.timing.uptime), humanTime(new Date(Date.now() - sw.timing.uptime / 1e6)))
    line(1, '%sCurrent time offset: %s', ind, humanDuration(sw.timing.current_time_offset))
    line(1, '%sCycle started: %s', ind, humanTime(sw.timing.cycle_start))
    line(1, '%sReprovide interval: %s', ind, humanDuration(sw.timing.reprovides_interval))
    blank(1)
  }
  if (all || o.network === true || brief) {
    title(0, 'Network')
    line(0, '%sAvg record holders: %s', ind, humanFloatOrNA(sw.network.avg_holders))
    if (!brief) {
      line(0, '%sPeers swept: %s', ind, humanInt(sw.network.peers))
      line(0, '%sFull keyspace coverage: %s', ind, String(sw.network.complete_keyspace_coverage))
      if (sw.network.peers > 0) line(0, '%sReachable peers: %s (%s%%)', ind, humanInt(sw.network.reachable), humanNumber(Math.floor(100 * sw.network.reachable / sw.network.peers)))
      else line(0, '%sReachable peers: %s', ind, humanInt(sw.network.reachable))
      line(0, '%sAvg region size: %s', ind, humanFloatOrNA(sw.network.avg_region_size))
      line(0, '%sReplication factor: %s', ind, humanNumber(sw.network.replication_factor))
      blank(0)
    }
  }
  if (all || o.operations === true || brief) {
    const op = sw.operations
    title(1, 'Operations')
    line(1, '%sOngoing provides: %s CIDs, %s regions', ind, humanSI(op.ongoing.key_provides, 1), humanSI(op.ongoing.region_provides, 1))
    line(1, '%sOngoing reprovides: %s CIDs, %s regions', ind, humanSI(op.ongoing.key_reprovides, 1), humanSI(op.ongoing.region_reprovides, 1))
    line(1, '%sTotal CIDs provided: %s', ind, humanNumber(op.past.keys_provided))
    if (!brief) {
      line(1, '%sTotal records provided: %s', ind, humanNumber(op.past.records_provided))
      line(1, '%sTotal provide errors: %s', ind, humanNumber(op.past.keys_failed))
      line(1, '%sCIDs provided/min/worker: %s', ind, humanFloatOrNA(op.past.keys_provided_per_minute))
      line(1, '%sCIDs reprovided/min/worker: %s', ind, humanFloatOrNA(op.past.keys_reprovided_per_minute))
      line(1, '%sRegion reprovide duration: %s', ind, humanDurationOrNA(op.past.reprovide_duration))
      line(1, '%sAvg CIDs/reprovide: %s', ind, humanFloatOrNA(op.past.avg_keys_per_reprovide))
      line(1, '%sRegions reprovided (last cycle): %s', ind, humanNumber(op.past.regions_reprovided_last_cycle))
      blank(1)
    }
  }
  const w = sw.workers
  const showWorkers = all || o.workers === true
  if (showWorkers || brief) {
    const resBurst = Math.max(0, w.dedicated_burst - w.active_burst)
    const resPeriodic = Math.max(0, w.dedicated_periodic - w.active_periodic)
    const free = Math.max(0, w.max - Math.max(w.dedicated_burst, w.active_burst) - Math.max(w.dedicated_periodic, w.active_periodic))
    const availBurst = free + resBurst
    const availPeriodic = free + resPeriodic
    if (showWorkers || availBurst <= LOW_WORKERS || availPeriodic <= LOW_WORKERS) {
      title(0, 'Workers')
      const spec = compactMode ? '' : ' workers'
      line(0, '%sActive%s: %s / %s (max)', ind, spec, humanInt(w.active), humanInt(w.max))
      if (brief) {
        line(0, '%sPeriodic%s: %s active, %s available, %s queued', ind, spec, humanInt(w.active_periodic), humanInt(availPeriodic), humanInt(w.queued_periodic))
        line(0, '%sBurst%s: %s active, %s available, %s queued\n', ind, spec, humanInt(w.active_burst), humanInt(availBurst), humanInt(w.queued_burst))
      } else {
        line(0, '%sFree%s: %s', ind, spec, humanInt(free))
        line(0, '%s  %-14s %-9s %s', ind, 'Workers stats:', 'Periodic', 'Burst')
        line(0, '%s  %-14s %-9s %s', ind, 'Active:', humanInt(w.active_periodic), humanInt(w.active_burst))
        line(0, '%s  %-14s %-9s %s', ind, 'Dedicated:', humanInt(w.dedicated_periodic), humanInt(w.dedicated_burst))
        line(0, '%s  %-14s %-9s %s', ind, 'Available:', humanInt(availPeriodic), humanInt(availBurst))
        line(0, '%s  %-14s %-9s %s', ind, 'Queued:', humanInt(w.queued_periodic), humanInt(w.queued_burst))
        line(0, '%sMax connections/worker: %s', ind, humanInt(w.max_provide_conns_per_worker))
        blank(0)
      }
    }
  }
  let text = ''
  if (compactMode) {
    const width = col0Max + 2
    const rows = Math.max(cols[0].length, cols[1].length)
    for (let i = 0; i < rows - 1; i++) text += `${(cols[0][i] ?? '').padEnd(width)} ${cols[1][i] ?? ''}\n`
  } else {
    if (!brief) cols[0].pop()
    text = cols[0].map(l => l + '\n').join('')
  }
  return tabwrite(text, { minwidth: 1, tabwidth: 2, padding: 1 })
}
