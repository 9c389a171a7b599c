// ipfs dag import (kubo core/commands/dag/import.go): store every block of one or more CAR
// streams (v1 or v2), then pin the roots named in their headers (unless --pin-roots=false); a root
// whose DAG is incomplete is reported in PinErrorMsg without failing the import.
import { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { hashByCode } from '../../core/hashes.js'
import { CidSet } from '../../core/pins/walk.js'
import { allowBigBlockOption, checkBlockSize, fastProvideOptions } from '../shared/cmdutils.js'
import { fastProvide } from '../shared/fast-provide.js'
import { BlockBatch, batchLimits, cidLink, encodeCidText, textCidEncoder } from './common.js'
import { decodeNode, RAW } from './ipld/codecs.js'
import { carBlockReader, type CarBlock } from './car.js'
import type { CarImportOutput } from './output.js'

const quote = (s: string): string => JSON.stringify(s)

/** go-car's content check (BlockReader.Next without TrustedCAR): the data must hash to the CID. */
function verify (block: CarBlock): void {
  const { cid, bytes } = block
  const hasher = hashByCode(cid.multihash.code)
  if (hasher == null) throw new Error('no such hash registered')
  const sum = hasher.digest(bytes, cid.multihash.size)
  if (Buffer.compare(sum.bytes, cid.multihash.bytes) !== 0) {
    throw new Error(`mismatch in content integrity, expected: ${cid.toString()}, got: ${CID.create(cid.version, cid.code, sum).toString()}`)
  }
}

export const dagImport = defineCommand({
  path: ['dag', 'import'],
  description: 'Import the contents of .car files',
  help: "'ipfs dag import' imports all blocks present in supplied .car\n( Content Address aRchive ) files, recursively pinning any roots\nspecified in the CAR file headers, unless --pin-roots is set to false.",
  args: [{ name: 'path', kind: 'file', required: true, variadic: true, stdin: true, description: 'The path of a .car file.' }],
  options: {
    'pin-roots': { type: 'bool', description: 'Pin optional roots listed in the .car headers after importing. Default: true.' },
    'local-only': { type: 'bool', description: "Import a partial CAR (e.g. from 'dag export --local-only'). Implies --pin-roots=false." },
    silent: { type: 'bool', description: 'No output.' },
    stats: { type: 'bool', description: 'Output stats.' },
    ...fastProvideOptions('dag import'),
    ...allowBigBlockOption
  },
  output: 'ndjson',
  async * run ({ files, options, deps, signal }): AsyncGenerator<CarImportOutput> {
    let pinRoots = options.pinRoots ?? true
    if (options.localOnly === true) {
      if (options.pinRoots === true) {
        throw new RpcError('--local-only implies --pin-roots=false and cannot be combined with --pin-roots=true; please drop one of them')
      }
      pinRoots = false
    }
    const limits = batchLimits(deps.config)
    const roots: CID[] = []
    const rootSet = new CidSet()
    let blockCount = 0
    let blockBytes = 0

    // nothing written here may be collected before the roots are pinned
    const release = await deps.gcLock.shared()
    try {
      const batch = new BlockBatch<CarBlock>(limits, async (blocks) => {
        for await (const _ of deps.blockstore.putMany(blocks, { signal })) {} // eslint-disable-line no-empty
      })

      for await (const file of files ?? []) {
        if (file.type !== 'file' || file.content == null) throw new RpcError('expected a file handle')
        const car = await carBlockReader(file.content)
        for (const r of car.roots) if (rootSet.visit(r)) roots.push(r)
        let previous: CID | undefined
        const importError = (current: CID | undefined, err: unknown): RpcError => {
          const msg = (err as Error).message
          if (current != null) return new RpcError(`import failed at block ${quote(current.toString())}: ${msg}`)
          if (previous != null) return new RpcError(`import failed after block ${quote(previous.toString())}: ${msg}`)
          return new RpcError(`import failed: ${msg}`)
        }
        for (;;) {
          let block: CarBlock | undefined
          try {
            block = await car.next()
            if (block != null) verify(block)
          } catch (err) {
            throw importError(undefined, err)
          }
          if (block == null) break
          try {
            checkBlockSize(block.bytes.length, options.allowBigBlock)
            // the blocks must decode (Kubo decodes each one before batching it)
            if (block.cid.code !== RAW) decodeNode(block.cid.code, block.bytes)
          } catch (err) {
            throw importError(block.cid, err)
          }
          batch.add(block)
          blockCount++
          blockBytes += block.bytes.length
          previous = block.cid
          await batch.flushIfFull()
        }
        await car.close()
      }
      await batch.flush()

      if (pinRoots) {
        for (const root of roots) {
          let msg = ''
          try {
            // the root block itself must be in the store (node.Blockstore.Get: no exchange)
            if (!await deps.blockstore.has(root, { signal })) throw new Error(`ipld: could not find ${root.toString()}`)
            await deps.pins.pinRecursive(root, { signal })
          } catch (err) {
            if (signal.aborted) throw err
            msg = (err as Error).message
          }
          yield { Root: { Cid: cidLink(root), PinErrorMsg: msg } }
        }
      }
    } finally {
      release()
    }
    if (options.stats === true) yield { Stats: { BlockCount: blockCount, BlockBytesCount: blockBytes } }
    // fast-provide-* (plugins/shared/fast-provide.ts): the roots, now; never for an offline request
    if (options.offline !== true) await fastProvide(deps, roots, options, { pinned: pinRoots, pinnedRoot: pinRoots }, signal)
  },
  text: (event, { options }) => {
    if (options.silent === true) return ''
    if (event.Root == null) {
      if (event.Stats == null) throw new RpcError('unexpected message from DAG import')
      return options.stats === true ? `Imported ${event.Stats.BlockCount} blocks (${event.Stats.BlockBytesCount} bytes)\n` : ''
    }
    if (event.Stats != null) throw new RpcError('unexpected message from DAG import')
    const cid = encodeCidText(textCidEncoder(options), event.Root.Cid['/'])
    if (event.Root.PinErrorMsg !== '') throw new RpcError(`pinning root ${quote(cid)} FAILED: ${event.Root.PinErrorMsg}`)
    return `Pinned root\t${cid}\tsuccess\n`
  }
})
