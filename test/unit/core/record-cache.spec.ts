import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import sinon from 'sinon'
import { MemoryDatastore } from 'datastore-core'
import { Key } from 'interface-datastore'
import { cacheRecordReads, MAX_ENTRIES, MAX_KEY } from '../../../core/routing/record-cache.js'

use(chaiAsPromised)

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s)
const text = (b: Uint8Array): string => new TextDecoder().decode(b)
const REC = new Key('/dht-lan/record/AAAA')

/** a memory datastore with the cache; `reads` counts the gets that reach the store */
function store (): { ds: MemoryDatastore, reads: sinon.SinonSpy, cache: ReturnType<typeof cacheRecordReads> } {
  const ds = new MemoryDatastore()
  const reads = sinon.spy(ds, 'get')
  const cache = cacheRecordReads(ds)
  return { ds, reads, cache }
}

describe('record read cache (core/routing/record-cache)', () => {
  it('reads a record key from the store once', async () => {
    const { ds, reads } = store()
    await ds.put(REC, bytes('v1'))
    expect(text(await ds.get(REC))).to.equal('v1')
    expect(text(await ds.get(REC))).to.equal('v1')
    expect(reads.callCount).to.equal(1)
  })

  it('caches every record namespace, and no other key', async () => {
    const { ds, reads } = store()
    const keys = ['/dht/record/A', '/dht-lan/record/A', '/ipns/CIQA', '/F5UXA3TTF4AAAA'].map(k => new Key(k))
    const other = new Key('/pubsub/seqno/A')
    for (const k of [...keys, other]) await ds.put(k, bytes(k.toString()))
    for (let i = 0; i < 2; i++) for (const k of [...keys, other]) expect(text(await ds.get(k))).to.equal(k.toString())
    expect(reads.callCount).to.equal(keys.length + 2)
  })

  it('a put, a delete and a batch change what the next get returns', async () => {
    const { ds } = store()
    await ds.put(REC, bytes('v1'))
    await ds.get(REC)
    await ds.put(REC, bytes('v2'))
    expect(text(await ds.get(REC))).to.equal('v2')
    const b = ds.batch()
    b.put(REC, bytes('v3'))
    await b.commit()
    expect(text(await ds.get(REC))).to.equal('v3')
    await ds.delete(REC)
    await expect(ds.get(REC)).to.be.rejected.then((err: Error) => { expect(err.name).to.equal('NotFoundError') })
    const d = ds.batch()
    d.put(REC, bytes('v4'))
    await d.commit()
    expect(text(await ds.get(REC))).to.equal('v4')
    // putMany goes through put
    await ds.get(REC)
    for await (const _ of ds.putMany([{ key: REC, value: bytes('v5') }])) { /* drain */ }
    expect(text(await ds.get(REC))).to.equal('v5')
  })

  it('remembers a missing record until it is put', async () => {
    const { ds, reads } = store()
    for (let i = 0; i < 3; i++) await expect(ds.get(REC)).to.be.rejected.then((err: Error) => { expect(err.name).to.equal('NotFoundError') })
    expect(reads.callCount).to.equal(1)
    await ds.put(REC, bytes('v1'))
    expect(text(await ds.get(REC))).to.equal('v1')
  })

  it('gives copies: changing returned bytes does not change the next read', async () => {
    const { ds } = store()
    await ds.put(REC, bytes('v1'))
    const first = await ds.get(REC)
    first[0] = 0
    const second = await ds.get(REC)
    second[1] = 0
    expect(text(await ds.get(REC))).to.equal('v1')
  })

  it('does not keep a value read while a write of the key was under way', async () => {
    const ds = new MemoryDatastore()
    await ds.put(REC, bytes('old'))
    const realGet = ds.get.bind(ds)
    let release!: () => void
    const gate = new Promise<void>(resolve => { release = resolve })
    // the first read sees the old value but completes only after the put
    const slow = sinon.stub(ds, 'get').callsFake(async (key, options) => { const v = await realGet(key, options); await gate; return v })
    cacheRecordReads(ds)
    const pending = ds.get(REC)
    await ds.put(REC, bytes('new'))
    release()
    expect(text(await pending)).to.equal('old')
    slow.callsFake(async (key, options) => await realGet(key, options))
    expect(text(await ds.get(REC))).to.equal('new')
  })

  it('keeps no key longer than MAX_KEY (a peer\'s GET_VALUE may name any key up to the 4 MiB message size)', async () => {
    const { ds, reads, cache } = store()
    await ds.put(REC, bytes('v1'))
    await ds.get(REC)
    // what a kad-dht server reads for a long key it was asked for: a miss
    const long = new Key('/dht/record/' + 'A'.repeat(MAX_KEY))
    for (let i = 0; i < 2; i++) await expect(ds.get(long)).to.be.rejected.then((err: Error) => { expect(err.name).to.equal('NotFoundError') })
    await ds.put(long, bytes('v'))
    expect(text(await ds.get(long))).to.equal('v')
    expect(cache.size()).to.equal(1)
    expect(reads.callCount).to.equal(4)
  })

  it('a write whose caller stopped waiting (its signal aborted) still lands: no read kept meanwhile hides it', async () => {
    for (const kind of ['put', 'delete', 'batch'] as const) {
      const ds = new MemoryDatastore()
      await ds.put(REC, bytes('old'))
      // datastore-level: the caller's signal only races the LevelDB write, which goes on and lands later
      let release!: () => void
      const gate = new Promise<void>(resolve => { release = resolve })
      const race = async <T>(p: Promise<T>, signal?: AbortSignal): Promise<T> => await new Promise<T>((resolve, reject) => {
        signal?.addEventListener('abort', () => { reject(signal.reason) })
        p.then(resolve, reject)
      })
      const realPut = ds.put.bind(ds)
      const realDelete = ds.delete.bind(ds)
      const realBatch = ds.batch.bind(ds)
      sinon.stub(ds, 'put').callsFake(async (key, value, options) => await race(gate.then(async () => await realPut(key, value)), options?.signal))
      sinon.stub(ds, 'delete').callsFake(async (key, options) => { await race(gate.then(async () => { await realDelete(key) }), options?.signal) })
      sinon.stub(ds, 'batch').callsFake(() => {
        const b = realBatch()
        return { put: b.put.bind(b), delete: b.delete.bind(b), commit: async (options) => { await race(gate.then(async () => { await b.commit() }), options?.signal) } }
      })
      cacheRecordReads(ds)
      const controller = new AbortController()
      const write = kind === 'put'
        ? ds.put(REC, bytes('new'), { signal: controller.signal })
        : kind === 'delete'
          ? ds.delete(REC, { signal: controller.signal })
          : (() => { const b = ds.batch(); b.put(REC, bytes('new')); return b.commit({ signal: controller.signal }) })()
      controller.abort()
      await expect(write).to.be.rejected
      expect(text(await ds.get(REC))).to.equal('old')
      release()
      await gate
      await new Promise(resolve => setImmediate(resolve))
      if (kind === 'delete') expect((await Promise.resolve().then(async () => await ds.get(REC)).then(() => undefined, (err: Error) => err))?.name, kind).to.equal('NotFoundError')
      else expect(text(await ds.get(REC)), kind).to.equal('new')
    }
  })

  it('holds at most MAX_ENTRIES keys', async () => {
    const { ds, cache } = store()
    for (let i = 0; i < MAX_ENTRIES + 10; i++) {
      const k = new Key(`/dht/record/K${i}`)
      await ds.put(k, bytes(String(i)))
      await ds.get(k)
    }
    expect(cache.size()).to.equal(MAX_ENTRIES)
  })
})
