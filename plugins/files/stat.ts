// ipfs files stat (kubo core/commands/files.go filesStatCmd): MFS paths and content paths.
import { defineCommand } from '../../registry/define.js'
import { fileModeString, MODE_SYMLINK, unixfsFileMode } from '../../core/go/filemode.js'
import { InvalidArgumentError, RpcError } from '../../core/errors.js'
import { nodeLinks } from '../../core/resolver/index.js'
import type { CID } from 'multiformats/cid'
import { DataType, decodeUnixfsData, type UnixfsData } from '../../core/resolver/unixfs.js'
import type { Mfs } from '../../core/mfs/index.js'
import type { FilesStatOutput } from './output.js'

export const DEFAULT_STAT_FORMAT = `<hash>
Size: <size>
CumulativeSize: <cumulsize>
ChildBlocks: <childs>
Type: <type>
Mode: <mode> (<mode-octal>)
Mtime: <mtime>`

const NOT_SET = 'not set'

/** statGetFormatOptions */
function statFormat (o: { hash?: boolean, size?: boolean, format?: string }): string {
  const hash = o.hash === true
  const size = o.size === true
  const format = o.format ?? DEFAULT_STAT_FORMAT
  const custom = format !== DEFAULT_STAT_FORMAT
  if ((hash && size) || (size && custom) || (hash && custom)) {
    throw new Error('format was set by multiple options. Only one format option is allowed')
  }
  if (hash) return '<hash>'
  if (size) return '<cumulsize>'
  return format
}

/** files.UnixPermsToModePerms plus the type bits FSNode.Mode() adds; a symlink without a mode reads as 0777 */
function goMode (fs: UnixfsData): number {
  const perms = (fs.mode ?? 0) & 0xfff
  const kind = fs.type === DataType.Directory || fs.type === DataType.HAMTShard ? 'dir' : fs.type === DataType.Symlink ? 'symlink' : 'file'
  if (perms === 0) return kind === 'symlink' ? MODE_SYMLINK + 0o777 : 0
  return unixfsFileMode(perms, kind)
}

/** Go os.FileMode.String() */
export const goFileModeString = fileModeString

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const pad2 = (n: number): string => String(n).padStart(2, '0')

