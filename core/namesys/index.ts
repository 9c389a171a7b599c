// The name system (boxo namesys, as Kubo wires it): publish IPNS records (datastore, DHT, pubsub,
// Ipns.DelegatedPublishers), resolve /ipns/ names (IPNS keys through the routing systems, DNSLink
// domains through DNS, IPFS_NS_MAP first) with a cache (Ipns.ResolveCacheSize, Ipns.MaxCacheTTL),
// and republish our records (Ipns.RepublishPeriod, Ipns.RecordLifetime).
import type { Datastore, Key } from 'interface-datastore'
import { Libp2pRecord } from '@libp2p/record'
import type { Libp2p, PrivateKey } from '@libp2p/interface'
import type { Logger } from '../logger/index.js'
import { createIPNSRecordWithExpiration, marshalIPNSRecord, unmarshalIPNSRecord, type IPNSRecord } from 'ipns'
import { ipnsValidator } from 'ipns/validator'
import { ipnsSelector } from 'ipns/selector'
import { RpcError } from '../errors.js'
import type { ConfigStore, KuboConfig } from '../config/index.js'
import type { Keystore } from '../keystore/index.js'
import type { Startable } from '../lifecycle.js'
import { parseGoDuration } from '../util/duration.js'
import type { DnsResolver } from '../dns/index.js'
import { ipnsDatastoreKey, ipnsNameString, ipnsRoutingKey, ipnsValueStoreKey, parseIpnsName, wrongCodecName, type NameHash } from './name.js'
import { IpnsPubsub } from './pubsub.js'
import { DhtRouting } from './routing.js'
import type { Routing } from '../routing/index.js'
import { delegatedPublisherUrls, putDelegated } from './delegated.js'

export * from './name.js'

export const ERR_RESOLVE_FAILED = 'could not resolve name'
export const ERR_RESOLVE_RECURSION = 'could not resolve name (recursion limit exceeded)'
export const ERR_INVALID_SEQUENCE = 'sequence number must be greater than the current record sequence'
export const DEFAULT_DEPTH = 32
/** boxo DefaultResolverCacheTTL: for records without a TTL */
const DEFAULT_CACHE_TTL_MS = 60_000
const DEFAULT_LIFETIME = '48h'
const DEFAULT_REPUBLISH_MS = 4 * 3600_000
const INITIAL_REPUBLISH_DELAY_MS = 60_000
const RETRY_REPUBLISH_MS = 5 * 60_000

export class ResolveError extends RpcError {}

export interface PublishOptions {
  /** record lifetime in ms (default Ipns.RecordLifetime, else 48h) */
  lifetimeMs?: number
  /** absolute expiry (republisher); wins over lifetimeMs */
  eol?: Date
  /** ns */
  ttlNs?: bigint
  v1Compatible?: boolean
  sequence?: bigint
  /** put to the DHT (false: local only; --allow-offline) */
  network?: boolean
  /** put to Ipns.DelegatedPublishers */
  delegated?: boolean
  signal?: AbortSignal
}

export interface ResolveOptions {
  /** 32 for recursive resolution, 1 for one step */
  depth?: number
  nocache?: boolean
  dhtRecordCount?: number
  /** ms, 0 = none */
  dhtTimeoutMs?: number
  /** local records only (Kubo's offline CoreAPI) */
  offline?: boolean
  signal?: AbortSignal
}

export interface Resolution {
  /** the resolved path, with the input's remainder joined */
  path: string
  /** seconds the answer may be cached, when known */
  ttl?: number
  /** true when depth ran out on an /ipns/ value */
  recursionLimit?: boolean
}

export interface NameSystemDeps {
  datastore: Datastore
  keystore: Keystore
  config: ConfigStore
  libp2p: Libp2p | null
  /** the node's DHTs (core/routing); null offline */
  routing: Routing | null
  dns: DnsResolver
  logger: Logger
}

interface CacheEntry { value: string, until: number, ttl: number }

/** IPFS_NS_MAP (boxo): `name:/ipfs/…,name2:/ipns/…`, answered before any lookup. */
export function staticNameMap (env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const map = new Map<string, string>()
  const list = env.IPFS_NS_MAP
  if (list == null || list === '') return map
  for (const pair of list.split(',')) {
    const at = pair.indexOf(':')
    if (at < 0) continue
    map.set(pair.slice(0, at), pair.slice(at + 1))
  }
  return map
}

