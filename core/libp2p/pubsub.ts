// The pubsub service as Kubo configures it (core/node/libp2p/pubsub.go): `Pubsub.Router` gossipsub
// (default) or floodsub, messages signed unless `Pubsub.DisableSigning`, flood publishing, local
// delivery of our own messages, and go-libp2p-pubsub's BasicSeqnoValidator on every incoming message:
// a signed message whose seqno is not above the highest seen from its author is ignored; the highest
// seqno per author is kept in the datastore at /pubsub/seqno/<peer ID> (8 bytes, big endian).
import { Key, type Datastore } from 'interface-datastore'
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto'
import type { PeerId } from '@libp2p/interface'
import type { KuboConfig } from '../config/index.js'
import { peerIdText } from './peer-id-text.js'

export const SEQNO_PREFIX = '/pubsub/seqno/'

type Validator = (peer: PeerId, msg: any) => unknown

interface SignedLike { type?: string, from?: PeerId, sequenceNumber?: bigint }

/** authors whose highest seqno stays in memory (the datastore keeps them all) */
const MAX_AUTHORS = 10_000

/** how long a new highest seqno may wait in memory before it is written (stop and `pubsub reset` write at once) */
export const SEQNO_WRITE_DELAY_MS = 50

/**
 * Kubo's BasicSeqnoValidator over its datastore. The highest seqno of an author is read from the datastore once,
 * then kept in memory, so a message costs a comparison; new highests are written back in the background at most
 * SEQNO_WRITE_DELAY_MS later, one write per author at a time, the latest value winning (a stream of messages costs
 * one write per author per delay, not one each: a LevelDB put is a thread-pool round trip here, most of a
 * received message's cost). `flush()` (called when the router stops) writes what is pending.
 */
export class SeqnoTable {
  private readonly highest = new Map<string, bigint | undefined>()
  private readonly loading = new Map<string, Promise<boolean>>()
  private readonly writes = new Map<string, Promise<void>>()
  private readonly dirty = new Set<string>()
  private timer: ReturnType<typeof setTimeout> | undefined
  /** changes while a reset is under way (a seqno loaded across one is stale) */
  private generation = 0

  constructor (private readonly datastore: Datastore) {}

  /** 'accept' or 'ignore' for one message (unsigned ones are accepted). */
  async check (msg: SignedLike): Promise<'accept' | 'ignore'> {
    if (msg.type !== 'signed' || msg.from == null || msg.sequenceNumber == null) return 'accept'
    const id = peerIdText(msg.from)
    if (!this.highest.has(id) && !await this.load(id)) return 'ignore'
    const seqno = BigInt.asUintN(64, msg.sequenceNumber)
    const last = this.highest.get(id)
    if (last != null && seqno <= last) return 'ignore'
    this.highest.delete(id)
    this.highest.set(id, seqno)
    if (this.highest.size > MAX_AUTHORS) this.evict()
    this.save(id)
    return 'accept'
  }

  /** Resolves once every seqno accepted so far is in the datastore. */
  async flush (): Promise<void> {
    this.writeDirty()
    while (this.writes.size > 0) await Promise.all(this.writes.values())
  }

  /**
   * `pubsub reset`: forget the highest seqno of one author (of all without `id`), once their pending writes are done.
   * `clear` deletes (and counts) them in the datastore, as in Kubo; what a message loads meanwhile is not kept.
   */
  async reset (id?: string, clear?: () => Promise<void>): Promise<void> {
    await this.flush()
    this.generation++
    try {
      await clear?.()
    } finally {
      for (const key of id != null ? [id] : [...this.highest.keys()]) {
        this.highest.delete(key)
        this.dirty.delete(key)
      }
      this.generation++
    }
    await this.flush()
  }

  private async load (id: string): Promise<boolean> {
    let loading = this.loading.get(id)
    if (loading == null) {
      const generation = this.generation
      loading = (async () => {
        try {
          const buf = await this.datastore.get(new Key(SEQNO_PREFIX + id))
          if (!this.highest.has(id) && generation === this.generation) this.highest.set(id, buf.length === 8 ? Buffer.from(buf).readBigUInt64BE(0) : undefined)
        } catch (err) {
          // Kubo ignores the message when the store fails, and has nothing to compare with when the key is missing
          if ((err as Error)?.name !== 'NotFoundError') return false
          if (!this.highest.has(id) && generation === this.generation) this.highest.set(id, undefined)
        }
        return true
      })().finally(() => { this.loading.delete(id) })
      this.loading.set(id, loading)
    }
    return await loading
  }

