// ipfs multibase transcode (Kubo core/commands/multibase.go).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { encodeMultibase, encoderByName } from '../../core/go/multibase.js'
import { decodeOrFail } from './decode.js'
import { readFileArg } from './file-arg.js'

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
  args: [{ name: 'encoded_file', kind: 'file', required: true, stdin: true, description: 'encoded data to decode' }],
  options: {
    b: { type: 'string', default: 'base64url', description: 'multibase encoding' }
  },
  output: 'bytes',
  async run ({ options, files }): Promise<Uint8Array> {
    let base: number
    try { base = encoderByName(options.b) } catch (err) { throw new RpcError((err as Error).message) }
    return encodeMultibase(base, decodeOrFail(await readFileArg(files)))
  }
})
