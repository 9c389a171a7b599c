// core/routing searchParallel: Kubo's composition of its WAN and LAN DHTs for SearchValue (go-libp2p-routing-helpers
// Parallel.search): values as they come, the record the node holds once, and the first router that ends having given
// a value ends the search.
import { expect } from 'chai'
import type { PeerId } from '@libp2p/interface'
import { searchParallel, type SearchRouter } from '../../../core/routing/index.js'

const self = { toString: () => 'self' } as unknown as PeerId
const peer = (name: string): PeerId => ({ toString: () => name }) as unknown as PeerId
const v = (s: string): Uint8Array => new TextEncoder().encode(s)
const text = (b: Uint8Array): string => new TextDecoder().decode(b)

/** a router that gives its values in order, then waits until `end` resolves or it is stopped */
function router (values: Array<{ value: string, from?: string, local?: boolean }>, end?: Promise<void>): SearchRouter & { stopped: () => boolean, finished: () => boolean } {
  let stopped = false
  let finished = false
  const r = async (emit: Parameters<SearchRouter>[0], stop: AbortSignal): Promise<void> => {
    for (const x of values) {
      await Promise.resolve()
      if (await emit(v(x.value), x.local === true ? self : peer(x.from ?? 'p'), x.local === true)) return
    }
    if (end != null) {
      await new Promise<void>((resolve) => {
        let over = false
        const done = (): void => { if (over) return; over = true; stopped = stop.aborted; resolve() }
        stop.addEventListener('abort', done, { once: true })
        if (stop.aborted) done()
        void end.then(done)
      })
    }
    finished = true
  }
  return Object.assign(r, { stopped: () => stopped, finished: () => finished })
}

const never = new Promise<void>(() => {})

describe('core/routing searchParallel (Kubo dual DHT SearchValue)', () => {
  it('a router that ends having given a value stops the others: the local copy answers at once when a DHT has no peers', async () => {
    const got: string[] = []
    const wan = router([{ value: 'v1', local: true }])
    const lan = router([{ value: 'v1', local: true }], never)
    await searchParallel([wan, lan], (value) => { got.push(text(value)); return false })
    expect(got).to.deep.equal(['v1'])
    expect(lan.stopped()).to.equal(true)
  })

  it('the local copy goes to onRecord once however many routers give it, with local = true', async () => {
    const got: Array<[string, string, boolean]> = []
    const end = new Promise<void>(resolve => setImmediate(resolve))
    await searchParallel([router([{ value: 'v1', local: true }, { value: 'v2', from: 'a' }], end), router([{ value: 'v1', local: true }, { value: 'v1', from: 'b' }], end)],
      (value, from, local) => { got.push([text(value), from.toString(), local]); return false })
    expect(got.filter(g => g[2])).to.deep.equal([['v1', 'self', true]])
    expect(got.filter(g => !g[2]).map(g => g[0]).sort()).to.deep.equal(['v1', 'v2'])
  })

  it('a router that ends without a value does not stop the others: the search waits for the one still looking', async () => {
    const got: string[] = []
    let release!: () => void
    const lanEnd = new Promise<void>((resolve) => { release = resolve })
    const wan = router([])
    const lan = router([{ value: 'v2', from: 'a' }], lanEnd)
    const search = searchParallel([wan, lan], (value) => { got.push(text(value)); return false })
    await new Promise(resolve => setImmediate(resolve))
    expect(wan.finished()).to.equal(true)
    expect(lan.finished()).to.equal(false)
    release()
    await search
    expect(got).to.deep.equal(['v2'])
    expect(lan.stopped()).to.equal(false)
  })

  it('with no value anywhere it waits for every router', async () => {
    const a = router([])
    const b = router([], Promise.resolve())
    await searchParallel([a, b], () => false)
    expect(a.finished() && b.finished()).to.equal(true)
  })

  it('onRecord saying enough stops every router', async () => {
    const got: string[] = []
    const a = router([{ value: 'x', from: 'a' }, { value: 'y', from: 'a' }], never)
    const b = router([], never)
    await searchParallel([a, b], (value) => { got.push(text(value)); return true })
    expect(got).to.deep.equal(['x'])
    expect(b.stopped()).to.equal(true)
  })

  it('an error is thrown only when no value came', async () => {
    const failing: SearchRouter = async () => { throw new Error('lookup failed') }
    let err: Error | undefined
    await searchParallel([failing, router([])], () => false).catch((e: Error) => { err = e })
    expect(err?.message).to.equal('lookup failed')
    const got: string[] = []
    await searchParallel([failing, router([{ value: 'v', from: 'a' }])], (value) => { got.push(text(value)); return false })
    expect(got).to.deep.equal(['v'])
  })
})
