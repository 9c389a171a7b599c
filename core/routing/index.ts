// The node's routing (Kubo's nd.Routing over the dual DHT): find providers and peers, get and put
// values, provide. Every query streams Kubo's QueryEvent wire shape ({"Extra","ID","Responses","Type"},
// go-libp2p core/routing): the routing/* commands, `dht query` and `stats dht` print them, and IPNS
// (names) uses getValue/putValue. The WAN and LAN DHTs (core/routing/dht.ts) are asked together and
// their answers merged, as go-libp2p-kad-dht/dual does.
import type { AbortOptions, Libp2p, PeerId, PeerInfo } from '@libp2p/interface'
import { Key, type Datastore } from 'interface-datastore'
import { base32 } from 'multiformats/bases/base32'
import type { CID } from 'multiformats/cid'
import { ipnsSelector } from 'ipns/selector'
import { NotFoundError, RpcError } from '../errors.js'
import type { LookupTarget, ValueLookup } from './lookup.js'

/** go-libp2p routing.QueryEventType */
export enum QueryEventType { SendingQuery = 0, PeerResponse = 1, FinalPeer = 2, QueryError = 3, Provider = 4, Value = 5, AddingPeer = 6, DialingPeer = 7 }

export interface AddrInfoOutput { ID: string, Addrs: string[] }

/** routing.QueryEvent as Kubo marshals it (keys in Go's map order). */
export interface QueryEventOutput {
  Extra: string
  ID: string
  Responses: AddrInfoOutput[] | null
  Type: QueryEventType
}

/** The kad-dht service methods used here (js kad-dht events carry the same type numbers as Go's). */
export interface DhtService {
  findProviders: (key: CID, options?: AbortOptions) => AsyncIterable<DhtEvent>
  findPeer: (id: PeerId, options?: AbortOptions) => AsyncIterable<DhtEvent>
  getClosestPeers: (key: Uint8Array, options?: AbortOptions) => AsyncIterable<DhtEvent>
  provide: (key: CID, options?: AbortOptions) => AsyncIterable<DhtEvent>
  get: (key: Uint8Array, options?: AbortOptions) => AsyncIterable<DhtEvent>
  put: (key: Uint8Array, value: Uint8Array, options?: AbortOptions) => AsyncIterable<DhtEvent>
  getMode: () => 'client' | 'server'
  routingTable?: { size: number, kb?: { toIterable?: () => Iterable<{ peerId: PeerId, lastPing?: number }> }, closestPeers?: LookupTarget['table']['closestPeers'] }
  /** js kad-dht's protocol and address filter (the KadDHT instance's fields) */
  protocol?: string
  peerInfoMapper?: (peer: PeerInfo) => PeerInfo
}

interface DhtEvent {
  type: number
  name?: string
  messageName?: string
  to?: PeerId
  from?: PeerId
  peer?: PeerId | PeerInfo
  closer?: PeerInfo[]
  providers?: PeerInfo[]
  error?: Error
  value?: Uint8Array
}

export interface NamedDht { name: 'wan' | 'lan', dht: DhtService }

/** where each DHT keeps the records put to it (js kad-dht `${datastorePrefix}/record/<base32 key>`) */
export const DHT_DATASTORE_PREFIX = { wan: '/dht', lan: '/dht-lan' } as const

export const ROUTING_NOT_FOUND = 'routing: not found'

export const addrInfo = (info: PeerInfo): AddrInfoOutput => ({ ID: info.id.toString(), Addrs: info.multiaddrs.map(a => a.toString()) })

export const queryEvent = (Type: QueryEventType, init: Partial<Omit<QueryEventOutput, 'Type'>> = {}): QueryEventOutput =>
  ({ Extra: init.Extra ?? '', ID: init.ID ?? '', Responses: init.Responses ?? null, Type })

/** A js kad-dht query event in Kubo's wire shape; undefined for events Go does not publish. */
export function toQueryEvent (e: DhtEvent): QueryEventOutput | undefined {
  switch (e.type) {
    case QueryEventType.SendingQuery: return queryEvent(QueryEventType.SendingQuery, { ID: e.to?.toString() })
    case QueryEventType.PeerResponse: return queryEvent(QueryEventType.PeerResponse, { ID: e.from?.toString(), Responses: (e.closer ?? []).map(addrInfo) })
    case QueryEventType.QueryError: return queryEvent(QueryEventType.QueryError, { Extra: e.error?.message ?? 'query error' })
    case QueryEventType.DialingPeer: return queryEvent(QueryEventType.DialingPeer, { ID: (e.peer as PeerId | undefined)?.toString() })
    default: return undefined
  }
}

