// Bootstrap (Kubo core/bootstrap.go): at start and every 30 s, while fewer than 4 peers are connected,
// dial bootstrap peers (Bootstrap, with "auto" expanded to Kubo's built-in mainnet list by the config
// layer) that are not connected yet, a few at a time in random order.

export interface BootstrapHost {
  connectedPeers: () => number
  isConnected: (peer: string) => boolean
  dial: (addr: string) => Promise<void>
  log?: (msg: string) => void
}

export const MIN_PEER_THRESHOLD = 4
export const BOOTSTRAP_PERIOD_MS = 30_000

/** the peer ID at the end of a /p2p/ multiaddr */
export const peerOfAddr = (addr: string): string | undefined => /\/(?:p2p|ipfs)\/([^/]+)$/.exec(addr)?.[1]

export class Bootstrapper {
  private timer?: ReturnType<typeof setInterval>
  private running = false
  rounds = 0

  constructor (private readonly peers: string[], private readonly host: BootstrapHost, private readonly periodMs = BOOTSTRAP_PERIOD_MS) {}

  start (): void {
    if (this.peers.length === 0) return
    this.running = true
    void this.round()
    this.timer = setInterval(() => { void this.round() }, this.periodMs)
    this.timer.unref()
  }

  stop (): void {
    this.running = false
    if (this.timer != null) clearInterval(this.timer)
    this.timer = undefined
  }

  async round (): Promise<void> {
    if (!this.running) return
    this.rounds++
    const missing = MIN_PEER_THRESHOLD - this.host.connectedPeers()
    if (missing <= 0) return
    const candidates = this.peers
      .filter(a => { const p = peerOfAddr(a); return p != null && !this.host.isConnected(p) })
      .sort(() => Math.random() - 0.5)
      .slice(0, missing)
    await Promise.all(candidates.map(async addr => {
      try {
        await this.host.dial(addr)
      } catch (err) {
        this.host.log?.(`bootstrap: dial ${addr} failed: ${(err as Error).message}`)
      }
    }))
  }
}
