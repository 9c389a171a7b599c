// Import settings: Kubo's precedence (flag > Import.* config when non-null > default), the
// implied-option rules and the validation errors of `ipfs add` (core/commands/add.go,
// core/coreiface/options/unixfs.go) and of the Import config (config/import.go).
import { RpcError } from '../errors.js'
import { hashByName, isAllowedHash, type HashFn } from '../hashes.js'
import { parseHumanBytes } from '../config/units.js'
import { goQuote } from './go.js'
import type { SizeEstimation } from './dir.js'
import type { UnixTime } from './pb.js'

/** Everything the importer needs to know, already resolved. */
export interface ImportSettings {
  cidVersion: 0 | 1
  rawLeaves: boolean
  hash: HashFn
  /** chunker spec (parsed when the first file is imported, as Kubo does) */
  chunker: string
  layout: 'balanced' | 'trickle'
  /** links per internal file node (<= 0: 174) */
  maxFileLinks: number
  /** links in a basic directory before it becomes a HAMT (<= 0: no limit) */
  maxDirectoryLinks: number
  hamtFanout: number
  /** estimated size above which a directory becomes a HAMT (0 disables sharding) */
  hamtThreshold: number
  hamtEstimation: SizeEstimation
  /** identity CIDs for blocks of at most inlineLimit bytes (not stored) */
  inline: boolean
  inlineLimit: number
  /** all entries go into one unnamed root directory */
  wrapWithDirectory: boolean
  /** keep directories that had no entries (top-level ones are always kept) */
  emptyDirs: boolean
  /** --mode: stored on every file and directory (not symlinks), overriding entry modes */
  mode?: number
  /** --mtime/--mtime-nsecs: stored on every node, overriding entry mtimes */
  mtime?: UnixTime
  /** store entry.mode (default true when unset) */
  preserveMode?: boolean
  /** store entry.mtime (default true when unset) */
  preserveMtime?: boolean
}

/** `ipfs add` flags that influence the import (camelCased wire names; undefined = not given). */
export interface ImportFlags {
  cidVersion?: number
  rawLeaves?: boolean
  chunker?: string
  hash?: string
  trickle?: boolean
  maxFileLinks?: number
  maxDirectoryLinks?: number
  maxHamtFanout?: number
  inline?: boolean
  /** default 32 */
  inlineLimit?: number
  wrapWithDirectory?: boolean
  /** default true */
  emptyDirs?: boolean
  nocopy?: boolean
  preserveMode?: boolean
  preserveMtime?: boolean
  mode?: number
  mtime?: number
  mtimeNsecs?: number
}

/** The `Import` section of the Kubo config (null = use the default). */
export interface ImportConfig {
  CidVersion?: number | null
  UnixFSRawLeaves?: boolean | null
  UnixFSChunker?: string | null
  HashFunction?: string | null
  UnixFSFileMaxLinks?: number | null
  UnixFSDirectoryMaxLinks?: number | null
  UnixFSHAMTDirectoryMaxFanout?: number | null
  UnixFSHAMTDirectorySizeThreshold?: string | number | null
  UnixFSHAMTDirectorySizeEstimation?: string | null
  UnixFSDAGLayout?: string | null
  [key: string]: unknown
}

/** Kubo's implicit Import defaults (config/import.go; = the unixfs-v0-2015 profile) */
export const DEFAULT_CHUNKER = 'size-262144'
export const DEFAULT_HASH = 'sha2-256'
/** boxo helpers.DefaultLinksPerBlock = 8192 / (34 + 8 + 5) */
export const DEFAULT_FILE_MAX_LINKS = 174
/** boxo DefaultShardWidth and HAMTShardingSize (256 KiB) */
export const DEFAULT_HAMT_FANOUT = 256
export const DEFAULT_HAMT_THRESHOLD = 262144
/** boxo verifcid.DefaultMaxIdentityDigestSize */
export const MAX_INLINE_LIMIT = 128

const isSet = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined

/** boxo validShardWidth */
const validShardWidth = (n: number): boolean => n > 0 && (n & (n - 1)) === 0 && (n & 7) === 0

/**
 * The Import section of a config, with Kubo's migration of the legacy
 * Internal.UnixFSShardingSizeThreshold into Import.UnixFSHAMTDirectorySizeThreshold when that is unset.
 */
export function importConfigOf (getKey: (key: string) => unknown): ImportConfig {
  const cfg = { ...((getKey('Import') ?? {}) as ImportConfig) }
  const legacy = getKey('Internal.UnixFSShardingSizeThreshold')
  if (!isSet(cfg.UnixFSHAMTDirectorySizeThreshold) && (typeof legacy === 'string' || typeof legacy === 'number')) {
    cfg.UnixFSHAMTDirectorySizeThreshold = legacy
  }
  return cfg
}

/** Import.UnixFSHAMTDirectorySizeThreshold (OptionalBytes: a number or a humanized string) */
export function hamtThresholdOf (cfg: ImportConfig): number {
  const v = cfg.UnixFSHAMTDirectorySizeThreshold
  if (!isSet(v)) return DEFAULT_HAMT_THRESHOLD
  if (typeof v === 'number') return Math.round(v)
  return parseHumanBytes(v)
}

