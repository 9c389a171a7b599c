// An online node whose DHT tables are empty answers routing and name commands at once, as Kubo 0.40.1 does with
// no peer (observed: `routing get /ipns/<self>` after a publish gives the record; another name: "routing: not
// found"; `routing put` answers {ID: <name's peer>, Type: 5}; `name resolve --nocache` of another name: "could not
// resolve name"). js kad-dht's own get/put would wait for a first peer (> 40 s).
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { generateKeyPair } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { createIPNSRecord, marshalIPNSRecord, unmarshalIPNSRecord } from 'ipns'
import { createOnlineTestNode, filesOf, libp2pOf, type TestNode } from '../../helpers/node.js'
import { routingPlugin } from '../../../plugins/routing/index.js'
import { namePlugin } from '../../../plugins/name/index.js'
import { blockPlugin } from '../../../plugins/block/index.js'
import { dhtPlugin } from '../../../plugins/dht/index.js'

use(chaiAsPromised)

describe('routing and name commands on an online node without peers', function () {
  // each command answers in well under a second; js kad-dht's queries waited > 40 s for a first peer
  this.timeout(15_000)
  let n: TestNode
  const tables = (): number[] => ['dht', 'lanDHT'].map(s => (libp2pOf(n).services as any)[s].routingTable.size)

  before(async () => { n = await createOnlineTestNode({ plugins: [routingPlugin(), namePlugin(), blockPlugin(), dhtPlugin()] }) })
  after(async () => { await n?.stop() })

  it('name publish, then routing get of its own name gives the record the DHT keeps; name resolve finds it', async () => {
    expect(tables()).to.deep.equal([0, 0])
    const [row] = await n.invoke('block/put', { files: filesOf({ content: `no peers ${Math.random()}` }) })
    const { Name, Value } = await n.invoke('name/publish', { args: [`/ipfs/${row.Key as string}`] })
    expect(Value).to.equal(`/ipfs/${row.Key as string}`)
    const self = libp2pOf(n).peerId.toString()
    const [event] = await n.invoke('routing/get', { args: [`/ipns/${self}`] })
    expect(event).to.include({ ID: '', Type: 5, Responses: null })
    expect(unmarshalIPNSRecord(Buffer.from(event.Extra, 'base64')).value).to.equal(`/ipfs/${row.Key as string}`)
    expect((await n.invoke('name/resolve', { args: [Name], options: { nocache: true } })).Path).to.equal(`/ipfs/${row.Key as string}`)
  })

  it('routing findpeer, findprovs and dht query answer at once, as Kubo 0.40.1 (js kad-dht\'s queries waited for a first peer)', async () => {
    const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
    await expect(n.invoke('routing/findpeer', { args: [other] })).to.be.rejectedWith('routing: not found')
    // Kubo's stream: one lookup failure event (its dual DHT forwards the first), no provider
    const failure = { Extra: 'failed to find any peer in table', ID: '', Responses: null, Type: 3 }
    expect(await n.invoke('routing/findprovs', { args: ['bafkqaaa'] })).to.deep.equal([failure])
    await expect(n.invoke('dht/query', { args: [other] })).to.be.rejectedWith('failed to find any peer in table')
    // the events before the error, as Kubo 0.40.1 streams them (200, then X-Stream-Error): each empty DHT's failure
    const events = async (gen: AsyncIterable<unknown>): Promise<{ got: unknown[], error?: string }> => {
      const got: unknown[] = []
      try { for await (const e of gen) got.push(e) } catch (err) { return { got, error: (err as Error).message } }
      return { got }
    }
    const routing = n.container.cradle.routing!
    const { peerIdFromString } = await import('@libp2p/peer-id')
    expect(await events(routing.findPeer(peerIdFromString(other)))).to.deep.equal({ got: [failure, failure], error: 'routing: not found' })
    expect(await events(routing.getClosestPeers(peerIdFromString(other).toMultihash().bytes))).to.deep.equal({ got: [failure], error: 'failed to find any peer in table' })
  })

  it('routing get --offline reads the records the node holds only: "datastore: key not found" as Kubo 0.40.1\'s offline router', async () => {
    const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
    await expect(n.invoke('routing/get', { args: [`/ipns/${other}`], options: { offline: true } })).to.be.rejectedWith(/^datastore: key not found$/)
    const [row] = await n.invoke('block/put', { files: filesOf({ content: `offline get ${Math.random()}` }) })
    await n.invoke('name/publish', { args: [`/ipfs/${row.Key as string}`] })
    const [event] = await n.invoke('routing/get', { args: [`/ipns/${libp2pOf(n).peerId.toString()}`], options: { offline: true } })
    expect(event).to.include({ ID: '', Type: 5, Responses: null })
    expect(unmarshalIPNSRecord(Buffer.from(event.Extra, 'base64')).value).to.equal(`/ipfs/${row.Key as string}`)
  })

  it('a bad peer ID in routing get/findpeer fails with go-libp2p peer.Decode\'s texts, as Kubo 0.40.1', async () => {
    await expect(n.invoke('routing/get', { args: ['/ipns/notvalid'] })).to.be.rejectedWith('failed to parse peer ID: invalid cid: selected encoding not supported')
    await expect(n.invoke('routing/get', { args: ['/ipns/x'] })).to.be.rejectedWith('failed to parse peer ID: invalid cid: cid too short')
    await expect(n.invoke('routing/findpeer', { args: ['Qmfoo'] })).to.be.rejectedWith('failed to parse peer ID: length greater than remaining number of bytes in buffer')
    await expect(n.invoke('routing/findpeer', { args: ['bafkqaaa'] })).to.be.rejectedWith(/^can't convert CID of type "raw" to a peer ID$/)
  })

  it('routing get and name resolve of a name nobody put: not found at once', async () => {
    const other = peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toString()
    await expect(n.invoke('routing/get', { args: [`/ipns/${other}`] })).to.be.rejectedWith('routing: not found')
    await expect(n.invoke('name/resolve', { args: [`/ipns/${other}`], options: { nocache: true } })).to.be.rejectedWith('could not resolve name')
  })

  it('routing put of a valid record answers the name\'s peer; routing get gives it back; a /pk/ record too', async () => {
    const key = await generateKeyPair('Ed25519')
    const id = peerIdFromPrivateKey(key)
    const record = marshalIPNSRecord(await createIPNSRecord(key, '/ipfs/bafkqaaa', 1, 3_600_000))
    const put = await n.invoke('routing/put', { args: [`/ipns/${id.toString()}`], files: filesOf({ content: Buffer.from(record) }) })
    expect(put).to.deep.equal([{ Extra: '', ID: id.toString(), Responses: null, Type: 5 }])
    const [event] = await n.invoke('routing/get', { args: [`/ipns/${id.toString()}`] })
    expect(Buffer.from(event.Extra, 'base64').equals(Buffer.from(record))).to.equal(true)
    // the routing's own put and get of another key type (validated: the key must hash to the name)
    const routing = n.container.cradle.routing!
    const pkKey = new Uint8Array([...new TextEncoder().encode('/pk/'), ...id.toMultihash().bytes])
    const { publicKeyToProtobuf } = await import('@libp2p/crypto/keys')
    await routing.putValue(pkKey, publicKeyToProtobuf(key.publicKey))
    expect(Buffer.from(await routing.getValue(pkKey)).equals(Buffer.from(publicKeyToProtobuf(key.publicKey)))).to.equal(true)
    const wrong = new Uint8Array([...new TextEncoder().encode('/pk/'), ...peerIdFromPrivateKey(await generateKeyPair('Ed25519')).toMultihash().bytes])
    await routing.putValue(wrong, publicKeyToProtobuf(key.publicKey))
    await expect(routing.getValue(wrong)).to.be.rejectedWith('routing: not found')
  })
})
