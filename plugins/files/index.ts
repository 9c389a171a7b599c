// The files family: the mutable file system (MFS) behind `ipfs files`. Registers deps.mfs (flushed
// when the node stops) and its GC root (services.ts).
import type { Plugin } from '../../registry/types.js'
import { filesRequires, registerFiles } from './services.js'
import { filesChcid } from './chcid.js'
import { filesChmod } from './chmod.js'
import { filesChroot } from './chroot.js'
import { filesCp } from './cp.js'
import { filesFlush } from './flush.js'
import { filesLs } from './ls.js'
import { filesMkdir } from './mkdir.js'
import { filesMv } from './mv.js'
import { filesRead } from './read.js'
import { filesRm } from './rm.js'
import { filesStat } from './stat.js'
import { filesTouch } from './touch.js'
import { filesWrite } from './write.js'

export type { FilesLsOutput, FilesStatOutput, FilesFlushOutput, MessageOutput } from './output.js'

const FILES_HELP = `Files is an API for manipulating IPFS objects as if they were a Unix
filesystem.

The files facility interacts with MFS (Mutable File System). MFS acts as a
single, dynamic filesystem mount. MFS has a root CID that is transparently
updated when a change happens (and can be checked with "ipfs files stat /").

All files and folders within MFS are respected and will not be deleted
during garbage collections. However, a DAG may be referenced in MFS without
being fully available locally (MFS content is lazy loaded when accessed).
MFS is independent from the list of pinned items ("ipfs pin ls"). Calls to
"ipfs pin add" and "ipfs pin rm" will add and remove pins independently of
MFS. If MFS content that was additionally pinned is removed by calling
"ipfs files rm", it will still remain pinned.

Content added with "ipfs add" (which by default also becomes pinned), is not
added to MFS. Any content can be lazily referenced from MFS with the command
"ipfs files cp /ipfs/<cid> /some/path/" (see ipfs files cp --help).

NOTE: Most of the subcommands of 'ipfs files' accept the '--flush' flag. It
defaults to true and ensures two things: 1) that the changes are reflected in
the full MFS structure (updated CIDs) 2) that the parent-folder's cache is
cleared. Use caution when setting this flag to false. It will improve
performance for large numbers of file operations, but it does so at the cost
of consistency guarantees. If the daemon is unexpectedly killed before running
'ipfs files flush' on the files in question, then data may be lost. This also
applies to run 'ipfs repo gc' concurrently with '--flush=false' operations.

When using '--flush=false', operations are limited to prevent unbounded
memory growth. After reaching Internal.MFSNoFlushLimit operations, further
operations will fail until you run 'ipfs files flush'. This explicit failure
(instead of auto-flushing) ensures you maintain control over when data is
persisted, preventing unexpected partial states and making batch operations
predictable. We recommend flushing paths regularly, especially folders with
many write operations, to clear caches, free memory, and maintain good
performance.`

export function filesPlugin (): Plugin {
  return {
    name: 'files',
    requires: filesRequires,
    register: registerFiles,
    groups: [{
      path: ['files'],
      description: 'Interact with unixfs files.',
      help: FILES_HELP,
      options: {
        flush: { type: 'bool', aliases: ['f'], default: true, description: 'Flush target and ancestors after write.' }
      }
    }],
    commands: [filesRead, filesWrite, filesMv, filesCp, filesLs, filesMkdir, filesStat, filesRm, filesFlush, filesChcid, filesChmod, filesChroot, filesTouch]
  }
}
