import { expect } from 'chai'
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
