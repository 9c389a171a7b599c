// Garbage collection (kubo gc/gc.go): mark and sweep under the GC lock held exclusively.
//
// Mark: every block reachable from a recursive pin, from a best-effort root (MFS; blocks missing
// below it are ignored) and every direct pin. Blocks are read from the local store only (Kubo's
// offline exchange); raw blocks are never read (they have no links). A block that cannot be read or
// decoded is reported (`could not retrieve links for …`) and, once marking is over, the run stops
// before deleting anything (`garbage collection aborted: could not retrieve some links`).
// Sweep: every stored block (the store is keyed by multihash) not marked is deleted, then every
// unmarked filestore reference (Kubo's filestore is part of the node's blockstore); a failed delete
// is reported and the sweep goes on, ending with `garbage collection incomplete: …`.
import type { CID } from 'multiformats/cid'
import type { Blockstore } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import type { Pins } from '../pins/index.js'
import { linksOf } from '../pins/walk.js'
import { FlatfsBlockstore, isIdentity, NodeBlockstore, isNotFound, offlineNotFound, type BlockSource } from '../blockstore/index.js'
import { validateMultihash } from '../hashes.js'
import type { RwLock } from '../util/rwlock.js'
import { Pacer } from '../util/pace.js'

export { createGcRoots, type GcRoots, type RootsProvider } from './roots.js'

export const ERR_CANNOT_FETCH_ALL_LINKS = 'garbage collection aborted: could not retrieve some links'
export const ERR_CANNOT_DELETE_SOME_BLOCKS = 'garbage collection incomplete: could not delete some blocks'

/** One GC result: a removed block (CIDv1 raw, as listed from the store) or an error. */
export type GcEvent = { removed: CID, error?: undefined } | { error: Error, removed?: undefined }

export interface GcInit extends AbortOptions {
  /** the node's blockstore (deps.blockstore); GC reads and deletes in the storage below it */
  blockstore: Blockstore
  pins: Pick<Pins, 'recursiveKeys' | 'directKeys'>
  gcLock: RwLock
  /** best-effort roots (MFS), asked for once the lock is held */
  roots?: (options: AbortOptions) => Promise<CID[]>
  /** blocks read at once while marking (default 32) */
  concurrency?: number
  /** blocks deleted at once (default 256) */
  deleteConcurrency?: number
}

const RAW = 0x55

/** The storage under a NodeBlockstore: no network fetch, plain not-found errors. */
export function storageOf (blockstore: Blockstore): Blockstore {
  return blockstore instanceof NodeBlockstore ? blockstore.inner : blockstore
}

/**
 * Every block in the main store (CIDv1 raw: the store is keyed by multihash): the blockstore
 * over the repo's /blocks alone (repo verify), without the filestore's references.
 */
export async function * listKeys (blockstore: Blockstore, options: AbortOptions = {}): AsyncGenerator<CID> {
  const store = storageOf(blockstore)
  if (store instanceof FlatfsBlockstore) {
    yield * store.cids(options)
    return
  }
  for await (const { cid } of store.getAll(options)) yield cid
}

/** The local block sources that list and delete (the filestore while enabled). */
export function listedSourcesOf (blockstore: Blockstore): BlockSource[] {
  if (!(blockstore instanceof NodeBlockstore)) return []
  return blockstore.localSources.filter(s => s.keys != null)
}

/**
 * Kubo's n.Blockstore.AllKeysChan (boxo Filestore): the main store's keys, then the filestore's
 * references (a block held both ways is listed twice). refs local, repo stat and GC list this.
 */
export async function * allKeys (blockstore: Blockstore, options: AbortOptions = {}): AsyncGenerator<CID> {
  yield * listKeys(blockstore, options)
  for (const source of listedSourcesOf(blockstore)) yield * source.keys?.(options) ?? []
}

/** A block from local storage only; identity CIDs carry their data. Offline exchange error text. */
export async function readLocal (storage: Blockstore, cid: CID, options: AbortOptions = {}): Promise<Uint8Array> {
  if (isIdentity(cid)) return cid.multihash.digest
  const parts: Uint8Array[] = []
  try {
    for await (const chunk of storage.get(cid, options)) parts.push(chunk)
  } catch (err) {
    if (isNotFound(err)) throw offlineNotFound(cid)
    throw err
  }
  return parts.length === 1 ? parts[0] : Buffer.concat(parts)
}

/** Set key of a block: its multihash bytes (so CIDv0, CIDv1 and any codec of one block meet). */
export const mhKey = (cid: CID): string => {
  const b = cid.multihash.bytes
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1')
}

/**
 * Walk a DAG concurrently (boxo merkledag.Walk with Concurrent()): visit decides whether a CID is
 * descended into; getLinks may throw, which ends the walk with that error.
 */
async function walk (root: CID, visit: (c: CID) => boolean, getLinks: (c: CID) => Promise<CID[]>, limit: number, signal?: AbortSignal): Promise<void> {
  if (!visit(root)) return
  const queue: CID[] = [root]
  let head = 0
  await new Promise<void>((resolve, reject) => {
    let active = 0
    let failed = false
    const pump = (): void => {
      if (failed) return
      if (signal?.aborted === true) { failed = true; reject(signal.reason); return }
      while (active < limit && head < queue.length) {
        const cid = queue[head]
        queue[head++] = undefined as unknown as CID
        active++
        getLinks(cid).then((links) => {
          active--
          for (const l of links) if (visit(l)) queue.push(l)
          pump()
        }, (err) => { failed = true; reject(err) })
      }
      if (!failed && active === 0 && head === queue.length) resolve()
    }
    pump()
  })
}

