// Shared by the pin commands.
import type { CID } from 'multiformats/cid'
import type { RequestCradle } from '../../core/cradle.js'
import { RpcError } from '../../core/errors.js'

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
