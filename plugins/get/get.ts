// ipfs get (kubo core/commands/get.go): a UnixFS file or directory as a tar stream (tar is also the
// transport when not archiving), or gzip; the CLI extracts it or saves the archive.
import { createWriteStream } from 'node:fs'
import path from 'node:path'
import { Readable } from 'node:stream'
import { createGzip } from 'node:zlib'
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import {
  dirEntries, goPathClean, mapOrdered, openUnixfs, parsePath, readFile, type UnixfsNode, type UnixfsMtime
} from '../../core/resolver/index.js'
import { tarStream, type TarEntry } from './tar.js'
import { extractTar } from './extract.js'
import { humanBytes, writeTo } from '../cat/progress.js'

/** directory entries opened ahead */
const PREFETCH = 8

/** gzip.DefaultCompression */
const DEFAULT_COMPRESSION = -1

/** Kubo getCompressOptions: undefined = no compression, else the gzip level (-1 = default). */
function compressLevel (compress: boolean | undefined, level: number | undefined): number | undefined {
  if (compress !== true) return undefined
  if (level === undefined) return DEFAULT_COMPRESSION
  if (level < 1 || level > 9) throw new RpcError('compression level must be between 1 and 9')
  return level
}

const OUTSIDE_ROOT = 'relative UnixFS paths outside the root are not allowed, use CAR instead'

/** boxo validateTarFilePath */
function validTarPath (baseDir: string, fpath: string): boolean {
  const cleaned = goPathClean(fpath)
  if (baseDir !== '' && !cleaned.startsWith(baseDir)) return false
  return !cleaned.startsWith('..')
}

const mtimeOrNow = (m: UnixfsMtime | undefined): { secs: number, nsecs: number } => {
  if (m != null) return { secs: m.secs, nsecs: m.nsecs ?? 0 }
  const ms = Date.now()
  return { secs: Math.floor(ms / 1000), nsecs: (ms % 1000) * 1e6 }
}

/** boxo TarWriter.WriteFile: the node and, for a directory, everything under it. */
async function * tarEntries (node: UnixfsNode, fpath: string, baseDir: string, getBlock: (cid: CID) => Promise<Uint8Array>): AsyncGenerator<TarEntry> {
  if (!validTarPath(baseDir, fpath)) throw new RpcError(OUTSIDE_ROOT)
  switch (node.kind) {
    case 'symlink':
      yield { header: { name: fpath, type: 'symlink', mode: 0o777, size: 0, mtime: mtimeOrNow(node.mtime), linkname: node.target } }
      return
    case 'file':
      yield {
        header: { name: fpath, type: 'file', mode: node.perms !== 0 ? node.perms : 0o644, size: node.size, mtime: mtimeOrNow(node.mtime) },
        body: readFile(node, getBlock)
      }
      return
    case 'directory':
      yield { header: { name: fpath, type: 'directory', mode: node.perms !== 0 ? node.perms : 0o755, size: 0, mtime: mtimeOrNow(node.mtime) } }
      // entries are opened a few ahead of the one being written
      const children = mapOrdered(dirEntries(node, getBlock), async e => ({ name: e.name, child: await openUnixfs(e.cid, await getBlock(e.cid), getBlock) }), PREFETCH)
      for await (const { name, child } of children) {
        yield * tarEntries(child, goPathClean(`${fpath}/${name}`), baseDir, getBlock)
      }
  }
}

async function * gzip (source: AsyncIterable<Uint8Array>, level: number): AsyncGenerator<Uint8Array> {
  const input = Readable.from(source, { objectMode: false })
  const gz = createGzip({ level })
  input.on('error', err => gz.destroy(err))
  input.pipe(gz)
  try {
    for await (const chunk of gz) yield chunk as Uint8Array
  } finally {
    input.destroy()
  }
}

/** Kubo getOutPath: --output, else the last element of the argument. */
function outPathOf (output: string | undefined, arg: string): string {
  if (output != null && output !== '') return output
  const trimmed = arg.replace(/\/+$/, '')
  return path.normalize(trimmed.slice(trimmed.lastIndexOf('/') + 1) || '.')
}

