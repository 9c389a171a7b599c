// The pin store, in Kubo's datastore layout (boxo pinning/pinner/dspinner), so a repo can be
// shared with Kubo:
//   /pins/pin/<id>                                   dag-cbor {cid: <CID bytes>, mode: 0|1, name?: string}
//   /pins/index/cidRindex/<u+b64url(cid)>/<u+b64url(id)>   recursive pins (empty values)
//   /pins/index/cidDindex/<u+b64url(cid)>/<u+b64url(id)>   direct pins
//   /pins/index/nameIndex/<u+b64url(name)>/<u+b64url(id)>
//   /pins/state/dirty                                [1] while Kubo was mid-update
// Every change is one datastore batch (atomic in leveldb, written with sync), so the records and
// indexes never disagree after a crash; a dirty flag left by Kubo triggers an index rebuild.
// The indexes are mirrored in memory (one entry per pin, not per block).
import { randomUUID } from 'node:crypto'
import { CID } from 'multiformats/cid'
import * as dagCbor from '@ipld/dag-cbor'
import { sha256 } from 'multiformats/hashes/sha2'
import { Key, type Datastore } from 'interface-datastore'
import { LevelDatastore } from 'datastore-level'
import type { Blockstore } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import { RpcError } from '../errors.js'
import { getBlock, NodeBlockstore } from '../blockstore/index.js'
import { CidSet, diffEnumerate, hasLinks, walkDag } from './walk.js'

export { walkDag, diffEnumerate, linksOf, hasLinks, CidSet, type WalkOptions } from './walk.js'

export type PinType = 'recursive' | 'direct' | 'indirect'
export type PinLsType = PinType | 'all'

/** boxo pin.Mode values as stored in records */
export const MODE_RECURSIVE = 0
export const MODE_DIRECT = 1

export type PinStatus =
  | { pinned: false }
  | { pinned: true, type: PinType, /** indirect: the recursive pin it hangs under */ via?: CID }

export interface PinEntry {
  cid: CID
  type: PinType
  /** '' when none (always '' for indirect) */
  name: string
}

export interface PinRecursiveOptions extends AbortOptions {
  name?: string
  /** false: pin without checking the DAG (Kubo PinWithMode, used by block put --pin) */
  walk?: boolean
  /** blocks checked so far (pin add --progress) */
  onProgress?: (blocks: number) => void
}

export interface PinLsOptions extends AbortOptions {
  type?: PinLsType
  /** only pins whose name contains this (indirect pins have no name, so none match) */
  name?: string
}

export type PinListener = (cid: CID, recursive: boolean) => void

export interface Pins {
  /** Pin cid and everything under it; every block must be present (else the blockstore's `ipld: could not find` error). Replaces an existing pin of cid (new name). */
  pinRecursive: (cid: CID, options?: PinRecursiveOptions) => Promise<void>
  /** Pin one block (it must be present). Fails with `<cid> already pinned recursively`. */
  pinDirect: (cid: CID, options?: { name?: string } & AbortOptions) => Promise<void>
  /** Kubo's errors: `not pinned or pinned indirectly`, `<cid> is pinned recursively` (recursive=false). */
  unpin: (cid: CID, options?: { recursive?: boolean } & AbortOptions) => Promise<void>
  /** Move a recursive pin (keeps its name). */
  update: (from: CID, to: CID, options?: { unpin?: boolean } & AbortOptions) => Promise<void>
  isPinned: (cid: CID, options?: AbortOptions) => Promise<PinStatus>
  /** isPinned for many CIDs with one walk of the recursive pins (boxo CheckIfPinned); results in input order */
  checkPinned: (cids: CID[], options?: AbortOptions) => Promise<PinStatus[]>
  /** Kubo's pin ls --type order: recursive, then direct, then indirect (each CID once) */
  ls: (options?: PinLsOptions) => AsyncGenerator<PinEntry>
  recursiveKeys: () => AsyncGenerator<CID>
  directKeys: () => AsyncGenerator<CID>
  /** name of a recursive/direct pin ('' when unnamed, undefined when not pinned that way) */
  nameOf: (cid: CID, type: 'recursive' | 'direct') => Promise<string | undefined>
  /** call fn for every pin added from now on (recursive or direct); returns the remover */
  onPin: (fn: PinListener) => () => void
  /** the same pins whose DAG reads never fetch (a request with --offline; Kubo's offline CoreAPI) */
  offline: () => Pins
}

