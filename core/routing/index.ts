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
/** go-libp2p-kbucket ErrLookupFailure: a lookup on a DHT whose table is empty */
export const ERR_LOOKUP_FAILURE = 'failed to find any peer in table'
/** go-datastore ErrNotFound: routing get --offline of a key the node holds no record for (Kubo's offline router) */
export const DATASTORE_NOT_FOUND = 'datastore: key not found'

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
   * Kubo's SearchValue on the dual DHT (core/routing/lookup.ts for the lookups): the valid record the node holds
   * (`local`), then each valid record a peer answers, go to onRecord until it returns true or the search ends (the
   * first DHT that ends having given a value ends it, as Kubo's)
   */
  searchValue?: (key: Uint8Array, options: { signal?: AbortSignal, onRecord: (value: Uint8Array, from: PeerId, local: boolean) => boolean | Promise<boolean> }) => Promise<void>
  /** the best valid record the node holds for a key, no lookup (Kubo's offline router: `datastore: key not found`) */
  getLocalValue?: (key: Uint8Array) => Promise<Uint8Array>
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

/** One router of searchParallel: gives its values to `emit` (true: enough) and ends when its search does or `stop` aborts. */
export type SearchRouter = (emit: (value: Uint8Array, from: PeerId, local: boolean) => Promise<boolean>, stop: AbortSignal) => Promise<void>

/**
 * go-libp2p-routing-helpers Parallel.search, which Kubo's dual DHT SearchValue runs over its WAN and LAN DHTs: the
 * routers run together, their values go to onRecord as they come (a `local` value, the record the node holds that
 * every router gives first, once); the search ends when onRecord says enough, when a router ends having given a
 * value (the others are stopped), or when all have ended. A router's error is thrown only when no value came.
 */
export async function searchParallel (routers: SearchRouter[], onRecord: (value: Uint8Array, from: PeerId, local: boolean) => boolean | Promise<boolean>): Promise<void> {
  const stop = new AbortController()
  const locals = new Set<string>()
  let given = false
  let enough = false
  const errors: unknown[] = []
  await Promise.all(routers.map(async (router) => {
    let sent = false
    const emit = async (value: Uint8Array, from: PeerId, local: boolean): Promise<boolean> => {
      if (enough || stop.signal.aborted) return true
      sent = true
      if (local) {
        const id = Buffer.from(value).toString('base64')
        if (locals.has(id)) return false
        locals.add(id)
      }
      given = true
      if (await onRecord(value, from, local)) {
        enough = true
        stop.abort()
      }
      return enough
    }
    try {
      await router(emit, stop.signal)
    } catch (err) {
      errors.push(err)
    }
    // a router that ends having given a value ends the others (requests in flight finish on their own)
    if (sent) stop.abort()
  }))
  if (!given && errors.length > 0) throw errors[0]
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

  /** no DHT has a peer: Go's lookups fail at once (kb.ErrLookupFailure) where js kad-dht's wait for a first peer */
  const noPeers = (): boolean => all().every(d => (d.routingTable?.size ?? 1) === 0)
  /** the QueryError event a go-libp2p-kad-dht lookup publishes when its table is empty */
  const lookupFailure = (): QueryEventOutput => queryEvent(QueryEventType.QueryError, { Extra: ERR_LOOKUP_FAILURE })
  /** a query event as Kubo's: js kad-dht announces a dial for every peer it asks, go-libp2p-kad-dht only for one it is not connected to */
  const kuboEvent = (e: DhtEvent): QueryEventOutput | undefined => {
    if (e.type === QueryEventType.DialingPeer && e.peer != null && libp2p.getConnections(e.peer as PeerId).some(c => c.status === 'open')) return undefined
    return toQueryEvent(e)
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

  /**
   * The record the node holds for a key, valid, as a Kubo DHT's getLocal reads it (Kubo's WAN and LAN DHTs share one
   * store, `/<base32 key>`; ours keep theirs apart): the best valid copy of those stores, if any.
   */
  const localValue = async (key: Uint8Array, check: (value: Uint8Array) => Promise<void>): Promise<Uint8Array | undefined> => {
    if (datastore == null) return undefined
    const keys = [new Key('/' + base32.baseEncode(key).toUpperCase(), false), ...dhts().map(n => dhtRecordKey(n.name, key))]
    const found: Uint8Array[] = []
    const { Libp2pRecord } = await import('@libp2p/record')
    for (const k of keys) {
      const raw = await Promise.resolve().then(async () => await datastore.get(k)).catch(() => undefined)
      if (raw == null) continue
      try {
        const value = Libp2pRecord.deserialize(raw).value
        if (found.some(v => Buffer.from(v).equals(value))) continue
        await check(value)
        found.push(value)
      } catch {}
    }
    return found.length === 0 ? undefined : found[bestValue(key, found)]
  }

  /**
   * Kubo's SearchValue over its dual DHT (searchParallel over WAN and LAN, each a go-libp2p-kad-dht SearchValue):
   * each DHT gives the record the node holds, then the valid records of its lookup (none without peers: it ends at
   * once). So a node that holds a valid copy answers with it as soon as a DHT without peers, or the quicker lookup,
   * ends.
   */
  const searchValue: NonNullable<Routing['searchValue']> = async (key, options) => {
    const named = dhts()
    if (named.length === 0) throw new NotDhtError()
    const live = named.filter(n => (n.dht.routingTable?.size ?? 0) > 0)
    if (live.some(n => target(n.dht) == null)) throw new NotDhtError()
    const check = await validatorFor(key)
    // each distinct record is validated once per search
    const verdicts = new Map<string, Promise<boolean>>()
    const valid = async (value: Uint8Array): Promise<boolean> => {
      const id = Buffer.from(value).toString('base64')
      let v = verdicts.get(id)
      if (v == null) { v = check(value).then(() => true, () => false); verdicts.set(id, v) }
      return await v
    }
    const local = await localValue(key, check)
    // a DHT without peers gives the local copy and ends at once, ending the search: no lookup needs to start
    if (local != null && live.length < named.length) { await options.onRecord(local, libp2p.peerId, true); return }
    const routers = named.map((n): SearchRouter => async (emit, stop) => {
      if (local != null && await emit(local, libp2p.peerId, true)) return
      if (!live.includes(n) || stop.aborted) return
      const values = await getLookup()
      await values.search(target(n.dht)!, key, {
        signal: options.signal,
        stop,
        onRecord: async (value, from) => await valid(value) && await emit(value, from, false)
      })
    })
    await searchParallel(routers, options.onRecord)
  }

  return {
    dhts,
    searchValue,
    async getLocalValue (key) {
      const value = await localValue(key, await validatorFor(key))
      if (value == null) throw new NotFoundError(DATASTORE_NOT_FOUND)
      return value
    },
    async * findProviders (cid, options = {}) {
      const limit = options.numProviders ?? 20
      const seen = new Set<string>()
      if (noPeers()) {
        // only the provider records the node holds (go-libp2p-kad-dht's providerStore, self included)
        for (const d of all()) {
          const store = (d as { providers?: { getProviders: (c: CID, o?: AbortOptions) => Promise<PeerId[]> } }).providers
          for (const id of await store?.getProviders(cid, { signal: options.signal }) ?? []) {
            if (seen.has(id.toString())) continue
            seen.add(id.toString())
            const multiaddrs = id.equals(libp2p.peerId) ? libp2p.getMultiaddrs().map(a => a.decapsulateCode(0x01a5)) : ((await libp2p.peerStore.get(id).catch(() => undefined))?.addresses ?? []).map(a => a.multiaddr)
            yield queryEvent(QueryEventType.Provider, { Responses: [addrInfo({ id, multiaddrs })] })
            if (seen.size >= limit) return
          }
        }
        // Kubo 0.40.1 shows one (its dual DHT forwards the first lookup's failure)
        yield lookupFailure()
        return
      }
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
          const out = kuboEvent(e)
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
      // each DHT with an empty table fails its lookup at once, with an event
      for (const d of all()) if ((d.routingTable?.size ?? 1) === 0) yield lookupFailure()
      if (noPeers()) throw new NotFoundError(ROUTING_NOT_FOUND)
      const controller = new AbortController()
      const signal = options.signal != null ? AbortSignal.any([options.signal, controller.signal]) : controller.signal
      try {
        for await (const e of merge(useful().map(d => d.findPeer(peer, { signal })))) {
          if (e.type === QueryEventType.FinalPeer && e.peer != null && 'id' in e.peer) {
            yield queryEvent(QueryEventType.FinalPeer, { Responses: [addrInfo(e.peer)] })
            return
          }
          const out = kuboEvent(e)
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
      // Kubo's dht query asks one DHT: its failure event, then the error (a 200 stream with X-Stream-Error)
      if (noPeers()) { yield lookupFailure(); throw new RpcError(ERR_LOOKUP_FAILURE) }
      const finals = new Set<string>()
      for await (const e of merge(useful().map(d => d.getClosestPeers(key, options)))) {
        if (e.type === QueryEventType.FinalPeer && e.peer != null && 'id' in e.peer) {
          const id = e.peer.id.toString()
          if (!finals.has(id)) { finals.add(id); yield queryEvent(QueryEventType.FinalPeer, { ID: id }) }
          continue
        }
        const out = kuboEvent(e)
        if (out != null) yield out
      }
    },
    async * provide (cid, options = {}) {
      for await (const e of merge(useful().map(d => d.provide(cid, { signal: options.signal })))) {
        if (e.type === QueryEventType.SendingQuery && e.messageName === 'ADD_PROVIDER') options.onRecord?.()
        const out = kuboEvent(e)
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
        // Kubo's dual GetValue: each DHT's go-libp2p-kad-dht GetValue (the record the node holds, then every valid
        // record of a lookup to its K closest peers; none without peers), the WAN's answer when it has one (the
        // LAN's lookup is then cancelled), else the LAN's
        const check = await validatorFor(key)
        const local = await localValue(key, check)
        const lanStop = new AbortController()
        const run = async (n: NamedDht): Promise<Uint8Array[]> => {
          const got = local != null ? [local] : []
          if ((n.dht.routingTable?.size ?? 0) === 0) return got
          const stop = n.name === 'lan' ? lanStop.signal : undefined
          const onRecord = async (value: Uint8Array): Promise<false> => {
            if (got.some(v => Buffer.from(v).equals(value))) return false
            try { await check(value) } catch { return false }
            got.push(value)
            return false
          }
          const lookup = await getLookup()
          await lookup.search(target(n.dht)!, key, { signal: options.signal, stop, onRecord }).catch(err => { if (options.signal?.aborted === true) throw err })
          return got
        }
        const wan = named.find(n => n.name === 'wan')
        const lan = named.find(n => n.name === 'lan')
        // a WAN DHT without peers answers with the local copy at once: the LAN's lookup need not start
        const lanRun = lan != null && !(local != null && wan != null && (wan.dht.routingTable?.size ?? 0) === 0) ? run(lan) : Promise.resolve([])
        const wanValues = wan != null ? await run(wan).catch(async (err) => { lanStop.abort(); await lanRun.catch(() => {}); throw err }) : []
        if (wanValues.length > 0) lanStop.abort()
        const lanValues = await lanRun
        values.push(...(wanValues.length > 0 ? wanValues : lanValues))
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