  private save (id: string): void {
    this.dirty.add(id)
    if (this.timer != null) return
    this.timer = setTimeout(() => { this.writeDirty() }, SEQNO_WRITE_DELAY_MS)
    this.timer.unref?.()
  }

  private writeDirty (): void {
    clearTimeout(this.timer)
    this.timer = undefined
    for (const id of this.dirty) this.write(id)
  }

  private write (id: string): void {
    if (this.writes.has(id)) return
    const run = (async () => {
      while (this.dirty.delete(id)) {
        const seqno = this.highest.get(id)
        if (seqno == null) continue
        const out = Buffer.alloc(8)
        out.writeBigUInt64BE(seqno)
        try { await this.datastore.put(new Key(SEQNO_PREFIX + id), out) } catch {}
      }
    })().finally(() => { this.writes.delete(id) })
    this.writes.set(id, run)
  }

  /** drop the least recently updated authors that have nothing left to write */
  private evict (): void {
    for (const id of this.highest.keys()) {
      if (this.highest.size <= MAX_AUTHORS) return
      if (!this.dirty.has(id) && !this.writes.has(id)) this.highest.delete(id)
    }
  }
}

/**
 * A topic-validator table that runs the seqno check before any topic's own validator (js pubsub
 * routers only look validators up per topic: `topicValidators.get(topic)`).
 */
export class SeqnoValidators extends Map<string, Validator> {
  readonly seqnos: SeqnoTable
  constructor (datastore: Datastore) {
    super()
    this.seqnos = new SeqnoTable(datastore)
  }

  override get (topic: string): Validator {
    const own = super.get(topic)
    return async (peer, msg) => {
      if (await this.seqnos.check(msg) === 'ignore') return 'ignore'
      return own != null ? await own(peer, msg) : 'accept'
    }
  }
}

/**
 * Kubo's gossipsub: flood publishing, our own messages delivered locally, and no peer scoring (Kubo sets no
 * WithPeerScore): js gossipsub always scores, and its default IP-colocation penalty ((peers on one IP − 10)² × −5)
 * graylists every peer once more than 13 share an address (a LAN, loopback), ignoring all their RPCs; with both
 * penalty weights at 0 every score is 0, as in Kubo.
 */
/** an Ed25519 peer ID's bytes: identity multihash (0x00, 36) of the key as protobuf, then the 32 key bytes */
const ED25519_PEER_ID_PREFIX = Uint8Array.of(0x00, 0x24, 0x08, 0x01, 0x12, 0x20)

interface MsgLike { type: string, from?: { type?: string, publicKey?: { raw: Uint8Array }, toMultihash?: () => { bytes: Uint8Array } }, sequenceNumber?: bigint }

/**
 * The message ID of a signed message as go-libp2p-pubsub's default (Kubo): the author's peer ID bytes, then the
 * seqno's 8 bytes. js gossipsub's msgIdFnStrictSign uses the key protobuf instead (2 bytes shorter), so the IHAVE /
 * IWANT IDs of a js default node never match Kubo's; ours do.
 */
export function msgIdKubo (msg: MsgLike): Uint8Array {
  if (msg.type !== 'signed') throw new Error('expected signed message type')
  if (msg.sequenceNumber == null) throw new Error('missing seqno field')
  const from = msg.from
  const raw = from?.type === 'Ed25519' ? from.publicKey?.raw : undefined
  const idBytes = raw?.byteLength === 32 ? undefined : from?.toMultihash?.().bytes
  if (raw == null && idBytes == null) throw new Error('missing from field')
  const hex = msg.sequenceNumber.toString(16)
  const seqno = Buffer.from(hex.length <= 16 ? hex.padStart(16, '0') : hex.padStart(hex.length + (hex.length % 2), '0'), 'hex')
  const idLength = idBytes?.byteLength ?? 38
  const out = new Uint8Array(idLength + seqno.length)
  if (idBytes != null) out.set(idBytes, 0)
  else { out.set(ED25519_PEER_ID_PREFIX, 0); out.set(raw!, 6) }
  out.set(seqno, idLength)
  return out
}

