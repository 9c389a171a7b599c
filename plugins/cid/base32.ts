// ipfs cid base32 (Kubo core/commands/cid.go base32Cmd).
import { defineCommand } from '../../registry/define.js'
import { BASE32 } from '../../core/go/multibase.js'
import { cidFormatCli, cidFormatStream, cidFormatText, emitCids } from './emit.js'
import type { CidFormatOutput } from './output.js'

export const cidBase32 = defineCommand({
  path: ['cid', 'base32'],
  description: 'Convert CIDs to Base32 CID version 1.',
  help: `'ipfs cid base32' normalizes passed CIDs to their canonical case-insensitive encoding.
Useful when processing third-party CIDs which could come with arbitrary formats.`,
  noRepo: true,
  bodyArgs: true,
  args: [{ name: 'cid', kind: 'string', required: true, variadic: true, stdin: true, description: 'CIDs to convert.' }],
  output: 'ndjson',
  async * run ({ args }): AsyncGenerator<CidFormatOutput> {
    yield * emitCids(args, { fmt: '%s', base: BASE32, toVersion: 1, codec: 0n })
  },
  text: cidFormatText,
  textStream: cidFormatStream,
  cliRender: cidFormatCli
})
