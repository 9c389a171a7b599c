// IPNS over pubsub (go-libp2p-pubsub-router, as Kubo runs it with Ipns.UsePubsub): one topic per name,
// `/record/<base64url("/ipns/" + multihash)>`. Resolving a name subscribes to its topic; records that
// arrive (valid and newer than what we hold) are kept; a peer joining a topic is asked for its record
// over `/libp2p/fetch/0.0.1`; publishing subscribes and publishes; every 10 minutes the records we hold
// are published again.
import type { Libp2p, PeerId, Stream, Connection } from '@libp2p/interface'
import type { Datastore } from 'interface-datastore'
import type { Logger } from '../logger/index.js'
import { ipnsValidator } from 'ipns/validator'
import { ipnsSelector } from 'ipns/selector'
import { ipnsNameString, ipnsPubsubTopic, ipnsRoutingKey, nameOfTopic, type NameHash } from './name.js'

export const FETCH_PROTOCOL = '/libp2p/fetch/0.0.1'
const REBROADCAST_MS = 10 * 60_000
const FETCH_TIMEOUT_MS = 10_000

/** What we use of a pubsub service (gossipsub or floodsub). */
export interface PubsubService extends EventTarget {
  subscribe: (topic: string) => void
  unsubscribe: (topic: string) => void
  publish: (topic: string, data: Uint8Array) => Promise<unknown>
  getTopics: () => string[]
  getSubscribers: (topic: string) => PeerId[]
  getPeers: () => PeerId[]
  topicValidators: Map<string, (peer: PeerId, msg: { data: Uint8Array, topic: string }) => unknown>
}

interface TopicState { mh: NameHash, topic: string, value?: Uint8Array }

// protobuf: FetchRequest { string identifier = 1 }, FetchResponse { StatusCode status = 1; bytes data = 2 }
const varint = (n: number): number[] => { const out: number[] = []; while (n > 0x7f) { out.push((n & 0x7f) | 0x80); n >>>= 7 } out.push(n); return out }
const field = (tag: number, bytes: Uint8Array): Uint8Array => Uint8Array.from([tag, ...varint(bytes.length), ...bytes])
function readFields (buf: Uint8Array): Map<number, Uint8Array | number> {
  const out = new Map<number, Uint8Array | number>()
  let i = 0
  const rv = (): number => { let x = 0; let s = 0; for (;;) { const b = buf[i++]; x += (b & 0x7f) * 2 ** s; s += 7; if (b < 0x80 || i >= buf.length) return x } }
  while (i < buf.length) {
    const tag = rv()
    const wire = tag & 7
    if (wire === 0) out.set(tag >>> 3, rv())
    else if (wire === 2) { const len = rv(); out.set(tag >>> 3, buf.subarray(i, i + len)); i += len } else break
  }
  return out
}

export class IpnsPubsub {
  private readonly topics = new Map<string, TopicState>()
  private timer?: NodeJS.Timeout
  private readonly onMessage = (evt: Event): void => { this.handleMessage((evt as CustomEvent).detail) }
  private readonly onSubscriptionChange = (evt: Event): void => { this.handlePeerJoin((evt as CustomEvent).detail) }

  constructor (private readonly deps: { libp2p: Libp2p, datastore: Datastore, logger: Logger }) {}

  get service (): PubsubService {
    return (this.deps.libp2p.services as Record<string, unknown>).pubsub as PubsubService
  }

  async start (): Promise<void> {
    this.service.addEventListener('message', this.onMessage)
    this.service.addEventListener('subscription-change', this.onSubscriptionChange)
    await this.deps.libp2p.handle(FETCH_PROTOCOL, (stream: Stream) => { void this.serveFetch(stream) }, { runOnLimitedConnection: false }).catch(() => {})
    this.timer = setInterval(() => { void this.rebroadcast() }, REBROADCAST_MS)
    this.timer.unref()
  }

  async stop (): Promise<void> {
    clearInterval(this.timer)
    this.service.removeEventListener('message', this.onMessage)
    this.service.removeEventListener('subscription-change', this.onSubscriptionChange)
    await this.deps.libp2p.unhandle(FETCH_PROTOCOL).catch(() => {})
  }

  /** Names whose topics we follow. */
  subscriptions (): NameHash[] {
    return [...this.topics.values()].map(t => t.mh)
  }

  /** Stop following a name; false when we did not. */
  cancel (mh: NameHash): boolean {
    const topic = ipnsPubsubTopic(mh)
    if (!this.topics.has(topic)) return false
    this.topics.delete(topic)
    this.service.topicValidators.delete(topic)
    this.service.unsubscribe(topic)
    return true
  }

