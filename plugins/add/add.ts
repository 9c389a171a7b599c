// ipfs add: import files and directories as UnixFS (kubo core/commands/add.go, core/coreunix/add.go).
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { importFiles, resolveImportSettings, type ImportEntry, type ImportedNode } from '../../core/unixfs/index.js'
import { importConfigOf } from '../../core/unixfs/settings.js'
import type { FileEntry } from '../../registry/types.js'
import { BatchSink } from './sink.js'
import { goText, renderAdd } from './render.js'
import type { AddOutput } from './output.js'
import { filestoreSink } from '../../core/filestore/index.js'
import { fastProvideOptions, validatePinName } from '../shared/cmdutils.js'
import { fastProvide } from '../shared/fast-provide.js'

/** Kubo's adderOutChanSize: rows buffered ahead of a slow reader */
const AHEAD = 8
/** Go os.ModeSymlink | os.ModePerm: what boxo reports as a symlink's mode */
const GO_SYMLINK_MODE = 2 ** 27 + 0o777

const NOCOPY_DISABLED = 'either the filestore or the urlstore must be enabled to use nocopy, see: https://github.com/ipfs/kubo/blob/master/docs/experimental-features.md#ipfs-filestore'

/** boxo files.ModePermsToUnixPerms: Go's setuid/setgid/sticky bits and permissions as Unix bits. */
export function unixPerms (mode: number): number {
  return ((mode & 0xC00000) >> 12) | ((mode & 0x100000) >> 11) | (mode & 0x1FF)
}

/**
 * Content in pieces of at most 256 KiB, so progress rows come every 256 KiB as with Kubo's
 * progressReader (which sees the chunker's reads), however big the pieces the client sent.
 */
async function * slices (source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const step = 256 * 1024
  for await (const piece of source) {
    if (piece.length <= step) { yield piece; continue }
    for (let i = 0; i < piece.length; i += step) yield piece.subarray(i, i + step)
  }
}

/** The Mode/Mtime fields every event of a top-level entry carries (from the entry's own part). */
interface TopMeta { Mode?: string, Mtime?: number, MtimeNsecs?: number }

function topMeta (entry: FileEntry | undefined): TopMeta {
  if (entry == null) return {}
  const out: TopMeta = {}
  const mode = entry.type === 'symlink' ? GO_SYMLINK_MODE : entry.mode ?? 0
  if (mode !== 0) out.Mode = '0' + mode.toString(8)
  if (entry.mtime != null && entry.mtime.secs > 0) {
    out.Mtime = entry.mtime.secs
    if (entry.mtime.nsecs != null && entry.mtime.nsecs > 0) out.MtimeNsecs = entry.mtime.nsecs
  }
  return out
}

/** A queue between the import (producer) and the response (consumer), with room for `ahead` rows. */
class Pipe<T> {
  private readonly items: T[] = []
  private wake: (() => void) | undefined
  private space: (() => void) | undefined
  private closed = false
  private error: unknown

  constructor (private readonly ahead: number) {}

  push (item: T): void {
    this.items.push(item)
    this.wake?.()
  }

  /** wait until the consumer has caught up */
  async room (): Promise<void> {
    while (this.items.length > this.ahead && !this.closed) await new Promise<void>(resolve => { this.space = resolve })
  }

  close (err?: unknown): void {
    this.closed = true
    this.error = err
    this.wake?.()
  }

  async * drain (): AsyncGenerator<T> {
    for (;;) {
      const item = this.items.shift()
      if (item !== undefined) {
        if (this.items.length <= this.ahead) this.space?.()
        yield item
        continue
      }
      if (this.closed) {
        if (this.error !== undefined) throw this.error
        return
      }
      await new Promise<void>(resolve => { this.wake = resolve })
      this.wake = undefined
    }
  }

  /** the consumer went away */
  abandon (): void {
    this.closed = true
    this.space?.()
  }
}

