// ipfs pubsub reset: clear the persisted seqno validator state (Kubo core/commands/pubsub.go PubsubResetCmd).
import { Key } from 'interface-datastore'
import { peerIdFromString } from '@libp2p/peer-id'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'

export interface PubsubResetOutput { deleted: number }

export const pubsubReset = defineCommand({
  path: ['pubsub', 'reset'],
  description: 'Reset pubsub validator state.',
  help: 'Clears persistent sequence number state used by the pubsub validator.\n\nWARNING: FOR TESTING ONLY - DO NOT USE IN PRODUCTION\n\nResets validator state that protects against replay attacks. After reset,\npreviously seen messages may be accepted again until their sequence numbers\nare re-learned.',
  status: 'experimental',
  options: { peer: { type: 'string', aliases: ['p'], description: 'Only reset state for this peer ID' } },
  output: 'single',
  async run ({ options, deps: { datastore, libp2p } }): Promise<PubsubResetOutput> {
    // core/libp2p is not loaded by an offline node until a command needs it
    const { SEQNO_PREFIX, SeqnoValidators } = await import('../../core/libp2p/pubsub.js')
    // the running validator keeps the highest seqnos in memory too: it forgets them around the datastore's delete
    const validators = ((libp2p?.services as Record<string, unknown> | undefined)?.pubsub as { topicValidators?: unknown } | undefined)?.topicValidators
    const table = validators instanceof SeqnoValidators ? validators.seqnos : undefined
    let deleted = 0
    if (options.peer != null && options.peer !== '') {
      let id: string
      try { id = peerIdFromString(options.peer).toString() } catch (err) { throw new RpcError(`invalid peer ID: ${(err as Error).message}`) }
      const clear = async (): Promise<void> => {
        const key = new Key(SEQNO_PREFIX + id)
        if (await datastore.has(key)) {
          await datastore.delete(key)
          deleted = 1
        }
      }
      if (table != null) await table.reset(id, clear); else await clear()
    } else {
      const clear = async (): Promise<void> => {
        const keys: Key[] = []
        for await (const key of datastore.queryKeys({ prefix: SEQNO_PREFIX })) keys.push(key)
        const batch = datastore.batch()
        for (const key of keys) batch.delete(key)
        await batch.commit()
        deleted = keys.length
      }
      if (table != null) await table.reset(undefined, clear); else await clear()
    }
    return { deleted }
  },
  text: (out, { options }) => {
    const peer = (options as { peer?: string }).peer
    if (peer != null && peer !== '') return out.deleted === 0 ? `No validator state found for peer ${peer}\n` : `Reset validator state for peer ${peer}\n`
    return `Reset validator state for ${out.deleted} peer(s)\n`
  }
})