export interface PinsDeps {
  datastore: Datastore
  blockstore: Blockstore
}

const PIN_PREFIX = '/pins/pin/'
const R_PREFIX = '/pins/index/cidRindex/'
const D_PREFIX = '/pins/index/cidDindex/'
const N_PREFIX = '/pins/index/nameIndex/'
const DIRTY_KEY = new Key('/pins/state/dirty')

/** dsindex encode: multibase base64url ('u', no padding). */
const enc = (bytes: Uint8Array): string => 'u' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
const encStr = (s: string): string => enc(Buffer.from(s, 'utf8'))
const dec = (s: string): Buffer => Buffer.from(s.slice(1), 'base64url')

/** cid.KeyString(): the CID's bytes (the multihash for CIDv0) */
const cidIndexKey = (cid: CID): string => enc(cid.bytes)

interface PinRecord {
  id: string
  cid: CID
  mode: number
  name: string
}

export function encodePinRecord (cid: CID, mode: number, name: string): Uint8Array {
  const rec: Record<string, unknown> = { cid: cid.bytes, mode }
  if (name !== '') rec.name = name
  return dagCbor.encode(rec)
}

export function decodePinRecord (id: string, bytes: Uint8Array): PinRecord {
  const obj = dagCbor.decode<{ cid?: Uint8Array, mode?: number, name?: string }>(bytes)
  if (!(obj?.cid instanceof Uint8Array)) throw new Error(`pin record ${id} has no cid`)
  return { id, cid: CID.decode(obj.cid), mode: Number(obj.mode ?? 0), name: typeof obj.name === 'string' ? obj.name : '' }
}

/** A datastore batch written durably: leveldb batches are atomic; with sync they are on disk when committed. */
function durableBatch (datastore: Datastore): { put: (k: Key, v: Uint8Array) => void, delete: (k: Key) => void, commit: () => Promise<void> } {
  if (datastore instanceof LevelDatastore) {
    const db = datastore.db as unknown as { batch: (ops: unknown[], opts: { sync: boolean }) => Promise<void> }
    const ops: Array<{ type: 'put', key: string, value: Uint8Array } | { type: 'del', key: string }> = []
    return {
      put: (k, v) => { ops.push({ type: 'put', key: k.toString(), value: v }) },
      delete: (k) => { ops.push({ type: 'del', key: k.toString() }) },
      commit: async () => { if (ops.length > 0) await db.batch(ops, { sync: true }) }
    }
  }
  const b = datastore.batch()
  return { put: (k, v) => { b.put(k, v) }, delete: (k) => { b.delete(k) }, commit: async () => { await b.commit() } }
}

