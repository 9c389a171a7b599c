// ipfs cid format (Kubo core/commands/cid.go cidFmtCmd).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { encoderByName } from '../../core/go/multibase.js'
import { goQuote } from '../../core/go/strings.js'
import { DAG_PB } from '../../core/go/cid.js'
import { cidFormatCli, cidFormatStream, cidFormatText, emitCids, type EmitOptions } from './emit.js'
import { codecFromString } from '../../core/go/multicodec.js'
import type { CidFormatOutput } from './output.js'

const FORMAT_REF = `
   %% literal %
   %b multibase name
   %B multibase code
   %v version string
   %V version number
   %c codec name
   %C codec code
   %h multihash name
   %H multihash code
   %L hash digest length
   %m multihash encoded in base %b (with multibase prefix)
   %M multihash encoded in base %b without multibase prefix
   %d hash digest encoded in base %b (with multibase prefix)
   %D hash digest encoded in base %b without multibase prefix
   %s cid string encoded in base %b (1)
   %S cid string encoded in base %b without multibase prefix
   %P cid prefix: %v-%c-%h-%L

(1) For CID version 0 the multibase must be base58btc and no prefix is
used.  For Cid version 1 the multibase prefix is included.
`

export const cidFormat = defineCommand({
  path: ['cid', 'format'],
  description: 'Format and convert a CID in various useful ways.',
  help: `Format and converts <cid>'s in various useful ways.

For a human-readable breakdown of a CID, see 'ipfs cid inspect'.

The optional format string is a printf style format string:
${FORMAT_REF}`,
  noRepo: true,
  bodyArgs: true,
  args: [{ name: 'cid', kind: 'string', required: true, variadic: true, stdin: true, description: 'CIDs to format.' }],
  options: {
    f: { type: 'string', default: '%s', description: 'Printf style format string.' },
    v: { type: 'string', description: 'CID version to convert to.' },
    mc: { type: 'string', description: 'CID multicodec to convert to.' },
    b: { type: 'string', description: 'Multibase to display CID in.' }
  },
  output: 'ndjson',
  async * run ({ args, options }): AsyncGenerator<CidFormatOutput> {
    const fmt = options.f
    const version = options.v ?? ''
    const codecText = options.mc ?? ''
    const baseText = options.b ?? ''
    if (!fmt.includes('%')) throw new RpcError(`invalid format string: ${goQuote(fmt)}`)
    const opts: EmitOptions = { fmt, base: -1, codec: 0n }
    if (codecText !== '') {
      const code = codecFromString(codecText)
      if (code === undefined) throw new RpcError(`unknown multicodec: ${goQuote(codecText)}`)
      opts.codec = BigInt(code)
    }
    switch (version) {
      case '':
        if (baseText !== '') opts.toVersion = 1
        break
      case '0':
        if (opts.codec !== 0n && opts.codec !== DAG_PB) throw new RpcError('cannot convert to CIDv0 with any codec other than dag-pb')
        if (baseText !== '' && baseText !== 'base58btc') throw new RpcError('cannot convert to CIDv0 with any multibase other than the implicit base58btc')
        opts.toVersion = 0
        break
      case '1':
        opts.toVersion = 1
        break
      default:
        throw new RpcError(`invalid cid version: ${goQuote(version)}`)
    }
    if (baseText !== '') {
      try { opts.base = encoderByName(baseText) } catch (err) { throw new RpcError((err as Error).message) }
    }
    yield * emitCids(args, opts)
  },
  text: cidFormatText,
  textStream: cidFormatStream,
  cliRender: cidFormatCli
})
