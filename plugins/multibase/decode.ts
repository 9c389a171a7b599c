// ipfs multibase decode (Kubo core/commands/multibase.go).
import { defineCommand } from '../../registry/define.js'
import { decodeOrFail, encodedFileArg, readFileArg } from './common.js'

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
  args: [encodedFileArg],
  output: 'bytes',
  async run ({ files }): Promise<Uint8Array> {
    return decodeOrFail(await readFileArg(files))
  }
})
