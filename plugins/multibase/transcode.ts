// ipfs multibase transcode (Kubo core/commands/multibase.go).
import { defineCommand } from '../../registry/define.js'
import { baseOption, encodeFileArg, encodedFileArg } from './common.js'

export const multibaseTranscode = defineCommand({
  path: ['multibase', 'transcode'],
  description: 'Transcode multibase string between bases',
  help: `This command expects multibase inside of a file or via stdin.

By default it will use URL-safe base64url encoding,
but one can customize used base with -b:

  > echo -n hello | ipfs multibase encode > file
  > cat file
  uaGVsbG8

  > ipfs multibase transcode file -b base16 > transcoded_file
  > cat transcoded_file
  f68656c6c6f`,
  noRepo: true,
  args: [encodedFileArg],
  options: baseOption,
  output: 'bytes',
  async run ({ options, files }): Promise<Uint8Array> {
    return await encodeFileArg(options.b, files, true)
  }
})
