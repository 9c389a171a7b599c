// Shared pieces of the pubsub commands: the service, Kubo's URL argument encoding, subscriptions.
import type { PeerId } from '@libp2p/interface'
import { base64url } from 'multiformats/bases/base64'
import { RpcError } from '../../core/errors.js'
import { multibaseOf } from '../../core/multibase.js'
import type { RequestCradle } from '../../core/cradle.js'
import type { PubsubService } from '../../core/namesys/pubsub.js'

export const ERR_DISABLED = 'experimental pubsub feature not enabled, run daemon with --enable-pubsub-experiment to use'
export const ERR_OFFLINE = "this action must be run in online mode, try running 'ipfs daemon' first"

export interface PubsubMessage { type: 'signed' | 'unsigned', from?: PeerId, data: Uint8Array, sequenceNumber?: bigint, topic: string }

/** The node's pubsub service (Kubo checkNode): enabled, and the request is not --offline. */
export function pubsubOf (deps: RequestCradle, offline: boolean | undefined): PubsubService {
  const service = (deps.libp2p?.services as Record<string, unknown> | undefined)?.pubsub as PubsubService | undefined
  if (service == null) throw new RpcError(ERR_DISABLED)
  if (offline === true) throw new RpcError(ERR_OFFLINE)
  return service
}

/** Kubo urlArgsDecoder: every argument is multibase, and must be base64url. */
export function decodeUrlArg (arg: string): string {
  // canonical base64url (what every client sends) decodes natively; anything else takes multiformats' path and errors
  if (arg.length > 1 && arg.charCodeAt(0) === 0x75) {
    const bytes = Buffer.from(arg.slice(1), 'base64url')
    if (bytes.toString('base64url') === arg.slice(1)) return bytes.toString('utf8')
  }
  const base = multibaseOf(arg)
  let bytes: Uint8Array
  try {
    if (base == null) throw new Error(arg === '' ? 'cannot decode multibase for zero length string' : `selected encoding not supported`)
    bytes = base.decoder.decode(arg)
  } catch (err) {
    throw new RpcError(`URL arg must be multibase encoded: ${(err as Error).message}`)
  }
  if (base.prefix !== 'u') throw new RpcError('URL arg must be base64url encoded')
  return Buffer.from(bytes).toString('utf8')
}

/** Kubo urlArgsEncoder (the CLI side). */
export const encodeUrlArgs = (args: string[]): string[] => args.map(a => base64url.encode(Buffer.from(a)))

/** multibase base64url ('u', no padding): the same text as multiformats' encoder, encoded natively */
export const mb64 = (bytes: Uint8Array): string => 'u' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')

/** How many `pubsub sub` requests follow each topic: the router stays subscribed while any does. */
const subscribers = new WeakMap<PubsubService, Map<string, number>>()

export function retain (service: PubsubService, topic: string): void {
  let counts = subscribers.get(service)
  if (counts == null) subscribers.set(service, counts = new Map())
  counts.set(topic, (counts.get(topic) ?? 0) + 1)
  service.subscribe(topic)
}

export function release (service: PubsubService, topic: string): void {
  const counts = subscribers.get(service)
  const n = (counts?.get(topic) ?? 1) - 1
  if (n > 0) { counts?.set(topic, n); return }
  counts?.delete(topic)
  service.unsubscribe(topic)
}