/** A promise-chain mutex: pin changes happen one at a time. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve()
  async run<T> (fn: () => Promise<T>): Promise<T> {
    const p = this.tail.then(fn, fn)
    this.tail = p.catch(() => {})
    return await p
  }
}

export function createPins ({ datastore, blockstore }: PinsDeps): Pins {
  const records = new Map<string, PinRecord>()
  /** encoded cid key -> pin ids (sorted iteration = Kubo's index order) */
  const rIndex = new Map<string, Set<string>>()
  const dIndex = new Map<string, Set<string>>()
  const mutex = new Mutex()
  let loading: Promise<void> | undefined
  /** told of every pin added (core/provider announces pinned content) */
  const listeners = new Set<PinListener>()

  const indexOf = (mode: number): Map<string, Set<string>> => mode === MODE_RECURSIVE ? rIndex : dIndex
  const prefixOf = (mode: number): string => mode === MODE_RECURSIVE ? R_PREFIX : D_PREFIX
  const addToIndex = (index: Map<string, Set<string>>, key: string, id: string): void => {
    let ids = index.get(key)
    if (ids == null) index.set(key, ids = new Set())
    ids.add(id)
  }
  const removeFromIndex = (index: Map<string, Set<string>>, key: string, id: string): void => {
    const ids = index.get(key)
    if (ids == null) return
    ids.delete(id)
    if (ids.size === 0) index.delete(key)
  }

  async function readIndex (prefix: string, index: Map<string, Set<string>>): Promise<void> {
    for await (const key of datastore.queryKeys({ prefix })) {
      const [k, id] = key.toString().slice(prefix.length).split('/')
      if (k == null || id == null) continue
      addToIndex(index, k, dec(id).toString('utf8'))
    }
  }

  async function load (): Promise<void> {
    let dirty = false
    try { dirty = (await datastore.get(DIRTY_KEY))[0] === 1 } catch { /* absent: clean */ }
    for await (const { key, value } of datastore.query({ prefix: PIN_PREFIX })) {
      const id = key.toString().slice(PIN_PREFIX.length)
      try { records.set(id, decodePinRecord(id, value)) } catch { /* unreadable record: ignored, as by the index */ }
    }
    if (dirty) {
      await rebuildIndexes()
      return
    }
    await readIndex(R_PREFIX, rIndex)
    await readIndex(D_PREFIX, dIndex)
  }

  /** After an interrupted Kubo update: the records are the truth; rewrite every index from them. */
  async function rebuildIndexes (): Promise<void> {
    const b = durableBatch(datastore)
    for (const prefix of [R_PREFIX, D_PREFIX, N_PREFIX]) {
      for await (const key of datastore.queryKeys({ prefix })) b.delete(key)
    }
    for (const rec of records.values()) {
      if (rec.mode !== MODE_RECURSIVE && rec.mode !== MODE_DIRECT) continue
      const k = cidIndexKey(rec.cid)
      b.put(new Key(`${prefixOf(rec.mode)}${k}/${encStr(rec.id)}`), new Uint8Array(0))
      addToIndex(indexOf(rec.mode), k, rec.id)
      if (rec.name !== '') b.put(new Key(`${N_PREFIX}${encStr(rec.name)}/${encStr(rec.id)}`), new Uint8Array(0))
    }
    b.put(DIRTY_KEY, Uint8Array.of(0))
    await b.commit()
  }

  const ready = async (): Promise<void> => { await (loading ??= load()) }

  type Batch = ReturnType<typeof durableBatch>
  /** Changes queued in a batch; the memory mirror is updated only after commit. */
  interface Change { apply: () => void }

  function addPin (b: Batch, changes: Change[], cid: CID, mode: number, name: string): void {
    const id = randomUUID().replaceAll('-', '')
    const rec: PinRecord = { id, cid, mode, name }
    const k = cidIndexKey(cid)
    b.put(new Key(PIN_PREFIX + id), encodePinRecord(cid, mode, name))
    b.put(new Key(`${prefixOf(mode)}${k}/${encStr(id)}`), new Uint8Array(0))
    if (name !== '') b.put(new Key(`${N_PREFIX}${encStr(name)}/${encStr(id)}`), new Uint8Array(0))
    changes.push({
      apply: () => {
        records.set(id, rec)
        addToIndex(indexOf(mode), k, id)
        for (const fn of listeners) fn(cid, mode === MODE_RECURSIVE)
      }
    })
  }

  /** boxo removePinsForCid: every pin of cid with that mode (indexes first, record last). */
  function removePins (b: Batch, changes: Change[], cid: CID, mode: number): boolean {
    const k = cidIndexKey(cid)
    const ids = [...(indexOf(mode).get(k) ?? [])]
    for (const id of ids) {
      b.delete(new Key(`${prefixOf(mode)}${k}/${encStr(id)}`))
      const rec = records.get(id)
      if (rec != null && rec.name !== '') b.delete(new Key(`${N_PREFIX}${encStr(rec.name)}/${encStr(id)}`))
      b.delete(new Key(PIN_PREFIX + id))
      changes.push({ apply: () => { removeFromIndex(indexOf(mode), k, id); records.delete(id) } })
    }
    return ids.length > 0
  }

  async function commit (b: Batch, changes: Change[]): Promise<void> {
    await b.commit()
    for (const c of changes) c.apply()
  }

  const isRecursive = (cid: CID): boolean => rIndex.has(cidIndexKey(cid))
  const isDirect = (cid: CID): boolean => dIndex.has(cidIndexKey(cid))

  /** CIDs of an index in Kubo's order (sorted by encoded key), with the first record's name. */
  function keysOf (index: Map<string, Set<string>>): Array<{ cid: CID, name: string }> {
    return [...index.keys()].sort().map((k) => {
      const ids = [...(index.get(k) ?? [])].sort()
      const rec = ids.map(id => records.get(id)).find(r => r != null)
      return { cid: rec?.cid ?? CID.decode(dec(k)), name: rec?.name ?? '' }
    })
  }

  /** The API over a block store: the node's (reads may fetch), or its offline view (`offline()`). */
  let offlineApi: Pins | undefined
  const build = (blockstore: Blockstore): Pins => {
    /** Search the recursive pins' DAGs for the wanted CIDs; fills `found` with the root each hangs under. */
    async function findIndirect (wanted: CidSet, found: Map<string, CID>, options?: AbortOptions): Promise<void> {
      const visited = new CidSet()
      for (const { cid: root } of keysOf(rIndex)) {
        if (found.size === wanted.size) return
        if (!hasLinks(root)) continue // a raw root has no children (GetLinks does not read it)
        await walkDag(blockstore, root, {
          signal: options?.signal,
          skipRoot: true,
          visit: (c) => {
            if (found.size === wanted.size || !visited.visit(c)) return false
            if (wanted.has(c) && !found.has(CidSet.key(c))) found.set(CidSet.key(c), root)
            return true
          }
        })
      }
    }

    async function checkPinned (cids: CID[], options?: AbortOptions): Promise<PinStatus[]> {
      await ready()
      const out: PinStatus[] = new Array(cids.length)
      const wanted = new CidSet()
      cids.forEach((cid, i) => {
        if (isRecursive(cid)) out[i] = { pinned: true, type: 'recursive' }
        else if (isDirect(cid)) out[i] = { pinned: true, type: 'direct' }
        else wanted.add(cid)
      })
      if (wanted.size > 0) {
        const found = new Map<string, CID>()
        await findIndirect(wanted, found, options)
        cids.forEach((cid, i) => {
          if (out[i] != null) return
          const via = found.get(CidSet.key(cid))
          out[i] = via != null ? { pinned: true, type: 'indirect', via } : { pinned: false }
        })
      }
      return out
    }


    const api: Pins = {
      async pinRecursive (cid, options = {}) {
        await ready()
        const name = options.name ?? ''
        if (options.walk !== false) {
          let n = 0
          await walkDag(blockstore, cid, { signal: options.signal, onBlock: () => options.onProgress?.(++n) })
        }
        await mutex.run(async () => {
          const b = durableBatch(datastore)
          const changes: Change[] = []
          // re-pinning replaces the old pin (a new name); a direct pin becomes recursive
          removePins(b, changes, cid, MODE_RECURSIVE)
          removePins(b, changes, cid, MODE_DIRECT)
          addPin(b, changes, cid, MODE_RECURSIVE, name)
          await commit(b, changes)
        })
      },

      async pinDirect (cid, options = {}) {
        await ready()
        await getBlock(blockstore, cid, options) // must be present
        await mutex.run(async () => {
          if (isRecursive(cid)) throw new RpcError(`${cid.toString()} already pinned recursively`)
          const b = durableBatch(datastore)
          const changes: Change[] = []
          removePins(b, changes, cid, MODE_DIRECT)
          addPin(b, changes, cid, MODE_DIRECT, options.name ?? '')
          await commit(b, changes)
        })
      },

      async unpin (cid, options = {}) {
        await ready()
        const recursive = options.recursive ?? true
        await mutex.run(async () => {
          if (isRecursive(cid)) {
            if (!recursive) throw new RpcError(`${cid.toString()} is pinned recursively`)
          } else if (!isDirect(cid)) {
            throw new RpcError('not pinned or pinned indirectly')
          }
          const b = durableBatch(datastore)
          const changes: Change[] = []
          removePins(b, changes, cid, MODE_RECURSIVE)
          removePins(b, changes, cid, MODE_DIRECT)
          await commit(b, changes)
        })
      },

      async update (from, to, options = {}) {
        await ready()
        const ids = rIndex.get(cidIndexKey(from))
        if (ids == null || ids.size !== 1) throw new RpcError("'from' cid was not recursively pinned already")
        if (from.equals(to)) return
        if (isRecursive(to)) throw new RpcError("'to' cid was already recursively pinned")
        // the new DAG must be complete where it differs from the old one
        await diffEnumerate(blockstore, from, to, { signal: options.signal })
        await mutex.run(async () => {
          const current = rIndex.get(cidIndexKey(from))
          if (current == null || current.size !== 1) throw new RpcError("'from' cid was not recursively pinned already")
          if (isRecursive(to)) throw new RpcError("'to' cid was already recursively pinned")
          const name = records.get([...current][0])?.name ?? ''
          const b = durableBatch(datastore)
          const changes: Change[] = []
          addPin(b, changes, to, MODE_RECURSIVE, name)
          if (options.unpin !== false) removePins(b, changes, from, MODE_RECURSIVE)
          await commit(b, changes)
        })
      },

      async isPinned (cid, options) {
        return (await checkPinned([cid], options))[0]
      },

      checkPinned,

      async * ls (options = {}) {
        await ready()
        const type = options.type ?? 'all'
        const filter = options.name ?? ''
        const emitted = new CidSet()
        const take = (cid: CID, name: string): boolean => emitted.visit(cid) && (filter === '' || name.includes(filter))
        const roots: CID[] = []
        if (type === 'recursive' || type === 'all') {
          for (const { cid, name } of keysOf(rIndex)) {
            if (take(cid, name)) yield { cid, type: 'recursive', name }
            roots.push(cid)
          }
        }
        if (type === 'direct' || type === 'all') {
          for (const { cid, name } of keysOf(dIndex)) {
            if (take(cid, name)) yield { cid, type: 'direct', name }
          }
        }
        if (type === 'indirect') {
          // direct and recursive pins take precedence, without being listed
          for (const { cid } of keysOf(dIndex)) emitted.add(cid)
          for (const { cid } of keysOf(rIndex)) { emitted.add(cid); roots.push(cid) }
        }
        if (type !== 'indirect' && type !== 'all') return
        // an indirect pin has no name (a name filter lists none); `walking` alone keeps them apart, not `emitted`
        const walking = new CidSet()
        for (const root of roots) {
          if (!hasLinks(root)) continue // a raw root has no children (GetLinks does not read it)
          // rows go out while the walk goes on (a 1M-entry HAMT held 1M CIDs before its first row)
          let found: CID[] = []
          let wake: (() => void) | undefined
          let over = false
          let failure: unknown
          const stop = new AbortController()
          const onAbort = (): void => { stop.abort(options.signal?.reason) }
          options.signal?.addEventListener('abort', onAbort)
          const walk = walkDag(blockstore, root, {
            signal: stop.signal,
            skipRoot: true,
            visit: (c) => {
              if (!walking.visit(c)) return false
              if (filter === '' && !emitted.has(c)) { found.push(c); wake?.() }
              return true
            }
          }).catch((err) => { failure = err }).finally(() => { over = true; wake?.() })
          try {
            while (true) {
              if (found.length > 0) {
                const rows = found
                found = []
                for (const cid of rows) yield { cid, type: 'indirect', name: '' }
                continue
              }
              if (over) break
              await new Promise<void>(resolve => { wake = resolve })
              wake = undefined
            }
          } finally {
            stop.abort()
            options.signal?.removeEventListener('abort', onAbort)
            await walk
          }
          if (failure !== undefined) throw failure
        }
      },

      async * recursiveKeys () {
        await ready()
        for (const { cid } of keysOf(rIndex)) yield cid
      },

      async * directKeys () {
        await ready()
        for (const { cid } of keysOf(dIndex)) yield cid
      },

      async nameOf (cid, type) {
        await ready()
        const ids = (type === 'recursive' ? rIndex : dIndex).get(cidIndexKey(cid))
        if (ids == null) return undefined
        for (const id of [...ids].sort()) {
          const rec = records.get(id)
          if (rec != null) return rec.name
        }
        return ''
      },

      onPin: (fn) => {
        listeners.add(fn)
        return () => { listeners.delete(fn) }
      },

      offline: () => offlineApi ??= blockstore instanceof NodeBlockstore ? build(blockstore.offline()) : api
    }
    return api
  }

  return build(blockstore)
}

/** The empty UnixFS directory (QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn). */
export const EMPTY_DIR_BYTES = Uint8Array.of(0x0a, 0x02, 0x08, 0x01)

export async function emptyDirCid (): Promise<CID> {
  return CID.createV0(await sha256.digest(EMPTY_DIR_BYTES))
}

/** What `ipfs init` does after writing the repo (cmd/ipfs/kubo/init.go pinEmptyDir). */
export async function pinEmptyDir (blockstore: Blockstore, pins: Pins): Promise<CID> {
  const cid = await emptyDirCid()
  await blockstore.put(cid, EMPTY_DIR_BYTES)
  await pins.pinRecursive(cid)
  return cid
}
