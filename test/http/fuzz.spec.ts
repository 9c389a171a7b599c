// Hostile input against one spawned daemon (the real servers: request-head limits, the shared
// listener), a smaller fixed-seed set than test/unit/fuzz; after each target the daemon still answers,
// `repo verify` is clean, and the process is alive.
import { expect } from 'chai'
import { fixedSeed, TARGETS } from '../fuzz/targets.js'
import { daemonNode, runTarget, type FuzzNode } from '../fuzz/nodes.js'

describe('fuzz: hostile input (spawned daemon, fixed seeds)', function () {
  this.timeout(120_000)
  let node: FuzzNode
  before(async () => { node = await daemonNode() })
  after(async () => { await node?.stop() })

  for (const t of TARGETS.filter(t => (t.daemonRuns ?? 5) > 0)) {
    const title = `${t.name} (${t.daemonRuns ?? 5} cases)`
    if (t.awaiting != null) {
      it(`[awaiting fix: ${t.awaiting}] ${title}`)
      continue
    }
    it(title, async () => {
      await runTarget(node, t, { seed: fixedSeed(t) + 1, numRuns: t.daemonRuns ?? 5 })
      expect(node.daemon?.proc.exitCode, `daemon exited: ${node.daemon?.log().slice(-2000) ?? ''}`).to.equal(null)
    })
  }
})
