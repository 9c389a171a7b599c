// refsEncoderMap: one ref per line; an Err row fails the output with that error.
import { RpcError } from '../../core/errors.js'
import type { RefWrapper } from './output.js'

export function refsText (out: RefWrapper): string {
  if (out.Err !== '') throw new RpcError(out.Err)
  return out.Ref + '\n'
}
