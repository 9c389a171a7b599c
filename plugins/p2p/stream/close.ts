// ipfs p2p stream close (Kubo core/commands/p2p.go p2pStreamCloseCmd): reset one tunnel by ID, or all;
// both ends (the local connection and the libp2p stream) are closed. No output.
import { defineCommand } from '../../../registry/define.js'
import { RpcError } from '../../../core/errors.js'
import { nothing, p2pNode } from '../common.js'

/** Go strconv.ParseUint(s, 10, 64) */
function parseUint64 (s: string): bigint {
  if (!/^[0-9]+$/.test(s)) throw new RpcError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`)
  const n = BigInt(s)
  if (n >= 1n << 64n) throw new RpcError(`strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`)
  return n
}

export const p2pStreamClose = defineCommand({
  path: ['p2p', 'stream', 'close'],
  description: 'Close active p2p stream.',
  status: 'experimental',
  args: [{ name: 'id', kind: 'string', required: false, description: 'Stream identifier' }],
  options: {
    all: { type: 'bool', aliases: ['a'], description: 'Close all streams.' }
  },
  output: 'ndjson',
  run ({ args, options, deps }): AsyncIterable<unknown> {
    const { p2p } = p2pNode(deps)
    const all = options.all === true
    let id = -1n
    if (!all) {
      if (args.length === 0) throw new RpcError('no id specified')
      id = parseUint64(args[0])
    }
    p2p.reset(t => all || BigInt(t.id) === id)
    return nothing()
  }
})
