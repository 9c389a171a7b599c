// ipfs pin ls (kubo core/commands/pin/pin.go listPinCmd, coreapi pinLsAll, boxo CheckIfPinnedWithType).
// Without arguments: every pin of the type (recursive, then direct, then indirect). With arguments:
// the pin status of each resolved path, failing with `path '<arg>' is not pinned`.
// Output: one {"Keys":{cid:{Type,Name}}} value (Kubo's own JSON encoder: keys sorted, Keys omitted
// when empty), or with --stream one {Cid,Name,Type} object per pin (empty fields omitted).
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { CidSet, hasLinks, walkDag } from '../../core/pins/index.js'
import type { Pins } from '../../core/pins/index.js'
import type { Blockstore } from 'interface-blockstore'
import type { TextCall } from '../../registry/types.js'
import { validatePinName } from '../shared/cmdutils.js'
import { checkPinType, resolveRoot, type PinTypeOption } from './common.js'
import type { PinLsList, PinLsObject, PinLsType } from './output.js'

/** boxo ipfspinner.Pinned */
interface Pinned {
  key: CID
  mode: 'recursive' | 'direct' | 'indirect' | 'notpinned'
  via?: CID
  name: string
}

/**
 * boxo traverseIndirectPins: walk the recursive pins (in index order, one shared visited set) until
 * every wanted CID is found; found ones are appended with the root they hang under.
 */
async function traverseIndirect (pins: Pins, blockstore: Blockstore, toCheck: CidSet, wanted: CID[], out: Pinned[], signal: AbortSignal): Promise<void> {
  const visited = new CidSet()
  const found = new CidSet()
  let left = toCheck.size
  for await (const root of pins.recursiveKeys()) {
    signal.throwIfAborted()
    if (!hasLinks(root)) continue // GetLinks does not read a raw block: nothing below it
    await walkDag(blockstore, root, {
      signal,
      visit: (c) => {
        if (left === 0 || !visited.visit(c)) return false
        if (toCheck.has(c) && !found.has(c)) {
          found.add(c)
          left--
          out.push({ key: wanted.find(w => w.equals(c)) ?? c, mode: 'indirect', via: root, name: '' })
        }
        return true
      }
    })
    if (left === 0) break
  }
  // anything left is not pinned
  for (const c of wanted) if (toCheck.has(c) && !found.has(c)) out.push({ key: c, mode: 'notpinned', name: '' })
}

/**
 * CheckIfPinnedWithType. The result list comes in Kubo's order (direct answers first, then indirect
 * ones as found, then the rest), which the command pairs with its arguments by position, as Kubo does.
 */
async function checkIfPinnedWithType (pins: Pins, blockstore: Blockstore, mode: PinTypeOption, names: boolean, cids: CID[], signal: AbortSignal): Promise<Pinned[]> {
  const out: Pinned[] = []
  const nameOf = async (c: CID, type: 'recursive' | 'direct'): Promise<string | undefined> => await pins.nameOf(c, type)
  const toCheck = new CidSet()
  const wanted: CID[] = []
  const check = (c: CID): void => { if (!toCheck.has(c)) { toCheck.add(c); wanted.push(c) } }
  switch (mode) {
    case 'all':
      for (const c of cids) {
        const r = await nameOf(c, 'recursive')
        if (r !== undefined) { out.push({ key: c, mode: 'recursive', name: names ? r : '' }); continue }
        const d = await nameOf(c, 'direct')
        if (d !== undefined) { out.push({ key: c, mode: 'direct', name: names ? d : '' }); continue }
        check(c)
      }
      break
    case 'recursive':
    case 'direct':
      for (const c of cids) {
        const n = await nameOf(c, mode)
        out.push(n !== undefined ? { key: c, mode, name: names ? n : '' } : { key: c, mode: 'notpinned', name: '' })
      }
      return out
    case 'indirect':
      // a recursive root is not indirect; a direct pin may also be indirect
      for (const c of cids) {
        if (await nameOf(c, 'recursive') !== undefined) out.push({ key: c, mode: 'notpinned', name: '' })
        else check(c)
      }
      break
  }
  if (wanted.length > 0) await traverseIndirect(pins, blockstore, toCheck, wanted, out, signal)
  return out
}