const durationMs = (v: unknown, fallback: number): number => {
  if (typeof v !== 'string' || v === '') return fallback
  try { return Number(parseGoDuration(v)) / 1e6 } catch { return fallback }
}

const ipnsConfig = (cfg: KuboConfig): Record<string, unknown> => (cfg.Ipns ?? {}) as Record<string, unknown>

/**
 * miekg/dns IsDomainName, which boxo's namesys asks before a DNSLink lookup: labels of 1 to 63 bytes, at most 255 on
 * the wire (miekg counts 256: a 255-byte name), any characters ("garbage" and a CID are domain names; "a..b" and a 64-byte label are not)
 */
export function isDnsName (s: string): boolean {
  if (s === '.') return true
  const name = s.endsWith('.') ? s.slice(0, -1) : s
  if (name === '' || name.split('.').some(l => l === '' || Buffer.byteLength(l) > 63)) return false
  // (miekg/dns counts each label's length byte and the root's: 255 name bytes at most, Kubo 0.40.1 checked live)
  return Buffer.byteLength(name) <= 255
}

/** Seconds a record may be cached (boxo calculateBestTTL): its TTL (default 1m) capped by its expiry. */
export function recordTtlMs (record: IPNSRecord): number {
  let ttl = record.ttl != null ? Number(record.ttl / 1_000_000n) : DEFAULT_CACHE_TTL_MS
  const eol = Date.parse(record.validity)
  if (Number.isFinite(eol)) ttl = Math.max(0, Math.min(ttl, eol - Date.now()))
  return ttl
}

export class NameSystem implements Startable {
  readonly pubsub: IpnsPubsub | null
  private readonly dht: DhtRouting | null
  private readonly cache = new Map<string, CacheEntry>()
  private readonly staticMap = staticNameMap()
  private timer?: NodeJS.Timeout
  private readonly log: Logger
  private readonly publishing = new Map<string, Promise<unknown>>()

  constructor (private readonly deps: NameSystemDeps, init: { ipnsPubsub?: boolean } = {}) {
    this.log = deps.logger
    const cfg = deps.config.get()
    const psEnabled = init.ipnsPubsub ?? (ipnsConfig(cfg).UsePubsub === true)
    const pubsubService = (deps.libp2p?.services as Record<string, unknown> | undefined)?.pubsub
    this.pubsub = psEnabled && deps.libp2p != null && pubsubService != null
      ? new IpnsPubsub({ libp2p: deps.libp2p, datastore: deps.datastore, logger: deps.logger })
      : null
    this.dht = deps.routing != null && deps.routing.dhts().length > 0 ? new DhtRouting(deps.routing) : null
  }

  get online (): boolean { return this.deps.libp2p != null }

  async start (): Promise<void> {
    await this.pubsub?.start()
    if (this.online) this.schedule(INITIAL_REPUBLISH_DELAY_MS)
  }

  async stop (): Promise<void> {
    clearTimeout(this.timer)
    await this.pubsub?.stop()
  }

  private cacheSize (): number {
    const v = ipnsConfig(this.deps.config.get()).ResolveCacheSize
    return typeof v === 'number' ? v : 128
  }

  private cacheSet (key: string, value: string, ttlMs: number): void {
    const size = this.cacheSize()
    if (size <= 0 || ttlMs <= 0) return
    const max = durationMs(ipnsConfig(this.deps.config.get()).MaxCacheTTL, Infinity)
    this.cache.delete(key)
    if (this.cache.size >= size) this.cache.delete(this.cache.keys().next().value as string)
    this.cache.set(key, { value, ttl: ttlMs, until: Date.now() + Math.min(ttlMs, max) })
  }

  private cacheGet (key: string): CacheEntry | undefined {
    const hit = this.cache.get(key)
    if (hit == null) return undefined
    if (hit.until > Date.now()) return hit
    this.cache.delete(key)
    return undefined
  }

  // ---- records ----

