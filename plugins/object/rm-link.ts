// ipfs object patch rm-link (kubo core/commands/object/patch.go, deprecated but served): a copy of
// a dag-pb node without the link at a slash path.
import { defineCommand } from '../../registry/define.js'
import { asPb, finalize, loadPath, removeAtPath, type ObjectDeps } from './common.js'
import type { PbNode } from '../../core/mfs/node.js'

export const objectPatchRmLink = defineCommand({
  path: ['object', 'patch', 'rm-link'],
  description: 'Deprecated way to remove a link from dag-pb object.',
  help: "Remove a Merkle-link from the given object and return the hash of the result.\n\nDEPRECATED and provided for legacy reasons. Use 'files rm' instead.",
  status: 'deprecated',
  replacement: "use 'ipfs files rm' instead",
  args: [
    { name: 'root', kind: 'string', required: true, description: 'The hash of the node to modify.' },
    { name: 'name', kind: 'string', required: true, description: 'Name of the link to remove.' }
  ],
  options: {
    'allow-non-unixfs': { type: 'bool', description: 'Skip UnixFS validation of the root node.' }
  },
  output: 'single',
  run: async ({ args, options, deps, signal }): Promise<{ Hash: string }> => {
    const d = deps as ObjectDeps
    const root = asPb(await loadPath(d, args[0], signal))
    const changed: PbNode[] = []
    await removeAtPath(d, root, args[1], changed, signal)
    return await finalize(d, root, changed, (options as { allowBigBlock?: boolean }).allowBigBlock === true, signal)
  },
  text: (out) => `${out.Hash}\n`
})
