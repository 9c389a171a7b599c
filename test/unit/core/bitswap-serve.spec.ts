// Serving a peer's wants (core/bitswap/serve.ts): messages in flight while the next blocks are read, and wants
// that come meanwhile served behind them.
import { expect } from 'chai'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { peerIdFromString } from '@libp2p/peer-id'
import { serveWants, type ServedWant, type ServingLedger } from '../../../core/bitswap/serve.js'
import type { SendMessage } from '../../../core/bitswap/sender.js'
import { NotFoundError } from '../../../core/errors.js'

const peer = peerIdFromString('12D3KooWDpJ7As7BWAwRMfu1VU2WCqNjvq387JEYKDBj4kx6nXTN')

async function block (i: number): Promise<{ cid: CID, bytes: Uint8Array }> {
  const bytes = new Uint8Array(1024).fill(i)
  return { cid: CID.createV1(0x55, await sha256.digest(bytes)), bytes }
}

function ledgerOf (): ServingLedger & { sent: number } {
  const l = {
    peerId: peer,
    wants: new Map<string, ServedWant>(),
    doNotResendBlockWindow: 10_000,
    maxSizeReplaceHasWithBlock: 1024 * 1024,
    removeExpiredWants: () => {},
    sent: 0,
    sentBytes: (n: number) => { l.sent += n }
  }
  return l
}

const want = (cid: CID, extra: Partial<ServedWant> = {}): ServedWant => ({ cid, status: 'want', wantType: 'WantBlock', ...extra })

describe('bitswap serving', () => {
  it('serves wants that come while its messages are in flight, without waiting for them to be sent', async () => {
    const blocks = await Promise.all([1, 2, 3].map(block))
    const store = new Map(blocks.map(b => [b.cid.toString(), b.bytes]))
    const ledger = ledgerOf()
    ledger.wants.set(blocks[0].cid.toString(), want(blocks[0].cid))
    const sends: Array<{ msg: SendMessage, done: () => void }> = []
    let served: Promise<void> | undefined
    const deps = {
      read: async (cid: CID) => {
        const bytes = store.get(cid.toString())
        if (bytes == null) throw new NotFoundError('not found')
        return bytes
      },
      send: async (_: unknown, msg: SendMessage) => {
        // the peer asks for more while the first message is still in flight
        if (sends.length === 0) {
          ledger.wants.set(blocks[1].cid.toString(), want(blocks[1].cid))
          ledger.wants.set(blocks[2].cid.toString(), want(blocks[2].cid))
        }
        await new Promise<void>(resolve => sends.push({ msg, done: resolve }))
      },
      window: 2
    }
    served = serveWants(ledger, deps)
    for (let i = 0; i < 20 && sends.length < 2; i++) await new Promise(resolve => setImmediate(resolve))
    // the second message went before the first was handed to the stream
    expect(sends.map(s => [...s.msg.blocks.keys()])).to.deep.equal([[blocks[0].cid.toString()], [blocks[1].cid.toString(), blocks[2].cid.toString()]])
    expect(ledger.sent).to.equal(0)
    for (const s of sends) s.done()
    await served
    expect(ledger.sent).to.equal(3 * 1024)
    expect([...ledger.wants.values()].map(w => w.status)).to.deep.equal(['sent', 'sent', 'sent'])
  })

  it('answers DONT_HAVE once and looks again at a missing block only on the next call', async () => {
    const [have, missing] = await Promise.all([1, 2].map(block))
    const ledger = ledgerOf()
    ledger.wants.set(missing.cid.toString(), want(missing.cid, { sendDontHave: true }))
    let reads = 0
    const msgs: SendMessage[] = []
    const deps = {
      read: async (cid: CID) => {
        reads++
        if (cid.equals(have.cid)) return have.bytes
        throw new NotFoundError('not found')
      },
      send: async (_: unknown, msg: SendMessage) => {
        msgs.push(msg)
        // a new want while a missing one is still wanted: served in this call, the missing one not read again
        if (msgs.length === 1) ledger.wants.set(have.cid.toString(), want(have.cid))
      },
      window: 1
    }
    await serveWants(ledger, deps)
    expect(reads).to.equal(2)
    expect(msgs.map(m => [[...m.blockPresences.values()].map(p => p.type), [...m.blocks.keys()]])).to.deep.equal([[['DoNotHaveBlock'], []], [[], [have.cid.toString()]]])
    expect(ledger.wants.get(missing.cid.toString())?.status).to.equal('want')
    await serveWants(ledger, deps)
    // read again, no second DONT_HAVE
    expect(reads).to.equal(3)
    expect(msgs).to.have.length(2)
  })
})
