// ipfs object patch add-link (kubo core/commands/object/patch.go, deprecated but served): a copy of
// a dag-pb node with a link added at a slash path (--create makes the missing directories).
import { defineCommand } from '../../registry/define.js'
import { asPb, finalize, insertAtPath, loadPath, type ObjectDeps } from './common.js'
import type { PbNode } from '../../core/mfs/node.js'

export const objectPatchAddLink = defineCommand({
  path: ['object', 'patch', 'add-link'],
  description: 'Deprecated way to add a link to a given dag-pb.',
  help: "Add a Merkle-link to the given object and return the hash of the result.\n\nDEPRECATED and provided for legacy reasons.\n\nUse MFS and 'files' commands instead:\n\n  $ ipfs files cp /ipfs/QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn /some-dir\n  $ ipfs files cp /ipfs/Qmayz4F4UzqcAMitTzU4zCSckDofvxstDuj3y7ajsLLEVs /some-dir/added-file.jpg\n  $ ipfs files stat --hash /some-dir\n\n  The above will add 'added-file.jpg' to the directory placed under /some-dir\n  and the CID of updated directory is returned by 'files stat'\n\n  'files cp' does not download the data, only the root block, which makes it\n  possible to build arbitrary directory trees without fetching them in full to\n  the local node.",
  status: 'deprecated',
  replacement: "use 'ipfs files cp' instead",
  args: [
    { name: 'root', kind: 'string', required: true, description: 'The hash of the node to modify.' },
    { name: 'name', kind: 'string', required: true, description: 'Name of link to create.' },
    { name: 'ref', kind: 'string', required: true, description: 'IPFS object to add link to.' }
  ],
  options: {
    create: { type: 'bool', aliases: ['p'], description: 'Create intermediary nodes.' },
    // listed by commands.json; Kubo 0.40.1 itself does not validate the node type yet
    'allow-non-unixfs': { type: 'bool', description: 'Skip UnixFS validation of the root node.' }
  },
  output: 'single',
  run: async ({ args, options, deps, signal }): Promise<{ Hash: string }> => {
    const d = deps as ObjectDeps
    const [rootArg, name, refArg] = args
    const base = await loadPath(d, rootArg, signal)
    const child = await loadPath(d, refArg, signal)
    const root = asPb(base)
    const changed: PbNode[] = []
    await insertAtPath(d, root, name, child, options.create === true, changed, signal)
    return await finalize(d, root, changed, (options as { allowBigBlock?: boolean }).allowBigBlock === true, signal)
  },
  text: (out) => `${out.Hash}\n`
})