/** Import.UnixFSHAMTDirectorySizeEstimation (an unknown value falls back to `links`, as Kubo) */
export function hamtEstimationOf (cfg: ImportConfig): SizeEstimation {
  const v = cfg.UnixFSHAMTDirectorySizeEstimation
  return v === 'block' || v === 'disabled' ? v : 'links'
}

/**
 * Resolves `ipfs add` flags against the Import config exactly as Kubo does, throwing Kubo's
 * errors, in Kubo's order: inline-limit, metadata vs raw-leaves, unknown hash, mtime-nsecs
 * without mtime, nocopy vs raw-leaves, CID version vs hash, unknown CID version, HAMT fanout.
 * (add's own checks, such as --pin-name without --pin or --to-files conflicts, sit between the
 * metadata and the hash checks in Kubo and are left to the caller.)
 */
export function resolveImportSettings (flags: ImportFlags = {}, cfg: ImportConfig = {}): ImportSettings {
  const inline = flags.inline === true
  const inlineLimit = flags.inlineLimit ?? 32
  if (inline && inlineLimit > MAX_INLINE_LIMIT) {
    throw new RpcError(`inline-limit ${inlineLimit} exceeds maximum allowed size of ${MAX_INLINE_LIMIT} bytes`)
  }

  let trickle = flags.trickle === true
  if (flags.trickle === undefined && isSet(cfg.UnixFSDAGLayout)) trickle = cfg.UnixFSDAGLayout === 'trickle'

  let chunker = flags.chunker ?? ''
  if (chunker === '') chunker = isSet(cfg.UnixFSChunker) ? cfg.UnixFSChunker : DEFAULT_CHUNKER

  let hashName = flags.hash ?? ''
  if (hashName === '') hashName = isSet(cfg.HashFunction) ? cfg.HashFunction : DEFAULT_HASH

  let cidVersion = flags.cidVersion
  if (cidVersion === undefined && isSet(cfg.CidVersion)) cidVersion = cfg.CidVersion

  let rawLeaves = flags.rawLeaves
  if (rawLeaves === undefined && isSet(cfg.UnixFSRawLeaves)) rawLeaves = cfg.UnixFSRawLeaves

  let maxFileLinks = flags.maxFileLinks
  if (maxFileLinks === undefined && isSet(cfg.UnixFSFileMaxLinks)) maxFileLinks = cfg.UnixFSFileMaxLinks
  let maxDirectoryLinks = flags.maxDirectoryLinks
  if (maxDirectoryLinks === undefined && isSet(cfg.UnixFSDirectoryMaxLinks)) maxDirectoryLinks = cfg.UnixFSDirectoryMaxLinks
  // the default fanout is Import.UnixFSHAMTDirectoryMaxFanout either way (boxo's DefaultShardWidth global)
  const defaultFanout = isSet(cfg.UnixFSHAMTDirectoryMaxFanout) ? cfg.UnixFSHAMTDirectoryMaxFanout : DEFAULT_HAMT_FANOUT
  const fanoutOpt = flags.maxHamtFanout ?? defaultFanout

  // UnixFS 1.5 metadata needs a dag-pb root: it turns raw leaves off, unless they were asked for
  const mode = flags.mode ?? 0
  const mtime = flags.mtime ?? 0
  if (flags.preserveMode === true || flags.preserveMtime === true || mode !== 0 || mtime !== 0) {
    if (rawLeaves === true) throw new RpcError('raw-leaves can\'t be used with UnixFS metadata like mode or modification time')
    rawLeaves = false
  }

  const hash = hashByName(hashName.toLowerCase())
  if (hash == null) throw new RpcError(`unrecognized hash function: ${goQuote(hashName.toLowerCase())}`)

  const mtimeNsecs = flags.mtimeNsecs ?? 0
  if (mtime === 0 && mtimeNsecs !== 0) throw new RpcError('option "mtime-nsecs" requires "mtime" to be provided as well')

  // options.UnixfsAddOptions
  if (flags.nocopy === true && rawLeaves !== true) {
    if (rawLeaves === false) throw new RpcError("nocopy option requires '--raw-leaves' to be enabled as well")
    rawLeaves = true
  }
  let version = cidVersion ?? -1
  if (hash.code !== 0x12) {
    if (version === 0) throw new RpcError('CIDv0 only supports sha2-256')
    if (version !== 1 && version !== -1) throw new RpcError(`unknown CID version: ${version}`)
    version = 1
  } else if (version < 0) {
    version = 0
  }
  if (version > 0 && rawLeaves === undefined) rawLeaves = true
  if (version !== 0 && version !== 1) throw new RpcError(`unknown CID version: ${version}`)

  // boxo NewBasicDirectory: 0 = the default width, anything else must be a valid width
  const hamtFanout = fanoutOpt === 0 ? defaultFanout : fanoutOpt
  if (!validShardWidth(hamtFanout)) {
    throw new RpcError(`HAMT fanout must be a positive power of 2 and multiple of 8: ${hamtFanout}`)
  }

  const settings: ImportSettings = {
    cidVersion: version,
    rawLeaves: rawLeaves === true,
    hash,
    chunker,
    layout: trickle ? 'trickle' : 'balanced',
    maxFileLinks: maxFileLinks !== undefined && maxFileLinks > 0 ? maxFileLinks : DEFAULT_FILE_MAX_LINKS,
    maxDirectoryLinks: maxDirectoryLinks !== undefined && maxDirectoryLinks > 0 ? maxDirectoryLinks : 0,
    hamtFanout,
    hamtThreshold: hamtThresholdOf(cfg),
    hamtEstimation: hamtEstimationOf(cfg),
    inline,
    inlineLimit,
    wrapWithDirectory: flags.wrapWithDirectory === true,
    emptyDirs: flags.emptyDirs ?? true,
    // --mode/--mtime win over --preserve-mode/--preserve-mtime
    preserveMode: flags.preserveMode === true && mode === 0,
    preserveMtime: flags.preserveMtime === true && mtime === 0
  }
  if (mode !== 0) settings.mode = mode & 0o777
  if (mtime !== 0) settings.mtime = { secs: mtime, nsecs: mtimeNsecs }
  return settings
}

