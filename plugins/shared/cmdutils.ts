// Option rows and checks that several command families share, as Kubo's core/commands/cmdutils
// does (allow-big-block: block put, dag put, dag import, object patch; pin names: add, pin add,
// pin ls) plus the fast-provide flags of add, dag import, pin add and pin update.
import { RpcError } from '../../core/errors.js'
import type { OptionSpec } from '../../registry/types.js'

/** cmdutils.SoftBlockLimit: bitswap's soft block limit */
export const SOFT_BLOCK_LIMIT = 2 * 1024 * 1024
export const BIG_BLOCK_ERROR = "produced block is over 2MiB: big blocks can't be exchanged with other peers. consider using UnixFS for automatic chunking of bigger files, or pass --allow-big-block to override"

/** cmdutils.AllowBigBlockOption */
export const allowBigBlockOption = {
  'allow-big-block': { type: 'bool', default: false, description: "Disable block size check and allow creation of blocks bigger than 2MiB. WARNING: such blocks won't be transferable over the standard bitswap." }
} as const

/** cmdutils.CheckBlockSize */
export function checkBlockSize (size: number, allowBig: boolean): void {
  if (!allowBig && size > SOFT_BLOCK_LIMIT) throw new RpcError(BIG_BLOCK_ERROR)
}

/** cmdutils.MaxPinNameBytes */
export const MAX_PIN_NAME_BYTES = 255

/** cmdutils.ValidatePinName */
export function validatePinName (name: string | undefined): void {
  if (name == null || name === '') return
  const n = Buffer.byteLength(name)
  if (n > MAX_PIN_NAME_BYTES) throw new RpcError(`pin name is ${n} bytes (max ${MAX_PIN_NAME_BYTES} bytes)`)
}

/** The commands with fast-provide flags; Kubo words the flags for each. */
export type FastProvideCommand = 'add' | 'dag import' | 'pin add' | 'pin update'

/** [fast-provide-root, fast-provide-dag, fast-provide-wait] descriptions, as Kubo's help shows them */
const FAST_PROVIDE_HELP: Record<FastProvideCommand, readonly [string, string, string]> = {
  add: [
    'Immediately provide root CID to DHT in addition to regular queue, for faster discovery. Default: Import.FastProvideRoot',
    'Walk and provide the full DAG according to Provide.Strategy immediately after add. Default: Import.FastProvideDAG',
    'Block until the immediate provide completes before returning. Default: Import.FastProvideWait'
  ],
  'dag import': [
    'Immediately provide root CIDs to DHT in addition to regular queue, for faster discovery. Default: Import.FastProvideRoot',
    'Walk and provide the full DAG according to Provide.Strategy after import. Default: Import.FastProvideDAG',
    'Block until the immediate provide completes before returning. Default: Import.FastProvideWait'
  ],
  'pin add': [
    'Immediately provide root CID to DHT after pinning. Default: Import.FastProvideRoot',
    'Walk and provide the full DAG according to Provide.Strategy after pinning. Default: Import.FastProvideDAG',
    'Block until the immediate provide completes. Default: Import.FastProvideWait'
  ],
  'pin update': [
    'Immediately provide new root CID to DHT after update. Default: Import.FastProvideRoot',
    'Walk and provide the full DAG according to Provide.Strategy after update. Default: Import.FastProvideDAG',
    'Block until the immediate provide completes. Default: Import.FastProvideWait'
  ]
}

/** The three fast-provide flags, in Kubo's order, worded for `command`. */
export function fastProvideOptions (command: FastProvideCommand): Record<'fast-provide-root' | 'fast-provide-dag' | 'fast-provide-wait', OptionSpec<'bool'>> {
  const [root, dag, wait] = FAST_PROVIDE_HELP[command]
  return {
    'fast-provide-root': { type: 'bool', description: root },
    'fast-provide-dag': { type: 'bool', description: dag },
    'fast-provide-wait': { type: 'bool', description: wait }
  }
}
