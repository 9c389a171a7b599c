// The filestore (boxo filestore, Kubo's Experimental.FilestoreEnabled): raw leaf blocks kept as
// references into files on disk instead of copies. Index records live in the datastore under
// /filestore/<base32 multihash> as DataObj protobufs {FilePath (relative to the parent of the
// repo folder), Offset, Size}; a read opens the file, reads the range and checks its hash.
import { open } from 'node:fs/promises'
import path from 'node:path'
import { Key, type Datastore } from 'interface-datastore'
import { CID } from 'multiformats/cid'
import { base32upper } from 'multiformats/bases/base32'
import * as Digest from 'multiformats/hashes/digest'
import type { AbortOptions } from '@libp2p/interface'
import type { ConfigStore } from '../config/index.js'
import { RpcError } from '../errors.js'
import { hashByCode } from '../hashes.js'
import type { LeafPosition } from '../unixfs/importer.js'
import type { BlockSource } from '../blockstore/index.js'

declare module '../cradle.js' {
  interface Cradle {
    /** the filestore (core/filestore), registered by the filestore plugin */
    filestore: Filestore
  }
}

export const FILESTORE_PREFIX = '/filestore'
const RAW = 0x55

export const ERR_FILESTORE_NOT_ENABLED = 'filestore is not enabled, see https://git.io/vNItf'
export const ERR_URLSTORE_NOT_ENABLED = 'urlstore is not enabled'
/** helpers.ErrMissingFsRef */
export const ERR_MISSING_FS_REF = "missing file path or URL, can't create filestore reference"

/** filestore.Status */
export enum Status { Ok = 0, FileError = 10, FileNotFound = 11, FileChanged = 12, OtherError = 20, KeyNotFound = 30 }

const STATUS_NAMES: Record<number, string> = {
  [Status.Ok]: 'ok',
  [Status.FileError]: 'error',
  [Status.FileNotFound]: 'no-file',
  [Status.FileChanged]: 'changed',
  [Status.OtherError]: 'ERROR',
  [Status.KeyNotFound]: 'missing'
}

/** Status.String() */
export const statusName = (s: number): string => STATUS_NAMES[s] ?? '???'

/** pb.DataObj */
export interface DataObj {
  filePath: string
  offset: number
  size: number
}

/** A reference whose data cannot be read back (filestore.CorruptReferenceError). */
export class CorruptReferenceError extends RpcError {
  constructor (readonly status: Status, message: string) {
    super(message)
  }
}

/** filestore.ListRes */
export interface ListRes {
  status: Status
  errorMsg: string
  /** the block (CIDv1 raw); undefined for an undecodable key */
  key?: CID
  filePath: string
  offset: number
  size: number
}

function writeVarint (out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n % 128) | 0x80)
    n = Math.floor(n / 128)
  }
  out.push(n)
}

/** proto.Marshal(DataObj): proto3 optional fields, all set */
export function encodeDataObj (d: DataObj): Uint8Array {
  const p = Buffer.from(d.filePath)
  const out: number[] = [0x0a]
  writeVarint(out, p.length)
  const head = Buffer.from(out)
  const tail: number[] = [0x10]
  writeVarint(tail, d.offset)
  tail.push(0x18)
  writeVarint(tail, d.size)
  return Buffer.concat([head, p, Buffer.from(tail)])
}

export function decodeDataObj (b: Uint8Array): DataObj {
  const out: DataObj = { filePath: '', offset: 0, size: 0 }
  let pos = 0
  const varint = (): number => {
    let v = 0
    let mul = 1
    for (let i = 0; i < 10; i++) {
      if (pos >= b.length) throw new Error('proto: cannot parse invalid wire-format data')
      const c = b[pos++]
      v += (c & 0x7f) * mul
      if (c < 0x80) return v
      mul *= 128
    }
    throw new Error('proto: cannot parse invalid wire-format data')
  }
  while (pos < b.length) {
    const tag = varint()
    const field = Math.floor(tag / 8)
    const wire = tag & 7
    if (wire === 0) {
      const v = varint()
      if (field === 2) out.offset = v
      else if (field === 3) out.size = v
    } else if (wire === 2) {
      const len = varint()
      if (pos + len > b.length) throw new Error('proto: cannot parse invalid wire-format data')
      if (field === 1) out.filePath = Buffer.from(b.subarray(pos, pos + len)).toString()
      pos += len
    } else if (wire === 5) {
      pos += 4
    } else if (wire === 1) {
      pos += 8
    } else {
      throw new Error('proto: cannot parse invalid wire-format data')
    }
  }
  return out
}

