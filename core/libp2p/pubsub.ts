// The pubsub service as Kubo configures it (core/node/libp2p/pubsub.go): `Pubsub.Router` gossipsub
// (default) or floodsub, messages signed unless `Pubsub.DisableSigning`, flood publishing, local
// delivery of our own messages, and go-libp2p-pubsub's BasicSeqnoValidator on every incoming message:
// a signed message whose seqno is not above the highest seen from its author is ignored; the highest
// seqno per author is kept in the datastore at /pubsub/seqno/<peer ID> (8 bytes, big endian).
import { Key, type Datastore } from 'interface-datastore'
import type { PeerId } from '@libp2p/interface'
import type { KuboConfig } from '../config/index.js'

export const SEQNO_PREFIX = '/pubsub/seqno/'

type Validator = (peer: PeerId, msg: any) => unknown

interface SignedLike { type?: string, from?: PeerId, sequenceNumber?: bigint }

/** Kubo's persistent seqno check for one message: 'accept' or 'ignore'. */
export async function checkSeqno (datastore: Datastore, msg: SignedLike, locks: Map<string, Promise<unknown>>): Promise<'accept' | 'ignore'> {
  if (msg.type !== 'signed' || msg.from == null || msg.sequenceNumber == null) return 'accept'
  const id = msg.from.toString()
  const key = new Key(SEQNO_PREFIX + id)
  const run = (locks.get(id) ?? Promise.resolve()).catch(() => {}).then(async () => {
    let last: bigint | undefined
    try {
      const buf = await datastore.get(key)
      if (buf.length === 8) last = Buffer.from(buf).readBigUInt64BE(0)
    } catch (err) {
      if ((err as Error)?.name !== 'NotFoundError') return 'ignore' as const
    }
    const seqno = BigInt.asUintN(64, msg.sequenceNumber as bigint)
    if (last != null && seqno <= last) return 'ignore' as const
    const out = Buffer.alloc(8)
    out.writeBigUInt64BE(seqno)
    await datastore.put(key, out)
    return 'accept' as const
  })
  locks.set(id, run)
  try {
    return await run
  } finally {
    if (locks.get(id) === run) locks.delete(id)
  }
}

/**
 * A topic-validator table that runs the seqno check before any topic's own validator (js pubsub
 * routers only look validators up per topic: `topicValidators.get(topic)`).
 */
export class SeqnoValidators extends Map<string, Validator> {
  private readonly locks = new Map<string, Promise<unknown>>()
  constructor (private readonly datastore: Datastore) { super() }

  override get (topic: string): Validator {
    const own = super.get(topic)
    return async (peer, msg) => {
      if (await checkSeqno(this.datastore, msg, this.locks) === 'ignore') return 'ignore'
      return own != null ? await own(peer, msg) : 'accept'
    }
  }
}

/** The libp2p service factory for the configured router. */
export async function pubsubService (config: KuboConfig, datastore: Datastore): Promise<(components: any) => unknown> {
  const settings = (config.Pubsub ?? {}) as { Router?: unknown, DisableSigning?: unknown }
  const router = typeof settings.Router === 'string' && settings.Router !== '' ? settings.Router : 'gossipsub'
  const globalSignaturePolicy = settings.DisableSigning === true ? 'StrictNoSign' as const : 'StrictSign' as const
  const install = <T extends { topicValidators: Map<string, Validator> }>(service: T): T => {
    const table = new SeqnoValidators(datastore)
    for (const [k, v] of service.topicValidators) table.set(k, v)
    service.topicValidators = table
    return service
  }
  if (router === 'floodsub') {
    const { floodsub } = await import('@libp2p/floodsub')
    const factory = floodsub({ globalSignaturePolicy, emitSelf: true })
    return (components) => install(factory(components) as any)
  }
  if (router !== 'gossipsub') throw new Error(`unknown pubsub router ${router}`)
  const { gossipsub } = await import('@libp2p/gossipsub')
  const factory = gossipsub({ allowPublishToZeroTopicPeers: true, emitSelf: true, floodPublish: true, globalSignaturePolicy })
  return (components) => install(factory(components) as any)
}
