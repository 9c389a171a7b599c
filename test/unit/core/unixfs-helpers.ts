// Helpers for the UnixFS importer tests: deterministic inputs (behaviour.md §1) and a block sink.
import { createCipheriv, createHash } from 'node:crypto'
import type { CID } from 'multiformats/cid'
import { importFiles, resolveImportSettings, type ImportedNode, type ImportFlags, type ImportConfig, type ImportEntry } from '../../../core/unixfs/index.js'

/** Kubo's DeterministicRandomReader: ChaCha20 keystream keyed by SHA-256(seed), streamed in pieces. */
export async function * chacha (seed: string, size: number, piece = 1 << 20): AsyncGenerator<Uint8Array> {
  const cipher = createCipheriv('chacha20', createHash('sha256').update(seed).digest(), Buffer.alloc(16))
  const zero = Buffer.alloc(piece)
  for (let left = size; left > 0; left -= piece) yield cipher.update(left >= piece ? zero : zero.subarray(0, left))
}

export function chachaBytes (seed: string, size: number): Buffer {
  return createCipheriv('chacha20', createHash('sha256').update(seed).digest(), Buffer.alloc(16)).update(Buffer.alloc(size))
}

/** test/cli/add_test.go createDeterministicFiles names (behaviour.md §1.5) */
export function deterministicNames (seed: string, count: number, nameLen: number, lastNameLen = nameLen): string[] {
  const ALPHABET = 'abcdefghijklmnopqrstuvwxyz01234567890-_'
  const cipher = createCipheriv('chacha20', createHash('sha256').update(seed).digest(), Buffer.alloc(16))
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const bytes = cipher.update(Buffer.alloc(i === count - 1 ? lastNameLen : nameLen))
    out.push([...bytes].map(b => ALPHABET[b % ALPHABET.length]).join(''))
  }
  return out
}

/** A block sink that keeps what it is given. */
export class MemSink {
  readonly blocks = new Map<string, Uint8Array>()
  puts = 0
  async put (cid: CID, bytes: Uint8Array): Promise<void> {
    this.puts++
    this.blocks.set(cid.toV1().toString(), bytes)
  }

  get (cid: CID): Uint8Array {
    const b = this.blocks.get(cid.toV1().toString())
    if (b == null) throw new Error(`block ${cid.toString()} was not stored`)
    return b
  }
}

export const nullSink = { put: async (): Promise<void> => {} }

export type Content = string | Uint8Array | (() => AsyncIterable<Uint8Array>)

/** A test entry: content as text, bytes or a stream factory. */
export interface E {
  path: string
  type?: 'file' | 'directory' | 'symlink'
  content?: Content
  target?: string
  mode?: number
  mtime?: { secs: number, nsecs?: number }
}

async function * once (b: Uint8Array): AsyncGenerator<Uint8Array> { yield b }

function toEntry (e: E): ImportEntry {
  const type = e.type ?? (e.target !== undefined ? 'symlink' : e.content !== undefined ? 'file' : 'directory')
  const out: ImportEntry = { path: e.path, type }
  if (type === 'file') {
    const c = e.content ?? ''
    out.content = typeof c === 'function' ? c() : once(typeof c === 'string' ? Buffer.from(c) : c)
  }
  if (e.target !== undefined) out.target = e.target
  if (e.mode !== undefined) out.mode = e.mode
  if (e.mtime !== undefined) out.mtime = e.mtime
  return out
}

export async function * entriesOf (list: E[]): AsyncGenerator<ImportEntry> {
  for (const e of list) yield toEntry(e)
}

/** Runs the importer with Kubo-resolved settings; returns every row. */
export async function add (list: E[], flags: ImportFlags = {}, cfg: ImportConfig = {}, sink: { put: (cid: CID, bytes: Uint8Array) => Promise<void> } = nullSink): Promise<ImportedNode[]> {
  const rows: ImportedNode[] = []
  for await (const r of importFiles(entriesOf(list), sink, resolveImportSettings(flags, cfg))) rows.push(r)
  return rows
}

/** The root CID (last row) as Kubo prints it. */
export async function addRoot (list: E[], flags: ImportFlags = {}, cfg: ImportConfig = {}): Promise<string> {
  const rows = await add(list, flags, cfg)
  return rows[rows.length - 1].cid.toString()
}

/** Adds one unnamed file (stdin) and returns its CID. */
export async function addBytes (content: Content, flags: ImportFlags = {}, cfg: ImportConfig = {}): Promise<string> {
  return await addRoot([{ path: '', type: 'file', content }], flags, cfg)
}

export type Tree = { [name: string]: string | Uint8Array | Tree | { symlink: string } }

const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

/** Entries for a directory tree in the order Kubo's CLI sends them (names sorted). */
export function treeEntries (name: string, t: Tree): E[] {
  const out: E[] = [{ path: name, type: 'directory' }]
  for (const k of Object.keys(t).sort(byBytes)) {
    const v = t[k]
    const p = name === '' ? k : `${name}/${k}`
    if (typeof v === 'string' || v instanceof Uint8Array) out.push({ path: p, type: 'file', content: v })
    else if (typeof v.symlink === 'string') out.push({ path: p, type: 'symlink', target: v.symlink })
    else out.push(...treeEntries(p, v as Tree))
  }
  return out
}

/** Kubo's config for the unixfs-v1-2025 profile (behaviour.md §10). */
export const V1_2025: ImportConfig = {
  CidVersion: 1,
  UnixFSRawLeaves: true,
  UnixFSChunker: 'size-1048576',
  HashFunction: 'sha2-256',
  UnixFSFileMaxLinks: 1024,
  UnixFSDirectoryMaxLinks: 0,
  UnixFSHAMTDirectoryMaxFanout: 256,
  UnixFSHAMTDirectorySizeThreshold: '256KiB',
  UnixFSHAMTDirectorySizeEstimation: 'block',
  UnixFSDAGLayout: 'balanced'
}
