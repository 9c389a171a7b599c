// Building UnixFS DAGs in a node's blockstore for the data-plane tests: ipfs-unixfs-importer with
// Kubo's default import settings (CIDv0, sha2-256, 256 KiB chunks, balanced, dag-pb leaves).
import { importer, type ImportCandidate, type ImporterOptions } from 'ipfs-unixfs-importer'
import * as dagPb from '@ipld/dag-pb'
import * as dagCbor from '@ipld/dag-cbor'
import * as dagJson from '@ipld/dag-json'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import type { Blockstore } from 'interface-blockstore'

export const KUBO_DEFAULTS: Partial<ImporterOptions> = { profile: 'unixfs-v0-2015', cidVersion: 0, rawLeaves: false }

export interface Entry {
  path: string
  /** omitted: a directory */
  content?: string | Uint8Array
  mode?: number
  mtime?: { secs: bigint, nsecs?: number }
}

const bytes = (c: string | Uint8Array): Uint8Array => typeof c === 'string' ? new TextEncoder().encode(c) : c

/** Import entries; returns path → CID string (the root last, as `ipfs add -r`). */
export async function importEntries (blockstore: Blockstore, entries: Entry[], options: Partial<ImporterOptions> = {}): Promise<Map<string, string>> {
  const candidates: ImportCandidate[] = entries.map(e => ({
    path: e.path,
    content: e.content === undefined ? undefined : bytes(e.content),
    mode: e.mode,
    mtime: e.mtime
  }))
  const out = new Map<string, string>()
  for await (const r of importer(candidates, blockstore, { ...KUBO_DEFAULTS, ...options })) out.set(r.path ?? '', r.cid.toString())
  return out
}

/** Import one file; its CID string. */
export async function importBytes (blockstore: Blockstore, content: string | Uint8Array, options: Partial<ImporterOptions> = {}): Promise<string> {
  let cid = ''
  for await (const r of importer([{ content: bytes(content) }], blockstore, { ...KUBO_DEFAULTS, ...options })) cid = r.cid.toString()
  return cid
}

/** Store one block of a codec; its CID (v1, or v0 for dag-pb when asked). */
export async function putBlock (blockstore: Blockstore, codec: 'dag-pb' | 'dag-cbor' | 'dag-json' | 'raw', value: unknown, v0 = false): Promise<CID> {
  let data: Uint8Array
  let code: number
  switch (codec) {
    case 'dag-pb': data = dagPb.encode(value as dagPb.PBNode); code = dagPb.code; break
    case 'dag-cbor': data = dagCbor.encode(value); code = dagCbor.code; break
    case 'dag-json': data = dagJson.encode(value); code = dagJson.code; break
    default: data = value as Uint8Array; code = 0x55
  }
  const digest = await sha256.digest(data)
  const cid = v0 ? CID.createV0(digest) : CID.createV1(code, digest)
  await blockstore.put(cid, data)
  return cid
}

/** Deterministic pseudo-random bytes (xorshift), for multi-block files. */
export function pseudoRandom (size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size)
  let x = seed >>> 0 || 1
  for (let i = 0; i < size; i++) {
    x ^= x << 13; x >>>= 0
    x ^= x >>> 17
    x ^= x << 5; x >>>= 0
    out[i] = x & 0xff
  }
  return out
}

function varint (n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) { out.push((n % 0x80) | 0x80); n = Math.floor(n / 0x80) }
  out.push(n)
  return out
}

/**
 * A UnixFS Data message written field by field, as boxo does (explicit mode even when it is the
 * default; ipfs-unixfs drops 0644/0755 and the importer double-wraps single-leaf files with metadata).
 */
export function unixfsData (f: { type: number, data?: Uint8Array, filesize?: number, mode?: number, mtime?: { secs: number, nsecs?: number } }): Uint8Array {
  const out: number[] = [0x08, ...varint(f.type)]
  if (f.data != null) out.push(0x12, ...varint(f.data.length), ...f.data)
  if (f.filesize != null) out.push(0x18, ...varint(f.filesize))
  if (f.mode != null) out.push(0x38, ...varint(f.mode))
  if (f.mtime != null) {
    const t = [0x08, ...varint(f.mtime.secs)]
    if (f.mtime.nsecs != null) t.push(0x15, f.mtime.nsecs & 0xff, (f.mtime.nsecs >>> 8) & 0xff, (f.mtime.nsecs >>> 16) & 0xff, f.mtime.nsecs >>> 24)
    out.push(0x42, ...varint(t.length), ...t)
  }
  return Uint8Array.from(out)
}

/** A one-block UnixFS file with metadata (CIDv0); returns its CID and block size. */
export async function putFile (blockstore: Blockstore, content: string, meta: { mode?: number, mtime?: { secs: number, nsecs?: number } } = {}): Promise<{ cid: CID, size: number }> {
  const data = new TextEncoder().encode(content)
  const block = dagPb.encode({ Data: unixfsData({ type: 2, data, filesize: data.length, ...meta }), Links: [] })
  const cid = await putBlock(blockstore, 'dag-pb', dagPb.decode(block), true)
  return { cid, size: block.length }
}

/** A basic UnixFS directory (CIDv0) over the given entries. */
export async function putDir (blockstore: Blockstore, entries: Array<{ name: string, cid: CID, size: number }>, meta: { mode?: number, mtime?: { secs: number, nsecs?: number } } = {}): Promise<{ cid: CID, size: number }> {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)))
  const node = { Data: unixfsData({ type: 1, ...meta }), Links: sorted.map(e => ({ Name: e.name, Hash: e.cid, Tsize: e.size })) }
  const cid = await putBlock(blockstore, 'dag-pb', node, true)
  return { cid, size: dagPb.encode(node).length + sorted.reduce((n, e) => n + e.size, 0) }
}
