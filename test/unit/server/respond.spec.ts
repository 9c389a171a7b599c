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