/**
 * Kubo's startup validation of the Import config (config.ValidateImportConfig); throws the first
 * problem with Kubo's message.
 */
export function validateImportConfig (cfg: ImportConfig): void {
  if (isSet(cfg.CidVersion) && cfg.CidVersion !== 0 && cfg.CidVersion !== 1) {
    throw new RpcError(`Import.CidVersion must be 0 or 1, got ${cfg.CidVersion}`)
  }
  if (isSet(cfg.UnixFSFileMaxLinks) && cfg.UnixFSFileMaxLinks <= 0) {
    throw new RpcError(`Import.UnixFSFileMaxLinks must be positive, got ${cfg.UnixFSFileMaxLinks}`)
  }
  if (isSet(cfg.UnixFSDirectoryMaxLinks) && cfg.UnixFSDirectoryMaxLinks < 0) {
    throw new RpcError(`Import.UnixFSDirectoryMaxLinks must be non-negative, got ${cfg.UnixFSDirectoryMaxLinks}`)
  }
  const fanout = cfg.UnixFSHAMTDirectoryMaxFanout
  if (isSet(fanout) && (fanout < 8 || fanout > 1024 || (fanout & (fanout - 1)) !== 0)) {
    throw new RpcError(`Import.UnixFSHAMTDirectoryMaxFanout must be a power of 2, between 8 and 1024 (got ${fanout})`)
  }
  for (const key of ['BatchMaxNodes', 'BatchMaxSize']) {
    const v = cfg[key]
    if (typeof v === 'number' && v <= 0) throw new RpcError(`Import.${key} must be positive, got ${v}`)
  }
  if (isSet(cfg.UnixFSChunker) && !isValidChunker(cfg.UnixFSChunker)) {
    throw new RpcError(`Import.UnixFSChunker invalid format: ${goQuote(cfg.UnixFSChunker)} (expected "size-<bytes>", "rabin-<min>-<avg>-<max>", or "buzhash")`)
  }
  if (isSet(cfg.HashFunction)) {
    const h = hashByName(cfg.HashFunction.toLowerCase())
    if (h == null) throw new RpcError(`Import.HashFunction unrecognized: ${goQuote(cfg.HashFunction)}`)
    if (!isAllowedHash(h.code)) throw new RpcError(`Import.HashFunction ${goQuote(cfg.HashFunction)} is not allowed for use in IPFS`)
  }
  const est = cfg.UnixFSHAMTDirectorySizeEstimation
  if (isSet(est) && est !== 'links' && est !== 'block' && est !== 'disabled') {
    throw new RpcError(`Import.UnixFSHAMTDirectorySizeEstimation must be "links", "block", or "disabled", got ${goQuote(est)}`)
  }
  const layout = cfg.UnixFSDAGLayout
  if (isSet(layout) && layout !== 'balanced' && layout !== 'trickle') {
    throw new RpcError(`Import.UnixFSDAGLayout must be "balanced" or "trickle", got ${goQuote(layout)}`)
  }
}

const GO_INT = /^[+-]?[0-9]+$/

/** config/import.go isValidChunker */
function isValidChunker (c: string): boolean {
  if (c === 'buzhash') return true
  if (c.startsWith('size-')) {
    const s = c.slice(5)
    if (s === '' || s[0] === '-' || !GO_INT.test(s)) return false
    return Number(s) > 0
  }
  if (c.startsWith('rabin-')) {
    const parts = c.split('-')
    if (parts.length !== 4) return false
    if (!parts.slice(1).every(p => GO_INT.test(p))) return false
    const [min, avg, max] = parts.slice(1).map(Number)
    return min <= avg && avg <= max
  }
  return false
}
