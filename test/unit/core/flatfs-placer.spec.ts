import { expect } from 'chai'
import sinon from 'sinon'
import fsSync, { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { Placer, SHARD_TEMP_MARK, clearShardTempMark, type PlaceItem } from '../../../core/blockstore/flatfs-placer.js'

describe('core/blockstore/flatfs-placer', () => {
  let dir: string
  beforeEach(async () => { dir = await fs.mkdtemp(path.join(os.tmpdir(), 'placer-')) })
  afterEach(async () => { await fs.rm(dir, { recursive: true, force: true }) })

  const item = (name: string): PlaceItem => ({ file: path.join(dir, 'AB', name + '.data'), dir: path.join(dir, 'AB'), bytes: Buffer.from(name) })
  const workerOf = (p: Placer): Worker | undefined => (p as unknown as { worker?: Worker }).worker
  // bytes whose buffer was transferred away: a worker cannot be sent them
  const detachedBytes = (): Uint8Array => {
    const ab = new ArrayBuffer(8)
    const bytes = new Uint8Array(ab)
    ;(ab as ArrayBuffer & { transfer: () => ArrayBuffer }).transfer()
    return bytes
  }

  it('its worker exits after 3 s without requests; the next write starts another and lands', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const placer = new Placer()
    try {
      await placer.write(item('one'))
      const first = workerOf(placer)
      expect(first).to.not.equal(undefined)
      const exited = new Promise(resolve => first!.once('exit', resolve))
      clock.tick(2_999)
      expect(workerOf(placer)).to.equal(first)
      clock.tick(1)
      expect(workerOf(placer)).to.equal(undefined)
      await exited
      await placer.write(item('two'))
      expect(workerOf(placer)).to.not.equal(undefined).and.not.equal(first)
      expect(await fs.readFile(item('one').file, 'utf8')).to.equal('one')
      expect(await fs.readFile(item('two').file, 'utf8')).to.equal('two')
    } finally {
      clock.restore()
      await placer.stop()
    }
  })

  it('a request that cannot be sent (bytes of a detached buffer) fails and leaves nothing behind: the worker still exits when idle', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const placer = new Placer()
    try {
      let failed: unknown
      await placer.place([{ ...item('detached'), bytes: detachedBytes() }]).catch((err) => { failed = err })
      expect(String(failed)).to.match(/detached/)
      expect(await placer.place([item('after')])).to.deep.equal([])
      const w = workerOf(placer)
      expect(w).to.not.equal(undefined)
      const exited = new Promise(resolve => w!.once('exit', resolve))
      clock.tick(3_000)
      expect(workerOf(placer), 'exits when idle').to.equal(undefined)
      await exited
    } finally {
      clock.restore()
      await placer.stop()
    }
  })

  it('a request keeps the worker: the idle clock starts again when the last reply comes', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const placer = new Placer()
    try {
      await placer.write(item('a'))
      const first = workerOf(placer)
      clock.tick(2_000)
      expect(await placer.place([item('b'), item('c')])).to.deep.equal([])
      clock.tick(2_000)
      expect(workerOf(placer)).to.equal(first)
      clock.tick(1_000)
      expect(workerOf(placer)).to.equal(undefined)
    } finally {
      clock.restore()
      await placer.stop()
    }
  })

  it('places views of a shared buffer with their own bytes only, and leaves the callers buffers usable', async () => {
    const placer = new Placer()
    try {
      const shared = Buffer.from('0123456789')
      const a = { ...item('a'), bytes: shared.subarray(2, 5) }
      const b = { ...item('b'), bytes: shared.subarray(5, 5) }
      const c = { ...item('c'), bytes: shared.subarray(7) }
      expect(await placer.place([a, b, c])).to.deep.equal([])
      await placer.write({ ...item('d'), bytes: shared.subarray(0, 1) })
      expect(await fs.readFile(a.file, 'utf8')).to.equal('234')
      expect(await fs.readFile(b.file, 'utf8')).to.equal('')
      expect(await fs.readFile(c.file, 'utf8')).to.equal('789')
      expect(await fs.readFile(item('d').file, 'utf8')).to.equal('0')
      expect(shared.toString(), 'not moved to the worker').to.equal('0123456789')
      expect(a.bytes.byteLength).to.equal(3)
    } finally {
      await placer.stop()
    }
  })

  describe('a worker that cannot start', () => {
    it('its constructor throws: puts, places and syncs run on the main thread instead of failing', async () => {
      const factory = sinon.stub<[], Worker>().throws(Object.assign(new Error('Worker failed: ERR_WORKER_INIT_FAILED'), { code: 'ERR_WORKER_INIT_FAILED' }))
      const placer = new Placer(factory)
      try {
        await placer.write(item('w1'))
        expect(await placer.place([item('p1'), item('p2')])).to.deep.equal([])
        await placer.sync(dir, [item('p1').file], [item('p1').dir])
        expect(factory.callCount, 'not tried again').to.equal(1)
        expect(workerOf(placer)).to.equal(undefined)
        for (const n of ['w1', 'p1', 'p2']) expect(await fs.readFile(item(n).file, 'utf8')).to.equal(n)
        // a write that fails in place still fails (a file where the shard folder goes)
        await fs.writeFile(path.join(dir, 'CD'), 'x')
        expect(await placer.place([{ file: path.join(dir, 'CD', 'x.data'), dir: path.join(dir, 'CD'), bytes: Buffer.from('x') }, item('p3')])).to.deep.equal([0])
      } finally {
        await placer.stop()
      }
    })

    it('in place, a write after a stop and the mark removed (a clean close; the store stays usable) marks again', async () => {
      const placer = new Placer(() => { throw new Error('no worker here') })
      try {
        await placer.write(item('before'))
        const mark = path.join(dir, SHARD_TEMP_MARK)
        expect(fsSync.existsSync(mark), 'marked while temp files may be in the shard folders').to.equal(true)
        await placer.stop()
        await clearShardTempMark(dir)
        expect(await placer.place([item('after')])).to.deep.equal([])
        expect(fsSync.existsSync(mark), 'a crash now would leave temp files the next open must sweep').to.equal(true)
      } finally {
        await placer.stop()
      }
    })

    it('it errors at start (its script fails to load): the requests out and the later ones run on the main thread', async () => {
      const bad = path.join(dir, 'bad.mjs')
      await fs.writeFile(bad, 'throw new Error("cannot start")\n')
      const factory = sinon.spy(() => new Worker(bad))
      const placer = new Placer(factory)
      try {
        const [written, placed] = await Promise.all([placer.write(item('e1')), placer.place([item('e2')])])
        expect(written).to.equal(undefined)
        expect(placed).to.deep.equal([])
        await placer.write(item('e3'))
        expect(factory.callCount, 'not tried again').to.equal(1)
        for (const n of ['e1', 'e2', 'e3']) expect(await fs.readFile(item(n).file, 'utf8')).to.equal(n)
      } finally {
        await placer.stop()
      }
    })

    it('a detached buffer still fails in place', async () => {
      const placer = new Placer(() => { throw new Error('no threads') })
      let failed: unknown
      await placer.place([{ ...item('detached'), bytes: detachedBytes() }]).catch((err) => { failed = err })
      expect(String(failed)).to.match(/detached/)
      await placer.stop()
    })
  })
})