export const pinLs = defineCommand({
  path: ['pin', 'ls'],
  description: 'List objects pinned to local storage.',
  help: `Returns a list of objects that are pinned locally.

By default, all pinned objects are returned, but the '--type' flag or
arguments can restrict that to a specific pin type or to some specific objects
respectively.

Use --type=<type> to specify the type of pinned keys to list.
Valid values are:
    * "direct": pin that specific object.
    * "recursive": pin that specific object, and indirectly pin all its
      descendants
    * "indirect": pinned indirectly by an ancestor (like a refcount)
    * "all"

By default, pin names are not included (returned as empty).
Pass '--names' flag to return pin names (set with '--name' from 'pin add').

With arguments, the command fails if any of the arguments is not a pinned
object. And if --type=<type> is additionally used, the command will also fail
if any of the arguments is not of the specified type.`,
  args: [{ name: 'ipfs-path', kind: 'string', variadic: true, description: 'Path to object(s) to be listed.' }],
  options: {
    type: { type: 'string', aliases: ['t'], default: 'all', description: 'The type of pinned keys to list. Can be "direct", "indirect", "recursive", or "all".' },
    quiet: { type: 'bool', aliases: ['q'], description: 'Output only the CIDs of pins.' },
    name: { type: 'string', aliases: ['n'], description: 'Limit returned pins to ones with names that contain the value provided (case-sensitive, partial match). Implies --names=true.' },
    stream: { type: 'bool', aliases: ['s'], description: 'Enable streaming of pins as they are discovered.' },
    names: { type: 'bool', description: 'Include pin names in the output (slower, disabled by default).' }
  },
  output: (o) => o.stream === true ? 'ndjson' : 'single',
  run: ({ args, options, deps, signal }): Promise<PinLsList> | AsyncIterable<PinLsObject> => {
    const filter = options.name ?? ''
    validatePinName(filter)
    const mode = checkPinType(options.type)
    const detailed = options.names === true || filter !== ''
    const enc = (c: CID): string => deps.cidEncoder.encode(c)

    async function * rows (): AsyncGenerator<{ Cid: string, Type: string, Name: string }> {
      if (args.length > 0) {
        const cids: CID[] = []
        for (const arg of args) cids.push(await resolveRoot(deps, arg, signal))
        const pinned = await checkIfPinnedWithType(deps.pins, deps.blockstore, mode, detailed, cids, signal)
        for (let i = 0; i < pinned.length; i++) {
          const p = pinned[i]
          if (p.mode === 'notpinned') throw new RpcError(`path '${args[i]}' is not pinned`)
          const type = p.mode === 'indirect' && p.via != null ? `indirect through ${enc(p.via)}` : p.mode
          yield { Cid: enc(cids[i]), Type: type, Name: p.name }
        }
        return
      }
      for await (const p of deps.pins.ls({ type: mode, name: filter, signal })) {
        yield { Cid: enc(p.cid), Type: p.type, Name: detailed ? p.name : '' }
      }
    }

    if (options.stream === true) {
      return (async function * () {
        for await (const r of rows()) {
          const obj: PinLsObject = { Cid: r.Cid }
          if (r.Name !== '') obj.Name = r.Name
          obj.Type = r.Type
          yield obj
        }
      })()
    }
    return (async () => {
      const keys = new Map<string, PinLsType>()
      for await (const r of rows()) keys.set(r.Cid, { Type: r.Type, Name: r.Name })
      if (keys.size === 0) return {}
      // Go's encoding/json writes map keys sorted
      const sorted: Record<string, PinLsType> = {}
      for (const k of [...keys.keys()].sort()) sorted[k] = keys.get(k) as PinLsType
      return { Keys: sorted }
    })()
  },
  text: (out: PinLsList | PinLsObject, { options }: TextCall<{ quiet?: boolean, stream?: boolean }>) => {
    const line = (cid: string, type: string, name: string): string =>
      options.quiet === true ? `${cid}\n` : name === '' ? `${cid} ${type}\n` : `${cid} ${type} ${name}\n`
    if (options.stream === true) {
      const o = out as PinLsObject
      return line(o.Cid ?? '', o.Type ?? '', o.Name ?? '')
    }
    return Object.entries((out as PinLsList).Keys ?? {}).map(([k, v]) => line(k, v.Type, v.Name)).join('')
  }
})