/** Go's error text for a failed open/read of a file */
function fsErrorText (op: string, file: string, err: NodeJS.ErrnoException): string {
  const reason: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    ELOOP: 'too many levels of symbolic links'
  }
  return `${op} ${file}: ${reason[err.code ?? ''] ?? err.message}`
}

/** boxo filestore.IsURL */
export const isUrl = (s: string): boolean => /^https?:\/\/./.test(s)

export interface FilestoreDeps {
  datastore: Datastore
  config: ConfigStore
  /** the repo folder ('' in memory: references are relative to the filesystem root) */
  repoPath: string
}

export class Filestore implements BlockSource {
  /** references are relative to this folder: the repo folder's parent (Kubo's FileManager root) */
  readonly root: string

  /** Experimental.FilestoreEnabled / UrlstoreEnabled, kept current (reads consult them often) */
  private flags: { FilestoreEnabled?: boolean, UrlstoreEnabled?: boolean }

  constructor (private readonly deps: FilestoreDeps) {
    this.root = deps.repoPath !== '' ? path.dirname(path.resolve(deps.repoPath)) : path.parse(process.cwd()).root
    const read = (exp: unknown): { FilestoreEnabled?: boolean, UrlstoreEnabled?: boolean } => {
      const e = (exp ?? {}) as { FilestoreEnabled?: unknown, UrlstoreEnabled?: unknown }
      return { FilestoreEnabled: e.FilestoreEnabled === true, UrlstoreEnabled: e.UrlstoreEnabled === true }
    }
    this.flags = read(deps.config.getKey('Experimental'))
    deps.config.onChange((cfg) => { this.flags = read(cfg.Experimental) })
  }

  private experimental (): { FilestoreEnabled?: boolean, UrlstoreEnabled?: boolean } {
    return this.flags
  }

  /** Experimental.FilestoreEnabled (FileManager.AllowFiles) */
  get enabled (): boolean { return this.experimental().FilestoreEnabled === true }

  /** whether Kubo would have built a filestore at all (either store enabled) */
  get active (): boolean {
    const e = this.experimental()
    return e.FilestoreEnabled === true || e.UrlstoreEnabled === true
  }

  /** getFilestore: Kubo's error when the node has none */
  check (): void {
    if (!this.active) throw new RpcError(ERR_FILESTORE_NOT_ENABLED)
  }

  keyOf (cid: CID): Key {
    return new Key(`${FILESTORE_PREFIX}/${base32upper.baseEncode(cid.multihash.bytes)}`)
  }

  /** the block a datastore key stands for (CIDv1 raw) */
  cidOfKey (key: string): CID | undefined {
    const text = key.slice(key.lastIndexOf('/') + 1)
    try {
      return CID.createV1(RAW, Digest.decode(base32upper.baseDecode(text)))
    } catch {
      return undefined
    }
  }

  async has (cid: CID, options?: AbortOptions): Promise<boolean> {
    if (!this.active) return false
    return await this.deps.datastore.has(this.keyOf(cid), options)
  }

  async getRef (cid: CID, options?: AbortOptions): Promise<DataObj | undefined> {
    let bytes: Uint8Array
    try {
      bytes = await this.deps.datastore.get(this.keyOf(cid), options)
    } catch (err) {
      if ((err as Error).name === 'NotFoundError') return undefined
      throw err
    }
    return decodeDataObj(bytes)
  }

  /** FileManager.Get as a block source: undefined when there is no reference. */
  async get (cid: CID, options?: AbortOptions): Promise<Uint8Array | undefined> {
    if (!this.active) return undefined
    const ref = await this.getRef(cid, options)
    if (ref == null) return undefined
    return await this.read(cid, ref)
  }

