// A blockstore in Kubo's flatfs layout (next-to-last/2): blocks/<XY>/<BASE32-MULTIHASH>.data.
// Writes go to a temp file, are fsynced and renamed, so a crash never leaves a partial block.
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { CID } from 'multiformats/cid'
import { base32upper } from 'multiformats/bases/base32'
import * as Digest from 'multiformats/hashes/digest'
import type { Blockstore, InputPair, Pair } from 'interface-blockstore'
import type { AbortOptions } from '@libp2p/interface'
import { NotFoundError } from '../errors.js'

export const SHARDING_SPEC = '/repo/flatfs/shard/v1/next-to-last/2'
export const SHARDING_README = `This is a repository of IPLD objects. Each IPLD object is in a single file,
named <base32 encoding of cid>.data. Where <base32 encoding of cid> is the
"base32" encoding of the CID (as specified in
https://github.com/multiformats/multibase) without the 'B' prefix.
All the object files are placed in a tree of directories, based on a
function of the CID. This is a form of sharding similar to
the objects directory in git repositories. Previously, we used
prefixes, we now use the next-to-last two characters.

    func NextToLast(base32cid string) {
      nextToLastLen := 2
      offset := len(base32cid) - nextToLastLen - 1
      return str[offset : offset+nextToLastLen]
    }

For example, an object with a base58 CIDv1 of

    zb2rhYSxw4ZjuzgCnWSt19Q94ERaeFhu9uSqRgjSdx9bsgM6f

has a base32 CIDv1 of

    BAFKREIA22FLID5AJ2KU7URG47MDLROZIH6YF2KWJ7FL6ZGXWUA5RCHGU

and will be placed at

    SC/AFKREIA22FLID5AJ2KU7URG47MDLROZIH6YF2KWJ7FL6ZGXWUA5RCHGU.data

with 'SC' being the last-to-next two characters and the 'B' at the
beginning of the CIDv1 string is the multibase prefix that is not
stored in the filename.
`

const RAW = 0x55

/** Datastore key of a block: base32 (upper, unpadded) of its multihash. */
export const blockKey = (cid: CID): string => base32upper.baseEncode(cid.multihash.bytes)
export const shardOf = (key: string): string => key.slice(-3, -1)

export interface FlatfsInit {
  /** fsync each block file and its folder (default true) */
  sync?: boolean
}

async function collect (val: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  if (val instanceof Uint8Array) return val
  const parts: Uint8Array[] = []
  for await (const p of val) parts.push(p)
  return Buffer.concat(parts)
}

export class FlatfsBlockstore implements Blockstore {
  readonly path: string
  private readonly sync: boolean
  private readonly madeDirs = new Set<string>()

  constructor (dir: string, init: FlatfsInit = {}) {
    this.path = dir
    this.sync = init.sync ?? true
  }

  async open (): Promise<void> {
    await fs.mkdir(this.path, { recursive: true })
  }

  async close (): Promise<void> {}

  fileOf (cid: CID): string {
    const key = blockKey(cid)
    return path.join(this.path, shardOf(key), key + '.data')
  }

  async has (cid: CID, _options?: AbortOptions): Promise<boolean> {
    try { await fs.access(this.fileOf(cid)); return true } catch { return false }
  }

  async put (cid: CID, val: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>, options?: AbortOptions): Promise<CID> {
    options?.signal?.throwIfAborted()
    const bytes = await collect(val)
    const file = this.fileOf(cid)
    if (await this.has(cid)) return cid
    const dir = path.dirname(file)
    if (!this.madeDirs.has(dir)) {
      await fs.mkdir(dir, { recursive: true })
      this.madeDirs.add(dir)
    }
    const tmp = path.join(dir, `.put-${randomBytes(8).toString('hex')}.tmp`)
    const fh = await fs.open(tmp, 'w', 0o444)
    try {
      await fh.writeFile(bytes)
      if (this.sync) await fh.sync()
    } finally {
      await fh.close()
    }
    await fs.rename(tmp, file)
    return cid
  }

  async * putMany (source: Iterable<InputPair> | AsyncIterable<InputPair>, options?: AbortOptions): AsyncGenerator<CID> {
    for await (const { cid, bytes } of source) yield await this.put(cid, bytes, options)
  }

  async * get (cid: CID, options?: AbortOptions): AsyncGenerator<Uint8Array> {
    options?.signal?.throwIfAborted()
    let bytes: Uint8Array
    try {
      bytes = await fs.readFile(this.fileOf(cid))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new NotFoundError(`ipld: could not find ${cid.toString()}`)
      throw err
    }
    yield bytes
  }

  async * getMany (source: Iterable<CID> | AsyncIterable<CID>, options?: AbortOptions): AsyncGenerator<Pair> {
    for await (const cid of source) yield { cid, bytes: this.get(cid, options) }
  }

  async delete (cid: CID, _options?: AbortOptions): Promise<void> {
    try {
      await fs.unlink(this.fileOf(cid))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    }
  }

  async * deleteMany (source: Iterable<CID> | AsyncIterable<CID>, options?: AbortOptions): AsyncGenerator<CID> {
    for await (const cid of source) {
      await this.delete(cid, options)
      yield cid
    }
  }

  /** Every block; CIDs come back as CIDv1 raw (the store is keyed by multihash, as Kubo's). */
  async * getAll (options?: AbortOptions): AsyncGenerator<Pair> {
    for (const shard of await fs.readdir(this.path).catch(() => [] as string[])) {
      if (shard.length !== 2) continue
      for (const name of await fs.readdir(path.join(this.path, shard)).catch(() => [] as string[])) {
        if (!name.endsWith('.data')) continue
        options?.signal?.throwIfAborted()
        let cid: CID
        try {
          cid = CID.createV1(RAW, Digest.decode(base32upper.baseDecode(name.slice(0, -5))))
        } catch { continue }
        yield { cid, bytes: this.get(cid, options) }
      }
    }
  }
}