  /**
   * The record we keep for a name (published here or put here), raw, if any: the newer of the publisher's copy
   * (/ipns/<BASE32 multihash>) and the value store's (/<BASE32 routing key>, what Kubo resolves from).
   */
  async localRecord (mh: NameHash): Promise<Uint8Array | undefined> {
    const read = async (key: Key): Promise<Uint8Array | undefined> => {
      try {
        return await this.deps.datastore.get(key)
      } catch (err) {
        if ((err as Error)?.name === 'NotFoundError') return undefined
        throw err
      }
    }
    const [published, stored] = await Promise.all([read(ipnsDatastoreKey(mh)), read(ipnsValueStoreKey(mh))])
    let routed: Uint8Array | undefined
    if (stored != null) { try { routed = Libp2pRecord.deserialize(stored).value } catch {} }
    if (published == null || routed == null) return published ?? routed
    if (Buffer.from(published).equals(Buffer.from(routed))) return published
    try {
      return [published, routed][ipnsSelector(ipnsRoutingKey(mh), [published, routed])]
    } catch {
      return published
    }
  }

  /**
   * The best valid record for a name: the local one plus, online, those the DHT (`dhtRecordCount`
   * answers within `dhtTimeoutMs`) and pubsub give. Throws `could not resolve name` when there is none.
   */
  async getRecord (mh: NameHash, options: ResolveOptions = {}): Promise<Uint8Array> {
    const key = ipnsRoutingKey(mh)
    const found: Uint8Array[] = []
    const keep = async (raw: Uint8Array | undefined, validated = false): Promise<void> => {
      if (raw == null) return
      // the same record from several peers: validated and selected once
      if (found.some(f => Buffer.from(f).equals(raw))) return
      try {
        if (!validated) await ipnsValidator(key, raw)
        found.push(raw)
      } catch (err) {
        this.log.debug(`ignoring record for ${ipnsNameString(mh)}: ${(err as Error).message}`)
      }
    }
    await keep(await this.localRecord(mh))
    // what pubsub brought us is local knowledge too
    if (options.offline === true) await keep(this.pubsub?.peek(mh))
    if (this.online && options.offline !== true) {
      const jobs: Array<Promise<void>> = []
      if (this.pubsub != null) jobs.push(this.pubsub.get(mh).then(keep, () => {}))
      if (this.dht != null) {
        // Kubo's quorum: the search stops once it has more answers than dht-record-count, our own copy counting as one
        const count = Math.max(1, (options.dhtRecordCount ?? 16) + 1 - found.length)
        jobs.push((async () => {
          for (const { value, validated } of await this.dht!.search(key, { count, timeoutMs: options.dhtTimeoutMs ?? 60_000, signal: options.signal, counted: [...found] })) await keep(value, validated)
        })().catch(err => { this.log.debug(`DHT lookup of ${ipnsNameString(mh)}: ${(err as Error).message}`) }))
      }
      await Promise.all(jobs)
    }
    options.signal?.throwIfAborted()
    if (found.length === 0) throw new ResolveError(ERR_RESOLVE_FAILED)
    return found[found.length === 1 ? 0 : ipnsSelector(key, found)]
  }

  /** Store a record locally and, when asked, on the network (name put, routing put). */
  async putRecord (mh: NameHash, raw: Uint8Array, options: { network?: boolean, delegated?: boolean, signal?: AbortSignal } = {}): Promise<void> {
    // both copies Kubo keeps: the publisher's and the value store's (Kubo resolves from the latter)
    await this.deps.datastore.put(ipnsDatastoreKey(mh), raw)
    await this.deps.datastore.put(ipnsValueStoreKey(mh), new Libp2pRecord(ipnsRoutingKey(mh), raw, new Date()).serialize())
    this.cache.delete('/ipns/' + ipnsNameString(mh))
    const jobs: Array<Promise<unknown>> = []
    if (options.network !== false && this.online) {
      if (this.dht != null) jobs.push(this.dht.put(ipnsRoutingKey(mh), raw, options.signal))
      if (this.pubsub != null) jobs.push(this.pubsub.put(mh, raw))
    }
    if (options.delegated === true || (options.network !== false && this.online)) {
      jobs.push(putDelegated(this.delegatedPublishers(), ipnsNameString(mh), raw, options.signal, this.log))
    }
    const results = await Promise.allSettled(jobs)
    for (const r of results) if (r.status === 'rejected') this.log.debug(`publishing ${ipnsNameString(mh)}: ${(r.reason as Error)?.message}`)
  }