export const getGet = defineCommand({
  path: ['get'],
  description: 'Download IPFS objects.',
  help: `Stores to disk the data contained an IPFS or IPNS object(s) at the given path.

By default, the output will be stored at './<ipfs-path>', but an alternate
path can be specified with '--output=<path>' or '-o=<path>'.

To output a TAR archive instead of unpacked files, use '--archive' or '-a'.

To compress the output with GZIP compression, use '--compress' or '-C'. You
may also specify the level of compression by specifying '-l=<1-9>'.`,
  args: [{ name: 'ipfs-path', kind: 'string', required: true, stdin: true, description: 'The path to the IPFS object(s) to be outputted.' }],
  options: {
    output: { type: 'string', aliases: ['o'], description: 'The path where the output should be stored.' },
    archive: { type: 'bool', aliases: ['a'], description: 'Output a TAR archive.' },
    compress: { type: 'bool', aliases: ['C'], description: 'Compress the output with GZIP compression.' },
    'compression-level': { type: 'int', aliases: ['l'], description: 'The level of compression (1-9).' },
    progress: { type: 'bool', aliases: ['p'], default: true, description: 'Stream progress data.' }
  },
  output: 'bytes',
  contentType: 'application/x-tar',
  async run ({ args, options, deps: { resolver }, signal }) {
    const level = compressLevel(options.compress, options.compressionLevel)
    const p = parsePath(args[0])
    const getBlock = async (cid: CID): Promise<Uint8Array> => await resolver.getBlock(cid, { signal })
    const { cid, block } = await resolver.resolveNode(p, { signal })
    const node = await openUnixfs(cid, block, getBlock)
    const size = node.kind === 'symlink' ? Buffer.byteLength(node.target) : node.size
    const archive = options.archive === true
    const contentType = level !== undefined ? 'application/gzip' : 'application/x-tar'

    if (!archive && level !== undefined) {
      // a single file, compressed as is
      if (node.kind === 'directory') throw new RpcError('file is not regular')
      const bytes = node.kind === 'symlink'
        ? (async function * () { yield Buffer.from(node.target) })()
        : readFile(node, getBlock)
      return { body: gzip(bytes, level), length: size, contentType }
    }
    const cleaned = goPathClean(p.text)
    const filename = cleaned.slice(cleaned.lastIndexOf('/') + 1)
    // without --archive tar is only the transport: PAX keeps sub-second mtimes
    const tar = tarStream(tarEntries(node, filename, filename, getBlock), { pax: !archive })
    return { body: level !== undefined ? gzip(tar, level) : tar, length: size, contentType }
  },
  /** Kubo's PostRun: extract into the output path, or save the archive */
  cliRender: async (outcome, { args, options }, io) => {
    if (outcome.kind !== 'bytes') return
    const outPath = outPathOf(options.output, args[0])
    const level = compressLevel(options.compress, options.compressionLevel)
    const total = outcome.length ?? 0
    // Kubo prints where it saves, then the bar (on stderr, whether or not it is a terminal)
    let bar: GetBar | undefined
    const startBar = (): void => { if (options.progress !== false) bar = getProgressBar(io.stderr, total) }
    try {
      if (options.archive === true || level !== undefined) {
        let fpath = outPath
        if (options.archive === true && !fpath.endsWith('.tar') && !fpath.endsWith('.tar.gz')) fpath += '.tar'
        if (level !== undefined && !fpath.endsWith('.gz')) fpath += '.gz'
        const file = createWriteStream(path.resolve(io.cwd, fpath))
        const opened = new Promise<void>((resolve, reject) => { file.once('open', () => { resolve() }); file.once('error', reject) })
        await opened
        await writeTo(io.stdout, `Saving archive to ${fpath}\n`)
        startBar()
        try {
          for await (const chunk of outcome.body) {
            await writeTo(file, chunk)
            bar?.add(chunk.length)
          }
        } finally {
          await new Promise<void>(resolve => file.end(() => { resolve() }))
        }
        return
      }
      await writeTo(io.stdout, `Saving file(s) to ${outPath}\n`)
      startBar()
      await extractTar(outcome.body, { path: outPath, cwd: io.cwd, progress: n => { bar?.add(n) } })
      bar?.done()
    } finally {
      bar?.finish()
    }
  }
})

interface GetBar { add: (n: number) => void, done: () => void, finish: () => void }

/** Go's time.Duration of whole seconds ("0s", "1m5s", "1h0m0s"). */
function goSeconds (secs: number): string {
  const s = Math.round(secs)
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${s % 60}s`
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m${s % 60}s`
}

/**
 * Kubo's get bar (cheggaaa/pb without the bar itself): "\r 0 B / 4 B    0.00%" while it runs, the
 * elapsed time and a newline at the end.
 */
function getProgressBar (out: NodeJS.WritableStream, total: number): GetBar {
  const started = Date.now()
  let current = 0
  let drawn = 0
  const frame = (): string => {
    const shown = total > 0 ? Math.min(current, total) : current
    const pct = total > 0 ? shown / total * 100 : 0
    return `\r ${humanBytes(shown)} / ${humanBytes(total)} ${`${pct.toFixed(2)}%`.padStart(8)}`
  }
  out.write(frame())
  return {
    add: (n) => {
      current += n
      const now = Date.now()
      if (now - drawn >= 200) { drawn = now; out.write(frame()) }
    },
    /** everything arrived (the transport's bytes differ from the size the daemon announced) */
    done: () => { current = Math.max(current, total) },
    finish: () => { out.write(`${frame()} ${goSeconds((Date.now() - started) / 1000)}\n`) }
  }
}

export { compressLevel, outPathOf }
