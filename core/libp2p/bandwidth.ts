// The bandwidth service (go-libp2p metrics.BandwidthCounter as Kubo's `stats bw` reads it): bytes of
// every negotiated protocol stream, in and out, totals and per peer and per protocol, with rates.
// It is the libp2p `metrics` implementation, so libp2p hands it each stream once its protocol is known.
// No libp2p runtime import here: unit tests feed it plain streams.

/** go-libp2p metrics.Stats, as `stats bw` emits it. */
export interface BandwidthStats {
  TotalIn: number
  TotalOut: number
  RateIn: number
  RateOut: number
}

export interface Bandwidth {
  totals: () => BandwidthStats
  forPeer: (peer: string) => BandwidthStats
  forProtocol: (protocol: string) => BandwidthStats
  /** every peer / protocol with traffic so far */
  byPeer: () => Map<string, BandwidthStats>
  byProtocol: () => Map<string, BandwidthStats>
}

interface StreamLike {
  protocol?: string
  /** where a stream implementation (yamux, QUIC) hands in received data */
  onData?: (data: any) => void
  send: (buf: any) => boolean
}

/**
 * One meter: a running total and an exponentially weighted rate updated once a second (go-flow-metrics
 * ticks every second with alpha 1-e^-1/… ; a 1 s tick with the same smoothing gives the same shape).
 */
class Meter {
  total = 0
  rate = 0
  private lastTotal = 0
  private idle = 0
  add (n: number): void { this.total += n }
  tick (seconds: number): void {
    const instant = (this.total - this.lastTotal) / seconds
    this.lastTotal = this.total
    this.rate = this.rate === 0 ? instant : this.rate + (instant - this.rate) * ALPHA
    if (instant === 0) {
      // a meter that saw nothing for a while reads 0, not a decaying tail (go-flow-metrics idles out)
      if (++this.idle >= 20 || this.rate < 1) this.rate = 0
    } else {
      this.idle = 0
    }
  }
}
const ALPHA = 1 - Math.exp(-1)

class Pair {
  readonly in = new Meter()
  readonly out = new Meter()
  stats (): BandwidthStats { return { TotalIn: this.in.total, TotalOut: this.out.total, RateIn: this.in.rate, RateOut: this.out.rate } }
  tick (seconds: number): void { this.in.tick(seconds); this.out.tick(seconds) }
}

const ZERO: BandwidthStats = { TotalIn: 0, TotalOut: 0, RateIn: 0, RateOut: 0 }

/** A metric object that records nothing (libp2p components register counters we do not export). */
const noop: any = new Proxy(function () {}, { get: () => noop, apply: () => noop })

export interface BandwidthMetricsInit {
  /** the peer owning a stream (looked up among open connections); undefined when unknown */
  peerOf?: (stream: unknown) => string | undefined
  /** tick period in ms (1000) */
  tickMs?: number
}

/** libp2p Metrics + Bandwidth. start()/stop() drive the rate ticker. */
export class BandwidthMetrics implements Bandwidth {
  private readonly total = new Pair()
  private readonly peers = new Map<string, Pair>()
  private readonly protocols = new Map<string, Pair>()
  private timer?: ReturnType<typeof setInterval>
  private last = Date.now()
  peerOf: (stream: unknown) => string | undefined

  constructor (private readonly init: BandwidthMetricsInit = {}) {
    this.peerOf = init.peerOf ?? (() => undefined)
  }

  start (): void {
    if (this.timer != null) return
    this.last = Date.now()
    this.timer = setInterval(() => { this.tick() }, this.init.tickMs ?? 1000)
    this.timer.unref()
  }

  stop (): void {
    if (this.timer != null) clearInterval(this.timer)
    this.timer = undefined
  }

  /** advance the rates (the ticker calls this; tests may too) */
  tick (now = Date.now()): void {
    const seconds = Math.max((now - this.last) / 1000, 0.001)
    this.last = now
    this.total.tick(seconds)
    for (const p of this.peers.values()) p.tick(seconds)
    for (const p of this.protocols.values()) p.tick(seconds)
  }

  /** count bytes on a stream; `peer` when already known */
  track (stream: StreamLike, peer?: string): void {
    const protocol = stream.protocol ?? ''
    let proto = this.protocols.get(protocol)
    if (proto == null) { proto = new Pair(); this.protocols.set(protocol, proto) }
    let peerPair: Pair | undefined
    const pair = (): Pair | undefined => {
      if (peerPair != null) return peerPair
      const id = peer ?? this.peerOf(stream)
      if (id == null) return undefined
      peerPair = this.peers.get(id)
      if (peerPair == null) { peerPair = new Pair(); this.peers.set(id, peerPair) }
      return peerPair
    }
    const p = proto
    // bytes that came with the protocol negotiation (a peer's first message often does) wait in the
    // stream's read buffer: they are received data too
    const pending = (stream as { readBufferLength?: unknown }).readBufferLength
    if (typeof pending === 'number' && pending > 0) {
      this.total.in.add(pending); p.in.add(pending); pair()?.in.add(pending)
    }
    // received bytes are counted where the muxer delivers them: a 'message' listener would switch
    // the stream to flowing mode and take data from a reader that attaches later
    const onData = stream.onData?.bind(stream)
    if (onData != null) {
      stream.onData = (data: { byteLength: number }) => {
        const n = data.byteLength
        this.total.in.add(n); p.in.add(n); pair()?.in.add(n)
        onData(data)
      }
    }
    const send = stream.send.bind(stream)
    stream.send = (buf: { byteLength: number }) => {
      const n = buf.byteLength
      this.total.out.add(n); p.out.add(n); pair()?.out.add(n)
      return send(buf)
    }
  }

  totals (): BandwidthStats { return this.total.stats() }
  forPeer (peer: string): BandwidthStats { return this.peers.get(peer)?.stats() ?? { ...ZERO } }
  forProtocol (protocol: string): BandwidthStats { return this.protocols.get(protocol)?.stats() ?? { ...ZERO } }
  byPeer (): Map<string, BandwidthStats> { return new Map([...this.peers].map(([k, v]) => [k, v.stats()])) }
  byProtocol (): Map<string, BandwidthStats> { return new Map([...this.protocols].map(([k, v]) => [k, v.stats()])) }

  // --- libp2p Metrics ---
  trackMultiaddrConnection (): void {}
  trackProtocolStream (stream: StreamLike): void { this.track(stream) }
  registerMetric (): any { return noop }
  registerMetricGroup (): any { return noop }
  registerCounter (): any { return noop }
  registerCounterGroup (): any { return noop }
  registerHistogram (): any { return noop }
  registerHistogramGroup (): any { return noop }
  registerSummary (): any { return noop }
  registerSummaryGroup (): any { return noop }
  traceFunction<F> (_name: string, fn: F): F { return fn }
  createTrace (): any { return undefined }
}
