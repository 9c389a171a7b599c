// ipfs files cp (kubo core/commands/files.go filesCpCmd)
import { defineCommand } from '../../registry/define.js'

export const filesCp = defineCommand({
  path: ['files', 'cp'],
  description: 'Add references to IPFS files and directories in MFS (or copy within MFS).',
  help: `"ipfs files cp" can be used to add references to any IPFS file or directory
(usually in the form /ipfs/<CID>, but also any resolvable path) into MFS.
This performs a lazy copy: the full DAG will not be fetched, only the root
node being copied.

It can also be used to copy files within MFS, but in the case when an
IPFS-path matches an existing MFS path, the IPFS path wins.

In order to add content to MFS from disk, you can use "ipfs add" to obtain the
IPFS Content Identifier and then "ipfs files cp" to copy it into MFS:

$ ipfs add --quieter --pin=false <your file>
# ...
# ... outputs the root CID at the end
$ ipfs files cp /ipfs/<CID> /your/desired/mfs/path

If you wish to fully copy content from a different IPFS peer into MFS, do not
forget to force IPFS to fetch the full DAG after doing a "cp" operation. i.e:

$ ipfs files cp /ipfs/<CID> /your/desired/mfs/path
$ ipfs pin add <CID>

The lazy-copy feature can also be used to protect partial DAG contents from
garbage collection. i.e. adding the Wikipedia root to MFS would not download
all the Wikipedia, but will prevent any downloaded Wikipedia-DAG content from
being GC'ed.`,
  args: [
    { name: 'source', kind: 'string', required: true, description: 'Source IPFS or MFS path to copy.' },
    { name: 'dest', kind: 'string', required: true, description: 'Destination within MFS.' }
  ],
  options: {
    force: { type: 'bool', description: 'Force overwrite of existing files.' },
    parents: { type: 'bool', aliases: ['p'], description: 'Make parent directories as needed.' }
  },
  output: 'ndjson',
  async run ({ args, options, deps: { mfs, resolver }, signal }) {
    await mfs.cp(args[0], args[1], {
      force: options.force,
      parents: options.parents,
      flush: options.flush !== false,
      signal,
      // the request's resolver: with --offline a /ipfs source never fetches
      resolver
    })
  }
})