/** time.Unix(secs, nsecs).UTC().Format("2 Jan 2006, 15:04:05 MST") */
function goTime (secs: number, nsecs: number): string {
  const d = new Date(secs * 1000 + Math.floor(nsecs / 1e6))
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} UTC`
}

/** go-humanize Bytes (SI units) */
export function humanizeBytes (s: number): string {
  const sizes = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB']
  if (s < 10) return `${s} B`
  const e = Math.floor(Math.log(s) / Math.log(1000))
  const val = Math.floor(s / 1000 ** e * 10 + 0.5) / 10
  return val < 10 ? `${val.toFixed(1)} ${sizes[e]}` : `${val.toFixed(0)} ${sizes[e]}`
}

/** Go %.2f of a float (NaN when nothing is cumulative) */
const goPercent = (a: number, b: number): string => {
  const v = 100 * a / b
  if (Number.isNaN(v)) return 'NaN'
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf'
  return v.toFixed(2)
}

/** walkBlock: is the whole DAG local, and how many bytes of it are */
/**
 * Kubo's walkBlock: whether every block under `cid` is local, and the bytes of the local ones counted per
 * path (a block linked twice counts twice). Each block's answer is kept, so a DAG that links the same
 * blocks many times (billions of paths) is read once per block.
 */
async function walkLocal (mfs: Mfs, cid: CID, bytes: Uint8Array, signal: AbortSignal, memo = new Map<string, { local: boolean, size: number }>()): Promise<{ local: boolean, size: number }> {
  let size = bytes.length
  let local = true
  for (const l of nodeLinks(cid, bytes)) {
    const key = l.cid.toString()
    let sub = memo.get(key)
    if (sub == null) {
      let child: Uint8Array
      try {
        child = await mfs.io.get(l.cid, signal)
      } catch (err) {
        if ((err as Error).name === 'NotFoundError' || /could not find/.test((err as Error).message)) {
          local = false
          continue
        }
        throw err
      }
      sub = await walkLocal(mfs, l.cid, child, signal, memo)
      memo.set(key, sub)
    }
    local &&= sub.local
    size += sub.size
  }
  return { local, size }
}

export const filesStat = defineCommand({
  path: ['files', 'stat'],
  description: 'Display file status.',
  args: [{ name: 'path', kind: 'string', required: true, description: 'Path to node to stat.' }],
  options: {
    format: {
      type: 'string',
      default: DEFAULT_STAT_FORMAT,
      description: 'Print statistics in given format. Allowed tokens: <hash> <size> <cumulsize> <type> <childs> and optional <mode> <mode-octal> <mtime> <mtime-secs> <mtime-nsecs>.Conflicts with other format options.'
    },
    hash: { type: 'bool', description: "Print only hash. Implies '--format=<hash>'. Conflicts with other format options." },
    size: { type: 'bool', description: "Print only size. Implies '--format=<cumulsize>'. Conflicts with other format options." },
    'with-local': { type: 'bool', description: 'Compute the amount of the dag that is local, and if possible the total size' }
  },
  output: 'single',
  async run ({ args, options, deps: { mfs, cidEncoder, resolver }, signal }): Promise<FilesStatOutput> {
    try {
      statFormat(options)
    } catch (err) {
      throw new InvalidArgumentError(`invalid parameters: ${(err as Error).message}`)
    }
    const found = await mfs.stat(args[0], { signal, resolver })
    const node = found.node
    if (node == null) throw new RpcError('not unixfs node (proto or raw)')
    let out: FilesStatOutput
    if (node.kind === 'raw') {
      out = { Hash: cidEncoder.encode(node.cid), Size: node.bytes.length, CumulativeSize: node.bytes.length, Blocks: 0, Type: 'file' }
    } else {
      const fs = decodeUnixfsData(node.data)
      let type: string
      switch (fs.type) {
        case DataType.Directory: case DataType.HAMTShard: type = 'directory'; break
        case DataType.File: case DataType.Symlink: case DataType.Metadata: case DataType.Raw: type = 'file'; break
        default: throw new RpcError(`unrecognized node type: ${fs.type}`)
      }
      const size = fs.type === DataType.File || fs.type === DataType.Raw
        ? fs.filesize ?? 0
        : fs.type === DataType.Symlink ? fs.data?.length ?? 0 : 0
      out = { Hash: cidEncoder.encode(node.cid), Size: size, CumulativeSize: node.size, Blocks: node.links.length, Type: type }
      const mode = goMode(fs)
      const m = fs.mtime
      const mtimeValid = m != null && !(m.nsecs !== undefined && (m.nsecs < 1 || m.nsecs > 999999999))
      if (options.withLocal === true) {
        const { local, size: sizeLocal } = await walkLocal(mfs, node.cid, node.bytes, signal)
        out.WithLocality = true
        if (local) out.Local = true
        if (sizeLocal !== 0) out.SizeLocal = sizeLocal
      }
      if (mtimeValid && m.secs !== 0) out.Mtime = m.secs
      if (mtimeValid && (m.nsecs ?? 0) > 0) out.MtimeNsecs = m.nsecs
      if (mode !== 0) out.Mode = mode.toString(8).padStart(4, '0')
      return out
    }
    if (options.withLocal === true) {
      out.WithLocality = true
      out.Local = true
      if (node.bytes.length !== 0) out.SizeLocal = node.bytes.length
    }
    return out
  },
  text: (out, { options }) => {
    const modeNum = out.Mode != null ? parseInt(out.Mode, 8) : 0
    let mode = NOT_SET
    let modeOctal = NOT_SET
    if (modeNum !== 0) {
      mode = goFileModeString(modeNum).toLowerCase()
      modeOctal = '0' + (modeNum & 0x1ff).toString(8)
    }
    let mtime = NOT_SET
    let mtimeSecs = NOT_SET
    let mtimeNsecs = NOT_SET
    if ((out.Mtime ?? 0) > 0) {
      mtime = goTime(out.Mtime as number, out.MtimeNsecs ?? 0)
      mtimeSecs = String(out.Mtime)
      mtimeNsecs = String(out.MtimeNsecs ?? 0)
    }
    let s: string
    try {
      s = statFormat(options as { hash?: boolean, size?: boolean, format?: string })
    } catch {
      s = ''
    }
    s = s.replaceAll('<hash>', out.Hash)
      .replaceAll('<size>', String(out.Size))
      .replaceAll('<cumulsize>', String(out.CumulativeSize))
      .replaceAll('<childs>', String(out.Blocks))
      .replaceAll('<type>', out.Type)
      .replaceAll('<mode>', mode)
      .replaceAll('<mode-octal>', modeOctal)
      .replaceAll('<mtime>', mtime)
      .replaceAll('<mtime-secs>', mtimeSecs)
      .replaceAll('<mtime-nsecs>', mtimeNsecs)
    let text = s + '\n'
    if (out.WithLocality === true) {
      const local = out.SizeLocal ?? 0
      text += `Local: ${humanizeBytes(local)} of ${humanizeBytes(out.CumulativeSize)} (${goPercent(local, out.CumulativeSize)}%)\n`
    }
    return text
  }
})
