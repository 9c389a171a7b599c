// The connection manager (Kubo's basic connmgr over Swarm.ConnMgr): when more than HighWater peers are
// connected, close the least valuable until LowWater remain. Value is the sum of the peer's tags in the
// peer store (other services tag peers they care about); protected peers (peering, or anyone calling
// protect) are never closed; peers connected for less than GracePeriod go last.
// Beyond Kubo (whose grace period and 10 s silence let the count run far past HighWater, ipfs/kubo#9998):
// a trim starts within a second of passing HighWater, and when young peers alone keep the count above
// HighWater the youngest-but-least-valuable are closed too, so the count never stays above HighWater.
import type { ConnMgrSettings } from './settings.js'

export interface ConnMgrPeer {
  id: string
  /** when the peer's oldest open connection opened (ms since epoch) */
  openedAt: number
  /** sum of tag values */
  value: number
}

export interface ConnMgrHost {
  peers: () => Promise<ConnMgrPeer[]>
  close: (peer: string) => Promise<void>
  log?: (msg: string) => void
}

/** Which peers to close: pure, so it is unit-tested without a network. */
export function choosePeersToClose (peers: ConnMgrPeer[], protectedIds: Set<string>, s: Pick<ConnMgrSettings, 'lowWater' | 'highWater' | 'gracePeriodMs'>, now: number): string[] {
  if (peers.length <= s.highWater) return []
  const candidates = peers.filter(p => !protectedIds.has(p.id))
  const grown = candidates.filter(p => now - p.openedAt >= s.gracePeriodMs)
  const young = candidates.filter(p => now - p.openedAt < s.gracePeriodMs)
  const byValue = (a: ConnMgrPeer, b: ConnMgrPeer): number => a.value - b.value || b.openedAt - a.openedAt
  grown.sort(byValue)
  young.sort(byValue)
  const close: string[] = []
  // Kubo: down to LowWater, among peers past their grace period
  let excess = peers.length - s.lowWater
  for (const p of grown) {
    if (excess <= 0) break
    close.push(p.id)
    excess--
  }
  // never above HighWater: young peers too, as few as needed
  let over = peers.length - close.length - s.highWater
  for (const p of young) {
    if (over <= 0) break
    close.push(p.id)
    over--
  }
  return close
}

export class ConnManager {
  private readonly protections = new Map<string, Set<string>>()
  private timer?: ReturnType<typeof setTimeout>
  private trimming = false
  private lastTrim = 0
  trimmed = 0

  constructor (private readonly settings: ConnMgrSettings, private readonly host: ConnMgrHost) {}

  protect (peer: string, tag: string): void {
    let tags = this.protections.get(peer)
    if (tags == null) { tags = new Set(); this.protections.set(peer, tags) }
    tags.add(tag)
  }

  /** true while other tags still protect the peer */
  unprotect (peer: string, tag: string): boolean {
    const tags = this.protections.get(peer)
    if (tags == null) return false
    tags.delete(tag)
    if (tags.size === 0) this.protections.delete(peer)
    return tags.size > 0
  }

  isProtected (peer: string, tag?: string): boolean {
    const tags = this.protections.get(peer)
    return tags != null && (tag == null ? tags.size > 0 : tags.has(tag))
  }

  /** called on every new connection: schedule a trim when above HighWater */
  onConnection (count: number): void {
    if (this.settings.type === 'none' || count <= this.settings.highWater || this.timer != null) return
    const wait = Math.max(0, Math.min(1000, this.lastTrim + 1000 - Date.now()))
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.trim()
    }, wait)
  }

  async trim (): Promise<number> {
    if (this.trimming) return 0
    this.trimming = true
    try {
      this.lastTrim = Date.now()
      const peers = await this.host.peers()
      const close = choosePeersToClose(peers, new Set(this.protections.keys()), this.settings, Date.now())
      if (close.length > 0) this.host.log?.(`connmgr: ${peers.length} peers > HighWater ${this.settings.highWater}, closing ${close.length}`)
      await Promise.all(close.map(async id => { await this.host.close(id).catch(() => {}) }))
      this.trimmed += close.length
      return close.length
    } finally {
      this.trimming = false
    }
  }

  stop (): void {
    if (this.timer != null) clearTimeout(this.timer)
    this.timer = undefined
  }
}
