// What the repo takes on disk (Kubo's Repo.GetStorageUsage: the datastore's DiskUsage, i.e. flatfs
// blocks/ plus leveldb datastore/, files and folders counted as `du` does) and how many blocks it
// holds (filestore references included). An in-memory repo reports the sum of its block sizes.
import fsSync, { promises as fs } from 'node:fs'
import path from 'node:path'
import type { Blockstore } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import { NodeBlockstore } from '../blockstore/index.js'
import { FlatfsBlockstore, LOG_FILES } from '../blockstore/flatfs.js'
import type { BlockSizes } from '../blockstore/flatfs-sizes.js'
import { listedSourcesOf, storageOf } from './index.js'
import { parseHumanBytes } from '../config/units.js'
import type { ConfigStore } from '../config/index.js'

export interface StorageUsage {
  /** bytes on disk */
  size: number
  /** blocks in the blockstore */
  blocks: number
}

/** stat this many entries between two turns of the event loop */
const SLICE = 512

/**
 * Size of a folder tree (files and folders, as go-ds-flatfs folderSize / leveldb DiskUsage) and its *.data files.
 * A block file whose size `sizes` knows (by its name) is not stat'ed; the others are, and `sizes` learns them.
 */
async function du (dir: string, options: AbortOptions, top = true, sizes?: BlockSizes): Promise<{ size: number, data: number }> {
  let size = 0
  let data = 0
  let names: string[]
  try {
    size += (await fs.stat(dir)).size
    names = await fs.readdir(dir)
  } catch (err) {
    if (top && (err as NodeJS.ErrnoException).code === 'ENOENT') return { size: 0, data: 0 }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { size, data }
    throw err
  }
  let n = 0
  for (const name of names) {
    if (++n % SLICE === 0) {
      options.signal?.throwIfAborted()
      await new Promise(resolve => setImmediate(resolve))
    }
    // flatfs's group-commit log: preallocated space, not blocks (and gone once the store closes)
    if (top && LOG_FILES.includes(name)) continue
    const block = name.endsWith('.data')
    if (block && sizes != null) {
      const known = sizes.get(name, name.length - 5)
      if (known !== undefined) {
        size += known
        data++
        continue
      }
    }
    const p = dir + path.sep + name
    let st: fsSync.Stats
    try {
      st = fsSync.lstatSync(p)
    } catch { continue } // removed meanwhile
    if (st.isDirectory()) {
      const sub = await du(p, options, false, sizes)
      size += sub.size
      data += sub.data
    } else {
      size += st.size
      if (block) {
        data++
        sizes?.set(name, st.size, name.length - 5)
      }
    }
  }
  return { size, data }
}

export interface UsageOptions extends AbortOptions {
  /** only `size` is wanted: the filestore's references are not counted (blocks may be short) */
  sizeOnly?: boolean
}

/** The filestore's references (Kubo's AllKeysChan lists them after the main store's blocks). */
async function countSourceKeys (blockstore: Blockstore, options: AbortOptions): Promise<number> {
  let n = 0
  for (const source of listedSourcesOf(blockstore)) {
    for await (const _ of source.keys?.(options) ?? []) n++
  }
  return n
}

/**
 * Disk usage of the repo's stores and its block count (corerepo.RepoStat: every key of the node's
 * blockstore, filestore references included; the referenced files' bytes are not the repo's).
 */
export async function storageUsage (repoPath: string, blockstore: Blockstore, options: UsageOptions = {}): Promise<StorageUsage> {
  const sourceKeys = options.sizeOnly === true ? async () => 0 : countSourceKeys
  if (repoPath === '') {
    const stat = blockstore instanceof NodeBlockstore ? await blockstore.stat(options) : { count: 0, size: 0 }
    return { size: stat.size, blocks: stat.count + await sourceKeys(blockstore, options) }
  }
  // every acknowledged block in its file first (flatfs's group-commit log writes them in the background)
  const store = storageOf(blockstore)
  if (store instanceof FlatfsBlockstore) await store.settle()
  const blocks = await du(path.join(repoPath, 'blocks'), options, true, store instanceof FlatfsBlockstore ? store.sizes : undefined)
  const datastore = await du(path.join(repoPath, 'datastore'), options)
  return { size: blocks.size + datastore.size, blocks: blocks.data + await sourceKeys(blockstore, options) }
}

/** corerepo.NoLimit (math.MaxUint64), as a decimal string (beyond a JS number's precision). */
export const NO_LIMIT = '18446744073709551615'

/** Datastore.StorageMax in bytes; NO_LIMIT when unset (corerepo.RepoSize). */
export function storageMax (config: ConfigStore): number | typeof NO_LIMIT {
  const text = config.getKey('Datastore.StorageMax')
  if (typeof text !== 'string' || text === '') return NO_LIMIT
  return parseHumanBytes(text)
}
