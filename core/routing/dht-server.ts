// The GET_VALUE answer of our DHT servers (what every uncached `name resolve` of a peer asks each of the K closest
// peers), in place of js kad-dht's GetValueHandler.handle: the same answer (the record held while fresh, else
// deleted; the node named by the key when it is a peer's multihash the peer store knows; the routing table's closest
// peers with their peer-store addresses but not the requester, as Kubo's; /pk/ and empty keys go to kad-dht's own handler) without its per-request
// costs, ~1/3 of an answering peer's CPU (5 nodes, perf): a thrown and caught error when the key is no multihash (an
// /ipns/ key never is), an async multiformats sha256, a base32 key built a character at a time, and the record
// deserialized and serialized again (the bytes held are sent as they are: kad-dht stored them with serialize()).
import { createHash } from 'node:crypto'
import { Key, type Datastore } from 'interface-datastore'
import { Libp2pRecord } from '@libp2p/record'
import { peerIdFromMultihash } from '@libp2p/peer-id'
import * as Digest from 'multiformats/hashes/digest'
import { TimeoutError, type Connection, type PeerId, type PeerInfo, type PeerStore, type Stream } from '@libp2p/interface'
import { pbStream } from '@libp2p/utils'
import { base32LowerOf } from '../util/base32.js'

/** js kad-dht PROVIDERS_VALIDITY: a record received longer ago is not answered (and is deleted) */
export const RECORD_VALIDITY_MS = 48 * 60 * 60 * 1000

interface GetValueMessage { type: unknown, key?: Uint8Array, clusterLevel?: number }

interface GetValueResponse {
  type: unknown
  key: Uint8Array
  clusterLevel?: number
  closer: Array<{ id: Uint8Array, multiaddrs: Uint8Array[] }>
  providers: never[]
  record?: Uint8Array
}

/** the parts of js kad-dht's GetValueHandler instance used here */
interface GetValueHandler {
  handle: (peer: PeerId, msg: GetValueMessage) => Promise<unknown>
  peerStore: PeerStore
  datastore: Datastore
  /** `${datastorePrefix}/record` */
  datastorePrefix: string
}

interface Codec { encode: (m: any) => Uint8Array, decode: (b: any) => any }

interface Rpc {
  handlers?: Record<string, GetValueHandler | undefined>
  handleMessage?: (peer: PeerId, msg: any) => Promise<unknown>
  onIncomingStream?: (stream: Stream, connection: Connection) => Promise<void>
  incomingMessageTimeout?: number
  metrics?: { rpcTime?: { timer: (label: string) => () => void } }
  log?: { error: (fmt: string, ...args: unknown[]) => void }
}

interface KadDhtInternals {
  rpc?: Rpc
  routingTable?: { closestPeers: (kadId: Uint8Array) => PeerId[] }
}

const PK = Buffer.from('/pk/')

/** a varint at `pos`: [value, next position], or undefined when truncated */
function readVarint (b: Uint8Array, pos: number): [number, number] | undefined {
  let n = 0
  let mul = 1
  for (let i = pos; i < b.length && i < pos + 9; i++) {
    n += (b[i] & 0x7f) * mul
    if (b[i] < 0x80) return [n, i + 1]
    mul *= 128
  }
  return undefined
}

/** the key is a whole multihash (code, length, digest of that length): what Digest.decode accepts */
export function isMultihash (key: Uint8Array): boolean {
  const code = readVarint(key, 0)
  const size = code != null ? readVarint(key, code[1]) : undefined
  return size != null && size[1] + size[0] === key.length
}

