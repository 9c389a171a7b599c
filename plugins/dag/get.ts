// ipfs dag get (kubo core/commands/dag/get.go): resolve the path to its last block, walk the rest
// of the path inside it, and write that node with --output-codec (bytes; dag-json by default).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { getBlock } from '../../core/blockstore/index.js'
import { codecName } from '../../core/go/multicodec.js'
import { asRpcError, parseCodec, resolverOf } from './common.js'
import { DAG_PB, decodeNode, encodeNode, hasEncoder, noEncoder } from './ipld/codecs.js'
import { traverseValue } from './ipld/traverse.js'

/** An error that shows after the output has started (Kubo encodes into a pipe it already emitted). */
async function * lateError (err: unknown): AsyncGenerator<Uint8Array> {
  yield new Uint8Array(0)
  throw asRpcError(err)
}

export const dagGet = defineCommand({
  path: ['dag', 'get'],
  description: 'Get a DAG node from IPFS.',
  help: "'ipfs dag get' fetches a DAG node from IPFS and prints it out in the specified\nformat.",
  args: [{ name: 'ref', kind: 'string', required: true, stdin: true, description: 'The object to get' }],
  options: {
    'output-codec': { type: 'string', default: 'dag-json', description: 'Format that the object will be encoded as.' }
  },
  output: 'bytes',
  async run ({ args, options, deps, signal }) {
    const codec = parseCodec(options.outputCodec)
    const resolved = await resolverOf(deps).resolve(args[0], { signal })
    const block = await getBlock(deps.blockstore, resolved.cid, { signal })
    let node
    try {
      node = traverseValue(decodeNode(resolved.cid.code, block), resolved.remainder, resolved.cid.code === DAG_PB)
    } catch (err) {
      throw asRpcError(err)
    }
    if (!hasEncoder(codec)) throw new RpcError(`invalid encoding: ${codecName(codec)} - ${noEncoder(codec).message}`)
    let out: Uint8Array
    try {
      out = encodeNode(codec, node)
    } catch (err) {
      return lateError(err)
    }
    // a stream without a length, as Kubo's pipe
    return (async function * () { yield out })()
  }
})
