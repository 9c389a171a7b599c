// Datastore.Spec and the datastore_spec file, as Kubo's fsrepo checks them: the "disk spec" of the configured
// datastore (what decides where data lives: types, paths, flatfs sharding; not prefixes, sync or compression) must
// equal the one in datastore_spec, else the repo does not open. tsipfs stores blocks in flatfs and the rest in
// LevelDB, so it opens repos made with Kubo's default-datastore, flatfs and flatfs-measure profiles, and refuses
// others (pebbleds, badgerds) before it touches anything on disk.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { RpcError } from '../errors.js'
import { SHARDING_SPEC } from '../blockstore/flatfs.js'
import type { KuboConfig } from '../config/defaults.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => v != null && typeof v === 'object' && !Array.isArray(v)

/** Where the two stores of a supported spec live (absolute paths). */
export interface RepoStores { blocks: string, datastore: string }

const SUPPORTED = 'tsipfs opens flatfs + levelds repos (Kubo\'s default, flatfs and flatfs-measure profiles)'

/** Go's encoding/json of a map: keys sorted, no spaces. */
function goJson (v: unknown): string {
  if (Array.isArray(v)) return '[' + v.map(goJson).join(',') + ']'
  if (isObj(v)) return '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + goJson(v[k])).join(',') + '}'
  return JSON.stringify(v)
}

/** Kubo's DiskSpec of one datastore config (measure wrappers are transparent). */
function diskSpecOf (spec: Obj): Obj {
  switch (spec.type) {
    case 'measure':
      return diskSpecOf(isObj(spec.child) ? spec.child : {})
    case 'mount': {
      const mounts = (Array.isArray(spec.mounts) ? spec.mounts : []).filter(isObj)
        .map(m => ({ ...diskSpecOf(m), mountpoint: m.mountpoint }))
        // Kubo sorts mounts by prefix, longest key first ("/blocks" before "/")
        .sort((a, b) => String(b.mountpoint) < String(a.mountpoint) ? -1 : String(b.mountpoint) > String(a.mountpoint) ? 1 : 0)
      return { mounts, type: 'mount' }
    }
    case 'flatfs':
      return { path: spec.path, shardFunc: spec.shardFunc, type: 'flatfs' }
    default:
      return { path: spec.path, type: spec.type }
  }
}

/** The datastore_spec text Kubo writes for a config's Datastore.Spec. */
export function diskSpecText (config: KuboConfig): string {
  const spec = (config.Datastore as Obj | undefined)?.Spec
  return goJson(diskSpecOf(isObj(spec) ? spec : {}))
}

const unwrap = (spec: Obj): Obj => spec.type === 'measure' && isObj(spec.child) ? unwrap(spec.child) : spec

/** The stores of a spec tsipfs can open, or the error saying why not. */
export function storesOf (repoPath: string, config: KuboConfig): RepoStores {
  const raw = (config.Datastore as Obj | undefined)?.Spec
  const spec = isObj(raw) ? unwrap(raw) : {}
  if (spec.type !== 'mount') throw new RpcError(`unsupported datastore type "${String(spec.type)}": ${SUPPORTED}`)
  const mounts = (Array.isArray(spec.mounts) ? spec.mounts : []).filter(isObj).map(m => ({ mountpoint: m.mountpoint, ds: unwrap(m) }))
  const blocks = mounts.find(m => m.mountpoint === '/blocks')?.ds
  const rest = mounts.find(m => m.mountpoint === '/')?.ds
  for (const m of mounts) {
    const want = m.mountpoint === '/blocks' ? 'flatfs' : m.mountpoint === '/' ? 'levelds' : undefined
    if (want == null) throw new RpcError(`unsupported datastore mount "${String(m.mountpoint)}": ${SUPPORTED}`)
    if (m.ds.type !== want) throw new RpcError(`unsupported datastore type "${String(m.ds.type)}" at ${String(m.mountpoint)}: ${SUPPORTED}`)
  }
  if (blocks == null || rest == null || mounts.length !== 2) throw new RpcError(`unsupported datastore layout: ${SUPPORTED}`)
  if (blocks.shardFunc !== SHARDING_SPEC) throw new RpcError(`unsupported flatfs sharding "${String(blocks.shardFunc)}": tsipfs uses ${SHARDING_SPEC}`)
  const at = (p: unknown): string => path.resolve(repoPath, typeof p === 'string' && p !== '' ? p : '.')
  return { blocks: at(blocks.path), datastore: at(rest.path) }
}

/**
 * Before a repo's stores are opened: the spec in config must match datastore_spec (Kubo's check and error) and be one
 * tsipfs can open. A missing datastore_spec is written, as Kubo does.
 */
export async function checkDatastoreSpec (repoPath: string, config: KuboConfig): Promise<RepoStores> {
  const want = diskSpecText(config)
  const file = path.join(repoPath, 'datastore_spec')
  const onDisk = await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => { if (err.code === 'ENOENT') return undefined; throw err })
  if (onDisk != null && onDisk.trim() !== want) {
    throw new RpcError(`datastore configuration of '${onDisk.trim()}' does not match what is on disk '${want}'`)
  }
  const stores = storesOf(repoPath, config)
  if (onDisk == null) await fs.writeFile(file, want, { mode: 0o600 })
  return stores
}
