// Shared by the pin commands.
import type { CID } from 'multiformats/cid'
import type { RequestCradle } from '../../core/cradle.js'
import { RpcError } from '../../core/errors.js'
import type { OptionSpec } from '../../registry/types.js'

/** cmdutils.MaxPinNameBytes */
export const MAX_PIN_NAME_BYTES = 255

/** cmdutils.ValidatePinName */
export function validatePinName (name: string | undefined): void {
  if (name == null || name === '') return
  const n = Buffer.byteLength(name)
  if (n > MAX_PIN_NAME_BYTES) throw new RpcError(`pin name is ${n} bytes (max ${MAX_PIN_NAME_BYTES} bytes)`)
}

/** cmdutils.PathOrCidPath + api.ResolvePath: the CID of the last block on the path (rp.RootCid()). */
export async function resolveRoot (deps: RequestCradle, arg: string, signal?: AbortSignal): Promise<CID> {
  return (await deps.resolver.resolve(arg, { signal })).cid
}

/** pin.StringToMode for the types pin ls accepts. */
export const PIN_TYPES = ['direct', 'indirect', 'recursive', 'all'] as const
export type PinTypeOption = typeof PIN_TYPES[number]

export function checkPinType (type: string): PinTypeOption {
  if (!(PIN_TYPES as readonly string[]).includes(type)) {
    throw new RpcError(`invalid type '${type}', must be one of {direct, indirect, recursive, all}`)
  }
  return type as PinTypeOption
}

/** The fast-provide flags of pin add / pin update (there is no content routing to announce to yet). */
export const fastProvideOptions = (what: 'pinning' | 'update'): Record<'fast-provide-root' | 'fast-provide-dag' | 'fast-provide-wait', OptionSpec<'bool'>> => ({
  'fast-provide-root': {
    type: 'bool',
    description: what === 'pinning'
      ? 'Immediately provide root CID to DHT after pinning. Default: Import.FastProvideRoot'
      : 'Immediately provide new root CID to DHT after update. Default: Import.FastProvideRoot'
  },
  'fast-provide-dag': {
    type: 'bool',
    description: what === 'pinning'
      ? 'Walk and provide the full DAG according to Provide.Strategy after pinning. Default: Import.FastProvideDAG'
      : 'Walk and provide the full DAG according to Provide.Strategy after update. Default: Import.FastProvideDAG'
  },
  'fast-provide-wait': {
    type: 'bool',
    description: 'Block until the immediate provide completes. Default: Import.FastProvideWait'
  }
})
