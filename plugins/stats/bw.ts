// ipfs stats bw (kubo core/commands/stat.go statBwCmd): totals, or one peer's or one protocol's
// bandwidth, once or every --interval with --poll. Counters come from the bandwidth service
// (core/libp2p/bandwidth.ts), which counts every protocol stream's bytes.
import { defineCommand } from '../../registry/define.js'
import { RpcError, InvalidArgumentError, NotOnlineError } from '../../core/errors.js'
import { parseGoDuration } from '../../core/util/duration.js'
import type { BandwidthStats } from '../../core/libp2p/bandwidth.js'
import { humanizeBytes } from '../dag/stat.js'
import { parsePeerId } from '../swarm/common.js'

const sleep = async (ms: number, signal: AbortSignal): Promise<void> => {
  await new Promise<void>((resolve) => {
    const t = setTimeout(done, ms)
    function done (): void { clearTimeout(t); signal.removeEventListener('abort', done); resolve() }
    signal.addEventListener('abort', done, { once: true })
  })
}

/** humanize.Bytes(uint64(x)) */
const hb = (x: number): string => humanizeBytes(Math.max(0, Math.trunc(x)))

export function printStats (bs: BandwidthStats): string {
  return `Bandwidth\nTotalIn: ${hb(bs.TotalIn)}\nTotalOut: ${hb(bs.TotalOut)}\nRateIn: ${hb(bs.RateIn)}/s\nRateOut: ${hb(bs.RateOut)}/s\n`
}

const pad = (s: string, n: number): string => s.length >= n ? s : ' '.repeat(n - s.length) + s

export const statsBw = defineCommand({
  path: ['stats', 'bw'],
  description: 'Print IPFS bandwidth information.',
  help: "'ipfs stats bw' prints bandwidth information for the ipfs daemon.\nIt displays: TotalIn, TotalOut, RateIn, RateOut.\n\nBy default, overall bandwidth and all protocols are shown. To limit bandwidth\nto a particular peer, use the 'peer' option along with that peer's multihash\nid. To specify a specific protocol, use the 'proto' option. The 'peer' and\n'proto' options cannot be specified simultaneously. The protocols that are\nqueried using this method are outlined in the specification:\nhttps://github.com/libp2p/specs/blob/master/_archive/7-properties.md#757-protocol-multicodecs\n\nExample protocol options:\n  - /ipfs/id/1.0.0\n  - /ipfs/bitswap\n  - /ipfs/dht\n\nExample:\n\n    > ipfs stats bw -t /ipfs/bitswap\n    Bandwidth\n    TotalIn: 5.0MB\n    TotalOut: 0B\n    RateIn: 343B/s\n    RateOut: 0B/s\n    > ipfs stats bw -p QmepgFW7BHEtU4pZJdxaNiv75mKLLRQnPi1KaaXmQN4V1a\n    Bandwidth\n    TotalIn: 4.9MB\n    TotalOut: 12MB\n    RateIn: 0B/s\n    RateOut: 0B/s",
  options: {
    peer: { type: 'string', aliases: ['p'], description: 'Specify a peer to print bandwidth for.' },
    proto: { type: 'string', aliases: ['t'], description: 'Specify a protocol to print bandwidth for.' },
    poll: { type: 'bool', description: 'Print bandwidth at an interval.' },
    interval: { type: 'string', aliases: ['i'], default: '1s', description: 'Time interval to wait between updating output, if \'poll\' is true.\n\n    This accepts durations such as "300s", "1.5h" or "2h45m". Valid time units are:\n    "ns", "us" (or "µs"), "ms", "s", "m", "h".' }
  },
  output: 'ndjson',
  async * run ({ options, deps: { libp2p, network }, signal }): AsyncGenerator<BandwidthStats> {
    if (libp2p == null || network == null) throw new InvalidArgumentError(`unable to run offline: ${new NotOnlineError().message}`)
    if (!network.settings.bandwidthMetrics) throw new RpcError('bandwidth reporter disabled in config')
    if (options.peer != null && options.proto != null) throw new InvalidArgumentError('please only specify peer OR protocol')
    const peer = options.peer != null ? parsePeerId(options.peer).toString() : undefined
    let intervalMs: number
    try { intervalMs = Number(parseGoDuration(options.interval) / 1_000_000n) } catch (err) { throw new RpcError((err as Error).message) }
    const bw = network.bandwidth
    while (true) {
      if (peer != null) yield bw.forPeer(peer)
      else if (options.proto != null) yield bw.forProtocol(options.proto)
      else yield bw.totals()
      if (options.poll !== true) return
      await sleep(intervalMs, signal)
      if (signal.aborted) return
    }
  },
  // Kubo's PostRun: one block without --poll; with it a header, then one line rewritten in place (\r)
  async cliRender (outcome, { options }, io) {
    if (outcome.kind !== 'ndjson') return
    if (options.poll === true) io.stdout.write('Total Up    Total Down  Rate Up     Rate Down\n')
    for await (const item of outcome.items) {
      const bs = item as BandwidthStats
      if (options.poll !== true) { io.stdout.write(printStats(bs)); return }
      io.stdout.write(`${pad(hb(bs.TotalOut), 8)}    ${pad(hb(bs.TotalIn), 8)}    ${pad(hb(bs.RateOut), 8)}/s  ${pad(hb(bs.RateIn), 8)}/s      \r`)
    }
  },
  text: (bs, { options }) => {
    if (options.poll !== true) return printStats(bs)
    return `${pad(hb(bs.TotalOut), 8)}    ${pad(hb(bs.TotalIn), 8)}    ${pad(hb(bs.RateOut), 8)}/s  ${pad(hb(bs.RateIn), 8)}/s      \r`
  }
})
