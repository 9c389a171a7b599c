// ipfs multibase decode (Kubo core/commands/multibase.go).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { decodeMultibase } from '../../core/go/multibase.js'
import { readFileArg } from './file-arg.js'

/** Decode with Kubo's error wording. */
export function decodeOrFail (encoded: Uint8Array): Uint8Array {
  try {
    return decodeMultibase(encoded).data
  } catch (err) {
    throw new RpcError(`failed to decode multibase: ${(err as Error).message}`)
  }
}

export const multibaseDecode = defineCommand({
  path: ['multibase', 'decode'],
  description: 'Decode multibase string',
  help: `This command expects multibase inside of a file or via stdin:

  > echo -n hello | ipfs multibase encode -b base16 > file
  > cat file
  f68656c6c6f

  > ipfs multibase decode file
  hello

  > cat file | ipfs multibase decode
  hello`,
  noRepo: true,
  args: [{ name: 'encoded_file', kind: 'file', required: true, stdin: true, description: 'encoded data to decode' }],
  output: 'bytes',
  async run ({ files }): Promise<Uint8Array> {
    return decodeOrFail(await readFileArg(files))
  }
})
