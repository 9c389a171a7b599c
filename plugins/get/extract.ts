// The CLI side of `ipfs get`: extract the tar stream into a folder as boxo tar.Extractor does —
// one root (a directory, file or symlink), nothing outside it, no traversal through symlinks,
// modes and mtimes restored (directories last).
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { extract } from 'it-tar'
import type { TarEntryHeader } from 'it-tar'
import { RpcError } from '../../core/errors.js'
import { goQuote } from '../../core/go/strings.js'

const INVALID_ROOT = 'tar has invalid root'
const MULTIPLE_ROOTS = `contains more than one root or the root directory is not the first entry : ${INVALID_ROOT}`

export interface ExtractInit {
  /** where to extract (the root's name is not used unless this is an existing directory) */
  path: string
  /** the current directory `path` is relative to */
  cwd: string
  /** called with the bytes of file content written */
  progress?: (n: number) => void
}

const TYPEFLAGS: Record<string, number> = { file: 0x30, link: 0x31, symlink: 0x32, 'character-device': 0x33, 'block-device': 0x34, directory: 0x35, fifo: 0x36, 'contiguous-file': 0x37 }

function unrecognized (h: TarEntryHeader): RpcError {
  return new RpcError(`unrecognized tar header type: ${TYPEFLAGS[h.type ?? ''] ?? h.typeflag ?? 0}`)
}

/** boxo validatePathComponent */
function validatePathComponent (c: string): void {
  if (c === '..') throw new RpcError("invalid platform path: path component cannot be '..'")
  if (c.includes('\0')) throw new RpcError(`invalid platform path: path components cannot contain null: ${goQuote(c)}`)
}

/** boxo validateTarPath */
function validateTarPath (p: string): void {
  if (p.length === 0) throw new RpcError('path is empty')
  if (p[0] === '/') throw new RpcError(`${goQuote(p)} : path starts with '/'`)
  for (const e of p.split('/')) {
    if (e === '' || e === '.' || e === '..') throw new RpcError(`${goQuote(p)} : path contains ${goQuote(e)}`)
  }
}

/** mtime with the PAX record's sub-second part when present */
function mtimeOf (h: TarEntryHeader): Date {
  const pax = h.pax?.mtime
  if (pax != null && /^-?\d+(\.\d+)?$/.test(pax)) return new Date(Number(pax) * 1000)
  return h.mtime
}

interface Update { path: string, mode: number, mtime: Date }

/** boxo files.UpdateMetaUnix: chmod when a mode is given, utimes when a time is given. */
async function updateMeta (p: string, mode: number, mtime: Date | undefined): Promise<void> {
  if (mode !== 0) await fs.chmod(p, mode & 0o7777)
  if (mtime != null && mtime.getTime() !== 0) await fs.utimes(p, mtime, mtime)
}

