// ipfs mount (kubo core/commands/mount_unix.go): tsipfs has no FUSE, so it answers as Kubo built with
// the `nofuse` tag (fuse/node/mount_nofuse.go): offline the usual not-online error, online "not compiled in".
import { defineCommand } from '../../registry/define.js'
import { NotOnlineError, RpcError } from '../../core/errors.js'

/** fuse/node/mount_nofuse.go Mount */
export const NOT_COMPILED_IN = 'not compiled in'

export const mount = defineCommand({
  path: ['mount'],
  description: 'Mounts IPFS to the filesystem (read-only).',
  help: "Mount IPFS at a read-only mountpoint on the OS. The default, /ipfs and /ipns,\nare set in the configuration file, but can be overridden by the options.\nAll IPFS objects will be accessible under this directory. Note that the\nroot will not be listable, as it is virtual. Access known paths directly.\n\nThis build of tsipfs has no FUSE support: the command fails with Kubo's\n'not compiled in' error.",
  status: 'experimental',
  options: {
    'ipfs-path': { type: 'string', aliases: ['f'], description: 'The path where IPFS should be mounted.' },
    'ipns-path': { type: 'string', aliases: ['n'], description: 'The path where IPNS should be mounted.' },
    'mfs-path': { type: 'string', aliases: ['m'], description: 'The path where MFS should be mounted.' }
  },
  output: 'single',
  run: async ({ deps }): Promise<{ IPFS: string, IPNS: string }> => {
    if (deps.libp2p == null) throw new NotOnlineError()
    throw new RpcError(NOT_COMPILED_IN)
  }
})