export const GOSSIPSUB_OPTIONS = {
  allowPublishToZeroTopicPeers: true,
  emitSelf: true,
  floodPublish: true,
  scoreParams: { IPColocationFactorWeight: 0, behaviourPenaltyWeight: 0 }
}

interface SigningKey { type: string, raw: Uint8Array, publicKey: { raw: Uint8Array }, sign: (msg: any) => Uint8Array | Promise<Uint8Array> }

/**
 * The node's key for signing messages: an Ed25519 key signs with one KeyObject made once (@libp2p/crypto makes one
 * from JWK for every signature, most of a signature's cost); other keys are returned as they are.
 */
export function reusedSigningKey<K extends SigningKey> (key: K): K {
  if (key?.type !== 'Ed25519' || key.raw?.byteLength !== 64) return key
  let obj: KeyObject | undefined
  const signer = Object.create(key) as K
  signer.sign = (msg: Uint8Array | { subarray: () => Uint8Array }) => {
    obj ??= createPrivateKey({
      format: 'jwk',
      key: { crv: 'Ed25519', kty: 'OKP', d: Buffer.from(key.raw.subarray(0, 32)).toString('base64url'), x: Buffer.from(key.raw.subarray(32)).toString('base64url') }
    })
    return sign(null, msg instanceof Uint8Array ? msg : msg.subarray(), obj)
  }
  return signer
}

/** Ed25519 public keys as KeyObjects, by raw key (insertion order: the oldest goes first) */
const verifyKeys = new Map<string, KeyObject>()
const MAX_VERIFY_KEYS = 1024
const PATCHED = Symbol.for('tsipfs.ed25519-verify')

/**
 * Ed25519 signature checks reuse one KeyObject per public key: @libp2p/crypto's Ed25519PublicKey.verify makes
 * one from JWK for every signature (about a third of a received pubsub message's verification cost). Same checks,
 * same answers: anything but a 32-byte key and a 64-byte signature takes the library's own path (and its errors).
 * Patches the class of `sample` (any Ed25519 public key) once, for the whole process.
 */
export function reuseEd25519VerifyKeys (sample: object): void {
  const proto = Object.getPrototypeOf(sample) as Record<string | symbol, any>
  if (proto == null || proto[PATCHED] === true || typeof proto.verify !== 'function') return
  const original = proto.verify as (this: { raw: Uint8Array }, data: any, sig: Uint8Array, options?: { signal?: AbortSignal }) => unknown
  proto.verify = function (this: { raw: Uint8Array }, data: Uint8Array | { subarray: () => Uint8Array }, sig: Uint8Array, options?: { signal?: AbortSignal }) {
    const raw = this.raw
    if (!(raw instanceof Uint8Array) || raw.byteLength !== 32 || !(sig instanceof Uint8Array) || sig.byteLength !== 64 || options?.signal != null) return original.call(this, data, sig, options)
    const id = Buffer.from(raw.buffer, raw.byteOffset, 32).toString('latin1')
    let obj = verifyKeys.get(id)
    if (obj == null) {
      obj = createPublicKey({ format: 'jwk', key: { crv: 'Ed25519', kty: 'OKP', x: Buffer.from(raw).toString('base64url') } })
      if (verifyKeys.size >= MAX_VERIFY_KEYS) verifyKeys.delete(verifyKeys.keys().next().value as string)
      verifyKeys.set(id, obj)
    }
    return verify(null, data instanceof Uint8Array ? data : data.subarray(), obj, sig)
  }
  proto[PATCHED] = true
}

interface OutboundLike { pushPrefixed: (data: any) => void, close: (options?: unknown) => Promise<void>, rawStream?: { writeStatus?: string } }

/**
 * Gossipsub's outbound RPCs leave once the callback that made them is over (process.nextTick), in order per peer:
 * a `pubsub pub` answers before its message is written to the peers, as Kubo's Publish returns once the message
 * is queued (go-libp2p-pubsub writes it from each peer's own goroutine). A stream that can no longer be written
 * throws at once, as before, so gossipsub keeps what it meant to piggyback; one closed by gossipsub sends what
 * was queued first.
 */
export function deferOutboundSends (service: { streamsOutbound?: unknown }): void {
  const streams = service.streamsOutbound
  if (!(streams instanceof Map)) return
  const set = streams.set.bind(streams)
  streams.set = (id: unknown, stream: unknown) => set(id, deferred(stream as OutboundLike))
}

