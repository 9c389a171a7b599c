// The CLI's reading of local files for file arguments (add -r, block put, config replace, ...), as
// go-ipfs-cmds cli/parse.go + boxo files (serialfile.go, filter.go) do it: args sorted by base name,
// hidden/ignore filters on nested names only, symlinks kept unless dereferenced, and every entry
// carrying the Go os.FileMode and mtime that Kubo's client puts in the multipart part name.
import { createReadStream, promises as fs, type BigIntStats } from 'node:fs'
import { fileModeString, statFileMode } from '../core/go/filemode.js'
import path from 'node:path'
import { RpcError } from '../core/errors.js'
import type { FileEntry } from '../registry/types.js'

export interface CollectOptions {
  /** -r: directories allowed (only for arguments that accept them) */
  recursive?: boolean
  /** -H: include hidden files inside directories */
  hidden?: boolean
  /** --ignore rules (gitignore syntax) */
  ignore?: string[]
  /** --ignore-rules-path: a gitignore file */
  ignoreRulesPath?: string
  /** --dereference-args (deprecated): resolve symlinks given as arguments */
  derefArgs?: boolean
  /** --dereference-symlinks: resolve every symlink */
  derefSymlinks?: boolean
  /** --stdin-name: the name of the stdin part ('-' argument or no arguments) */
  stdinName?: string
  /** stdin content, for a '-' argument */
  stdin?: () => AsyncIterable<Uint8Array>
  /** the file argument's name and whether it accepts directories (go-ipfs-cmds EnableRecursive) */
  argName?: string
  argRecursive?: boolean
  cwd?: string
}

const sizes = new WeakMap<FileEntry, number>()

/** Total bytes of the regular files in `entries` that collectFiles read from disk (the progress bar's total). */
export function totalSize (entries: readonly FileEntry[] | undefined): number | undefined {
  if (entries == null) return undefined
  let total = 0
  let known = false
  for (const e of entries) {
    const n = sizes.get(e)
    if (n != null) { total += n; known = true }
  }
  return known ? total : undefined
}

/** Go's os.FileMode of a stat result (type bits, setuid/setgid/sticky, permissions). */
export const goFileMode = (st: { mode: number | bigint }): number => statFileMode(st.mode)

/** Go's FileMode.String(): `drwxr-xr-x`, `prw-r--r--`, `-rw-r--r--`. */
export const goModeString = fileModeString

/** Go's strerror texts for the errno codes a walk can meet. */
function errnoText (err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code
  switch (code) {
    case 'ENOENT': return 'no such file or directory'
    case 'EACCES': return 'permission denied'
    case 'ENOTDIR': return 'not a directory'
    case 'ELOOP': return 'too many levels of symbolic links'
    case 'ENAMETOOLONG': return 'file name too long'
    case 'EPERM': return 'operation not permitted'
    default: return (err as Error)?.message ?? String(err)
  }
}

const fsError = (op: string, p: string, err: unknown): RpcError => new RpcError(`${op} ${p}: ${errnoText(err)}`)

/** Bytewise (UTF-8) order, as Go sorts strings. */
const byteCompare = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b))

function mtimeOf (st: BigIntStats): { secs: number, nsecs?: number } {
  const ns = st.mtimeNs
  let secs = ns / 1_000_000_000n
  let nsecs = ns % 1_000_000_000n
  if (nsecs < 0n) { nsecs += 1_000_000_000n; secs -= 1n }
  return nsecs === 0n ? { secs: Number(secs) } : { secs: Number(secs), nsecs: Number(nsecs) }
}

/** A file's bytes, opened only when read (a big tree must not hold every file open). */
async function * lazyFile (abs: string): AsyncGenerator<Uint8Array> {
  yield * createReadStream(abs, { highWaterMark: 1 << 20 })
}

// ---- gitignore rules, as github.com/crackcomm/go-gitignore compiles them (boxo files.Filter) ----

interface IgnoreRule { re: RegExp, negate: boolean }

