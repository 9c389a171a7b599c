// A Prometheus summary fed in batches, for the API's ipfs_http_* summaries: prom-client's Summary pushes each
// value into a t-digest (a red-black tree search and insert per value), 3 per API request, ~7 % of the main
// thread's CPU under block/put load. Here a batch is sorted once and merged into the centroids (Dunning's
// merging t-digest: sizes bounded by 4·N·q(1−q)/δ, so the tails stay exact); count and sum are exact.
// Registered in a prom-client Registry as a metric (name, help, type, get), printed as a prom-client Summary.

/** δ: about 2δ centroids at most */
const COMPRESSION = 100

export class BatchSummary {
  readonly type = 'summary'
  readonly aggregator = 'sum'
  private count = 0
  private sum = 0
  private min = Infinity
  private max = -Infinity
  /** centroids, by mean: means[0..size), weights[0..size) */
  private means = new Float64Array(0)
  private weights = new Float64Array(0)
  private size = 0

  constructor (readonly name: string, readonly help: string, private readonly labels: Record<string, string>, private readonly percentiles: number[]) {}

  /** Add a batch of values (sorted in place). */
  observeAll (batch: Float64Array): void {
    const n = batch.length
    if (n === 0) return
    batch.sort()
    for (let i = 0; i < n; i++) this.sum += batch[i]
    this.count += n
    if (batch[0] < this.min) this.min = batch[0]
    if (batch[n - 1] > this.max) this.max = batch[n - 1]
    const total = this.count
    const oldMeans = this.means
    const oldWeights = this.weights
    const oldSize = this.size
    const means = new Float64Array(oldSize + n)
    const weights = new Float64Array(oldSize + n)
    let size = 0
    let i = 0
    let j = 0
    let cum = 0
    let m = NaN
    let w = 0
    while (i < oldSize || j < n) {
      let mi: number
      let wi: number
      if (j >= n || (i < oldSize && oldMeans[i] <= batch[j])) { mi = oldMeans[i]; wi = oldWeights[i]; i++ } else { mi = batch[j]; wi = 1; j++ }
      if (w === 0) { m = mi; w = wi; continue }
      const nw = w + wi
      const q = (cum + nw / 2) / total
      if (nw <= Math.max(1, 4 * total * q * (1 - q) / COMPRESSION)) {
        m += (mi - m) * wi / nw
        w = nw
      } else {
        means[size] = m
        weights[size++] = w
        cum += w
        m = mi
        w = wi
      }
    }
    means[size] = m
    weights[size++] = w
    this.means = means
    this.weights = weights
    this.size = size
  }

  /** The estimated q-quantile (0 with no values): linear between the centroids' centres, min and max at the ends. */
  quantile (q: number): number {
    const total = this.count
    if (total === 0) return 0
    const rank = q * total
    let prevRank = 0
    let prevValue = this.min
    let cum = 0
    for (let k = 0; k < this.size; k++) {
      const centre = cum + this.weights[k] / 2
      if (rank <= centre) {
        const span = centre - prevRank
        return span <= 0 ? this.means[k] : prevValue + (this.means[k] - prevValue) * (rank - prevRank) / span
      }
      prevRank = centre
      prevValue = this.means[k]
      cum += this.weights[k]
    }
    const span = total - prevRank
    return span <= 0 ? this.max : prevValue + (this.max - prevValue) * (rank - prevRank) / span
  }

  /** prom-client's metric value object (a Summary's: quantile lines, then _sum and _count; nothing before the first value) */
  async get (): Promise<{ name: string, help: string, type: string, aggregator: string, values: Array<{ labels: Record<string, string | number>, value: number, metricName?: string }> }> {
    const values: Array<{ labels: Record<string, string | number>, value: number, metricName?: string }> = []
    if (this.count > 0) {
      for (const p of this.percentiles) values.push({ labels: { quantile: p, ...this.labels }, value: this.quantile(p) })
      values.push({ metricName: `${this.name}_sum`, labels: this.labels, value: this.sum })
      values.push({ metricName: `${this.name}_count`, labels: this.labels, value: this.count })
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }

  reset (): void {
    this.count = 0
    this.sum = 0
    this.min = Infinity
    this.max = -Infinity
    this.means = new Float64Array(0)
    this.weights = new Float64Array(0)
    this.size = 0
  }
}
