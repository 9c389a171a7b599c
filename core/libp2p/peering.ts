// Peering (Kubo peering.PeeringService over Peering.Peers and `swarm peering`): each peer is kept
// connected; after a disconnect it is redialled with an exponential back-off (a random first delay
// so both sides do not dial at once, doubling up to 10 minutes), and it is protected from the
// connection manager. Changes made with `swarm peering` are not saved to the config (as Kubo).

export interface PeeringHost {
  /** add the addresses to the peer store */
  remember: (peer: string, addrs: string[]) => Promise<void>
  dial: (peer: string) => Promise<void>
  isConnected: (peer: string) => boolean
  protect: (peer: string) => void
  unprotect: (peer: string) => void
  log?: (msg: string) => void
}

export interface PeeringInit {
  /** first delay range in ms: [min, max) (Kubo: up to 5 s, the first connect at once) */
  initialDelayMs?: [number, number]
  maxBackoffMs?: number
}

interface Entry { id: string, addrs: string[], backoff: number, timer?: ReturnType<typeof setTimeout> }

export class Peering {
  private readonly peers = new Map<string, Entry>()
  private running = false

  constructor (private readonly host: PeeringHost, private readonly init: PeeringInit = {}) {}

  addPeer (id: string, addrs: string[]): void {
    const existing = this.peers.get(id)
    if (existing != null) {
      // Kubo replaces the addresses of a known peer
      existing.addrs = addrs
      void this.host.remember(id, addrs).catch(() => {})
      return
    }
    const entry: Entry = { id, addrs, backoff: 0 }
    this.peers.set(id, entry)
    this.host.protect(id)
    void this.host.remember(id, addrs).catch(() => {})
    if (this.running) this.connectNow(entry)
  }

  removePeer (id: string): void {
    const entry = this.peers.get(id)
    if (entry == null) return
    if (entry.timer != null) clearTimeout(entry.timer)
    this.peers.delete(id)
    this.host.unprotect(id)
  }

  listPeers (): Array<{ ID: string, Addrs: string[] }> {
    return [...this.peers.values()].map(e => ({ ID: e.id, Addrs: [...e.addrs] }))
  }

  has (id: string): boolean { return this.peers.has(id) }

  start (): void {
    this.running = true
    for (const e of this.peers.values()) this.connectNow(e)
  }

  stop (): void {
    this.running = false
    for (const e of this.peers.values()) {
      if (e.timer != null) clearTimeout(e.timer)
      e.timer = undefined
    }
  }

  /** a peer went away: redial it later */
  onDisconnect (id: string): void {
    const entry = this.peers.get(id)
    if (entry == null || !this.running) return
    this.schedule(entry)
  }

  /** a peer connected: reset its back-off */
  onConnect (id: string): void {
    const entry = this.peers.get(id)
    if (entry == null) return
    entry.backoff = 0
    if (entry.timer != null) clearTimeout(entry.timer)
    entry.timer = undefined
  }

  private connectNow (entry: Entry): void {
    if (this.host.isConnected(entry.id)) return
    void this.attempt(entry)
  }

  private schedule (entry: Entry): void {
    if (entry.timer != null) return
    const [min, max] = this.init.initialDelayMs ?? [1000, 5000]
    const maxBackoff = this.init.maxBackoffMs ?? 10 * 60_000
    const delay = entry.backoff === 0 ? min + Math.random() * (max - min) : Math.min(entry.backoff * 2, maxBackoff) * (0.9 + Math.random() * 0.2)
    entry.backoff = delay
    entry.timer = setTimeout(() => {
      entry.timer = undefined
      if (!this.running || !this.peers.has(entry.id)) return
      if (this.host.isConnected(entry.id)) { entry.backoff = 0; return }
      void this.attempt(entry)
    }, delay)
    entry.timer.unref?.()
  }

  private async attempt (entry: Entry): Promise<void> {
    try {
      await this.host.dial(entry.id)
      entry.backoff = 0
    } catch (err) {
      this.host.log?.(`peering: dial ${entry.id} failed: ${(err as Error).message}`)
      if (this.peers.has(entry.id)) this.schedule(entry)
    }
  }
}