/** gc.Descendants' wording for verifcid failures. */
function verboseCidError (err: Error): Error {
  if (err.message.includes('digest too small') || err.message.includes('potentially insecure hash functions not allowed')) {
    return new Error(`"${err.message}"\nPlease run 'ipfs pin verify' to list insecure hashes. If you want to read them, please downgrade your go-ipfs to 0.4.13\n`)
  }
  return err
}

/**
 * Run one garbage collection. Takes the GC lock exclusively on the first `next()` and holds it
 * until the generator ends (or is returned early); yields removed blocks and errors as they happen.
 */
export async function * runGc (init: GcInit): AsyncGenerator<GcEvent> {
  const { signal } = init
  const limit = init.concurrency ?? 32
  const deletes = init.deleteConcurrency ?? 256
  const storage = storageOf(init.blockstore)
  const release = await init.gcLock.exclusive()
  try {
    signal?.throwIfAborted()
    let roots: CID[] = []
    if (init.roots != null) {
      try {
        roots = await init.roots({ signal })
      } catch (err) {
        yield { error: err as Error }
        return
      }
    }

    // mark
    const marked = new Set<string>()
    const visit = (c: CID): boolean => {
      const k = mhKey(c)
      if (marked.has(k)) return false
      marked.add(k)
      return true
    }
    const pending: GcEvent[] = []
    let errors = false
    // marking a big pinset over cached blocks is CPU-bound: let other requests run, stop when cancelled
    const pacer = new Pacer(signal)
    const linkGetter = (bestEffort: boolean) => async (c: CID): Promise<CID[]> => {
      await pacer.tick()
      validateMultihash(c.multihash) // verifcid: fails the whole group of roots, as Kubo's Descendants
      if (c.code === RAW) return []
      try {
        return linksOf(c, await readLocal(storage, c, { signal }))
      } catch (err) {
        if (signal?.aborted === true) throw err
        if (bestEffort && isNotFound(err)) return []
        errors = true
        pending.push({ error: new Error(`could not retrieve links for ${c.toString()}: ${(err as Error).message}`) })
        return []
      }
    }
    /** gc.Descendants: walk each root; the first walk error stops this group of roots */
    const descendants = async function * (source: AsyncIterable<CID> | Iterable<CID>, bestEffort: boolean): AsyncGenerator<GcEvent> {
      const getLinks = linkGetter(bestEffort)
      try {
        for await (const root of source) {
          await walk(root, visit, getLinks, limit, signal)
          yield * pending.splice(0)
        }
      } catch (err) {
        signal?.throwIfAborted()
        yield * pending.splice(0)
        errors = true
        yield { error: verboseCidError(err as Error) }
      }
    }
    yield * descendants(init.pins.recursiveKeys(), false)
    yield * descendants(roots, true)
    for await (const c of init.pins.directKeys()) marked.add(mhKey(c))
    if (errors) {
      yield { error: new Error(ERR_CANNOT_FETCH_ALL_LINKS) }
      return
    }

    // sweep: the main store's blocks, then the filestore's references (boxo Filestore.AllKeysChan).
    // Each removal is Filestore.DeleteBlock: from the store and the filestore (a reference goes, never
    // its file), so a block held both ways goes (and is reported) with the main store's listing.
    const sources = listedSourcesOf(init.blockstore)
    let failed = false
    const remove = async (k: CID): Promise<GcEvent> => {
      try {
        await storage.delete(k)
        for (const source of sources) await source.delete?.(k)
        return { removed: k }
      } catch (err) {
        failed = true
        return { error: new Error(`could not remove ${k.toString()}: ${(err as Error).message}`) }
      }
    }
    // many deletes in flight: on a cold cache each unlink waits on the disk, and the kernel overlaps
    // them (bench/pin-repo.mjs: 64 at once is ~6x faster than one at a time there; on a file system
    // mounted with `discard` each unlink waits for a discard: 256 at once gave ~1.3x the unlinks/s of 64)
    const window: Array<Promise<GcEvent>> = []
    const listings: Array<AsyncIterable<CID> | Iterable<CID>> = [listKeys(storage, { signal }), ...sources.map(s => s.keys?.({ signal }) ?? [])]
    for (const listing of listings) {
      for await (const k of listing) {
        if (marked.has(mhKey(k))) continue
        window.push(remove(k))
        if (window.length >= deletes) yield await (window.shift() as Promise<GcEvent>)
      }
      // the main store's removals are done before the references are listed
      while (window.length > 0) yield await (window.shift() as Promise<GcEvent>)
    }
    signal?.throwIfAborted()
    if (failed) yield { error: new Error(ERR_CANNOT_DELETE_SOME_BLOCKS) }
  } finally {
    release()
  }
}

/**
 * corerepo.CollectResult: run GC to the end, calling onRemoved per block; returns the error the
 * command reports (one error as is, several joined with "; " as Kubo's MultiError), or undefined.
 */
export async function collectGc (events: AsyncIterable<GcEvent>, onRemoved?: (cid: CID) => void): Promise<Error | undefined> {
  const errors: Error[] = []
  for await (const e of events) {
    if (e.error != null) errors.push(e.error)
    else onRemoved?.(e.removed)
  }
  if (errors.length === 0) return undefined
  if (errors.length === 1) return errors[0]
  return new Error(errors.map(e => e.message).join('; '))
}
