// ipfs block put: store each file argument as one block (Kubo core/commands/block.go, coreapi/block.go,
// coreiface/options/block.go). One output row per file.
import { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import type { FileEntry } from '../../registry/types.js'
import { RpcError } from '../../core/errors.js'
import { hashByCode, isAllowedHash, validateMultihash } from '../../core/hashes.js'
import { codecFromString, MULTIHASH_NAMES } from '../../core/go/multicodec.js'
import { goQuote } from '../../core/go/strings.js'
import { allowBigBlockOption, checkBlockSize } from '../shared/cmdutils.js'
import type { BlockStatOutput } from './output.js'

const RAW = 0x55
const DAG_PB = 0x70
const DAG_CBOR = 0x71
const SHA2_256 = 0x12
const IDENTITY = 0x00

/** go-multihash Names: every known name, plus the `sha3` alias. */
const MH_BY_NAME = new Map<string, number>([...[...MULTIHASH_NAMES].map(([code, name]) => [name, code] as [string, number]), ['sha3', 0x14]])

export interface BlockPrefix {
  version: 0 | 1
  codec: number
  mhType: number
  mhLength: number
}

/** go-multicodec Code.Set */
function codecCode (name: string): number {
  const code = codecFromString(name)
  if (code === undefined) throw new RpcError(`unknown multicodec: ${goQuote(name)}`)
  return code
}

/** The CID prefix the options ask for (options.BlockPutOptions: Hash, then CidCodec, then Format). */
export function blockPrefix (opts: { mhtype: string, mhlen: number, cidCodec: string, format: string }): BlockPrefix {
  const mhType = MH_BY_NAME.get(opts.mhtype)
  if (mhType === undefined) throw new RpcError(`unrecognized multihash function: ${opts.mhtype}`)
  let cidCodec = opts.cidCodec
  // the deprecated format suppresses cid-codec
  if (opts.format !== '') {
    if (cidCodec !== '' && cidCodec !== 'raw') {
      throw new RpcError('unable to use "format" (deprecated) and a custom "cid-codec" at the same time')
    }
    cidCodec = ''
  }
  const prefix: BlockPrefix = { version: 1, codec: RAW, mhType, mhLength: opts.mhlen }
  if (cidCodec !== '') prefix.codec = codecCode(cidCodec)
  let format = opts.format
  if (format !== '') {
    if (format === 'v0') prefix.version = 0
    if (format === 'v0' || format === 'protobuf') format = 'dag-pb'
    if (format === 'cbor') format = 'dag-cbor'
    prefix.codec = codecCode(format)
    if (prefix.version === 0) {
      if (prefix.codec !== DAG_PB) throw new RpcError('only dag-pb is allowed with CIDv0')
      if (prefix.mhType !== SHA2_256 || (prefix.mhLength !== -1 && prefix.mhLength !== 32)) {
        throw new RpcError('only sha2-255-32 is allowed with CIDv0')
      }
    }
  }
  return prefix
}

/** go-cid Prefix.Sum: hash the data into a CID. */
export function prefixSum (prefix: BlockPrefix, data: Uint8Array): CID {
  const fn = hashByCode(prefix.mhType)
  if (fn == null) {
    // a name go-multihash knows but we cannot compute; boxo verifcid refuses all of them anyway
    if (!isAllowedHash(prefix.mhType)) throw new RpcError('potentially insecure hash functions not allowed')
    throw new RpcError('no such hash registered')
  }
  if (prefix.mhType === IDENTITY && prefix.mhLength >= 0 && prefix.mhLength !== data.length) {
    throw new RpcError(`the length of the identity hash (${prefix.mhLength}) must be equal to the length of the data (${data.length})`)
  }
  const digest = fn.digest(data, prefix.mhLength)
  return prefix.version === 0 ? CID.createV0(digest as never) : CID.createV1(prefix.codec, digest)
}

async function readAll (entry: FileEntry): Promise<Uint8Array> {
  if (entry.type !== 'file' || entry.content == null) throw new RpcError('expected a file')
  const parts: Uint8Array[] = []
  for await (const chunk of entry.content) parts.push(chunk)
  return parts.length === 1 ? parts[0] : Buffer.concat(parts)
}

export const blockPut = defineCommand({
  path: ['block', 'put'],
  description: 'Store input as an IPFS block.',
  help: "'ipfs block put' is a plumbing command for storing raw IPFS blocks.\nIt reads data from stdin, and outputs the block's CID to stdout.\n\nUnless cid-codec is specified, this command returns raw (0x55) CIDv1 CIDs.\n\nPassing alternative --cid-codec does not modify imported data, nor run any\nvalidation. It is provided solely for convenience for users who create blocks\nin userland.\n\nNOTE:\nDo not use --format for any new code. It got superseded by --cid-codec and left\nonly for backward compatibility when a legacy CIDv0 is required (--format=v0).",
  args: [{ name: 'data', kind: 'file', required: true, variadic: true, stdin: true, description: 'The data to be stored as an IPFS block.' }],
  options: {
    'cid-codec': { type: 'string', default: 'raw', description: 'Multicodec to use in returned CID' },
    mhtype: { type: 'string', description: 'Multihash hash function' },
    mhlen: { type: 'int', default: -1, description: 'Multihash hash length' },
    pin: { type: 'bool', default: false, description: 'Pin added blocks recursively' },
    ...allowBigBlockOption,
    format: { type: 'string', aliases: ['f'], description: 'Use legacy format for returned CID (DEPRECATED)' }
  },
  output: 'ndjson',
  async * run ({ options, files, deps, signal }): AsyncGenerator<BlockStatOutput> {
    const { blockstore, pins, gcLock, cidEncoder, config } = deps
    let mhtype = options.mhtype ?? ''
    if (mhtype === '') {
      const configured = config.getKey('Import.HashFunction')
      mhtype = typeof configured === 'string' && configured !== '' ? configured : 'sha2-256'
    }
    const settings = { mhtype, mhlen: options.mhlen, cidCodec: options.cidCodec ?? '', format: options.format ?? '' }
    for await (const entry of files ?? []) {
      const prefix = blockPrefix(settings)
      const data = await readAll(entry)
      const cid = prefixSum(prefix, data)
      validateMultihash(cid.multihash) // blockservice AddBlock: verifcid
      const release = await gcLock.shared()
      try {
        signal.throwIfAborted()
        await blockstore.put(cid, data, { signal })
        // Kubo pins without walking the DAG (PinWithMode)
        if (options.pin) await pins.pinRecursive(cid, { walk: false, signal })
      } finally {
        release()
      }
      // checked after storing, as Kubo does
      checkBlockSize(data.length, options.allowBigBlock)
      yield { Key: cidEncoder.encode(cid), Size: data.length }
    }
  },
  text: (out) => `${out.Key}\n`
})
