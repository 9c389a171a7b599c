// Reads of DHT and IPNS records from memory. A DHT server reads the record it holds for every GET_VALUE it answers,
// and a resolver reads its own copies (publisher's, value store's, the DHT's) on every uncached `name resolve`: from
// LevelDB each read is a hop to the libuv pool and back (a thread wake-up each way; ~1 ms of wall time per answer
// on a loaded machine). Kubo's LevelDB reads are in-process. The cache is patched onto the datastore instance, so
// every holder of it (libp2p's view, namesys, routing) reads and writes through it; writes and deletes pass through
// and update it, and a read that overlapped a write is not kept.
import type { Key, Batch, Datastore } from 'interface-datastore'
import type { AbortOptions } from '@libp2p/interface'

/** the keys cached: kad-dht records (WAN, LAN), IPNS publisher copies, IPNS value-store keys (base32 of "/ipns/") */
export const RECORD_PREFIXES = ['/dht/record/', '/dht-lan/record/', '/ipns/', '/F5UXA3TTF']
/** entries kept (a record is ~1 KiB) */
export const MAX_ENTRIES = 1024
/** larger values are not kept */
export const MAX_VALUE = 16 * 1024
/** longer keys are not kept (a record key is ~80 chars; a peer's GET_VALUE may name any key, a miss up to 4 MiB) */
export const MAX_KEY = 256

/** a key the store does not hold: the class of the error its get threw (datastore-level's NotFoundError) */
interface Missing { missing: new () => Error }
type Entry = Uint8Array | Missing

/** a copy of the same type (Buffer.slice would be a view) */
const copy = (b: Uint8Array): Uint8Array => Buffer.isBuffer(b) ? Buffer.from(b) : new Uint8Array(b)

export interface RecordCache {
  /** entries held (tests) */
  size: () => number
}

/** Caches get() of record keys on `ds` (in place). Returns a handle for tests. */
export function cacheRecordReads (ds: Datastore, prefixes: string[] = RECORD_PREFIXES): RecordCache {
  const cache = new Map<string, Entry>()
  // bumped by every write of a cached key: a read that started before it does not fill the cache
  let generation = 0
  const cached = (s: string): boolean => s.length <= MAX_KEY && prefixes.some(p => s.startsWith(p))
  const keep = (s: string, e: Entry): void => {
    if (e instanceof Uint8Array && e.byteLength > MAX_VALUE) return
    cache.delete(s)
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string)
    cache.set(s, e)
  }
  const forget = (s: string): void => { generation++; cache.delete(s) }

  const get = ds.get.bind(ds)
  const put = ds.put.bind(ds)
  const del = ds.delete.bind(ds)
  const batch = ds.batch.bind(ds)

  ds.get = async (key: Key, options?: AbortOptions): Promise<Uint8Array> => {
    const s = key.toString()
    if (!cached(s)) return await get(key, options)
    const hit = cache.get(s)
    // a copy: a caller may keep or change the bytes it is given
    if (hit instanceof Uint8Array) return copy(hit)
    if (hit != null) throw new hit.missing()
    const g = generation
    let value: Uint8Array
    try {
      value = await get(key, options)
    } catch (err) {
      if ((err as Error)?.name === 'NotFoundError' && g === generation) keep(s, { missing: (err as Error).constructor as new () => Error })
      throw err
    }
    if (g === generation) keep(s, copy(value))
    return value
  }
  /**
   * Runs a write of `keys` without the caller's signal (datastore-level only races it: the LevelDB write goes on)
   * and forgets them again once the store has it; the caller stops waiting when its signal aborts.
   */
  const write = async <T>(keys: string[], options: AbortOptions | undefined, op: (o?: AbortOptions) => Promise<T>): Promise<T> => {
    if (keys.length === 0) return await op(options)
    const signal = options?.signal
    signal?.throwIfAborted()
    for (const s of keys) forget(s)
    // what the store holds now (or, if the write failed, unknown: not kept)
    const done = op(signal == null ? options : { ...options, signal: undefined }).finally(() => { for (const s of keys) forget(s) })
    if (signal == null) return await done
    done.catch(() => {})
    return await new Promise<T>((resolve, reject) => {
      const onAbort = (): void => { reject(signal.reason) }
      signal.addEventListener('abort', onAbort, { once: true })
      done.then(resolve, reject).finally(() => { signal.removeEventListener('abort', onAbort) })
    })
  }
  ds.put = async (key: Key, value: Uint8Array, options?: AbortOptions): Promise<Key> => {
    const s = key.toString()
    return await write(cached(s) ? [s] : [], options, async o => await put(key, value, o))
  }
  ds.delete = async (key: Key, options?: AbortOptions): Promise<void> => {
    const s = key.toString()
    await write(cached(s) ? [s] : [], options, async o => { await del(key, o) })
  }
  ds.batch = (): Batch => {
    const b = batch()
    const touched: string[] = []
    const bput = b.put.bind(b)
    const bdel = b.delete.bind(b)
    const commit = b.commit.bind(b)
    b.put = (key: Key, value: Uint8Array) => { const s = key.toString(); if (cached(s)) touched.push(s); bput(key, value) }
    b.delete = (key: Key) => { const s = key.toString(); if (cached(s)) touched.push(s); bdel(key) }
    b.commit = async (options?: AbortOptions) => { await write(touched, options, async o => { await commit(o) }) }
    return b
  }
  return { size: () => cache.size }
}
