import { expect } from 'chai'
import { slabAlloc, SLAB_MAX } from '../../../core/util/slab.js'

describe('core/util/slab', () => {
  it('carves small buffers from one shared slab, 8-byte aligned, without overlap', () => {
    const a = slabAlloc(5)
    const b = slabAlloc(1024)
    const c = slabAlloc(0)
    expect(a.length).to.equal(5)
    expect(b.length).to.equal(1024)
    expect(c.length).to.equal(0)
    expect(b.buffer).to.equal(a.buffer)
    expect(a.buffer.byteLength).to.be.greaterThanOrEqual(64 * 1024)
    expect(b.byteOffset % 8).to.equal(0)
    a.fill(1)
    b.fill(2)
    expect([...a]).to.deep.equal([1, 1, 1, 1, 1])
    expect(b.every(x => x === 2)).to.equal(true)
  })

  it('starts a new slab when the current one is full, and gives larger requests their own buffer', () => {
    const first = slabAlloc(SLAB_MAX)
    const seen = new Set([first.buffer])
    const views = [first]
    for (let i = 0; i < 20; i++) { const v = slabAlloc(SLAB_MAX); views.push(v); seen.add(v.buffer) }
    expect(seen.size).to.be.greaterThan(1)
    views.forEach((v, i) => v.fill(i))
    views.forEach((v, i) => { expect(v.every(x => x === i), `view ${i} intact`).to.equal(true) })
    const big = slabAlloc(SLAB_MAX + 1)
    expect(big.length).to.equal(SLAB_MAX + 1)
    expect(seen.has(big.buffer)).to.equal(false)
    expect(big.buffer).to.not.equal(slabAlloc(1).buffer)
  })
})
