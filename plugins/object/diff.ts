// ipfs object diff (kubo core/commands/object/diff.go + boxo dagutils.Diff, deprecated but served):
// the link changes between two nodes, recursing into links present on both sides.
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { goPathClean, nodeLinks } from '../../core/resolver/index.js'
import { goQuote } from '../../core/go/strings.js'
import { loadPath, type Loaded, type ObjectDeps } from './common.js'
import { decodeNode, type PbNode } from '../../core/mfs/node.js'

/** dagutils.ChangeType */
export enum ChangeType { Add = 0, Remove = 1, Mod = 2 }

export interface Change { Type: ChangeType, Path: string, Before: { '/': string } | null, After: { '/': string } | null }
export interface Changes { Changes: Change[] }

const link = (cid: CID): { '/': string } => ({ '/': cid.toString() })

const linkCount = (l: Loaded): number => l.node?.kind === 'pb' ? l.node.links.length : nodeLinks(l.cid, l.block).length

/** dagutils.getChange */
const getChange = (a: Loaded, b: Loaded): Change[] =>
  a.cid.equals(b.cid) ? [] : [{ Type: ChangeType.Mod, Path: '', Before: link(a.cid), After: link(b.cid) }]

/** path.Join(name, sub) */
const joinPath = (name: string, sub: string): string => name === '' && sub === '' ? '' : goPathClean(sub === '' ? name : name === '' ? sub : `${name}/${sub}`)

async function diff (deps: ObjectDeps, a: Loaded, b: Loaded, signal?: AbortSignal): Promise<Change[]> {
  if (linkCount(a) === 0 && linkCount(b) === 0) return getChange(a, b)
  if (a.node?.kind !== 'pb' || b.node?.kind !== 'pb') return getChange(a, b)
  const pa: PbNode = a.node
  const pb: PbNode = b.node
  const out: Change[] = []
  let cleanA = pa.links
  let cleanB = pb.links
  for (const la of pa.links) {
    const lb = pb.links.find(l => l.name === la.name)
    if (lb == null) continue
    if (!lb.cid.equals(la.cid)) {
      const load = async (cid: CID): Promise<Loaded> => {
        const block = await deps.resolver.getBlock(cid, { signal })
        return { cid, block, node: decodeNode(cid, block) }
      }
      for (const sub of await diff(deps, await load(la.cid), await load(lb.cid), signal)) {
        out.push({ ...sub, Path: joinPath(la.name, sub.Path) })
      }
    }
    cleanA = cleanA.filter(l => l.name !== lb.name)
    cleanB = cleanB.filter(l => l.name !== lb.name)
  }
  for (const l of cleanA) out.push({ Type: ChangeType.Remove, Path: l.name, Before: link(l.cid), After: null })
  for (const l of cleanB) out.push({ Type: ChangeType.Add, Path: l.name, Before: null, After: link(l.cid) })
  return out
}

function changeText (c: Change, verbose: boolean): string {
  const before = c.Before?.['/'] ?? '<nil>'
  const after = c.After?.['/'] ?? '<nil>'
  const p = goQuote(c.Path)
  if (verbose) {
    switch (c.Type) {
      case ChangeType.Add: return `Added new link ${p} pointing to ${after}.\n`
      case ChangeType.Mod: return `Changed ${p} from ${before} to ${after}.\n`
      case ChangeType.Remove: return `Removed link ${p} (was ${before}).\n`
    }
  }
  switch (c.Type) {
    case ChangeType.Add: return `+ ${after} ${p}\n`
    case ChangeType.Mod: return `~ ${before} ${after} ${p}\n`
    case ChangeType.Remove: return `- ${before} ${p}\n`
  }
  return ''
}

export const objectDiff = defineCommand({
  path: ['object', 'diff'],
  description: 'Display the diff between two IPFS objects.',
  help: "'ipfs object diff' is a command used to show the differences between\ntwo IPFS objects.",
  status: 'deprecated',
  replacement: "use 'ipfs dag' or 'ipfs files' instead",
  args: [
    { name: 'obj_a', kind: 'string', required: true, description: 'Object to diff against.' },
    { name: 'obj_b', kind: 'string', required: true, description: 'Object to diff.' }
  ],
  options: {
    verbose: { type: 'bool', aliases: ['v'], description: 'Print extra information.' }
  },
  output: 'single',
  run: async ({ args, deps, signal }): Promise<Changes> => {
    const d = deps as ObjectDeps
    const a = await loadPath(d, args[0], signal)
    const b = await loadPath(d, args[1], signal)
    return { Changes: await diff(d, a, b, signal) }
  },
  text: (out, call) => out.Changes.map(c => changeText(c, call.options.verbose === true)).join('')
})