  /** readDataObj: the referenced bytes, checked against the block's hash. */
  async read (cid: CID, ref: DataObj): Promise<Uint8Array> {
    if (isUrl(ref.filePath)) {
      throw new RpcError(ERR_URLSTORE_NOT_ENABLED)
    }
    if (!this.enabled) throw new RpcError(ERR_FILESTORE_NOT_ENABLED)
    const abs = path.join(this.root, ...ref.filePath.split('/'))
    let fh
    try {
      fh = await open(abs, 'r')
    } catch (err) {
      const e = err as NodeJS.ErrnoException
      throw new CorruptReferenceError(e.code === 'ENOENT' ? Status.FileNotFound : Status.FileError, fsErrorText('open', abs, e))
    }
    const out = Buffer.alloc(ref.size)
    try {
      let got = 0
      while (got < ref.size) {
        const { bytesRead } = await fh.read(out, got, ref.size - got, ref.offset + got)
        if (bytesRead === 0) break
        got += bytesRead
      }
      if (got < ref.size) throw new CorruptReferenceError(Status.FileChanged, 'EOF')
    } catch (err) {
      if (err instanceof CorruptReferenceError) throw err
      throw new CorruptReferenceError(Status.FileError, fsErrorText('read', abs, err as NodeJS.ErrnoException))
    } finally {
      await fh.close()
    }
    const hash = hashByCode(cid.multihash.code)
    const digest = hash?.digest(out, cid.multihash.size)
    if (digest == null || Buffer.compare(digest.bytes, cid.multihash.bytes) !== 0) {
      throw new CorruptReferenceError(Status.FileChanged, `data in file did not match. ${ref.filePath} offset ${ref.offset}`)
    }
    return out
  }

  /** FileManager.putTo: the DataObj of a leaf at an absolute path (checks the root). */
  refFor (abspath: string, offset: number, size: number): DataObj {
    if (isUrl(abspath)) {
      if (this.experimental().UrlstoreEnabled !== true) throw new RpcError(ERR_URLSTORE_NOT_ENABLED)
      return { filePath: abspath, offset, size }
    }
    if (!this.enabled) throw new RpcError(ERR_FILESTORE_NOT_ENABLED)
    if (!abspath.startsWith(this.root)) throw new RpcError(`cannot add filestore references outside ipfs root (${this.root})`)
    const rel = path.relative(this.root, abspath).split(path.sep).join('/')
    return { filePath: rel, offset, size }
  }

  /** FileManager.PutMany: one datastore batch. */
  async putRefs (refs: Array<{ cid: CID, ref: DataObj }>): Promise<void> {
    if (refs.length === 0) return
    const batch = this.deps.datastore.batch()
    for (const { cid, ref } of refs) batch.put(this.keyOf(cid), encodeDataObj(ref))
    await batch.commit()
  }

  /** bumped before and after each removal (NodeBlockstore.generation: caches of reads notice) */
  generation = 0

  /**
   * FileManager.DeleteBlock: drop the reference (never the file); a missing one is not an error
   * (datastore semantics). Nothing happens while neither store is enabled: Kubo's node then has
   * no filestore in its blockstore.
   */
  async delete (cid: CID, options?: AbortOptions): Promise<void> {
    if (!this.active) return
    this.generation++
    try {
      await this.deps.datastore.delete(this.keyOf(cid), options)
    } finally {
      this.generation++
    }
  }

