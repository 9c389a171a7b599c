// ipfs pin add (kubo core/commands/pin/pin.go addPinCmd, coreapi PinAPI.Add): resolve each path,
// then pin its last block recursively (every block under it must be present) or directly.
// With --progress the output is a stream: {Progress, Bytes} every 500 ms, then {Pins}.
import type { CID } from 'multiformats/cid'
import type { Blockstore } from 'interface-blockstore'
import { defineCommand } from '../../registry/define.js'
import { RpcError, errorMessage } from '../../core/errors.js'
import { getBlock } from '../../core/blockstore/index.js'
import { walkDag } from '../../core/pins/index.js'
import type { RequestCradle } from '../../core/cradle.js'
import type { Invocation } from '../../registry/types.js'
import { humanizeBytes } from '../dag/stat.js'
import { fastProvideOptions, validatePinName } from '../shared/cmdutils.js'
import { fastProvide, type FastProvideFlags } from '../shared/fast-provide.js'
import { resolveRoot } from './common.js'
import type { AddPinOutput } from './output.js'

/** dag.ProgressTracker: blocks and bytes fetched/processed so far */
interface Progress { nodes: number, bytes: number }

/** A view of the blockstore that reads every block the walk touches (leaves too) and counts it. */
function countingStore (blockstore: Blockstore, progress: Progress): Blockstore {
  const read = async (cid: CID, options?: { signal?: AbortSignal }): Promise<Uint8Array> => {
    const bytes = await getBlock(blockstore, cid, options)
    progress.nodes++
    progress.bytes += bytes.length
    return bytes
  }
  return {
    has: async (cid: CID, options?: { signal?: AbortSignal }) => { await read(cid, options); return true },
    get: async function * (cid: CID, options?: { signal?: AbortSignal }) { yield await read(cid, options) }
  } as unknown as Blockstore
}

/** PinAPI.Add for one resolved CID, under the pin lock (the GC lock held shared); errors prefixed as Kubo's. */
async function pinOne (deps: RequestCradle, cid: CID, recursive: boolean, name: string, signal: AbortSignal, progress?: Progress): Promise<void> {
  const release = await deps.gcLock.shared()
  try {
    // ResolveNode: the root must be readable
    await getBlock(deps.blockstore, cid, { signal })
    if (!recursive) {
      await deps.pins.pinDirect(cid, { name, signal })
    } else if (progress != null) {
      await walkDag(countingStore(deps.blockstore, progress), cid, { signal })
      await deps.pins.pinRecursive(cid, { name, signal, walk: false })
    } else {
      await deps.pins.pinRecursive(cid, { name, signal })
    }
  } catch (err) {
    if (signal.aborted) throw err
    throw new RpcError(`pin: ${errorMessage(err)}`)
  } finally {
    release()
  }
}

async function pinAddMany (call: Invocation<{ recursive: boolean, name?: string } & FastProvideFlags>, progress?: Progress): Promise<string[]> {
  const { args, options, deps, signal } = call
  const added: string[] = []
  const cids: CID[] = []
  for (const arg of args) {
    const cid = await resolveRoot(deps, arg, signal)
    await pinOne(deps, cid, options.recursive, options.name ?? '', signal, progress)
    added.push(deps.cidEncoder.encode(cid))
    cids.push(cid)
  }
  // fast-provide-* (plugins/shared/fast-provide.ts); never for an offline request
  if (options.offline !== true) await fastProvide(deps, cids, options, { pinned: true, pinnedRoot: true }, signal)
  return added
}

const progressRow = (p: Progress): AddPinOutput => {
  const row: AddPinOutput = {}
  if (p.nodes !== 0) row.Progress = p.nodes
  if (p.bytes !== 0) row.Bytes = p.bytes
  return row
}

async function * pinWithProgress (call: Invocation<{ recursive: boolean, name?: string }>): AsyncGenerator<AddPinOutput> {
  const progress: Progress = { nodes: 0, bytes: 0 }
  let outcome: { pins: string[] } | { error: unknown } | undefined
  const task = pinAddMany(call, progress).then(pins => { outcome = { pins } }, error => { outcome = { error } })
  while (outcome === undefined) {
    let timer: NodeJS.Timeout | undefined
    const tick = new Promise<void>(resolve => { timer = setTimeout(resolve, 500) })
    await Promise.race([task, tick])
    clearTimeout(timer)
    if (outcome === undefined) yield progressRow(progress)
  }
  if ('error' in outcome) throw outcome.error
  if (progress.nodes !== 0) yield progressRow(progress)
  yield { Pins: outcome.pins }
}

export const pinAdd = defineCommand({
  path: ['pin', 'add'],
  description: 'Pin objects to local storage.',
  help: `Create a pin for the given object, protecting resolved CID from being garbage
collected.

An optional name can be provided, and read back via 'ipfs pin ls --names'.

Be mindful of defaults:

Default pin type is 'recursive' (entire DAG).
Pass -r=false to create a direct pin for a single block.
Use 'pin ls -t recursive' to only list roots of recursively pinned DAGs
(significantly faster when many big DAGs are pinned recursively)

Default pin name is empty. Pass '--name' to 'pin add' to set one
and use 'pin ls --names' to see it. Pinning a second time with a different
name will update the name of the pin.

If daemon is running, any missing blocks will be retrieved from the network.
It may take some time. Pass '--progress' to track the progress.`,
  args: [{ name: 'ipfs-path', kind: 'string', required: true, variadic: true, stdin: true, description: 'Path to object(s) to be pinned.' }],
  bodyArgs: true,
  options: {
    recursive: { type: 'bool', aliases: ['r'], default: true, description: 'Recursively pin the object linked to by the specified object(s).' },
    name: { type: 'string', aliases: ['n'], description: 'An optional name for created pin(s).' },
    progress: { type: 'bool', description: 'Show progress' },
    ...fastProvideOptions('pin add')
  },
  output: (o) => o.progress === true ? 'ndjson' : 'single',
  run: (call): Promise<AddPinOutput> | AsyncIterable<AddPinOutput> => {
    validatePinName(call.options.name)
    if (call.options.progress === true) return pinWithProgress(call)
    return pinAddMany(call).then(pins => ({ Pins: pins }))
  },
  text: (out, { options }) => {
    const how = options.recursive === false ? 'directly' : 'recursively'
    return (out.Pins ?? []).map(k => `pinned ${k} ${how}\n`).join('')
  },
  // Kubo's PostRun: progress rows go to stderr, the pins to stdout
  cliRender: async (outcome, call, io) => {
    const how = call.options.recursive === false ? 'directly' : 'recursively'
    const items = outcome.kind === 'ndjson' ? outcome.items : (async function * () { if (outcome.kind === 'single') yield outcome.value })()
    for await (const v of items) {
      const out = v as AddPinOutput
      if (out.Pins == null) {
        io.stderr.write(`Fetched/Processed ${out.Progress ?? 0} nodes (${humanizeBytes(out.Bytes ?? 0)})\r`)
      } else {
        for (const k of out.Pins) io.stdout.write(`pinned ${k} ${how}\n`)
      }
    }
  }
})
