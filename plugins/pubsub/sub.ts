// ipfs pubsub sub: stream the messages of a topic (Kubo core/commands/pubsub.go PubsubSubCmd).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { decodeUrlArg, encodeUrlArgs, mb64, pubsubOf, release, retain, type PubsubMessage } from './common.js'
import { multibaseOf } from '../../core/multibase.js'
import { peerIdText } from '../../core/libp2p/peer-id-text.js'

export interface PubsubMessageOutput { from?: string, data?: string, seqno?: string, topicIDs?: string[] }

/**
 * What a subscription keeps that its reader has not taken (a client that stops reading held every message):
 * past either limit a message is dropped, as go-libp2p-pubsub drops past its 32-message buffer. Larger here: a
 * burst is delivered in one run of the event loop, before the reader can take any.
 */
const SUB_BUFFER_MESSAGES = 4096
const SUB_BUFFER_BYTES = 4 * 1024 * 1024

const seqnoBytes = (n: bigint): Uint8Array => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt.asUintN(64, n)); return b }

export const pubsubSub = defineCommand({
  path: ['pubsub', 'sub'],
  description: 'Subscribe to messages on a given topic.',
  help: 'ipfs pubsub sub subscribes to messages on a given topic.\n\nEXPERIMENTAL FEATURE\n\n  This is an opt-in feature optimized for IPNS over PubSub\n  (https://specs.ipfs.tech/ipns/ipns-pubsub-router/).\n\n  To enable, set \'Pubsub.Enabled\' config to true.',
  status: 'experimental',
  args: [{ name: 'topic', kind: 'string', required: true, description: 'Name of topic to subscribe to (multibase encoded when sent over HTTP RPC).' }],
  output: 'ndjson',
  flushHeaders: true,
  cliArgs: encodeUrlArgs,
  async run ({ args, options, deps, signal }): Promise<AsyncIterable<PubsubMessageOutput>> {
    const service = pubsubOf(deps, options.offline)
    const topic = decodeUrlArg(args[0])
    const topicIDs = mb64(Buffer.from(topic))
    // messages queue from the moment we subscribe
    const queue: PubsubMessage[] = []
    let queued = 0
    let wake: (() => void) | undefined
    const onMessage = (evt: Event): void => {
      const msg = (evt as CustomEvent<PubsubMessage>).detail
      if (msg.topic !== topic || queue.length >= SUB_BUFFER_MESSAGES || queued >= SUB_BUFFER_BYTES) return
      queue.push(msg)
      queued += msg.data.byteLength
      wake?.()
    }
    service.addEventListener('message', onMessage)
    retain(service, topic)
    const onAbort = (): void => wake?.()
    signal.addEventListener('abort', onAbort)
    return (async function * () {
      try {
        while (!signal.aborted) {
          const msg = queue.shift()
          if (msg != null) queued -= msg.data.byteLength
          if (msg == null) {
            await new Promise<void>(resolve => { wake = resolve })
            wake = undefined
            continue
          }
          const out: PubsubMessageOutput = {}
          if (msg.type === 'signed' && msg.from != null) out.from = peerIdText(msg.from)
          if (msg.data.length > 0) out.data = mb64(msg.data)
          if (msg.type === 'signed' && msg.sequenceNumber != null) out.seqno = mb64(seqnoBytes(msg.sequenceNumber))
          out.topicIDs = [topicIDs]
          yield out
        }
      } finally {
        signal.removeEventListener('abort', onAbort)
        service.removeEventListener('message', onMessage)
        release(service, topic)
      }
    })()
  },
  // the raw message data (Kubo's text encoder)
  text: (value) => {
    const out = value as unknown as PubsubMessageOutput
    if (out.data == null) return ''
    const base = multibaseOf(out.data)
    if (base == null) throw new RpcError('selected encoding not supported')
    return Buffer.from(base.decoder.decode(out.data)).toString('latin1')
  }
})
