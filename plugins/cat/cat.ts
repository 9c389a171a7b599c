// ipfs cat (kubo core/commands/cat.go): the bytes of one or more UnixFS files, offset/length
// applied across all of them as one stream; X-Content-Length is the number of bytes to send.
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { openUnixfs, type UnixfsFileNode } from '../../core/resolver/index.js'
import { NodeBlockstore } from '../../core/blockstore/index.js'
import { readUnixfsFile } from '../../core/unixfs/reader.js'
import { blockBuffers } from '../../core/unixfs/buffer-pool.js'
import type { CID } from 'multiformats/cid'
import { createProgressBar, showProgress, writeTo } from './progress.js'

/** show a progress bar only for outputs of at least 8 MiB (or of unknown size) */
const PROGRESS_BAR_MIN_SIZE = 8 * 1024 * 1024

const take = (size: number): Buffer => blockBuffers.take(size)

type Part =
  | { kind: 'file', file: UnixfsFileNode, offset: number, length?: number }
  | { kind: 'bytes', bytes: Uint8Array }

export const catCat = defineCommand({
  path: ['cat'],
  description: 'Show IPFS object data.',
  help: 'Displays the data contained by an IPFS or IPNS object(s) at the given path.',
  bodyArgs: true,
  args: [{ name: 'ipfs-path', kind: 'string', required: true, variadic: true, stdin: true, description: 'The path to the IPFS object(s) to be outputted.' }],
  options: {
    offset: { type: 'int64', aliases: ['o'], description: 'Byte offset to begin reading from.' },
    length: { type: 'int64', aliases: ['l'], description: 'Maximum number of bytes to read.' },
    progress: { type: 'bool', aliases: ['p'], description: 'Stream progress data. Defaults to true when stderr is a terminal.' }
  },
  output: 'bytes',
  async run ({ args, options, deps: { resolver, blockstore }, signal }) {
    let offset = options.offset ?? 0
    if (offset < 0) throw new RpcError('cannot specify negative offset')
    if (options.length !== undefined && options.length < 0) throw new RpcError('cannot specify negative length')
    const max = options.length ?? -1
    if (max === 0) return { body: (async function * () {})(), length: 0 }

    const getBlock = async (cid: CID): Promise<Uint8Array> => await resolver.getBlock(cid, { signal })
    // file content: the node's store read directly (same blocks and errors as the resolver's, fewer
    // layers), into recycled buffers that the HTTP response gives back once written (server/respond.ts)
    const readBlock = blockstore instanceof NodeBlockstore
      ? async (cid: CID): Promise<Uint8Array> => await blockstore.read(cid, { signal, alloc: take })
      : getBlock
    const networkReads = blockstore instanceof NodeBlockstore ? () => blockstore.fetched : undefined
    // resolve every path first: their errors come before any byte (as Kubo's cat())
    const parts: Part[] = []
    let length = 0
    for (const arg of args) {
      const { cid, block } = await resolver.resolveNode(arg, { signal })
      const node = await openUnixfs(cid, block, getBlock)
      if (node.kind === 'directory') throw new RpcError('this dag node is a directory')
      const target = node.kind === 'symlink' ? Buffer.from(node.target) : undefined
      const fsize = target?.length ?? (node as UnixfsFileNode).size
      if (offset > fsize) {
        offset -= fsize
        continue
      }
      const start = offset
      offset = 0
      const size = fsize - start
      length += size
      const limited = max > 0 && length >= max
      const take = limited ? size - (length - max) : undefined
      if (target != null) parts.push({ kind: 'bytes', bytes: target.subarray(start, take === undefined ? undefined : start + take) })
      else parts.push({ kind: 'file', file: node as UnixfsFileNode, offset: start, length: take })
      if (limited) {
        length = max
        break
      }
    }

    const read = (part: Extract<Part, { kind: 'file' }>): AsyncGenerator<Uint8Array> =>
      readUnixfsFile(part.file.root, readBlock, { offset: part.offset, length: part.length, pool: blockBuffers, networkReads })
    // one file (the usual cat): its reader is the body, no generator layer per chunk in between
    if (parts.length === 1 && parts[0].kind === 'file') return { body: read(parts[0]), length }
    async function * body (): AsyncGenerator<Uint8Array> {
      for (const part of parts) {
        if (part.kind === 'bytes') {
          if (part.bytes.length > 0) yield part.bytes
          continue
        }
        yield * read(part)
      }
    }
    return { body: body(), length }
  },
  /** Kubo's PostRun: the bytes to stdout, a progress bar on stderr for big outputs */
  cliRender: async (outcome, { options }, io) => {
    if (outcome.kind !== 'bytes') return
    const total = outcome.length ?? 0
    const bar = !(total > 0 && total < PROGRESS_BAR_MIN_SIZE) && showProgress(options.progress, io.isTTY)
      ? createProgressBar(io.stderr, total)
      : undefined
    try {
      for await (const chunk of outcome.body) {
        await writeTo(io.stdout, chunk)
        bar?.add(chunk.length)
      }
    } finally {
      bar?.finish()
    }
  }
})