/** Interleave async iterables (the WAN and LAN queries run together). */
export async function * merge<T> (sources: Array<AsyncIterable<T>>): AsyncGenerator<T> {
  const iterators = sources.map(s => s[Symbol.asyncIterator]())
  const pending = new Map<number, Promise<{ i: number, r: IteratorResult<T> }>>()
  const next = (i: number): void => { pending.set(i, iterators[i].next().then(r => ({ i, r }))) }
  iterators.forEach((_, i) => { next(i) })
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values())
      if (r.done === true) { pending.delete(i); continue }
      next(i)
      yield r.value
    }
  } finally {
    for (const [i] of pending) void iterators[i].return?.().catch(() => {})
  }
}

const IPNS_PREFIX = new TextEncoder().encode('/ipns/')

/**
 * The index of the best of the values the DHTs returned for a key: for /ipns/ keys the ipns package's
 * selector (highest sequence, then the longest-lived EOL), as Kubo's routing; otherwise the first.
 */
export function bestValue (key: Uint8Array, values: Uint8Array[]): number {
  if (values.length < 2 || key.length < IPNS_PREFIX.length || !IPNS_PREFIX.every((b, i) => key[i] === b)) return 0
  try {
    return ipnsSelector(key, values)
  } catch {
    return 0
  }
}

export interface FindProvidersOptions extends AbortOptions { numProviders?: number }

export interface Routing {
  /** the DHTs that run (none with Routing.Type none/delegated or offline) */
  dhts: () => NamedDht[]
  /** Kubo's FindProvidersAsync with the DHT's query events; at most numProviders Provider events */
  findProviders: (cid: CID, options?: FindProvidersOptions) => AsyncGenerator<QueryEventOutput>
  /** query events, then one FinalPeer event with the peer's addresses; throws `routing: not found` */
  findPeer: (peer: PeerId, options?: AbortOptions) => AsyncGenerator<QueryEventOutput>
  /** the closest peers to a key (`dht query`): query events then FinalPeer events with ID set */
  getClosestPeers: (key: Uint8Array, options?: AbortOptions) => AsyncGenerator<QueryEventOutput>
  /** announce one CID now (query events of the provide); onRecord: once per provider record sent */
  provide: (cid: CID, options?: AbortOptions & { onRecord?: () => void }) => AsyncGenerator<QueryEventOutput>
  /** the best value for a routing key (`/ipns/<id bytes>`, `/pk/…`); throws `routing: not found` */
  getValue: (key: Uint8Array, options?: AbortOptions) => Promise<Uint8Array>
  /** store a value under a routing key on the DHTs */
  putValue: (key: Uint8Array, value: Uint8Array, options?: AbortOptions) => Promise<void>
  /**
   * go-libp2p-kad-dht SearchValue on the DHTs with peers (core/routing/lookup.ts): each record a peer answers
   * for the key goes to onRecord (unvalidated) until it returns true or the lookups end
   */
  searchValue?: (key: Uint8Array, options: { signal?: AbortSignal, onRecord: (value: Uint8Array, from: PeerId) => boolean | Promise<boolean> }) => Promise<void>
}

export class NotDhtError extends RpcError {
  constructor () { super('routing service is not a DHT') }
}

/** where a DHT keeps a record it holds for a key (js kad-dht bufferToRecordKey) */
export const dhtRecordKey = (name: NamedDht['name'], key: Uint8Array): Key => new Key(`${DHT_DATASTORE_PREFIX[name]}/record/${base32.baseEncode(key)}`, false)

/**
 * The record validator of a routing key's namespace, as js kad-dht's (/ipns/: the IPNS validator, /pk/: the key
 * must hash to the name); other namespaces have none (loaded on use: init and offline nodes import this file)
 */
async function validatorFor (key: Uint8Array): Promise<(value: Uint8Array) => Promise<void>> {
  const ns = new TextDecoder().decode(key.subarray(0, 6))
  if (ns === '/ipns/') {
    const { ipnsValidator } = await import('ipns/validator')
    return async (value) => { await ipnsValidator(key, value) }
  }
  if (ns.startsWith('/pk/')) {
    const { publicKeyFromProtobuf } = await import('@libp2p/crypto/keys')
    return async (value) => {
      if (!Buffer.from(publicKeyFromProtobuf(value).toMultihash().bytes).equals(key.subarray(4))) throw new Error('public key does not match passed in key')
    }
  }
  return async () => { throw new Error('no validator for this key type') }
}