async function lstat (p: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await fs.lstat(p)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

async function removeIfExists (p: string): Promise<void> {
  try {
    await fs.rm(p, { recursive: false, force: true })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    // an empty directory may be replaced too
    if (code === 'EISDIR' || code === 'ERR_FS_EISDIR') await fs.rmdir(p)
    else throw err
  }
}

async function extractDir (p: string): Promise<void> {
  await fs.mkdir(p, { recursive: true, mode: 0o755 })
  const st = await fs.lstat(p)
  if (!st.isDirectory()) throw new RpcError('cannot extract to symlink')
}

async function extractFile (p: string, body: AsyncIterable<Uint8Array>, progress?: (n: number) => void): Promise<void> {
  await removeIfExists(p)
  const tmp = path.join(path.dirname(p), `.tsipfs-get-${process.pid}-${Math.random().toString(16).slice(2)}`)
  const fh = await fs.open(tmp, 'w', 0o600)
  try {
    for await (const chunk of body) {
      progress?.(chunk.length)
      await fh.write(chunk)
    }
  } catch (err) {
    await fh.close().catch(() => {})
    await fs.rm(tmp, { force: true })
    throw err
  }
  await fh.close()
  await fs.rename(tmp, p)
}

async function extractSymlink (p: string, h: TarEntryHeader): Promise<void> {
  await removeIfExists(p)
  await fs.symlink(h.linkname ?? '', p)
  const mtime = mtimeOf(h)
  if (mtime.getTime() !== 0) await fs.lutimes(p, mtime, mtime).catch(() => {})
}

/** boxo Extractor.outputPath: join, refusing '..' and traversal through symlinks or files. */
async function outputPath (base: string, rel: string): Promise<string> {
  const elems = rel.split('/')
  let p = base
  for (let i = 0; i < elems.length; i++) {
    validatePathComponent(elems[i])
    p = path.join(p, elems[i])
    if (i === elems.length - 1) break
    const st = await fs.lstat(p)
    if (st.isSymbolicLink()) throw new RpcError('cannot traverse symlinks')
    if (!st.isDirectory()) throw new RpcError('cannot traverse non-directory objects')
  }
  return p
}

/** Extract a tar stream (boxo tar.Extractor.Extract). */
export async function extractTar (source: AsyncIterable<Uint8Array>, init: ExtractInit): Promise<void> {
  if (init.path === '/dev/null') {
    for await (const _ of source) { /* drain */ }
    return
  }
  const entries = extract()(source)[Symbol.asyncIterator]()
  const first = await entries.next()
  if (first.done === true) throw new RpcError('empty tar file')
  const updates: Update[] = []
  try {
    const root = first.value.header
    if (root.name.includes('/')) throw new RpcError(`root name contains multiple components : ${goQuote(root.name)} : ${INVALID_ROOT}`)
    if (root.name === '' || root.name === '.' || root.name === '..') throw new RpcError(`invalid root path: ${goQuote(root.name)} : ${INVALID_ROOT}`)
    const rootName = root.name
    const rootOutput = path.resolve(init.cwd, path.normalize(init.path))
    if (rootOutput.includes('\0')) throw new RpcError(`invalid platform path: path components cannot contain null: ${goQuote(rootOutput)}`)
    let rootIsDir = false
    switch (root.type) {
      case 'directory':
        rootIsDir = true
        await extractDir(rootOutput)
        updates.push({ path: rootOutput, mode: root.mode, mtime: mtimeOf(root) })
        break
      case 'file':
      case 'symlink': {
        let out = rootOutput
        const st = await lstat(rootOutput)
        if (st?.isDirectory() === true) {
          validatePathComponent(rootName)
          out = path.join(rootOutput, rootName)
        }
        if (root.type === 'file') {
          await extractFile(out, first.value.body, init.progress)
          await updateMeta(out, root.mode, mtimeOf(root))
        } else {
          await extractSymlink(out, root)
        }
        break
      }
      default:
        throw unrecognized(root)
    }
    for (;;) {
      const next = await entries.next()
      if (next.done === true) break
      const { header: h, body } = next.value
      if (!rootIsDir) throw new RpcError(`the root was not a directory and the tar has multiple entries: ${INVALID_ROOT}`)
      validateTarPath(h.name)
      if (!h.name.startsWith(rootName + '/')) throw new RpcError(MULTIPLE_ROOTS)
      const out = await outputPath(rootOutput, h.name.slice(rootName.length + 1))
      const rel = path.relative(rootOutput, out)
      if (rel === '' || rel === '.') throw new RpcError(MULTIPLE_ROOTS)
      if (rel.split(path.sep).includes('..')) throw new RpcError("relative path contains '..'")
      switch (h.type) {
        case 'directory':
          await extractDir(out)
          updates.push({ path: out, mode: h.mode, mtime: mtimeOf(h) })
          break
        case 'file':
          await extractFile(out, body, init.progress)
          await updateMeta(out, h.mode, mtimeOf(h))
          break
        case 'symlink':
          await extractSymlink(out, h)
          break
        default:
          throw unrecognized(h)
      }
    }
  } finally {
    // directories last, deepest first, so their mode and mtime stick
    for (const u of updates.reverse()) await updateMeta(u.path, u.mode, u.mtime).catch(() => {})
  }
}
