// core/routing: the record a node holds answers a search only when it is valid (go-libp2p-kad-dht getLocal
// validates it: an expired or badly signed copy is as none, and the node looks the key up).
import { expect } from 'chai'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { Libp2pRecord } from '@libp2p/record'
import { createIPNSRecord, createIPNSRecordWithExpiration, marshalIPNSRecord, unmarshalIPNSRecord } from 'ipns'
import { Key, type Datastore } from 'interface-datastore'
import { base32 } from 'multiformats/bases/base32'
import { connectOnline, createOnlineTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { dhtRecordKey } from '../../../core/routing/index.js'
import { ipnsNameString, ipnsRoutingKey } from '../../../core/namesys/index.js'

describe('core/routing: an invalid local copy is not answered', function () {
  this.timeout(120_000)
  let a: TestNode
  let b: TestNode

  before(async () => {
    a = await createOnlineTestNode()
    b = await createOnlineTestNode()
    await connectOnline(b, a)
  })
  after(async () => {
    await a?.stop()
    await b?.stop()
  })

  const hold = async (n: TestNode, key: Uint8Array, raw: Uint8Array): Promise<void> => {
    const ds = n.container.cradle.datastore as Datastore
    const rec = new Libp2pRecord(key, raw, new Date()).serialize()
    for (const k of [dhtRecordKey('lan', key), new Key('/' + base32.baseEncode(key).toUpperCase(), false)]) await ds.put(k, rec)
  }

  for (const kind of ['expired', 'badly signed']) {
    it(`B holding an ${kind} newer copy looks the name up and gets A's valid one (name resolve --nocache, routing get)`, async () => {
      const cid1 = (await a.invoke('add', { files: filesOf({ path: 'x', content: `local 1 ${kind}` }) }))[0].Hash
      const cid2 = (await a.invoke('add', { files: filesOf({ path: 'x', content: `local 2 ${kind}` }) }))[0].Hash
      const k = await generateKeyPair('Ed25519')
      const other = await generateKeyPair('Ed25519')
      const mh = k.publicKey.toMultihash()
      const key = ipnsRoutingKey(mh)
      await hold(a, key, marshalIPNSRecord(await createIPNSRecord(k, `/ipfs/${cid1 as string}`, 1n, 3_600_000)))
      const bad = kind === 'expired'
        ? await createIPNSRecordWithExpiration(k, `/ipfs/${cid2 as string}`, 2n, '2001-01-01T00:00:00.000000000Z')
        : { ...(await createIPNSRecord(other, `/ipfs/${cid2 as string}`, 2n, 3_600_000)), pubKey: undefined }
      await hold(b, key, marshalIPNSRecord(bad as any))
      const name = ipnsNameString(mh)
      expect((await b.invoke('name/resolve', { args: [name], options: { nocache: true } })).Path).to.equal(`/ipfs/${cid1 as string}`)
      const [event] = await b.invoke('routing/get', { args: [`/ipns/${name}`] })
      expect(unmarshalIPNSRecord(Buffer.from(event.Extra, 'base64')).value).to.equal(`/ipfs/${cid1 as string}`)
    })
  }
})
