// ipfs files chroot (kubo core/commands/files.go filesChrootCmd): a recovery command that sets the
// MFS root pointer directly (NoRemote: the CLI runs it on the repo, not over the API).
import { CID } from 'multiformats/cid'
import * as dagPb from '@ipld/dag-pb'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { goQuote } from '../../core/go/strings.js'
import { cidFromArg } from '../../core/resolver/path.js'
import { DataType, decodeUnixfsData } from '../../core/resolver/unixfs.js'
import { EMPTY_DIR_CID, FILES_ROOT_KEY } from '../../core/mfs/index.js'
import type { MessageOutput } from './output.js'

export const filesChroot = defineCommand({
  path: ['files', 'chroot'],
  description: 'Change the MFS root CID.',
  status: 'experimental',
  http: false,
  help: `'ipfs files chroot' changes the root CID used by MFS (Mutable File System).
This is a recovery command for when MFS becomes corrupted and prevents the
daemon from starting.

When run without a CID argument, resets MFS to an empty directory.

WARNING: The old MFS root and its unpinned children will be removed during
the next garbage collection. Pin the old root first if you want to preserve.

This command can only run when the daemon is not running.

Examples:

  # Reset MFS to empty directory (recovery from corruption)
  $ ipfs files chroot --confirm

  # Restore MFS to a known good directory CID
  $ ipfs files chroot --confirm QmYourBackupCID`,
  args: [{ name: 'cid', kind: 'string', description: 'New root CID (defaults to empty directory if not specified).' }],
  options: {
    confirm: { type: 'bool', description: 'Confirm this potentially destructive operation.' }
  },
  output: 'single',
  async run ({ args, options, deps }): Promise<MessageOutput> {
    if (options.confirm !== true) throw new RpcError('this is a potentially destructive operation; pass --confirm to proceed')
    const { cidEncoder, datastore, blockstore } = deps
    let root = EMPTY_DIR_CID
    if (args.length > 0) {
      try {
        root = cidFromArg(args[0])
      } catch (err) {
        throw new RpcError(`invalid CID ${goQuote(args[0])}: ${(err as Error).message}`)
      }
    }
    const has = await blockstore.has(root)
    if (!has && !root.equals(EMPTY_DIR_CID)) {
      throw new RpcError(`new root ${cidEncoder.encode(root)} does not exist locally; fetch it first with 'ipfs block get'`)
    }
    if (has) {
      const parts: Uint8Array[] = []
      for await (const chunk of blockstore.get(root)) parts.push(chunk)
      let pb: dagPb.PBNode
      try {
        pb = dagPb.decode(Buffer.concat(parts))
      } catch (err) {
        throw new RpcError(`new root is not a valid dag-pb node: ${(err as Error).message}`)
      }
      let type: DataType
      try {
        type = decodeUnixfsData(pb.Data).type
      } catch (err) {
        throw new RpcError(`new root is not a valid UnixFS node: ${(err as Error).message}`)
      }
      if (type !== DataType.Directory && type !== DataType.HAMTShard) throw new RpcError(`new root must be a directory, got ${DataType[type]}`)
    }
    let old: string | undefined
    try {
      old = cidEncoder.encode(CID.decode(await datastore.get(FILES_ROOT_KEY)))
    } catch (err) {
      if ((err as Error).name !== 'NotFoundError') throw new RpcError(`reading current MFS root: ${(err as Error).message}`)
    }
    await datastore.put(FILES_ROOT_KEY, root.bytes)
    // a node running in this process forgets its in-memory tree
    await deps.mfs.reset()
    const now = cidEncoder.encode(root)
    const message = old != null
      ? `MFS root changed from ${old} to ${now}\nThe old root ${old} will be garbage collected unless pinned.\n`
      : `MFS root set to ${now}\n`
    return { Message: message }
  },
  text: (out) => out.Message
})
