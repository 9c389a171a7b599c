// The official gateway conformance suite against the daemon, set up as Kubo's CI does
// (scripts/gateway-conformance.sh): every test passes but those listed in test/gateway-conformance-skip.txt.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { ROOT } from '../helpers/daemon.js'

describe('gateway conformance suite (ipfs/gateway-conformance)', function () {
  this.timeout(60 * 60_000)

  it('passes every test against tsipfs (the skip list aside)', function () {
    const out = path.join(ROOT, '.cache', 'gateway-conformance', 'results', 'tsipfs')
    const r = spawnSync('bash', [path.join(ROOT, 'scripts', 'gateway-conformance.sh'), '--out', out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 55 * 60_000 })
    if (r.status === 3) {
      // the script's code for "the Go module proxy does not serve the suite": it cannot exist on this machine
      process.stdout.write(`      SKIPPED: ${r.stderr.trim().split('\n').pop() ?? ''}\n`)
      this.skip()
    }
    const summary = existsSync(path.join(out, 'summary.txt')) ? readFileSync(path.join(out, 'summary.txt'), 'utf8') : ''
    expect(summary, `script failed (${String(r.status)}): ${r.stderr}`).to.match(/^gateway-conformance: \d+ passed/)
    process.stdout.write(`      ${summary}`)
    const allowed = new Set(readFileSync(path.join(ROOT, 'test', 'gateway-conformance-skip.txt'), 'utf8').split('\n').map(l => l.trim()).filter(l => l !== '' && !l.startsWith('#')).map(l => l.split(/\s+/)[0]))
    const failed = readFileSync(path.join(out, 'failed.txt'), 'utf8').split('\n').filter(l => l !== '')
    expect(failed.filter(t => !allowed.has(t) && ![...allowed].some(a => t.startsWith(a + '/')))).to.deep.equal([])
  })
})
