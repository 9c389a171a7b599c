import { expect } from 'chai'
import { sendOutcome } from '../../../server/respond.js'
import { routingGet } from '../../../plugins/routing/get.js'
import type { CommandSpec } from '../../../registry/types.js'

/** The subset of a Koa context sendOutcome touches for a body sent in one piece. */
function fakeCtx (): { status: number, body: unknown, headers: Record<string, string>, set: (k: string, v: string) => void, remove: (k: string) => void, res: object } {
  const headers: Record<string, string> = {}
  return { status: 0, body: undefined, headers, set: (k, v) => { headers[k] = v }, remove: (k) => { Reflect.deleteProperty(headers, k) }, res: {} }
}

async function * once<T> (v: T): AsyncGenerator<T> { yield v }

describe('server/respond text encoding', () => {
  // Kubo writes the record bytes of routing get as they are; a UTF-8 re-encoding made a 397-byte record 472 bytes
  it('routing get ?encoding=text sends the value bytes, not their UTF-8 encoding', async () => {
    const value = Buffer.from([0x0a, 0x34, 0x80, 0xff, 0xc3, 0x00, 0x7f])
    const event = { ID: '', Type: 5, Responses: null, Extra: value.toString('base64') }
    for (const enc of ['text', 'textnl']) {
      const ctx = fakeCtx()
      await sendOutcome(ctx as never, { kind: 'ndjson', items: once(event) }, enc, routingGet as unknown as CommandSpec, { path: ['routing', 'get'], args: [], options: {} } as never)
      expect(ctx.body).to.deep.equal(enc === 'text' ? value : Buffer.concat([value, Buffer.from('\n')]))
    }
    const ctx = fakeCtx()
    await sendOutcome(ctx as never, { kind: 'ndjson', items: once(event) }, 'json', routingGet as unknown as CommandSpec, { path: ['routing', 'get'], args: [], options: {} } as never)
    expect(JSON.parse(String(ctx.body)).Extra).to.equal(event.Extra)
  })

  it('other commands\' text stays UTF-8', async () => {
    const spec = { path: ['x'], text: (v: string) => v } as unknown as CommandSpec
    for (const outcome of [{ kind: 'single', value: 'é€' }, { kind: 'ndjson', items: once('é€') }]) {
      const ctx = fakeCtx()
      await sendOutcome(ctx as never, outcome as never, 'text', spec, { path: ['x'], args: [], options: {} } as never)
      expect(ctx.body).to.deep.equal(Buffer.from('é€', 'utf8'))
    }
  })
})

describe('server/respond big JSON values (issue 15)', () => {
  const rawJSON = (JSON as unknown as { rawJSON: (t: string) => unknown }).rawJSON
  /** an ls-like answer of n links, with names Go escapes, plus values JSON.stringify treats specially */
  const listing = (n: number): unknown => ({
    Objects: [{
      Hash: 'Qm<&>',
      Links: Array.from({ length: n }, (_, i) => ({ Name: `f${i}<a&b>\u2028\u2029é\ud800`, Hash: `h${i}`, Size: i, Type: 2, Skip: undefined, Fn: () => 1 }))
    }],
    Holes: Array.from({ length: 300 }, (_, i) => i % 3 === 0 ? undefined : i % 3 === 1 ? () => 0 : new Date(i)),
    Max: rawJSON('18446744073709551615'),
    Keys: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [i % 2 === 0 ? `k${i}` : String(i), { Type: 'recursive' }]))
  })

  it('goJsonPieces: the same text as goJson in bounded pieces; none for a small value', async () => {
    const { goJson, goJsonPieces } = await import('../../../server/go-json.js')
    expect(goJsonPieces({ Objects: [{ Hash: 'x', Links: [{ Name: 'a' }] }] })).to.equal(undefined)
    expect(goJsonPieces([1, 2, 3])).to.equal(undefined)
    for (const n of [0, 257, 5000]) {
      const value = listing(n)
      const pieces = [...(goJsonPieces(value, 4096) ?? [])]
      expect(pieces.join('')).to.equal(goJson(value))
      expect(pieces.length).to.be.greaterThan(n / 100)
      // escapes make a piece longer than its source text (here about 1.4 times)
      for (const p of pieces) expect(p.length).to.be.lessThan(2 * 4096)
    }
  })

  it('a big single JSON value is written in pieces with the bytes goJson gives; a small one in one body', async () => {
    const { goJson } = await import('../../../server/go-json.js')
    const spec = { path: ['x'] } as unknown as CommandSpec
    const call = { path: ['x'], args: [], options: {} } as never
    const small = { Entries: [{ Name: 'a<b', Hash: 'h', Size: 1, Type: 0 }] }
    const ctx1 = fakeCtx()
    await sendOutcome(ctx1 as never, { kind: 'single', value: small } as never, 'json', spec, call)
    expect(String(ctx1.body)).to.equal(goJson(small))

    const value = listing(20_000)
    const writes: string[] = []
    let ended = false
    const res = {
      destroyed: false,
      writableLength: 0,
      write: (c: string | Uint8Array) => { writes.push(String(c)); return true },
      end: () => { ended = true },
      on: () => res,
      off: () => res,
      addTrailers: () => { throw new Error('no error expected') }
    }
    const ctx2 = { ...fakeCtx(), res, respond: true }
    await sendOutcome(ctx2 as never, { kind: 'single', value } as never, 'json', spec, call)
    for (let i = 0; i < 100 && !ended; i++) await new Promise(resolve => setImmediate(resolve))
    expect(ended).to.equal(true)
    expect(ctx2.respond).to.equal(false)
    expect(ctx2.headers['Content-Type']).to.equal('application/json')
    expect(writes.join('')).to.equal(goJson(value))
    expect(writes.length).to.be.greaterThan(10)
    for (const w of writes) expect(w.length).to.be.lessThan(2 * 64 * 1024)
  })
})