function deferred (stream: OutboundLike): OutboundLike {
  if (typeof stream?.pushPrefixed !== 'function' || typeof stream.close !== 'function') return stream
  const push = stream.pushPrefixed.bind(stream)
  const close = stream.close.bind(stream)
  let queue: unknown[] = []
  const flush = (): void => {
    const out = queue
    queue = []
    // a failure is the stream's end: gossipsub drops the stream on its close event
    try { for (const data of out) push(data) } catch {}
  }
  stream.pushPrefixed = (data: unknown) => {
    const status = stream.rawStream?.writeStatus
    if (status === 'closed' || status === 'closing') { push(data); return }
    if (queue.length === 0) process.nextTick(flush)
    queue.push(data)
  }
  stream.close = async (options?: unknown) => { flush(); await close(options) }
  return stream
}

interface RawMessageLike { from?: Uint8Array, key?: Uint8Array, signature?: Uint8Array }

/**
 * Our own signed messages leave without the `key` field when the author's peer ID holds the key (an identity
 * multihash: Ed25519, secp256k1), as go-libp2p-pubsub signs them (Kubo): js gossipsub always adds it, 36 bytes more
 * per message and a key to decode and match against the author on every receiver. The signature does not cover
 * `key`; receivers take the key from the peer ID. Messages of other authors are kept as they came.
 */
export function omitInlinedKey (service: { mcache?: unknown, components?: { peerId?: PeerId } }): void {
  const mcache = service.mcache as { put?: (id: unknown, raw: RawMessageLike, validated?: boolean) => unknown } | undefined
  if (typeof mcache?.put !== 'function') return
  const put = mcache.put.bind(mcache)
  let own: Uint8Array | undefined
  mcache.put = (id, raw, validated) => {
    if (raw?.key != null && raw.signature != null && raw.from != null) {
      own ??= service.components?.peerId?.toMultihash().bytes
      if (own != null && own[0] === 0x00 && equalBytes(raw.from, own)) raw.key = undefined
    }
    return put(id, raw, validated)
  }
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => a === b || (a.byteLength === b.byteLength && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b))

/** the components with the signing key above in place of the node's */
const withSigningKey = (components: any): any => {
  const key = reusedSigningKey(components.privateKey)
  return new Proxy(components, { get: (target, prop) => prop === 'privateKey' ? key : Reflect.get(target, prop) })
}

/** The libp2p service factory for the configured router. */
export async function pubsubService (config: KuboConfig, datastore: Datastore): Promise<(components: any) => unknown> {
  const { publicKeyFromRaw } = await import('@libp2p/crypto/keys')
  reuseEd25519VerifyKeys(publicKeyFromRaw(new Uint8Array(32)))
  const settings = (config.Pubsub ?? {}) as { Router?: unknown, DisableSigning?: unknown }
  const router = typeof settings.Router === 'string' && settings.Router !== '' ? settings.Router : 'gossipsub'
  const globalSignaturePolicy = settings.DisableSigning === true ? 'StrictNoSign' as const : 'StrictSign' as const
  const install = <T extends { topicValidators: Map<string, Validator> }>(service: T): T => {
    const table = new SeqnoValidators(datastore)
    for (const [k, v] of service.topicValidators) table.set(k, v)
    service.topicValidators = table
    deferOutboundSends(service as any)
    const stop = (service as any).stop?.bind(service)
    if (stop != null) (service as any).stop = async () => { try { await stop() } finally { await table.seqnos.flush() } }
    return service
  }
  if (router === 'floodsub') {
    const { floodsub } = await import('@libp2p/floodsub')
    const factory = floodsub({ globalSignaturePolicy, emitSelf: true })
    return (components) => install(factory(withSigningKey(components)) as any)
  }
  if (router !== 'gossipsub') throw new Error(`unknown pubsub router ${router}`)
  const { gossipsub } = await import('@libp2p/gossipsub')
  const msgIdFn = globalSignaturePolicy === 'StrictSign' ? { msgIdFn: (msg: any) => msgIdKubo(msg) } : {}
  const factory = gossipsub({ ...GOSSIPSUB_OPTIONS, ...msgIdFn, globalSignaturePolicy })
  return (components) => {
    const service = install(factory(withSigningKey(components)) as any)
    omitInlinedKey(service)
    return service
  }
}
