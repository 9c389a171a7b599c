// The node's routing over the dual DHT (core/routing): which value `routing get` and the name system
// get when the WAN and the LAN DHT both answer (each DHT has already picked its own best).
import { expect } from 'chai'
import type { Libp2p } from '@libp2p/interface'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { createIPNSRecord, createIPNSRecordWithExpiration, marshalIPNSRecord, unmarshalIPNSRecord } from 'ipns'
import { createRouting, QueryEventType } from '../../../core/routing/index.js'

/** a DHT service whose get answers with the given values */
const dht = (values: Uint8Array[]): unknown => ({
  routingTable: { size: 1 },
  async * get () { for (const value of values) yield { type: QueryEventType.Value, name: 'VALUE', value } }
})

const hostWith = (wan: Uint8Array[], lan: Uint8Array[]): Libp2p => ({ services: { dht: dht(wan), lanDHT: dht(lan) }, addEventListener: () => {} }) as unknown as Libp2p

const ipnsKey = (name: Uint8Array): Uint8Array => new Uint8Array([...new TextEncoder().encode('/ipns/'), ...name])

describe('routing getValue over the WAN and LAN DHTs', () => {
  it('keeps the IPNS record with the highest sequence, whichever DHT answers last', async () => {
    const key = await generateKeyPair('Ed25519')
    const newer = marshalIPNSRecord(await createIPNSRecord(key, '/ipfs/bafkqaaa', 7, 3_600_000))
    const older = marshalIPNSRecord(await createIPNSRecord(key, '/ipfs/bafkqaaa', 3, 3_600_000))
    const routingKey = ipnsKey(key.publicKey.toMultihash().bytes)
    for (const [wan, lan] of [[newer, older], [older, newer]]) {
      const got = await createRouting(hostWith([wan], [lan])).getValue(routingKey)
      expect(unmarshalIPNSRecord(got).sequence).to.equal(7n)
    }
  })

  it('with equal sequences keeps the record valid the longest', async () => {
    const key = await generateKeyPair('Ed25519')
    const later = marshalIPNSRecord(await createIPNSRecordWithExpiration(key, '/ipfs/bafkqaaa', 5, '2100-01-01T00:00:00.000000000Z'))
    const sooner = marshalIPNSRecord(await createIPNSRecordWithExpiration(key, '/ipfs/bafkqaaa', 5, '2090-01-01T00:00:00.000000000Z'))
    const routingKey = ipnsKey(key.publicKey.toMultihash().bytes)
    for (const [wan, lan] of [[later, sooner], [sooner, later]]) {
      const got = await createRouting(hostWith([wan], [lan])).getValue(routingKey)
      expect(unmarshalIPNSRecord(got).validity).to.equal('2100-01-01T00:00:00.000000000Z')
    }
  })

  it('returns the only value when one DHT answers, and not found when none does', async () => {
    const value = new TextEncoder().encode('pk')
    const key = new TextEncoder().encode('/pk/x')
    expect(await createRouting(hostWith([], [value])).getValue(key)).to.deep.equal(value)
    let err: Error | undefined
    await createRouting(hostWith([], [])).getValue(key).catch((e: Error) => { err = e })
    expect(err?.message).to.equal('routing: not found')
  })
})
