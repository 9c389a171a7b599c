// The connection manager (Kubo's basic connmgr over Swarm.ConnMgr): when more than HighWater connections are
// open (go-libp2p counts connections, not peers), close the least valuable peers until LowWater remain. Value is the sum of the peer's tags in the
// peer store (other services tag peers they care about); protected peers (peering, or anyone calling
// protect) are never closed; peers connected for less than GracePeriod go last.
// Beyond Kubo (whose grace period and 10 s silence let the count run far past HighWater, ipfs/kubo#9998):
// a trim starts within a second of passing HighWater, and when young peers alone keep the count above
// HighWater the youngest-but-least-valuable are closed too, so the count never stays above HighWater.
// A js peer redials at once a peer its DHT keeps alive (libp2p's reconnect queue), so a trimmed peer would be
// back within a second and the count would bounce above HighWater: for TRIM_COOLDOWN_MS after a trim, the
// trimmed peer is refused (inbound) while the count is at HighWater or above, and our own keep-alive for it
// is dropped before the close (the host does that).
import type { ConnMgrSettings } from './settings.js'

export interface ConnMgrPeer {
  id: string
  /** when the peer's oldest open connection opened (ms since epoch) */
  openedAt: number
  /** sum of tag values */
  value: number
  /** open connections to the peer (default 1) */
  conns?: number
}

export interface ConnMgrHost {
  peers: () => Promise<ConnMgrPeer[]>
  /** close every connection to the peer; the signal aborts a close that takes too long */
  close: (peer: string, signal: AbortSignal) => Promise<void>
  /** open connections (for admitting a trimmed peer back) */
  connections?: () => number
  log?: (msg: string) => void
}

/** how long a trimmed peer is kept out while the count is at HighWater (Kubo's SilencePeriod, 10 s) */
export const TRIM_COOLDOWN_MS = 10_000
/** a close that takes longer is aborted, so one stuck connection cannot stop later trims */
export const CLOSE_TIMEOUT_MS = 5_000

/** Which peers to close: pure, so it is unit-tested without a network. */
export function choosePeersToClose (peers: ConnMgrPeer[], protectedIds: Set<string>, s: Pick<ConnMgrSettings, 'lowWater' | 'highWater' | 'gracePeriodMs'>, now: number): string[] {
  const conns = (p: ConnMgrPeer): number => p.conns ?? 1
  let open = peers.reduce((n, p) => n + conns(p), 0)
  if (open <= s.highWater) return []
  const candidates = peers.filter(p => !protectedIds.has(p.id))
  const grown = candidates.filter(p => now - p.openedAt >= s.gracePeriodMs)
  const young = candidates.filter(p => now - p.openedAt < s.gracePeriodMs)
  const byValue = (a: ConnMgrPeer, b: ConnMgrPeer): number => a.value - b.value || b.openedAt - a.openedAt
  grown.sort(byValue)
  young.sort(byValue)
  const close: string[] = []
  // Kubo: down to LowWater, among peers past their grace period
  for (const p of grown) {
    if (open <= s.lowWater) break
    close.push(p.id)
    open -= conns(p)
  }
  // never above HighWater: young peers too, as few as needed
  for (const p of young) {
    if (open <= s.highWater) break
    close.push(p.id)
    open -= conns(p)
  }
  return close
}

export class ConnManager {
  private readonly protections = new Map<string, Set<string>>()
  private timer?: ReturnType<typeof setTimeout>
  private trimming = false
  private lastTrim = 0
  /** peer → when it was trimmed (kept TRIM_COOLDOWN_MS) */
  private readonly trimmedAt = new Map<string, number>()
  trimmed = 0
  /** connections refused from recently trimmed peers */
  refused = 0

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

  /**
   * Called on every new connection: schedule a trim check (at most one a second). The count is read when the
   * check runs, not here: libp2p fires `connection:open` before its connection manager has stored the connection.
   */
  onConnection (): void {
    if (this.settings.type === 'none' || this.timer != null) return
    const wait = Math.max(0, Math.min(1000, this.lastTrim + 1000 - Date.now()))
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.trim()
    }, wait)
  }

  /**
   * Why a connection from this peer is refused, or undefined: a peer trimmed less than TRIM_COOLDOWN_MS ago
   * while HighWater connections are open (it would only be trimmed again). Protected peers always get in.
   */
  admit (peer: string, now = Date.now()): string | undefined {
    if (this.settings.type === 'none' || this.trimmedAt.size === 0) return undefined
    const at = this.trimmedAt.get(peer)
    if (at == null) return undefined
    if (now - at >= TRIM_COOLDOWN_MS || this.isProtected(peer)) { this.trimmedAt.delete(peer); return undefined }
    const open = this.host.connections?.() ?? 0
    if (open < this.settings.highWater) return undefined
    this.refused++
    return `connmgr: refused ${peer}: trimmed ${Math.round((now - at) / 1000)}s ago and ${open} connections open (HighWater ${this.settings.highWater})`
  }

  async trim (): Promise<number> {
    if (this.trimming) return 0
    this.trimming = true
    try {
      const now = Date.now()
      this.lastTrim = now
      for (const [id, at] of this.trimmedAt) if (now - at >= TRIM_COOLDOWN_MS) this.trimmedAt.delete(id)
      const peers = await this.host.peers()
      const close = choosePeersToClose(peers, new Set(this.protections.keys()), this.settings, now)
      if (close.length > 0) this.host.log?.(`connmgr: ${peers.reduce((n, p) => n + (p.conns ?? 1), 0)} connections > HighWater ${this.settings.highWater}, closing ${close.length} peers`)
      for (const id of close) this.trimmedAt.set(id, now)
      await Promise.all(close.map(async id => {
        const controller = new AbortController()
        const timer = setTimeout(() => { controller.abort(new Error('close timed out')) }, CLOSE_TIMEOUT_MS)
        try {
          await this.host.close(id, controller.signal)
        } catch {} finally {
          clearTimeout(timer)
        }
      }))
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