  /** every reference, in datastore key order */
  private async * entries (options?: AbortOptions): AsyncGenerator<{ key: string, value: Uint8Array }> {
    const rows: Array<{ key: string, value: Uint8Array }> = []
    for await (const { key, value } of this.deps.datastore.query({ prefix: `${FILESTORE_PREFIX}/` }, options)) {
      rows.push({ key: key.toString(), value })
    }
    rows.sort((a, b) => a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
    yield * rows
  }

  /** FileManager.AllKeysChan: the referenced blocks as CIDv1 raw, in key order (none while disabled) */
  async * keys (options?: AbortOptions): AsyncGenerator<CID> {
    if (!this.active) return
    const keys: string[] = []
    for await (const key of this.deps.datastore.queryKeys({ prefix: `${FILESTORE_PREFIX}/` }, options)) keys.push(key.toString())
    keys.sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
    for (const key of keys) {
      const cid = this.cidOfKey(key)
      if (cid != null) yield cid
    }
  }

  private async listRes (key: CID | undefined, ref: DataObj | undefined, verify: boolean, err?: Error): Promise<ListRes> {
    if (err == null && verify && key != null && ref != null) {
      try {
        await this.read(key, ref)
      } catch (e) {
        err = e as Error
      }
    }
    let status = Status.Ok
    let errorMsg = ''
    if (err != null) {
      if (err instanceof CorruptReferenceError) status = err.status
      else if (/could not find|not found/i.test(err.message) || err.name === 'NotFoundError') status = Status.KeyNotFound
      else status = Status.OtherError
      errorMsg = err.message
    }
    return { status, errorMsg, key, filePath: ref?.filePath ?? '', offset: ref?.offset ?? 0, size: ref?.size ?? 0 }
  }

  /** List / Verify of one block */
  async one (cid: CID, verify: boolean): Promise<ListRes> {
    const key = CID.createV1(RAW, cid.multihash)
    const ref = await this.getRef(cid)
    if (ref == null) return await this.listRes(key, undefined, false, new RpcError(`ipld: could not find ${key.toString()}`))
    return await this.listRes(key, ref, verify)
  }

  /** ListAll / VerifyAll: key order, or file order (path, offset, key) */
  async * all (verify: boolean, fileOrder: boolean, options?: AbortOptions): AsyncGenerator<ListRes> {
    const rows: Array<{ key: string, cid?: CID, ref?: DataObj, err?: Error }> = []
    for await (const { key, value } of this.entries(options)) {
      let ref: DataObj | undefined
      let err: Error | undefined
      try { ref = decodeDataObj(value) } catch (e) { err = e as Error }
      const row = { key, cid: this.cidOfKey(key), ref, err }
      if (!fileOrder) {
        yield await this.listRes(row.cid, row.ref, verify, row.err ?? (row.cid == null ? new RpcError('decoding multihash from filestore') : undefined))
        continue
      }
      rows.push(row)
    }
    if (!fileOrder) return
    rows.sort((a, b) => {
      const pa = a.ref?.filePath ?? ''
      const pb = b.ref?.filePath ?? ''
      if (pa !== pb) return pa < pb ? -1 : 1
      const oa = a.ref?.offset ?? 0
      const ob = b.ref?.offset ?? 0
      if (oa !== ob) return oa - ob
      return a.key < b.key ? -1 : a.key > b.key ? 1 : 0
    })
    for (const row of rows) yield await this.listRes(row.cid, row.ref, verify, row.err ?? (row.cid == null ? new RpcError('decoding multihash from filestore') : undefined))
  }
}

/** What an import writes to: `ipfs add`'s block sink. */
export interface AddSink {
  put: (cid: CID, bytes: Uint8Array, leaf?: LeafPosition) => Promise<void>
  flush: () => Promise<void>
}

export interface FilestoreSinkOptions {
  /** --nocopy: raw leaves become references */
  nocopy: boolean
  /** --fscache: blocks already held (by either store) are not written again */
  fscache: boolean
  /** the main blockstore's has (Filestore.Has checks both) */
  mainHas: (cid: CID) => Promise<boolean>
}

/**
 * An add sink that goes through the filestore (Kubo adds with --nocopy or --fscache through
 * the Filestore blockstore): raw leaves with a file position become references (batched), other
 * blocks go to the main store; with either option a block already held anywhere is skipped.
 */
export function filestoreSink (inner: AddSink, fs: Filestore, o: FilestoreSinkOptions): AddSink {
  let refs: Array<{ cid: CID, ref: DataObj }> = []
  const held = async (cid: CID): Promise<boolean> => await o.mainHas(cid) || await fs.has(cid)
  const flushRefs = async (): Promise<void> => {
    const batch = refs
    refs = []
    await fs.putRefs(batch)
  }
  return {
    put: async (cid, bytes, leaf) => {
      if (o.nocopy && cid.code === RAW) {
        if (leaf?.abspath == null || leaf.abspath === '') throw new RpcError(ERR_MISSING_FS_REF)
        const ref = fs.refFor(leaf.abspath, leaf.offset, bytes.length)
        if (await held(cid)) return
        refs.push({ cid, ref })
        if (refs.length >= 128) await flushRefs()
        return
      }
      if (await held(cid)) return
      await inner.put(cid, bytes)
    },
    flush: async () => {
      await flushRefs()
      await inner.flush()
    }
  }
}

export function createFilestore (deps: FilestoreDeps): Filestore {
  return new Filestore(deps)
}
