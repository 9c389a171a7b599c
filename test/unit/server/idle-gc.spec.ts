import { EventEmitter } from 'node:events'
import type http from 'node:http'
import { expect } from 'chai'
import sinon from 'sinon'
import { startIdleGc } from '../../../server/idle-gc.js'

const MiB = 1024 * 1024

/** a server whose requests the test starts and ends */
function fakeServer (): { server: http.Server, request: () => () => void } {
  const server = new EventEmitter() as unknown as http.Server
  return {
    server,
    request: () => {
      const res = new EventEmitter()
      server.emit('request', {}, res)
      return () => { res.emit('close') }
    }
  }
}

describe('server/idle-gc', () => {
  let clock: sinon.SinonFakeTimers
  beforeEach(() => { clock = sinon.useFakeTimers({ now: 1_000_000, toFake: ['setInterval', 'clearInterval', 'Date'] }) })
  afterEach(() => { clock.restore() })

  it('collects once the listeners are quiet after the heap grew, never with a request in flight', () => {
    let heap = 40 * MiB
    const collect = sinon.spy(() => { heap = 30 * MiB })
    const gc = startIdleGc({ quietMs: 500, growth: 16 * MiB, softLimit: 0, collect, heapSize: () => heap })
    const { server, request } = fakeServer()
    gc.watch(server)
    try {
      const end = request()
      heap = 80 * MiB
      clock.tick(5_000)
      expect(collect.callCount, 'in flight').to.equal(0)
      end()
      clock.tick(200)
      expect(collect.callCount, 'not quiet yet').to.equal(0)
      clock.tick(600)
      expect(collect.callCount, 'quiet').to.equal(1)
      clock.tick(5_000)
      expect(collect.callCount, 'once per quiet period').to.equal(1)
    } finally {
      gc.stop()
    }
  })

  it('leaves a heap that grew less than the threshold alone, and an idle daemon too', () => {
    let heap = 40 * MiB
    const collect = sinon.spy()
    const gc = startIdleGc({ quietMs: 500, growth: 16 * MiB, softLimit: 0, collect, heapSize: () => heap })
    const { server, request } = fakeServer()
    gc.watch(server)
    try {
      heap = 80 * MiB
      clock.tick(5_000)
      expect(collect.callCount, 'no requests').to.equal(0)
      heap = 50 * MiB
      request()()
      clock.tick(5_000)
      expect(collect.callCount, 'grew 10 MiB').to.equal(0)
      heap = 60 * MiB
      request()()
      clock.tick(5_000)
      expect(collect.callCount, 'grew 20 MiB').to.equal(1)
    } finally {
      gc.stop()
    }
  })

  it('under load, collects when the RSS is over the soft limit and the heap grew, at most once per interval', () => {
    let rss = 100 * MiB
    let heap = 40 * MiB
    const collect = sinon.spy(() => { rss -= 30 * MiB; heap = 30 * MiB })
    const gc = startIdleGc({ quietMs: 500, growth: 16 * MiB, softLimit: 128 * MiB, busyIntervalMs: 5000, collect, heapSize: () => heap, rss: () => rss })
    const { server, request } = fakeServer()
    gc.watch(server)
    try {
      const end = request()
      heap = 80 * MiB
      rss = 120 * MiB
      clock.tick(10_000)
      expect(collect.callCount, 'under the limit').to.equal(0)
      rss = 140 * MiB
      clock.tick(300)
      expect(collect.callCount, 'over it').to.equal(1)
      rss = 140 * MiB
      heap = 60 * MiB
      clock.tick(3_000)
      expect(collect.callCount, 'within the interval').to.equal(1)
      clock.tick(2_500)
      expect(collect.callCount, 'after the interval').to.equal(2)
      // over the limit with a heap that did not grow: nothing to gain
      rss = 150 * MiB
      heap = 40 * MiB
      clock.tick(10_000)
      expect(collect.callCount, 'heap grew 10 MiB').to.equal(2)
      end()
    } finally {
      gc.stop()
    }
  })

  it('is off with a quiet time of 0', () => {
    const collect = sinon.spy()
    let heap = 10 * MiB
    const gc = startIdleGc({ quietMs: 0, collect, heapSize: () => heap, rss: () => heap })
    const { server, request } = fakeServer()
    gc.watch(server)
    heap = 100 * MiB
    request()()
    clock.tick(10_000)
    gc.stop()
    expect(collect.callCount).to.equal(0)
  })
})