  private subscribe (mh: NameHash): TopicState {
    const topic = ipnsPubsubTopic(mh)
    let state = this.topics.get(topic)
    if (state != null) return state
    state = { mh, topic }
    this.topics.set(topic, state)
    const key = ipnsRoutingKey(mh)
    const self = this.deps.libp2p.peerId
    this.service.topicValidators.set(topic, async (peer, msg) => {
      const cmp = await this.compare(key, state.value, msg.data)
      if (cmp == null) return 'reject'
      return cmp > 0 || (cmp === 0 && peer.equals(self)) ? 'accept' : 'ignore'
    })
    this.service.subscribe(topic)
    // peers already on the topic may hold a record
    for (const peer of this.service.getSubscribers(topic)) void this.fetchFrom(peer, state)
    return state
  }

  /** 1: `raw` is better than `current`, 0: same, -1: worse, undefined: invalid. */
  private async compare (key: Uint8Array, current: Uint8Array | undefined, raw: Uint8Array): Promise<number | undefined> {
    try { await ipnsValidator(key, raw) } catch { return undefined }
    if (current == null) return 1
    if (Buffer.compare(current, raw) === 0) return 0
    return ipnsSelector(key, [current, raw]) === 1 ? 1 : -1
  }

  private async keep (state: TopicState, raw: Uint8Array): Promise<boolean> {
    const cmp = await this.compare(ipnsRoutingKey(state.mh), state.value, raw)
    if (cmp !== 1) return false
    state.value = raw
    return true
  }

  /** The record we hold for a name (subscribing to its topic first), if any. */
  async get (mh: NameHash): Promise<Uint8Array | undefined> {
    return this.subscribe(mh).value
  }

  /** The record we hold for a name, without subscribing. */
  peek (mh: NameHash): Uint8Array | undefined {
    return this.topics.get(ipnsPubsubTopic(mh))?.value
  }

  /** Keep a record and publish it on the name's topic. */
  async put (mh: NameHash, raw: Uint8Array): Promise<void> {
    const state = this.subscribe(mh)
    if (!await this.keep(state, raw) && (state.value == null || Buffer.compare(state.value, raw) !== 0)) return
    await this.service.publish(state.topic, raw)
  }

  private handleMessage (msg: { topic: string, data: Uint8Array }): void {
    const state = this.topics.get(msg.topic)
    if (state == null) return
    void this.keep(state, msg.data)
  }

  private handlePeerJoin (change: { peerId: PeerId, subscriptions: Array<{ topic: string, subscribe: boolean }> }): void {
    for (const sub of change.subscriptions) {
      const state = sub.subscribe ? this.topics.get(sub.topic) : undefined
      if (state != null) void this.fetchFrom(change.peerId, state)
    }
  }

  private async fetchFrom (peer: PeerId, state: TopicState): Promise<void> {
    try {
      const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS)
      const stream = await this.deps.libp2p.dialProtocol(peer, FETCH_PROTOCOL, { signal })
      // loaded here: an offline node (which never runs this) must not load libp2p code
      const { lpStream } = await import('@libp2p/utils')
      const lp = lpStream(stream)
      await lp.write(field(0x0a, ipnsRoutingKey(state.mh)), { signal })
      await stream.close({ signal }).catch(() => {})
      const res = readFields((await lp.read({ signal })).subarray())
      const status = res.get(1) ?? 0
      const data = res.get(2)
      if (status === 0 && data instanceof Uint8Array && data.length > 0) await this.keep(state, data)
    } catch (err) {
      this.deps.logger.debug(`fetching ${ipnsNameString(state.mh)} from ${peer.toString()}: ${(err as Error).message}`)
    }
  }

  private async serveFetch (stream: Stream, _connection?: Connection): Promise<void> {
    try {
      const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS)
      // loaded here: an offline node (which never runs this) must not load libp2p code
      const { lpStream } = await import('@libp2p/utils')
      const lp = lpStream(stream)
      const req = readFields((await lp.read({ signal })).subarray())
      const id = req.get(1)
      let value: Uint8Array | undefined
      if (id instanceof Uint8Array) {
        const mh = nameOfTopic('/record/' + Buffer.from(id).toString('base64url'))
        value = mh != null ? this.topics.get(ipnsPubsubTopic(mh))?.value : undefined
      }
      // status NOT_FOUND = 1; OK = 0 is the proto3 default and is not written
      await lp.write(value != null ? field(0x12, value) : Uint8Array.from([0x08, 0x01]), { signal })
      await stream.close({ signal })
    } catch {
      stream.abort(new Error('fetch failed'))
    }
  }

  private async rebroadcast (): Promise<void> {
    for (const state of this.topics.values()) {
      if (state.value != null) await this.service.publish(state.topic, state.value).catch(() => {})
    }
  }
}