  /** Ipns.DelegatedPublishers as URLs. */
  delegatedPublishers (): string[] {
    return delegatedPublisherUrls(this.deps.config.get())
  }

  // ---- publish ----

  /** boxo namesys.Publish: a new record for `value` under `key` (sequence bumped when the value changes). */
  async publish (key: PrivateKey, value: string, options: PublishOptions = {}): Promise<{ name: string, record: IPNSRecord, raw: Uint8Array }> {
    const mh = key.publicKey.toMultihash() as NameHash
    const name = ipnsNameString(mh)
    // one publish per name at a time (boxo holds a lock over read-modify-write)
    const previous = this.publishing.get(name) ?? Promise.resolve()
    const run = previous.catch(() => {}).then(async () => await this.publishNow(key, mh, value, options))
    this.publishing.set(name, run)
    try {
      return await run
    } finally {
      if (this.publishing.get(name) === run) this.publishing.delete(name)
    }
  }

  private async publishNow (key: PrivateKey, mh: NameHash, value: string, options: PublishOptions): Promise<{ name: string, record: IPNSRecord, raw: Uint8Array }> {
    let prev: IPNSRecord | undefined
    let prevRaw = await this.localRecord(mh)
    if (prevRaw == null && this.online && options.network !== false) {
      prevRaw = await this.getRecord(mh, { dhtRecordCount: 1, dhtTimeoutMs: 30_000, signal: options.signal }).catch(() => undefined)
    }
    if (prevRaw != null) { try { prev = unmarshalIPNSRecord(prevRaw) } catch {} }
    let seq = 0n
    if (prev != null) {
      if (options.sequence != null) {
        if (options.sequence <= prev.sequence) throw new RpcError(ERR_INVALID_SEQUENCE)
        seq = options.sequence
      } else {
        seq = prev.sequence + (prev.value !== value ? 1n : 0n)
      }
    } else if (options.sequence != null) {
      seq = options.sequence
    }
    const cfg = this.deps.config.get()
    const lifetime = options.lifetimeMs ?? durationMs(ipnsConfig(cfg).RecordLifetime, Number(parseGoDuration(DEFAULT_LIFETIME)) / 1e6)
    const eol = options.eol ?? new Date(Date.now() + lifetime)
    const ttlNs = options.ttlNs ?? 5n * 60n * 1_000_000_000n
    const record = await createIPNSRecordWithExpiration(key, value, seq, rfc3339Nano(eol), { v1Compatible: options.v1Compatible ?? true, ttlNs })
    const raw = marshalIPNSRecord(record)
    await this.putRecord(mh, raw, { network: options.network, delegated: options.delegated, signal: options.signal })
    const name = ipnsNameString(mh)
    this.cacheSet('/ipns/' + name, value, Math.min(Number(ttlNs / 1_000_000n), eol.getTime() - Date.now()))
    return { name, record, raw }
  }

  // ---- resolve ----

  /** One step: the value an /ipns/ root points to (the remainder is not joined). */
  async resolveOnce (root: string, options: ResolveOptions = {}): Promise<{ value: string, ttlMs?: number }> {
    const key = '/ipns/' + root
    const fixed = this.staticMap.get(root)
    if (fixed != null) return { value: fixed, ttlMs: 0 }
    // a name given in its canonical form (or a domain) hits the cache without being decoded and re-encoded
    const direct = options.nocache !== true ? this.cacheGet(key) : undefined
    if (direct != null) return { value: direct.value, ttlMs: direct.ttl }
    const mh = parseIpnsName(root)
    const cacheKey = mh != null ? '/ipns/' + ipnsNameString(mh) : key
    if (options.nocache !== true) {
      const hit = this.cacheGet(cacheKey)
      if (hit != null) return { value: hit.value, ttlMs: hit.ttl }
    }
    if (mh != null) {
      const timeout = options.dhtTimeoutMs
      const record = unmarshalIPNSRecord(await this.getRecord(mh, { ...options, dhtTimeoutMs: timeout }))
      const ttlMs = recordTtlMs(record)
      if (options.nocache !== true) this.cacheSet(cacheKey, record.value, ttlMs)
      return { value: record.value, ttlMs }
    }
    if (isDnsName(root)) {
      const domain = root.replace(/\.$/, '')
      try {
        const link = await this.deps.dns.dnslink(domain, { signal: options.signal })
        return { value: link.value, ttlMs: link.ttl != null ? link.ttl * 1000 : undefined }
      } catch (err) {
        // boxo names the FQDN it asked (a trailing dot)
        throw new ResolveError(`DNSLink lookup for ${JSON.stringify(domain + '.')} failed: ${(err as Error).message}`)
      }
    }
    const fixedCid = wrongCodecName(root)
    if (fixedCid != null) throw new ResolveError(`peer ID represented as CIDv1 require libp2p-key multicodec: retry with /ipns/${fixedCid}`)
    throw new ResolveError(`cannot resolve: "${key}"`)
  }

