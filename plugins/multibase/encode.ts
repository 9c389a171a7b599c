// ipfs multibase encode (Kubo core/commands/multibase.go).
import { defineCommand } from '../../registry/define.js'
import { baseOption, encodeFileArg } from './common.js'

export const multibaseEncode = defineCommand({
  path: ['multibase', 'encode'],
  description: 'Encode data into multibase string',
  help: `This command expects a file name or data provided via stdin.

By default it will use URL-safe base64url encoding,
but one can customize used base with -b:

  > echo hello | ipfs multibase encode -b base16 > output_file
  > cat output_file
  f68656c6c6f0a

  > echo hello > input_file
  > ipfs multibase encode -b base16 input_file
  f68656c6c6f0a`,
  noRepo: true,
  args: [{ name: 'file', kind: 'file', required: true, stdin: true, description: 'data to encode' }],
  options: baseOption,
  output: 'bytes',
  async run ({ options, files }): Promise<Uint8Array> {
    return await encodeFileArg(options.b, files, false)
  }
})
