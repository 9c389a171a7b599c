// server/summary.ts: the API's ipfs_http_* summaries, fed in batches.
import { expect } from 'chai'
import client from 'prom-client'
import { BatchSummary } from '../../../server/summary.js'

/** a deterministic pseudo-random stream in [0, 1) */
function rand (seed: number): () => number {
  let s = seed
  return () => { s = (s * 1103515245 + 12345) % 2147483648; return s / 2147483648 }
}

/** the fraction of `sorted` below `v` */
const rankOf = (sorted: Float64Array, v: number): number => {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] < v) lo = mid + 1; else hi = mid }
  return lo / sorted.length
}

describe('server: BatchSummary', () => {
  it('keeps count and sum exact and its 0.5, 0.9, 0.99 quantiles within t-digest rank errors, batch after batch', () => {
    for (const [name, draw] of [
      ['uniform', (r: () => number) => r()],
      ['long-tailed', (r: () => number) => Math.exp(8 * r()) / 1e4],
      ['few distinct', (r: () => number) => [1024, 1100, 90][Math.floor(r() * 3)]]
    ] as Array<[string, (r: () => number) => number]>) {
      const r = rand(name.length)
      const s = new BatchSummary('x', 'h', { handler: 'api' }, [0.5, 0.9, 0.99])
      const all: number[] = []
      let sum = 0
      for (let b = 0; b < 400; b++) {
        const batch = Array.from({ length: 1 + (b * 37) % 256 }, () => draw(r))
        for (const v of batch) { all.push(v); sum += v }
        s.observeAll(Float64Array.from(batch))
      }
      const sorted = Float64Array.from(all).sort()
      for (const [q, err] of [[0.5, 0.01], [0.9, 0.005], [0.99, 0.002]]) {
        const v = s.quantile(q)
        if (name === 'few distinct') {
          expect(v, `${name} q${q}`).to.be.within(sorted[Math.floor(q * sorted.length) - 1], sorted[Math.floor(q * sorted.length)])
          continue
        }
        expect(rankOf(sorted, v), `${name} q${q}`).to.be.closeTo(q, err)
      }
      expect(s.quantile(0)).to.equal(sorted[0])
      expect(s.quantile(1)).to.equal(sorted[sorted.length - 1])
      const got = s as unknown as { count: number, sum: number }
      expect(got.count).to.equal(all.length)
      expect(got.sum).to.be.closeTo(sum, sum * 1e-9)
    }
  })

  it('prints as a prom-client Summary does: nothing before the first value, then quantiles, _sum and _count', async () => {
    const ours = new client.Registry()
    const theirs = new client.Registry()
    const s = new BatchSummary('ipfs_http_request_size_bytes', 'The HTTP request sizes in bytes.', { handler: 'api' }, [0.5, 0.9, 0.99])
    ours.registerMetric(s as unknown as client.Metric)
    const p = new client.Summary({ name: 'ipfs_http_request_size_bytes', help: 'The HTTP request sizes in bytes.', labelNames: ['handler'], percentiles: [0.5, 0.9, 0.99], registers: [theirs] })
    expect(await ours.metrics()).to.equal(await theirs.metrics())
    s.observeAll(Float64Array.of(1200, 1200, 1200))
    for (let i = 0; i < 3; i++) p.observe({ handler: 'api' }, 1200)
    expect(await ours.metrics()).to.equal(await theirs.metrics())
    expect(await ours.metrics()).to.include('ipfs_http_request_size_bytes{quantile="0.99",handler="api"} 1200\nipfs_http_request_size_bytes_sum{handler="api"} 3600\nipfs_http_request_size_bytes_count{handler="api"} 3\n')
  })
})