  /**
   * Resolve a path: /ipns/ roots are followed up to `depth` times (boxo resolveAsync); /ipfs/ and
   * other paths come back unchanged.
   */
  async resolve (input: string, options: ResolveOptions = {}): Promise<Resolution> {
    let current = input
    let ttl: number | undefined
    const depth = options.depth ?? DEFAULT_DEPTH
    for (let i = 0; ; i++) {
      const m = /^\/ipns\/([^/]+)(\/.*)?$/.exec(current)
      if (m == null) return { path: current, ttl }
      if (i >= depth) return { path: current, ttl, recursionLimit: true }
      const { value, ttlMs } = await this.resolveOnce(m[1], options)
      if (ttlMs != null) ttl = Math.min(ttl ?? Infinity, Math.floor(ttlMs / 1000))
      current = joinPath(value, m[2] ?? '')
    }
  }

  // ---- republisher ----

  private schedule (ms: number): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => { void this.republish() }, ms)
    this.timer.unref()
  }

  /** Republish the records of every key we hold (boxo republisher.republishEntries). */
  async republish (): Promise<void> {
    const cfg = this.deps.config.get()
    const period = durationMs(ipnsConfig(cfg).RepublishPeriod, DEFAULT_REPUBLISH_MS)
    const lifetime = durationMs(ipnsConfig(cfg).RecordLifetime, Number(parseGoDuration(DEFAULT_LIFETIME)) / 1e6)
    let failed = false
    const names = ['self', ...await this.deps.keystore.list().catch(() => [])]
    for (const keyName of names) {
      try {
        const key = await this.deps.keystore.get(keyName)
        const mh = key.publicKey.toMultihash() as NameHash
        const raw = await this.localRecord(mh)
        if (raw == null) continue
        const prev = unmarshalIPNSRecord(raw)
        let eol = new Date(Date.now() + lifetime)
        const prevEol = Date.parse(prev.validity)
        if (Number.isFinite(prevEol) && prevEol > eol.getTime()) eol = new Date(prevEol)
        await this.publish(key, prev.value, { eol, ttlNs: prev.ttl, v1Compatible: 'signatureV1' in prev })
      } catch (err) {
        failed = true
        this.log.warn(`republishing ${keyName}: ${(err as Error).message}`)
      }
    }
    if (this.timer != null) this.schedule(failed ? RETRY_REPUBLISH_MS : period)
  }
}

/** Join a resolved value and the rest of the input path. */
export function joinPath (value: string, rest: string): string {
  if (rest === '' || rest === '/') return value.replace(/\/+$/, '') + (rest === '/' ? '/' : '')
  return value.replace(/\/+$/, '') + rest
}

/** Go's time.Format(time.RFC3339Nano) in UTC (trailing zeros of the fraction dropped). */
export function rfc3339Nano (d: Date): string {
  const iso = d.toISOString() // 2026-11-25T13:00:00.123Z
  return iso.replace(/\.(\d+)Z$/, (_, f: string) => { const t = f.replace(/0+$/, ''); return t === '' ? 'Z' : `.${t}Z` })
}

export function createNameSystem (deps: NameSystemDeps, init: { ipnsPubsub?: boolean } = {}): NameSystem {
  return new NameSystem(deps, init)
}