/** Replaces the GET_VALUE handler of a js kad-dht instance (in place, before it starts); returns it. */
export function leanGetValue<T extends object> (dht: T): T {
  const internals = dht as KadDhtInternals
  const handler = internals.rpc?.handlers?.GET_VALUE
  const table = internals.routingTable
  if (handler == null || table == null || typeof handler.handle !== 'function') return dht
  const original = handler.handle.bind(handler)

  const localRecord = async (key: Uint8Array): Promise<Uint8Array | undefined> => {
    const dsKey = new Key(`${handler.datastorePrefix}/${base32LowerOf(key)}`, false)
    let raw: Uint8Array
    try {
      raw = await handler.datastore.get(dsKey)
    } catch (err) {
      if ((err as Error).name === 'NotFoundError') return undefined
      throw err
    }
    const record = Libp2pRecord.deserialize(raw)
    if (record.timeReceived == null || Date.now() - record.timeReceived.getTime() > RECORD_VALIDITY_MS) {
      await handler.datastore.delete(dsKey)
      return undefined
    }
    return raw
  }

  // kad-dht's getClosestPeersOffline, without the requester (go-libp2p-kad-dht betterPeersToQuery: a peer is not sent
  // back itself; kad-dht sends it, and the requester drops it)
  const closerPeers = async (key: Uint8Array, requester: PeerId): Promise<PeerInfo[]> => {
    const out: PeerInfo[] = []
    if (isMultihash(key)) {
      try {
        const peer = await handler.peerStore.get(peerIdFromMultihash(Digest.decode(key)))
        out.push({ id: peer.id, multiaddrs: peer.addresses.map(a => a.multiaddr) })
      } catch {}
    }
    for (const id of table.closestPeers(createHash('sha256').update(key).digest())) {
      if (id.equals(requester)) continue
      try {
        out.push(await handler.peerStore.getInfo(id))
      } catch (err) {
        if ((err as Error).name !== 'NotFoundError') throw err
      }
    }
    return out
  }

  handler.handle = async (peer, msg) => {
    const key = msg.key
    if (key == null || key.length === 0 || (key.length >= 4 && PK.equals(key.subarray(0, 4)))) return await original(peer, msg)
    const [record, closer] = await Promise.all([localRecord(key), closerPeers(key, peer)])
    const response: GetValueResponse = {
      type: msg.type,
      key,
      clusterLevel: msg.clusterLevel,
      closer: closer.map(p => ({ id: p.id.toMultihash().bytes, multiaddrs: p.multiaddrs.map(ma => ma.bytes) })),
      providers: []
    }
    if (record != null) response.record = record
    return response
  }
  return dht
}

/** js kad-dht's dht.pb codec (the package does not export it: loaded from the file beside its entry point) */
let messageCodec: Promise<Codec> | undefined
const loadCodec = async (): Promise<Codec> => await (messageCodec ??= import(new URL('./message/dht.js', import.meta.resolve('@libp2p/kad-dht')).href).then(m => m.Message as Codec))

/**
 * Replaces js kad-dht's RPC.onIncomingStream (in place, before the DHT starts: it binds it when it registers its
 * protocol) with the same loop (read a message, answer it through kad-dht's handleMessage, its rpcTime metric, 10 s
 * without a message aborts the stream) but one timer per stream, restarted per message: kad-dht makes an
 * AbortSignal.timeout per message, whose timer still fires 10 s later and makes a DOMException (~5 % of an
 * answering peer's CPU, perf).
 */
export function leanStreams<T extends object> (dht: T): T {
  const rpc = (dht as KadDhtInternals).rpc
  if (rpc == null || typeof rpc.onIncomingStream !== 'function' || typeof rpc.handleMessage !== 'function') return dht
  const handleMessage = rpc.handleMessage.bind(rpc)
  const timeoutMs = rpc.incomingMessageTimeout ?? 10_000
  rpc.onIncomingStream = async (stream, connection) => {
    const timer = setTimeout(() => { stream.abort(new TimeoutError()) }, timeoutMs)
    try {
      const messages = pbStream(stream).pb(await loadCodec())
      while (true) {
        // the remote will not send any more data
        if (stream.readStatus !== 'readable') {
          await stream.close()
          break
        }
        const message = await messages.read()
        timer.refresh()
        const stopTimer = rpc.metrics?.rpcTime?.timer(String(message.type))
        try {
          const res = await handleMessage(connection.remotePeer, message)
          if (res != null) await messages.write(res)
        } catch (err) {
          rpc.log?.error('error handling incoming message - %e', err)
          stream.abort(err as Error)
          return
        } finally {
          stopTimer?.()
        }
        timer.refresh()
      }
    } finally {
      clearTimeout(timer)
    }
  }
  return dht
}
