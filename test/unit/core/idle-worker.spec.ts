// core/util/idle-worker.ts: the flatfs placer's and hash pool's stop of an idle worker thread.
import { expect } from 'chai'
import sinon from 'sinon'
import type { Worker } from 'node:worker_threads'
import { IdleWorkerStop } from '../../../core/util/idle-worker.js'

function fakeWorker (): { worker: Worker, calls: string[] } {
  const calls: string[] = []
  const worker = {
    ref: () => { calls.push('ref') },
    unref: () => { calls.push('unref') },
    terminate: async () => { calls.push('terminate'); return 0 }
  } as unknown as Worker
  return { worker, calls }
}

describe('core/util: IdleWorkerStop', () => {
  let clock: sinon.SinonFakeTimers
  beforeEach(() => { clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }) })
  afterEach(() => { clock.restore() })

  it('refs while busy; once idle it unrefs and stops after the idle time, telling the owner first', () => {
    const { worker, calls } = fakeWorker()
    const order: string[] = []
    const stop = new IdleWorkerStop(worker, 3000, () => true, () => { order.push(`beforeExit after ${calls.join(',')}`) })
    stop.busy()
    expect(calls).to.deep.equal(['ref'])
    stop.idle()
    expect(calls).to.deep.equal(['ref', 'unref'])
    clock.tick(2999)
    expect(calls).to.not.include('terminate')
    clock.tick(1)
    expect(order).to.deep.equal(['beforeExit after ref,unref'])
    expect(calls).to.deep.equal(['ref', 'unref', 'terminate'])
  })

  it('work before the time is up keeps it running; the time counts from the last idle()', () => {
    const { worker, calls } = fakeWorker()
    const stop = new IdleWorkerStop(worker, 3000, () => true, () => {})
    stop.idle()
    clock.tick(2000)
    stop.busy()
    clock.tick(5000)
    expect(calls).to.not.include('terminate')
    stop.idle()
    clock.tick(2000)
    stop.idle()
    clock.tick(2000)
    expect(calls).to.not.include('terminate')
    clock.tick(1000)
    expect(calls.filter(c => c === 'terminate')).to.have.length(1)
  })

  it('does not stop a worker its owner says is busy, nor after cancel()', () => {
    const a = fakeWorker()
    let idle = false
    const exits: string[] = []
    new IdleWorkerStop(a.worker, 100, () => idle, () => { exits.push('a') }).idle()
    clock.tick(100)
    expect(a.calls).to.not.include('terminate')
    idle = true
    clock.tick(1000)
    expect(a.calls).to.not.include('terminate') // asked once, when its time was up
    const b = fakeWorker()
    const stop = new IdleWorkerStop(b.worker, 100, () => true, () => { exits.push('b') })
    stop.idle()
    stop.cancel()
    clock.tick(1000)
    expect(b.calls).to.not.include('terminate')
    expect(exits).to.deep.equal([])
  })
})
