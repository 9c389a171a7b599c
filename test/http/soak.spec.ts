// Faults and long runs in CI, short: a kill -9 loop of 5 rounds (every acknowledged write survives,
// `repo verify` and `pin verify` clean) and a 2-minute soak whose RSS and open descriptors stay flat.
// The long versions: scripts/kill-loop.js (50 rounds), scripts/soak.js (1 hour).
import { expect } from 'chai'
import { growth, killLoop, soak } from '../helpers/faults.js'

describe('faults and soak (spawned daemon)', function () {
  this.timeout(600_000)

  it('kill -9 loop, 5 rounds: no acknowledged write lost, repo and pins verify', async () => {
    const r = await killLoop({ rounds: 5, maxBytes: 2 << 20 })
    expect(r.rounds).to.equal(5)
    expect(r.problems).to.deep.equal([])
    expect(r.lost).to.deep.equal([])
  })

  it('2 minutes of mixed load: RSS grows < 64 MiB and open fds < 12 after the first 20 s', async () => {
    const { samples } = await soak({ minutes: 2, sampleMs: 20_000, concurrency: 3 })
    const g = growth(samples)
    const last = samples[samples.length - 1]
    const table = samples.map(s => `${s.minute} min: RSS ${s.rssMiB} MiB, fds ${s.fds}, ${s.requests} requests`).join('\n')
    console.log(table.replace(/^/gm, '      '))
    expect(samples.length, table).to.be.at.least(6)
    expect(last.requests, table).to.be.greaterThan(100)
    expect(last.errors, table).to.be.at.most(last.requests / 100)
    expect(g.rssMiB, table).to.be.below(64)
    expect(g.fds, table).to.be.below(12)
  })
})
