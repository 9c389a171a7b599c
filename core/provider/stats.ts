// Kubo 0.40's sweep provider stats (go-libp2p-kad-dht provider/stats.Stats) as `provide stat` emits them:
// {"Sweep": {...}, "Legacy": null, "FullRT": false}. Times are RFC 3339, durations nanoseconds.
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z'

export interface SweepStats {
  closed: boolean
  connectivity: { status: string, since: string }
  queues: { pending_key_provides: number, pending_region_provides: number, pending_region_reprovides: number }
  schedule: { keys: number, regions: number, avg_prefix_length: number, next_reprovide_at: string, next_reprovide_prefix: string }
  workers: {
    max: number
    active: number
    active_periodic: number
    active_burst: number
    dedicated_periodic: number
    dedicated_burst: number
    queued_periodic: number
    queued_burst: number
    max_provide_conns_per_worker: number
  }
  timing: { uptime: number, reprovides_interval: number, cycle_start: string, current_time_offset: number, max_reprovide_delay: number }
  operations: {
    ongoing: { region_provides: number, key_provides: number, region_reprovides: number, key_reprovides: number }
    past: {
      records_provided: number
      keys_provided: number
      keys_failed: number
      keys_provided_per_minute: number
      keys_reprovided_per_minute: number
      reprovide_duration: number
      avg_keys_per_reprovide: number
      regions_reprovided_last_cycle: number
    }
  }
  network: { peers: number, reachable: number, complete_keyspace_coverage: boolean, avg_region_size: number, avg_holders: number, replication_factor: number }
}

export interface ProvideStatOutput {
  Sweep: SweepStats | null
  Legacy: null
  FullRT: boolean
}

export function emptyStats (): SweepStats {
  return {
    closed: false,
    connectivity: { status: 'offline', since: GO_ZERO_TIME },
    queues: { pending_key_provides: 0, pending_region_provides: 0, pending_region_reprovides: 0 },
    schedule: { keys: 0, regions: 0, avg_prefix_length: -1, next_reprovide_at: GO_ZERO_TIME, next_reprovide_prefix: '' },
    workers: { max: 16, active: 0, active_periodic: 0, active_burst: 0, dedicated_periodic: 2, dedicated_burst: 1, queued_periodic: 0, queued_burst: 0, max_provide_conns_per_worker: 20 },
    timing: { uptime: 0, reprovides_interval: 0, cycle_start: GO_ZERO_TIME, current_time_offset: 0, max_reprovide_delay: 3600e9 },
    operations: {
      ongoing: { region_provides: 0, key_provides: 0, region_reprovides: 0, key_reprovides: 0 },
      past: { records_provided: 0, keys_provided: 0, keys_failed: 0, keys_provided_per_minute: 0, keys_reprovided_per_minute: 0, reprovide_duration: 0, avg_keys_per_reprovide: 0, regions_reprovided_last_cycle: 0 }
    },
    network: { peers: 0, reachable: 0, complete_keyspace_coverage: false, avg_region_size: 0, avg_holders: 0, replication_factor: 20 }
  }
}