function ruleFromLine (raw: string): IgnoreRule | undefined {
  let line = raw.replace(/\r+$/, '')
  if (line.startsWith('#')) return undefined
  line = line.replace(/^ +| +$/g, '')
  if (line === '') return undefined
  let negate = false
  if (line[0] === '!') { negate = true; line = line.slice(1) }
  if (/^(#|!)/.test(line)) line = line.slice(1)
  if (/([^/+])\/.*\*\./.test(line) && line[0] !== '/') line = '/' + line
  line = line.replace(/\./g, () => '\\.')
  const magicStar = '#$~'
  if (line.startsWith('/**/')) line = line.slice(1)
  line = line.replace(/\/\*\*\//g, () => '(/|/.+/)')
  line = line.replace(/\*\*\//g, () => `(|.${magicStar}/)`)
  line = line.replace(/\/\*\*/g, () => `(|/.${magicStar})`)
  line = line.replace(/\\\*/g, () => '\\' + magicStar)
  line = line.replace(/\*/g, () => '([^/]*)')
  line = line.split('?').join('\\?')
  line = line.split(magicStar).join('*')
  let expr = line.endsWith('/') ? line + '(|.*)$' : line + '(|/.*)$'
  expr = expr.startsWith('/') ? '^(|/)' + expr.slice(1) : '^(|.*/)' + expr
  try {
    return { re: new RegExp(expr, 'u'), negate }
  } catch {
    try { return { re: new RegExp(expr), negate } } catch { return undefined }
  }
}

/** A compiled set of gitignore lines (later lines win; `!` re-includes). */
export class IgnoreRules {
  private readonly rules: IgnoreRule[]
  constructor (lines: readonly string[]) {
    this.rules = lines.map(ruleFromLine).filter((r): r is IgnoreRule => r != null)
  }

  matches (p: string): boolean {
    let matched = false
    for (const { re, negate } of this.rules) {
      if (!re.test(p)) continue
      if (!negate) matched = true
      else if (matched) matched = false
    }
    return matched
  }
}

/** boxo files.Filter: hidden names and ignore rules, applied to an entry's base name. */
export class FileFilter {
  constructor (readonly includeHidden: boolean, readonly rules: IgnoreRules) {}

  static async create (rulesFile: string | undefined, rules: readonly string[], includeHidden: boolean, cwd = process.cwd()): Promise<FileFilter> {
    let lines = [...rules]
    if (rulesFile != null && rulesFile !== '') {
      const text = await fs.readFile(path.resolve(cwd, rulesFile), 'utf8').catch((err) => { throw fsError('open', rulesFile, err) })
      lines = [...text.split('\n'), ...rules]
    }
    return new FileFilter(includeHidden, new IgnoreRules(lines))
  }

  shouldExclude (name: string): boolean {
    if (!this.includeHidden && isHidden(name)) return true
    return this.rules.matches(name)
  }
}

export const isHidden = (name: string): boolean => name !== '' && name !== '.' && name !== '..' && name[0] === '.'

// ---- the walk ----

function isUrl (arg: string): URL | undefined {
  try {
    const u = new URL(arg)
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '') return u
  } catch { /* not a URL */ }
  return undefined
}

/** boxo files.WebFile: the body of a GET, fetched when first read. */
async function * webFile (u: URL): AsyncGenerator<Uint8Array> {
  const res = await fetch(u)
  if (res.status < 200 || res.status > 299) {
    throw new RpcError(`got non-2XX status code ${res.status}: ${u.toString()}`)
  }
  if (res.body == null) return
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) yield chunk
}

/**
 * Local files (and folders with -r) as the multipart entries a Kubo client would send, in the order
 * it sends them. `recursive` may be the whole option set.
 */
export async function collectFiles (paths: string[], recursive: boolean | CollectOptions, hidden = false): Promise<FileEntry[]> {
  const opts: CollectOptions = typeof recursive === 'boolean' ? { recursive, hidden, argRecursive: true } : recursive
  const cwd = opts.cwd ?? process.cwd()
  const abs = (p: string): string => path.resolve(cwd, p)
  const derefAll = opts.derefSymlinks === true
  const tops: Array<{ name: string, entries: FileEntry[] }> = []
  const importDirs = new Map<string, string>()
  let filter: FileFilter | undefined

  const serial = async (shown: string, st: BigIntStats, rel: string, out: FileEntry[]): Promise<void> => {
    if (derefAll && st.isSymbolicLink()) {
      st = await fs.stat(abs(shown), { bigint: true }).catch((err) => { throw fsError('stat', shown, err) })
    }
    const meta = { mode: goFileMode(st), mtime: mtimeOf(st) }
    if (st.isFile()) {
      const entry: FileEntry = { path: rel, type: 'file', content: lazyFile(abs(shown)), abspath: abs(shown), ...meta }
      sizes.set(entry, Number(st.size))
      out.push(entry)
    } else if (st.isDirectory()) {
      out.push({ path: rel, type: 'directory', ...meta })
      const names = (await fs.readdir(abs(shown)).catch((err) => { throw fsError('open', shown, err) })).sort(byteCompare)
      for (const name of names) {
        const childShown = shown === '/' ? `/${name}` : `${shown}/${name}`
        const childStat = await fs.lstat(abs(childShown), { bigint: true }).catch((err) => { throw fsError('lstat', childShown, err) })
        if (filter?.shouldExclude(name) === true) continue
        await serial(childShown, childStat, rel === '' ? name : `${rel}/${name}`, out)
      }
    } else if (st.isSymbolicLink()) {
      const target = await fs.readlink(abs(shown)).catch((err) => { throw fsError('readlink', shown, err) })
      out.push({ path: rel, type: 'symlink', target, ...meta })
    } else {
      throw new RpcError(`unrecognized file type for ${shown}: ${goModeString(goFileMode(st))}`)
    }
  }

  for (const arg of paths) {
    if (arg === '-') {
      if (opts.stdin == null) throw new RpcError('no stdin to read')
      const name = opts.stdinName ?? ''
      tops.push({ name, entries: [{ path: name, type: 'file', content: opts.stdin(), abspath: '/dev/stdin' }] })
      continue
    }
    const u = isUrl(arg)
    if (u != null) {
      // go-ipfs-cmds urlBase: the host when the URL has no path, else the path's last element
      const hasPath = /^https?:\/\/[^/?#]*\//i.test(arg)
      const name = !hasPath ? u.host : u.pathname === '/' ? '/' : path.posix.basename(u.pathname)
      tops.push({ name, entries: [{ path: name, type: 'file', content: webFile(u) }] })
      continue
    }
    let fpath = path.normalize(arg)
    if (fpath.length > 1) fpath = fpath.replace(/\/+$/, '')
    if (fpath === '.' || opts.derefArgs === true || derefAll) {
      // filepath.EvalSymlinks: a relative path stays relative while it resolves inside the cwd
      const relative = fpath !== '.' && !path.isAbsolute(fpath)
      if (fpath === '.') fpath = cwd
      const resolved = await fs.realpath(abs(fpath)).catch((err) => { throw fsError('lstat', fpath, err) })
      const rel = relative ? path.relative(await fs.realpath(cwd), resolved) : ''
      fpath = relative && rel !== '' && !rel.startsWith('..') ? rel : resolved
    }
    filter ??= await FileFilter.create(opts.ignoreRulesPath, opts.ignore ?? [], opts.hidden === true, cwd)
    const st = await fs.lstat(abs(fpath), { bigint: true }).catch((err) => { throw fsError('lstat', fpath, err) })
    const name = path.basename(fpath) === '' ? fpath : path.basename(fpath)
    const entries: FileEntry[] = []
    if (st.isDirectory()) {
      if (opts.argRecursive === false) throw new RpcError(`invalid path '${fpath}', argument '${opts.argName ?? 'path'}' does not support directories`)
      if (opts.recursive !== true) throw new RpcError(`'${fpath}' is a directory, use the '-r' flag to specify directories`)
      await serial(fpath, st, name, entries)
    } else if (st.isFIFO()) {
      // a named pipe given directly is read like stdin (no stat, so no metadata)
      entries.push({ path: name, type: 'file', content: lazyFile(abs(fpath)) })
    } else {
      await serial(fpath, st, name, entries)
    }
    const importDir = path.dirname(fpath)
    const prev = importDirs.get(name)
    if (prev == null) importDirs.set(name, importDir)
    else if (prev !== importDir) throw new RpcError(`file name ${name} repeated under different import directories: ${importDir} and ${prev}`)
    else continue // the same file twice
    tops.push({ name, entries })
  }
  tops.sort((a, b) => byteCompare(a.name, b.name))
  return tops.flatMap(t => t.entries)
}

/** The part name Kubo's client writes: `file?mode=0644&mtime=…&mtime-nsecs=…` (boxo MultiFileReader). */
export function partName (e: FileEntry, base = 'file'): string {
  const q = new URLSearchParams()
  if (e.mode != null && e.mode !== 0) q.append('mode', '0' + e.mode.toString(8))
  if (e.mtime != null) {
    q.append('mtime', String(e.mtime.secs))
    if (e.mtime.nsecs != null && e.mtime.nsecs > 0) q.append('mtime-nsecs', String(e.mtime.nsecs))
  }
  const qs = q.toString()
  return qs === '' ? base : `${base}?${qs}`
}