/**
 * The routing of an online node: its DHT services (`dht`, `lanDHT`). `datastore`: the one the DHTs keep their
 * records in (the repo's), for the records a DHT holds itself when it has no peer to ask.
 */
export function createRouting (libp2p: Libp2p, datastore?: Datastore): Routing {
  const services = libp2p.services as Record<string, unknown>
  const dhts = (): NamedDht[] => {
    const out: NamedDht[] = []
    if (services.dht != null) out.push({ name: 'wan', dht: services.dht as DhtService })
    if (services.lanDHT != null) out.push({ name: 'lan', dht: services.lanDHT as DhtService })
    return out
  }
  const all = (): DhtService[] => {
    const list = dhts().map(d => d.dht)
    if (list.length === 0) throw new NotDhtError()
    return list
  }
  /**
   * the DHTs worth asking: those with peers in their table (an empty table fails at once in Go, where
   * a js kad-dht query would wait for a peer), or all of them when none has any
   */
  const useful = (): DhtService[] => {
    const list = all()
    const withPeers = list.filter(d => (d.routingTable?.size ?? 1) > 0)
    return withPeers.length > 0 ? withPeers : list
  }

  // the lookup (and @libp2p/utils, ~50 modules) loads on the first search: init and offline nodes import this file too
  let lookup: Promise<ValueLookup> | undefined
  const getLookup = async (): Promise<ValueLookup> => await (lookup ??= import('./lookup.js').then(m => new m.ValueLookup(libp2p)))
  libp2p.addEventListener('stop', () => { void lookup?.then(l => { l.clear() }) })
  const target = (d: DhtService): LookupTarget | undefined => {
    const table = d.routingTable
    if (table?.closestPeers == null || d.protocol == null) return undefined
    return { protocol: d.protocol, table: table as LookupTarget['table'], mapper: d.peerInfoMapper ?? ((p) => p) }
  }

  const searchValue: NonNullable<Routing['searchValue']> = async (key, options) => {
    const targets = dhts().map(d => d.dht).filter(d => (d.routingTable?.size ?? 0) > 0).map(target)
    if (targets.some(t => t == null)) throw new NotDhtError()
    let enough = false
    const stop = new AbortController()
    const onRecord = async (value: Uint8Array, from: PeerId): Promise<boolean> => {
      if (enough) return true
      enough = await options.onRecord(value, from)
      // the other DHT's lookup ends too (requests in flight finish on their own)
      if (enough) stop.abort()
      return enough
    }
    const values = await getLookup()
    await Promise.all(targets.map(async t => { await values.search(t!, key, { signal: options.signal, stop: stop.signal, onRecord }).catch(err => { if (!enough) throw err }) }))
  }

  return {
    dhts,
    searchValue,
    async * findProviders (cid, options = {}) {
      const limit = options.numProviders ?? 20
      const seen = new Set<string>()
      const controller = new AbortController()
      const signal = options.signal != null ? AbortSignal.any([options.signal, controller.signal]) : controller.signal
      try {
        for await (const e of merge(useful().map(d => d.findProviders(cid, { signal })))) {
          if (e.type === QueryEventType.Provider || (e.type === QueryEventType.PeerResponse && (e.providers?.length ?? 0) > 0)) {
            for (const p of e.providers ?? []) {
              const id = p.id.toString()
              if (seen.has(id)) continue
              seen.add(id)
              yield queryEvent(QueryEventType.Provider, { Responses: [addrInfo(p)] })
              if (seen.size >= limit) return
            }
            if (e.type === QueryEventType.Provider) continue
          }
          const out = toQueryEvent(e)
          if (out != null) yield out
        }
      } catch (err) {
        if (signal.aborted && options.signal?.aborted !== true) return
        throw err
      } finally {
        controller.abort()
      }
    },
    async * findPeer (peer, options = {}) {
      // a connected or known peer answers from the peer store first, as the DHT's FindPeer does
      const known = await libp2p.peerStore.get(peer).catch(() => undefined)
      if (known != null && known.addresses.length > 0 && libp2p.getConnections(peer).length > 0) {
        yield queryEvent(QueryEventType.FinalPeer, { Responses: [{ ID: peer.toString(), Addrs: known.addresses.map(a => a.multiaddr.toString()) }] })
        return
      }
      const controller = new AbortController()
      const signal = options.signal != null ? AbortSignal.any([options.signal, controller.signal]) : controller.signal
      try {
        for await (const e of merge(useful().map(d => d.findPeer(peer, { signal })))) {
          if (e.type === QueryEventType.FinalPeer && e.peer != null && 'id' in e.peer) {
            yield queryEvent(QueryEventType.FinalPeer, { Responses: [addrInfo(e.peer)] })
            return
          }
          const out = toQueryEvent(e)
          if (out != null) yield out
        }
      } catch (err) {
        if ((err as Error).name !== 'NotFoundError') throw err
      } finally {
        controller.abort()
      }
      options.signal?.throwIfAborted()
      throw new NotFoundError(ROUTING_NOT_FOUND)
    },
    async * getClosestPeers (key, options = {}) {
      const finals = new Set<string>()
      for await (const e of merge(useful().map(d => d.getClosestPeers(key, options)))) {
        if (e.type === QueryEventType.FinalPeer && e.peer != null && 'id' in e.peer) {
          const id = e.peer.id.toString()
          if (!finals.has(id)) { finals.add(id); yield queryEvent(QueryEventType.FinalPeer, { ID: id }) }
          continue
        }
        const out = toQueryEvent(e)
        if (out != null) yield out
      }
    },
    async * provide (cid, options = {}) {
      for await (const e of merge(useful().map(d => d.provide(cid, { signal: options.signal })))) {
        if (e.type === QueryEventType.SendingQuery && e.messageName === 'ADD_PROVIDER') options.onRecord?.()
        const out = toQueryEvent(e)
        if (out != null) yield out
      }
    },
    async getValue (key, options = {}) {
      const named = dhts()
      if (named.length === 0) throw new NotDhtError()
      const asked = named.filter(n => (n.dht.routingTable?.size ?? 1) > 0)
      const values: Uint8Array[] = []
      if (asked.some(n => target(n.dht) == null)) {
        // DHTs our lookup cannot drive: js kad-dht's get (its local copy included)
        for await (const e of merge(asked.map(n => n.dht.get(key, options)))) {
          if (e.type === QueryEventType.Value && e.value != null) values.push(e.value)
        }
      } else {
        // as go-libp2p-kad-dht GetValue on each DHT: the record it holds, then every valid record of a lookup to
        // its K closest peers; a DHT without peers answers from its own record at once (js kad-dht's get would
        // wait for a first peer)
        const check = await validatorFor(key)
        const add = async (value: Uint8Array): Promise<false> => {
          if (values.some(v => Buffer.from(v).equals(value))) return false
          try { await check(value) } catch { return false }
          values.push(value)
          return false
        }
        for (const n of named) {
          const local = datastore == null ? undefined : await Promise.resolve().then(async () => await datastore.get(dhtRecordKey(n.name, key))).catch(() => undefined)
          if (local == null) continue
          const { Libp2pRecord } = await import('@libp2p/record')
          try { await add(Libp2pRecord.deserialize(local).value) } catch {}
        }
        if (asked.length > 0) {
          try {
            await searchValue(key, { signal: options.signal, onRecord: add })
          } catch (err) {
            if (options.signal?.aborted === true) throw err
          }
        }
      }
      options.signal?.throwIfAborted()
      if (values.length === 0) throw new NotFoundError(ROUTING_NOT_FOUND)
      return values[bestValue(key, values)]
    },
    async putValue (key, value, options = {}) {
      const named = dhts()
      if (named.length === 0) throw new NotDhtError()
      // a DHT without peers keeps the record itself (go-libp2p-kad-dht stores it before it looks for peers;
      // js kad-dht's put would wait for a first peer)
      const empty = named.filter(n => (n.dht.routingTable?.size ?? 1) === 0)
      if (empty.length > 0 && datastore != null) {
        const { Libp2pRecord } = await import('@libp2p/record')
        const record = new Libp2pRecord(key, value, new Date()).serialize()
        for (const n of empty) await datastore.put(dhtRecordKey(n.name, key), record)
      }
      let stored = false
      let lastError: Error | undefined
      await Promise.all(named.filter(n => !empty.includes(n)).map(async ({ dht: d }) => {
        try {
          for await (const e of d.put(key, value, options)) {
            if (e.type === QueryEventType.PeerResponse) stored = true
            if (e.type === QueryEventType.QueryError && e.error != null) lastError = e.error
          }
        } catch (err) { lastError = err as Error }
      }))
      if (!stored && lastError != null) throw lastError
    }
  }
}
