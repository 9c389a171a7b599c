// Kubo's flatfs layout (next-to-last/2): blocks/<XY>/<BASE32-MULTIHASH>.data, and its SHARDING/_README files.
import { execFile } from 'node:child_process'
import fsSync from 'node:fs'
import path from 'node:path'
import type { CID } from 'multiformats/cid'
import { base32UpperOf } from '../util/base32.js'

const IDENTITY = 0x00

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

    BAFKREIA22FLID5AJ2KU7URG47MDLROZIH6YF2KALU2PWEFPVI37YLKRSCA

and will be placed at

    SC/AFKREIA22FLID5AJ2KU7URG47MDLROZIH6YF2KALU2PWEFPVI37YLKRSCA.data

with 'SC' being the last-to-next two characters and the 'B' at the
beginning of the CIDv1 string is the multibase prefix that is not
stored in the filename.
`

/** temp files live here; Kubo's flatfs skips folders starting with '.' */
export const TEMP_DIR = '.temp'

/**
 * Temp files are made in the block's own shard folder, so the rename stays within one folder (a rename across
 * folders takes the filesystem-wide rename lock) and creates are spread over the shard folders (one temp folder:
 * every create queued on its lock, and every inode taken from its block group); dot files, which Kubo's flatfs and
 * our listings skip.
 */
export const SHARD_TEMP_PREFIX = '.tsipfs-tmp-'
/** In the blocks folder while shard folders may hold such temp files: an open that finds it (a crash) sweeps them. */
export const SHARD_TEMP_MARK = '.tsipfs-shard-temps'

/** The mark made (and its folder fsynced, so it is on disk before any temp file) once per `made` set. */
export function markShardTemps (root: string, made: Set<string>): void {
  const mark = root + path.sep + SHARD_TEMP_MARK
  if (made.has(mark)) return
  if (!fsSync.existsSync(mark)) {
    fsSync.mkdirSync(root, { recursive: true })
    fsSync.closeSync(fsSync.openSync(mark, 'a', 0o644))
    const fd = fsSync.openSync(root, 'r')
    try { fsSync.fsyncSync(fd) } finally { fsSync.closeSync(fd) }
  }
  made.add(mark)
}

/** Datastore key of a block: base32 (upper, unpadded) of its multihash. */
export const blockKey = (cid: CID): string => base32UpperOf(cid.multihash.bytes)
/** next-to-last/2: the two characters before the last one */
export const shardOf = (key: string): string => key.slice(-3, -1)
export const isIdentity = (cid: CID): boolean => cid.multihash.code === IDENTITY

/**
 * Whether the flatfs mount of a `Datastore.Spec` asks for fsync (its `sync` field), looked up as
 * Kubo's fsrepo does: through `mount` (its `mounts`), `measure` and `log` (their `child`) wrappers.
 * Anything but `sync: false` keeps writes durable (Kubo refuses a flatfs spec without a boolean
 * `sync`; we keep the safe choice). No flatfs mount (or no spec): durable.
 */
export function flatfsSync (spec: unknown): boolean {
  const find = (node: unknown): Record<string, unknown> | undefined => {
    if (node == null || typeof node !== 'object') return undefined
    const n = node as Record<string, unknown>
    if (n.type === 'flatfs') return n
    if (Array.isArray(n.mounts)) {
      for (const m of n.mounts) { const f = find(m); if (f != null) return f }
    }
    return find(n.child)
  }
  return find(spec)?.sync !== false
}

/**
 * Mark the blocks folder TOPDIR (`chattr +T`, an ext2/3/4 allocator hint) so that its shard folders, and the block
 * files in them, are spread over the filesystem's block groups instead of packed next to their parent. On ext4
 * without a journal each inode allocation skips, one lookup each and from the group's start, every inode of its
 * group freed in the last minutes: packed beside other just-deleted trees (a /tmp full of removed repos), a 10,000
 * x 1 KiB add spent 2.5-6 s of kernel time in creates, spread 0.5-0.6 s. Only a hint: where chattr is missing
 * or the filesystem has no such flag, nothing changes.
 */
export async function spreadShardFolders (dir: string): Promise<void> {
  if (process.platform !== 'linux') return
  await new Promise<void>((resolve) => {
    try {
      execFile('chattr', ['+T', dir], { timeout: 10_000 }, () => { resolve() })
    } catch {
      resolve() // a spawn that fails at once (EPERM, ENOMEM) throws instead of calling back
    }
  })
}