export const addAdd = defineCommand({
  path: ['add'],
  description: 'Add a file or directory to IPFS.',
  help: `Adds the content of <path> to IPFS. Use -r to add directories.
Note that directories are added recursively, and big files are chunked,
to form the IPFS MerkleDAG. Learn more: https://docs.ipfs.tech/concepts/merkle-dag/

If the daemon is not running, it will just add locally to the repo at $IPFS_PATH.
If the daemon is started later, it will be advertised after a few
seconds when the provide system runs.

BASIC EXAMPLES:

The wrap option, '-w', wraps the file (or files, if using the
recursive option) in a directory. This directory contains only
the files which have been added, and means that the file retains
its filename. For example:

  > ipfs add example.jpg
  added QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH example.jpg
  > ipfs add example.jpg -w
  added QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH example.jpg
  added QmaG4FuMqEBnQNn3C8XJ5bpW8kLs7zq2ZXgHptJHbKDDVx

You can now refer to the added file in a gateway, like so:

  /ipfs/QmaG4FuMqEBnQNn3C8XJ5bpW8kLs7zq2ZXgHptJHbKDDVx/example.jpg

Files imported with 'ipfs add' are protected from GC (implicit '--pin=true'),
but it is up to you to remember the returned CID to get the data back later.

If you need to back up or transport content-addressed data using a non-IPFS
medium, CID can be preserved with CAR files.
See 'dag export' and 'dag import' for more information.

MFS INTEGRATION:

Passing '--to-files' creates a reference in Files API (MFS), making it easier
to find it in the future:

  > ipfs files mkdir -p /myfs/dir
  > ipfs add example.jpg --to-files /myfs/dir/
  > ipfs files ls /myfs/dir/
  example.jpg

See 'ipfs files --help' to learn more about using MFS
for keeping track of added files and directories.

SYMLINK HANDLING:

By default, symbolic links are preserved as UnixFS symlink nodes that store
the target path. Use --dereference-symlinks to resolve symlinks to their
target content instead:

  > ipfs add -r --dereference-symlinks ./mydir

This resolves all symlinks, including CLI arguments and those found inside
directories. Symlinks to files become regular file content, symlinks to
directories are traversed and their contents are added.

CHUNKING EXAMPLES:

The chunker option, '-s', specifies the chunking strategy that dictates
how to break files into blocks. Blocks with same content can
be deduplicated. Different chunking strategies will produce different
hashes for the same file. The default is a fixed block size of
256 * 1024 bytes, 'size-262144'. Alternatively, you can use the
Buzhash or Rabin fingerprint chunker for content defined chunking by
specifying buzhash or rabin-[min]-[avg]-[max] (where min/avg/max refer
to the desired chunk sizes in bytes), e.g. 'rabin-262144-524288-1048576'.

The maximum accepted value for 'size-N' and rabin 'max' parameter is
2MiB minus 256 bytes (2096896 bytes). The 256-byte overhead budget is
reserved for protobuf/UnixFS framing so that serialized blocks stay
within the 2MiB block size limit from the bitswap spec. The buzhash
chunker uses a fixed internal maximum of 512KiB and is not affected.

Only the fixed-size chunker ('size-N') guarantees that the same data
will always produce the same CID. The rabin and buzhash chunkers may
change their internal parameters in a future release.

The following examples use very small byte sizes to demonstrate the
properties of the different chunkers on a small file. You'll likely
want to use a 1024 times larger chunk sizes for most files.

  > ipfs add --chunker=size-2048 ipfs-logo.svg
  added QmafrLBfzRLV4XSH1XcaMMeaXEUhDJjmtDfsYU95TrWG87 ipfs-logo.svg
  > ipfs add --chunker=rabin-512-1024-2048 ipfs-logo.svg
  added Qmf1hDN65tR55Ubh2RN1FPxr69xq3giVBz1KApsresY8Gn ipfs-logo.svg

You can now check what blocks have been created by:

  > ipfs ls QmafrLBfzRLV4XSH1XcaMMeaXEUhDJjmtDfsYU95TrWG87
  QmY6yj1GsermExDXoosVE3aSPxdMNYr6aKuw3nA8LoWPRS 2059
  Qmf7ZQeSxq2fJVJbCmgTrLLVN9tDR9Wy5k75DxQKuz5Gyt 1195
  > ipfs ls Qmf1hDN65tR55Ubh2RN1FPxr69xq3giVBz1KApsresY8Gn
  QmY6yj1GsermExDXoosVE3aSPxdMNYr6aKuw3nA8LoWPRS 2059
  QmerURi9k4XzKCaaPbsK6BL5pMEjF7PGphjDvkkjDtsVf3 868
  QmQB28iwSriSUSMqG2nXDTLtdPHgWb4rebBrU7Q1j4vxPv 338

ADVANCED CONFIGURATION:

Finally, a note on hash (CID) determinism and 'ipfs add' command.

Almost all the flags provided by this command will change the final CID, and
new flags may be added in the future. It is not guaranteed for the implicit
defaults of 'ipfs add' to remain the same in future Kubo releases, or for other
IPFS software to use the same import parameters as Kubo.

Note: CIDv1 is automatically used when using non-default options like custom
hash functions or when raw-leaves is explicitly enabled.

Use Import.* configuration options to override global implicit defaults:
https://github.com/ipfs/kubo/blob/master/docs/config.md#import`,
  args: [{ name: 'path', kind: 'file', required: true, variadic: true, stdin: true, recursive: true, description: 'The path to a file to be added to IPFS.' }],
  options: {
    recursive: { type: 'bool', aliases: ['r'], description: 'Add directory paths recursively' },
    'dereference-args': { type: 'bool', description: 'DEPRECATED: use --dereference-symlinks instead. Only dereferences symlinks in CLI arguments, not inside directories.' },
    'stdin-name': { type: 'string', description: 'Assign a name if the file source is stdin.' },
    hidden: { type: 'bool', aliases: ['H'], description: 'Include files that are hidden. Only takes effect on recursive add.' },
    ignore: { type: 'strings', description: 'A rule (.gitignore-stype) defining which file(s) should be ignored (variadic, experimental)' },
    'ignore-rules-path': { type: 'string', description: 'A path to a file with .gitignore-style ignore rules (experimental)' },
    'empty-dirs': { type: 'bool', aliases: ['E'], default: true, description: 'Include empty directories in the import.' },
    'dereference-symlinks': { type: 'bool', description: 'Recursively resolve all symlinks to their target content. Works on symlinks inside directories, not just CLI arguments.' },
    quiet: { type: 'bool', aliases: ['q'], description: 'Write minimal output.' },
    quieter: { type: 'bool', aliases: ['Q'], description: 'Write only final hash.' },
    silent: { type: 'bool', description: 'Write no output.' },
    progress: { type: 'bool', aliases: ['p'], description: 'Stream progress data. Defaults to true when stderr is a terminal.' },
    'only-hash': { type: 'bool', aliases: ['n'], description: 'Only chunk and hash - do not write to disk.' },
    'wrap-with-directory': { type: 'bool', aliases: ['w'], description: 'Wrap files with a directory object.' },
    pin: { type: 'bool', default: true, description: 'Pin locally to protect added files from garbage collection.' },
    'pin-name': { type: 'string', description: 'Name to use for the pin. Requires explicit value (e.g., --pin-name=myname).' },
    'to-files': { type: 'string', description: 'Add reference to Files API (MFS) at the provided path.' },
    'cid-version': { type: 'int', description: 'CID version (0 or 1). CIDv1 automatically enables raw-leaves and is required for non-sha2-256 hashes. Default: Import.CidVersion' },
    hash: { type: 'string', description: 'Hash function to use. Implies CIDv1 if not sha2-256. Default: Import.HashFunction' },
    'raw-leaves': { type: 'bool', description: 'Use raw blocks for leaf nodes. Note: CIDv1 automatically enables raw-leaves. Default: false for CIDv0, true for CIDv1 (Import.UnixFSRawLeaves)' },
    chunker: { type: 'string', aliases: ['s'], description: 'Chunking algorithm, size-[bytes], rabin-[min]-[avg]-[max] or buzhash. Files larger than chunk size are split into multiple blocks. Default: Import.UnixFSChunker' },
    trickle: { type: 'bool', aliases: ['t'], description: 'Use trickle-dag format for dag generation.' },
    'max-file-links': { type: 'int', description: 'Limit the maximum number of links in UnixFS file nodes to this value. WARNING: experimental. Default: Import.UnixFSFileMaxLinks' },
    'max-directory-links': { type: 'int', description: 'Limit the maximum number of links in UnixFS basic directory nodes to this value. WARNING: experimental, Import.UnixFSHAMTDirectorySizeThreshold is safer. Default: Import.UnixFSDirectoryMaxLinks' },
    'max-hamt-fanout': { type: 'int', description: 'Limit the maximum number of links of a UnixFS HAMT directory node to this (power of 2, between 8 and 1024). WARNING: experimental, Import.UnixFSHAMTDirectorySizeThreshold is safer. Default: Import.UnixFSHAMTDirectoryMaxFanout' },
    inline: { type: 'bool', description: 'Inline small blocks into CIDs. WARNING: experimental' },
    'inline-limit': { type: 'int', default: 32, description: 'Maximum block size to inline. Maximum: 128 bytes. WARNING: experimental' },
    nocopy: { type: 'bool', description: 'Add the file using filestore. Implies raw-leaves. WARNING: experimental' },
    fscache: { type: 'bool', description: 'Check the filestore for pre-existing blocks. WARNING: experimental' },
    'preserve-mode': { type: 'bool', description: 'Apply existing POSIX permissions to created UnixFS entries. WARNING: experimental, forces dag-pb for root block, disables raw-leaves' },
    'preserve-mtime': { type: 'bool', description: 'Apply existing POSIX modification time to created UnixFS entries. WARNING: experimental, forces dag-pb for root block, disables raw-leaves' },
    mode: { type: 'uint', description: 'Custom POSIX file mode to store in created UnixFS entries. WARNING: experimental, forces dag-pb for root block, disables raw-leaves' },
    mtime: { type: 'int64', description: 'Custom POSIX modification time to store in created UnixFS entries (seconds before or after the Unix Epoch). WARNING: experimental, forces dag-pb for root block, disables raw-leaves' },
    'mtime-nsecs': { type: 'uint', description: 'Custom POSIX modification time (optional time fraction in nanoseconds)' },
    ...fastProvideOptions('add')
  },
  output: 'ndjson',
  async * run ({ files, options: o, deps, signal }): AsyncGenerator<AddOutput> {
    const { config, blockstore, pins, gcLock, cidEncoder } = deps
    const importCfg = importConfigOf(k => config.getKey(k))
    const onlyHash = o.onlyHash === true
    const dopin = o.pin && !onlyHash
    const toFilesSet = o.toFiles !== undefined

    // Kubo's checks, in Kubo's order
    if (o.inline === true && o.inlineLimit > 128) throw new RpcError(`inline-limit ${o.inlineLimit} exceeds maximum allowed size of 128 bytes`)
    validatePinName(o.pinName)
    if (o.preserveMode === true || o.preserveMtime === true || (o.mode ?? 0) !== 0 || (o.mtime ?? 0) !== 0) {
      const raw = o.rawLeaves ?? importCfg.UnixFSRawLeaves ?? undefined
      if (raw === true) throw new RpcError("raw-leaves can't be used with UnixFS metadata like mode or modification time")
    }
    if (onlyHash && toFilesSet) throw new RpcError('only-hash and to-files options are not compatible')
    if (!dopin && o.pinName !== undefined) throw new RpcError('pin-name option requires pin to be set')
    if (o.wrapWithDirectory === true && toFilesSet) throw new RpcError('wrap-with-directory and to-files options are not compatible')
    const settings = resolveImportSettings({
      cidVersion: o.cidVersion,
      rawLeaves: o.rawLeaves,
      chunker: o.chunker,
      hash: o.hash,
      trickle: o.trickle,
      maxFileLinks: o.maxFileLinks,
      maxDirectoryLinks: o.maxDirectoryLinks,
      maxHamtFanout: o.maxHamtFanout,
      inline: o.inline,
      inlineLimit: o.inlineLimit,
      wrapWithDirectory: o.wrapWithDirectory,
      emptyDirs: o.emptyDirs,
      nocopy: o.nocopy,
      preserveMode: o.preserveMode,
      preserveMtime: o.preserveMtime,
      mode: o.mode,
      mtime: o.mtime,
      mtimeNsecs: o.mtimeNsecs
    }, importCfg)
    // the filestore and MFS come from their plugins (deps.filestore, deps.mfs) when registered
    const optional = <T>(get: () => T): T | undefined => { try { return get() } catch { return undefined } }
    const filestore = o.nocopy === true || o.fscache === true ? optional(() => deps.filestore) : undefined
    if (o.nocopy === true) {
      const exp = (config.getKey('Experimental') ?? {}) as { FilestoreEnabled?: boolean, UrlstoreEnabled?: boolean }
      if (exp.FilestoreEnabled !== true && exp.UrlstoreEnabled !== true) throw new RpcError(NOCOPY_DISABLED)
      if (filestore == null) throw new RpcError('nocopy: the filestore is not supported by this node yet')
    }
    const mfs = toFilesSet ? optional(() => deps.mfs) : undefined
    if (toFilesSet && mfs == null) throw new RpcError('to-files: MFS is not supported by this node yet')
    // --nocopy/--fscache add through the filestore (raw leaves as references, known blocks skipped)
    // --fast-provide-*: after the pins (plugins/shared/fast-provide.ts); never for an offline request
    const offline = o.offline === true

    const release = onlyHash ? () => {} : await gcLock.shared()
    const controller = new AbortController()
    const inner = AbortSignal.any([signal, controller.signal])
    const pipe = new Pipe<AddOutput>(AHEAD)
    const roots: CID[] = []
    const wrap = settings.wrapWithDirectory
    const silent = o.silent === true
    let task: Promise<void> | undefined
    try {
      const batchNodes = Number(importCfg.BatchMaxNodes ?? 128)
      const batchBytes = Math.min(Number(importCfg.BatchMaxSize ?? 100 << 20), 16 << 20)
      const batch = new BatchSink({ blockstore: onlyHash ? undefined : blockstore, maxNodes: batchNodes > 0 ? batchNodes : 128, maxBytes: batchBytes > 0 ? batchBytes : 16 << 20, signal: inner })
      const sink = filestore != null && filestore.active && !onlyHash
        ? filestoreSink(batch, filestore, { nocopy: o.nocopy === true, fscache: o.fscache === true, mainHas: async (c) => await blockstore.has(c) })
        : batch
      // --to-files: each top-level entry is linked into MFS once added (Kubo's rules, no flush)
      const topNames: string[] = []
      const mfsState = { added: false }

      // the top-level entries in arrival order, each with the metadata of its own part
      // (Kubo runs one Adder per top-level entry and reports addit.Node()'s mode/mtime on every event)
      const tops: TopMeta[] = []
      let current: { name: string, isDir: boolean } | undefined
      let count = 0
      const source = async function * (): AsyncGenerator<ImportEntry> {
        for await (const entry of files ?? []) {
          const parts = entry.path.split('/').filter(p => p !== '' && p !== '.')
          const top = parts[0] ?? ''
          const startsTop = current == null || current.name !== top || !current.isDir || (parts.length <= 1 && entry.type !== 'directory')
          if (wrap) {
            if (count === 0) tops.push({})
          } else if (startsTop) {
            topNames.push(top)
            tops.push(parts.length <= 1 ? topMeta(entry) : {})
            current = { name: top, isDir: parts.length > 1 || entry.type === 'directory' }
          }
          count++
          let out: ImportEntry = entry.mode != null && entry.mode !== 0 ? { ...entry, mode: unixPerms(entry.mode) } : entry
          if (o.progress === true && out.content != null) out = { ...out, content: slices(out.content) }
          yield out
        }
        if (wrap && count === 0) tops.push({})
      }

      const onProgress = o.progress === true
        ? (name: string, bytes: number) => {
            const ev: AddOutput = { Name: name }
            if (bytes !== 0) ev.Bytes = bytes
            pipe.push({ ...ev, ...(tops[0] ?? {}) })
          }
        : undefined

      const isRoot = (row: ImportedNode): boolean => wrap ? row.path === '' && row.type === 'directory' : !row.path.includes('/')

      task = (async () => {
        for await (const row of importFiles(source(), sink, settings, { onProgress, signal: inner })) {
          const root = isRoot(row)
          if (!silent || row.type === 'directory') {
            pipe.push({ Name: row.path, Hash: cidEncoder.encode(row.cid), Size: String(row.size), ...(tops[0] ?? {}) })
          }
          if (root) {
            roots.push(row.cid)
            if (!wrap) tops.shift()
            const name = topNames.shift() ?? ''
            if (mfs != null) {
              await sink.flush()
              await mfs.addToFiles(o.toFiles ?? '', name, row.cid, mfsState, { gcHeld: true })
            }
          }
          await pipe.room()
          inner.throwIfAborted()
        }
        await sink.flush()
      })()
      task.then(() => { pipe.close() }, (err) => { pipe.close(err) })

      yield * pipe.drain()
      await task

      if (roots.length === 0) throw new RpcError('expected a file argument')
      if (dopin) {
        for (const cid of roots) {
          inner.throwIfAborted()
          // every block was just written: record the pin without walking (Kubo's PinWithMode)
          await pins.pinRecursive(cid, { name: o.pinName, walk: false, signal: inner })
        }
      }
      // Kubo provides the last root only (lastRootCid)
      if (!onlyHash && !offline) await fastProvide(deps, roots.slice(-1), o, { pinned: dopin, pinnedRoot: dopin, mfs: toFilesSet }, inner)
    } finally {
      // a failed or abandoned add stops importing, pins nothing, and lets GC in only once it has stopped
      pipe.abandon()
      controller.abort()
      await task?.catch(() => {})
      release()
    }
  },
  text: (value) => goText(value),
  cliDefaults: (given, { isTTY }): Record<string, string> => {
    // Kubo's PreRun: the progress bar defaults to on when stderr is a terminal, unless quiet or silent
    const on = (name: string): boolean => ['true', '1', 't', ''].includes((given(name) ?? 'false').toLowerCase())
    if (on('quiet') || on('quieter') || on('silent') || given('progress') !== undefined) return {}
    return { progress: isTTY ? 'true' : 'false' }
  },
  cliRender: async (outcome, { options }, io) => {
    await renderAdd(outcome, { quiet: options.quiet, quieter: options.quieter, progress: options.progress }, io)
  }
})
