import { expect } from 'chai'
import sinon from 'sinon'
import { RequestLog } from '../../../core/request-log.js'

describe('core/request-log', () => {
  it('drops expired finished requests while adding, so an unread log stays bounded', () => {
    const log = new RequestLog()
    log.keepMs = -1 // every finished request has expired
    const active = log.add('active', [], {})
    for (let i = 0; i < 10_000; i++) log.add('version', [], {}).finish()
    // nothing has listed the log, yet the finished requests were dropped along the way
    expect((log as unknown as { entries: unknown[] }).entries.length).to.be.at.most(1024)
    const listed = log.list()
    expect(listed.map(e => e.Command)).to.include('active')
    expect(listed.find(e => e.Command === 'active')?.Active).to.equal(true)
    active.finish()
  })

  it('drops expired finished requests once no more requests come (a burst does not stay in memory)', () => {
    const clock = sinon.useFakeTimers({ now: 1_000_000 })
    try {
      const log = new RequestLog()
      const entries = (): unknown[] => (log as unknown as { entries: unknown[] }).entries
      const active = log.add('active', [], {})
      for (let i = 0; i < 5000; i++) log.add('block/put', [], { 'cid-codec': 'raw' }).finish()
      clock.tick(30_000)
      expect(entries()).to.have.length(5001) // within keepMs (1 minute): listed as Kubo does
      clock.tick(32_000)
      expect(entries()).to.have.length(1)
      expect(log.list().map(e => e.Command)).to.deep.equal(['active'])
      active.finish()
      clock.tick(62_000)
      expect(entries()).to.have.length(0)
    } finally {
      clock.restore()
    }
  })

  it('keeps finished requests for keepMs, in order, with their IDs', () => {
    const log = new RequestLog()
    log.add('a', ['x'], { n: 1 }).finish()
    log.add('b', [], {})
    const listed = log.list()
    expect(listed.map(e => [e.ID, e.Command, e.Active])).to.deep.equal([[0, 'a', false], [1, 'b', true]])
    expect(listed[0].Args).to.deep.equal(['x'])
    expect(listed[0].Options).to.deep.equal({ n: 1 })
    log.clear()
    expect(log.list().map(e => e.Command)).to.deep.equal(['b'])
  })
})
