// Links of a block by codec, and a concurrent DAG walk (boxo merkledag.Walk with Concurrent()).
import { CID } from 'multiformats/cid'
import * as dagPb from '@ipld/dag-pb'
import * as dagCbor from '@ipld/dag-cbor'
import * as dagJson from '@ipld/dag-json'
import type { Blockstore } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import { getBlock } from '../blockstore/index.js'
import { Pacer } from '../util/pace.js'

export const DAG_PB = 0x70
export const DAG_CBOR = 0x71
export const DAG_JSON = 0x0129
export const RAW = 0x55

/** Codecs whose blocks can hold links; every other block is a leaf. */
export const hasLinks = (cid: CID): boolean => cid.code === DAG_PB || cid.code === DAG_CBOR || cid.code === DAG_JSON

function collectCids (value: unknown, out: CID[]): void {
  if (value == null || typeof value !== 'object') return
  const cid = CID.asCID(value)
  if (cid != null) { out.push(cid); return }
  if (value instanceof Uint8Array) return
  if (Array.isArray(value)) {
    for (const v of value) collectCids(v, out)
    return
  }
  for (const v of Object.values(value)) collectCids(v, out)
}

/** The CIDs a block links to, in order (dag-pb: link order; dag-cbor/dag-json: document order). */
export function linksOf (cid: CID, bytes: Uint8Array): CID[] {
  switch (cid.code) {
    case DAG_PB: return dagPb.decode(bytes).Links.map(l => l.Hash)
    case DAG_CBOR: { const out: CID[] = []; collectCids(dagCbor.decode(bytes), out); return out }
    case DAG_JSON: { const out: CID[] = []; collectCids(dagJson.decode(bytes), out); return out }
    default: return []
  }
}

export interface WalkOptions extends AbortOptions {
  /**
   * Called once per CID reached (root too unless skipRoot); return false to not descend into it.
   * Default: visit each CID once.
   */
  visit?: (cid: CID) => boolean
  /** do not pass the root to visit (its links are still walked) */
  skipRoot?: boolean
  /** blocks fetched at once (default 32) */
  concurrency?: number
  /** called after each block was checked/read */
  onBlock?: (cid: CID) => void
}

/** A set of CIDs keyed by their bytes (boxo cid.Set). */
export class CidSet {
  private readonly set = new Set<string>()
  static key (cid: CID): string { return Buffer.from(cid.bytes.buffer, cid.bytes.byteOffset, cid.bytes.byteLength).toString('latin1') }
  has (cid: CID): boolean { return this.set.has(CidSet.key(cid)) }
  add (cid: CID): void { this.set.add(CidSet.key(cid)) }
  /** true when newly added */
  visit (cid: CID): boolean {
    const k = CidSet.key(cid)
    if (this.set.has(k)) return false
    this.set.add(k)
    return true
  }

  get size (): number { return this.set.size }
}

/**
 * Walk the DAG under root, reading every block that can have links and checking that leaf blocks
 * (raw, identity, ...) are present. A missing block fails the walk with the blockstore's error.
 */
export async function walkDag (blockstore: Blockstore, root: CID, options: WalkOptions = {}): Promise<void> {
  const seen = new CidSet()
  const visit = options.visit ?? ((c: CID) => seen.visit(c))
  const limit = options.concurrency ?? 32
  const queue: CID[] = []
  if (options.skipRoot === true || visit(root)) queue.push(root)

  // a walk over cached blocks is CPU-bound: let other requests run, stop when cancelled
  const pacer = new Pacer(options.signal)
  const load = async (cid: CID): Promise<CID[]> => {
    await pacer.tick()
    if (!hasLinks(cid)) {
      // a leaf: presence is enough (get fails with the store's not-found text)
      if (!await blockstore.has(cid, options)) await getBlock(blockstore, cid, options)
      options.onBlock?.(cid)
      return []
    }
    const links = linksOf(cid, await getBlock(blockstore, cid, options))
    options.onBlock?.(cid)
    return links
  }

  await new Promise<void>((resolve, reject) => {
    let active = 0
    let head = 0
    let failed = false
    const pump = (): void => {
      if (failed) return
      while (active < limit && head < queue.length) {
        const cid = queue[head]
        queue[head++] = undefined as unknown as CID // let it be collected
        active++
        load(cid).then((links) => {
          active--
          for (const l of links) if (visit(l)) queue.push(l)
          pump()
        }, (err) => {
          failed = true
          reject(err)
        })
      }
      if (active === 0 && head === queue.length) resolve()
    }
    pump()
  })
}

/**
 * Make sure everything in `to` that is not shared with `from` is present (boxo dagutils.DiffEnumerate):
 * links only in `to` are paired in order with links only in `from` and compared recursively;
 * unpaired new links are walked completely. `from` is assumed complete.
 */
export async function diffEnumerate (blockstore: Blockstore, from: CID, to: CID, options: AbortOptions = {}): Promise<void> {
  if (from.equals(to)) return
  const fromLinks = linksOf(from, await getBlock(blockstore, from, options))
  const toLinks = linksOf(to, await getBlock(blockstore, to, options))
  const inFrom = new CidSet()
  for (const l of fromLinks) inFrom.add(l)
  const inTo = new CidSet()
  for (const l of toLinks) inTo.add(l)
  const fromOnly = fromLinks.filter(l => !inTo.has(l))
  const pairs: Array<{ bef?: CID, aft: CID }> = []
  let i = 0
  for (const l of toLinks) {
    if (inFrom.has(l)) continue
    pairs.push(i < fromOnly.length ? { bef: fromOnly[i++], aft: l } : { aft: l })
  }
  const seen = new CidSet()
  for (const p of pairs) if (p.bef != null) seen.add(p.bef)
  for (const p of pairs) {
    if (p.bef == null) {
      if (seen.has(p.aft)) continue
      await walkDag(blockstore, p.aft, { ...options, visit: (c) => seen.visit(c) })
    } else {
      await diffEnumerate(blockstore, p.bef, p.aft, options)
    }
  }
}
