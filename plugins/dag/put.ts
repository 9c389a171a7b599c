// ipfs dag put (kubo core/commands/dag/put.go): decode each file with --input-codec, re-encode
// with --store-codec (canonical form), store as a CIDv1 block; one row per object.
import { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { hashByCode, validateMultihash } from '../../core/hashes.js'
import { allowBigBlockOption, checkBlockSize } from '../shared/cmdutils.js'
import { asRpcError, BlockBatch, batchLimits, cidLink, defaultHash, encodeCidText, parseCodec, readAll, textCidEncoder } from './common.js'
import { decodeNode, encodeNode, hasDecoder, hasEncoder, noDecoder, noEncoder } from './ipld/codecs.js'
import type { DagPutOutput } from './output.js'

export const dagPut = defineCommand({
  path: ['dag', 'put'],
  description: 'Add a DAG node to IPFS.',
  help: "'ipfs dag put' accepts input from a file or stdin and parses it\ninto an object of the specified format.",
  args: [{ name: 'object data', kind: 'file', required: true, variadic: true, stdin: true, description: 'The object to put' }],
  options: {
    'store-codec': { type: 'string', default: 'dag-cbor', description: 'Codec that the stored object will be encoded with' },
    'input-codec': { type: 'string', default: 'dag-json', description: 'Codec that the input object is encoded in' },
    pin: { type: 'bool', description: 'Pin this object when adding.' },
    hash: { type: 'string', description: 'Hash function to use' },
    ...allowBigBlockOption
  },
  output: 'ndjson',
  async * run ({ files, options, deps, signal }): AsyncGenerator<DagPutOutput> {
    const hashName = options.hash === undefined || options.hash === '' ? defaultHash(deps.config) : options.hash
    const inputCodec = parseCodec(options.inputCodec)
    const storeCodec = parseCodec(options.storeCodec)
    const hashCode = parseCodec(hashName)
    if (!hasDecoder(inputCodec)) throw asRpcError(noDecoder(inputCodec))
    if (!hasEncoder(storeCodec)) throw asRpcError(noEncoder(storeCodec))
    const limits = batchLimits(deps.config)

    // GC must not collect what is written until it is pinned
    const release = await deps.gcLock.shared()
    try {
      // blocks are checked and written when the batch fills up and at the end
      const batch = new BlockBatch(limits, async (blocks) => {
        for (const b of blocks) validateMultihash(b.cid.multihash)
        for await (const _ of deps.blockstore.putMany(blocks, { signal })) {} // eslint-disable-line no-empty
        if (options.pin === true) {
          const done = new Set<string>()
          for (const { cid } of blocks) {
            if (done.has(cid.toString())) continue
            done.add(cid.toString())
            await deps.pins.pinRecursive(cid, { walk: false, signal })
          }
        }
      })
      for await (const file of files ?? []) {
        if (file.type !== 'file') throw new RpcError('expected a regular file')
        const input = await readAll(file.content)
        let bytes: Uint8Array
        try {
          bytes = encodeNode(storeCodec, decodeNode(inputCodec, input))
        } catch (err) {
          throw asRpcError(err)
        }
        const hasher = hashByCode(hashCode)
        if (hasher == null) throw new RpcError('no such hash registered')
        const cid = CID.createV1(storeCodec, hasher.digest(bytes))
        checkBlockSize(bytes.length, options.allowBigBlock)
        batch.add({ cid, bytes })
        yield { Cid: cidLink(cid) }
        await batch.flushIfFull()
      }
      await batch.flush()
    } finally {
      release()
    }
  },
  text: (out, { options }) => encodeCidText(textCidEncoder(options), out.Cid['/']) + '\n'
})
