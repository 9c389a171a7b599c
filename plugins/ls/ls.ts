// ipfs ls (kubo core/commands/ls.go + coreapi UnixfsAPI.Ls): directory entries (HAMT entries, not
// shard links), or the links of any other node; children are read to learn their type and size.
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import type { TextCall } from '../../registry/types.js'
import { tabwrite } from '../../core/util/tabwriter.js'
import {
  DAG_PB_CODEC, DataType, RAW_CODEC, decodePb, decodeUnixfsData, dirEntries, mapOrdered, nodeLinks, unixfsFileSize, unixfsModTime,
  type DirLink, type Resolver
} from '../../core/resolver/index.js'
import type { CidEncoder } from '../../core/cid-encoder.js'
import { escNonPrint, sortByBytes } from '../../core/go/strings.js'
import { formatMode, formatModTime, goFileMode, goTimeJson, ZERO_TIME } from './format.js'
import { LS_TYPE, type LsLink, type LsOutput } from './output.js'
import { writeTo } from '../cat/progress.js'

/** children read at once when resolving their types */
const CONCURRENCY = 16

interface LinkContext {
  resolver: Resolver
  encoder: CidEncoder
  resolveChildren: boolean
  signal: AbortSignal
}

/** What processLink knows without reading the child. */
function linkOf (link: DirLink, ctx: LinkContext): LsLink {
  const out: LsLink = { Name: link.name, Hash: ctx.encoder.encode(link.cid), Size: 0, Type: 0, Target: '', Mode: 0, ModTime: ZERO_TIME }
  if (link.cid.code === RAW_CODEC) {
    out.Type = LS_TYPE.File
    out.Size = link.tsize
  }
  return out
}

/** coreapi processLink: an entry's type, size, target, mode and mtime. */
async function processLink (link: DirLink, ctx: LinkContext): Promise<LsLink> {
  const out = linkOf(link, ctx)
  if (link.cid.code === DAG_PB_CODEC && ctx.resolveChildren) {
    const pb = decodePb(await ctx.resolver.getBlock(link.cid, { signal: ctx.signal }))
    const fs = decodeUnixfsData(pb.Data)
    switch (fs.type) {
      case DataType.File: case DataType.Raw:
        out.Type = LS_TYPE.File
        break
      case DataType.HAMTShard: case DataType.Directory: case DataType.Metadata:
        out.Type = LS_TYPE.Directory
        break
      case DataType.Symlink:
        out.Type = LS_TYPE.Symlink
        out.Target = new TextDecoder().decode(fs.data ?? new Uint8Array(0))
        break
    }
    out.Size = unixfsFileSize(fs)
    // FSNode.Mode(): type bits for directories, HAMT shards and symlinks only
    const modeKind = fs.type === DataType.Directory || fs.type === DataType.HAMTShard ? 'dir' : fs.type === DataType.Symlink ? 'symlink' : 'file'
    out.Mode = goFileMode(fs.mode ?? 0, modeKind)
    out.ModTime = goTimeJson(unixfsModTime(fs))
  }
  return out
}

/** The links ls lists for a node: directory entries, or the node's own links. */
async function * lsLinks (cid: CID, block: Uint8Array, ctx: LinkContext): AsyncGenerator<DirLink> {
  if (cid.code === DAG_PB_CODEC) {
    const pb = decodePb(block)
    const fs = decodeUnixfsData(pb.Data)
    if (fs.type === DataType.Directory || fs.type === DataType.HAMTShard) {
      yield * dirEntries({ pb, fs }, async c => await ctx.resolver.getBlock(c, { signal: ctx.signal }))
      return
    }
    for (const l of pb.Links) yield { name: l.Name ?? '', cid: l.Hash, tsize: l.Tsize ?? 0 }
    return
  }
  if (cid.code === RAW_CODEC) return
  for (const l of nodeLinks(cid, block)) yield { name: l.name, cid: l.cid, tsize: 0 }
}

/** Kubo tabularOutput: the text for one LsOutput, and the last object hash printed. */
export function tabularOutput (call: TextCall, out: LsOutput, lastObjectHash: string, ignoreBreaks: boolean): { text: string, last: string } {
  const opts = call.options as Record<string, unknown>
  const headers = opts.headers === true
  const stream = opts.stream === true
  const size = opts.size !== false
  const long = opts.long === true
  const multipleFolders = call.args.length > 1
  let text = ''
  for (const object of out.Objects ?? []) {
    if (!ignoreBreaks && object.Hash !== lastObjectHash) {
      if (multipleFolders) {
        if (lastObjectHash !== '') text += '\n'
        text += `${object.Hash}:\n`
      }
      if (headers) {
        if (long) text += size ? 'Mode\tHash\tSize\tModTime\tName\n' : 'Mode\tHash\tModTime\tName\n'
        else text += size ? 'Hash\tSize\tName\n' : 'Hash\tName\n'
      }
      lastObjectHash = object.Hash
    }
    for (const link of object.Links ?? []) {
      const isDir = link.Type === LS_TYPE.Directory || link.Type === LS_TYPE.HAMTShard || link.Type === LS_TYPE.Metadata
      const name = escNonPrint(link.Name)
      if (long) {
        const mode = link.Mode === 0 ? '-' : formatMode(link.Mode)
        const modTime = formatModTime(link.ModTime)
        if (isDir) text += size ? `${mode}\t${link.Hash}\t-\t${modTime}\t${name}/\n` : `${mode}\t${link.Hash}\t${modTime}\t${name}/\n`
        else text += size ? `${mode}\t${link.Hash}\t${link.Size}\t${modTime}\t${name}\n` : `${mode}\t${link.Hash}\t${modTime}\t${name}\n`
      } else if (isDir) {
        text += size ? `${link.Hash}\t-\t${name}/\n` : `${link.Hash}\t${name}/\n`
      } else {
        text += size ? `${link.Hash}\t${link.Size}\t${name}\n` : `${link.Hash}\t${name}\n`
      }
    }
  }
  return { text: tabwrite(text, { minwidth: stream ? 10 : 1, tabwidth: 2, padding: 1, padchar: ' ' }), last: lastObjectHash }
}

export const lsLs = defineCommand({
  path: ['ls'],
  description: 'List directory contents for Unix filesystem objects.',
  help: `Displays the contents of an IPFS or IPNS object(s) at the given path, with
the following format:

  <cid> <size> <name>

With the --long (-l) option, display optional file mode (permissions) and
modification time in a format similar to Unix 'ls -l':

  <mode> <cid> <size> <mtime> <name>

Mode and mtime are optional UnixFS metadata. They are only present if the
content was imported with 'ipfs add --preserve-mode' and '--preserve-mtime'.
Without preserved metadata, both mode and mtime display '-'. Times are in UTC.

Example with --long and preserved metadata:

  -rw-r--r-- QmZULkCELmmk5XNf... 1234 Jan 15 10:30 document.txt
  -rwxr-xr-x QmaRGe7bVmVaLmxb... 5678 Dec 01  2023 script.sh
  drwxr-xr-x QmWWEQhcLufF3qPm... -    Nov 20  2023 subdir/

Example with --long without preserved metadata:

  -          QmZULkCELmmk5XNf... 1234 -            document.txt

The JSON output contains type information.`,
  bodyArgs: true,
  args: [{ name: 'ipfs-path', kind: 'string', required: true, variadic: true, stdin: true, description: 'The path to the IPFS object(s) to list links from.' }],
  options: {
    headers: { type: 'bool', aliases: ['v'], description: 'Print table headers (Hash, Size, Name).' },
    'resolve-type': { type: 'bool', default: true, description: 'Resolve linked objects to find out their types.' },
    size: { type: 'bool', default: true, description: 'Resolve linked objects to find out their file size.' },
    stream: { type: 'bool', aliases: ['s'], description: 'Enable experimental streaming of directory entries as they are traversed.' },
    long: { type: 'bool', aliases: ['l'], description: 'Use a long listing format, showing file mode and modification time.' }
  },
  output: ({ stream }) => stream === true ? 'ndjson' : 'single',
  run ({ args, options, deps: { resolver, cidEncoder }, signal }) {
    const ctx: LinkContext = { resolver, encoder: cidEncoder, resolveChildren: options.resolveType || options.size, signal }
    const entries = async function * (arg: string): AsyncGenerator<LsLink> {
      const { cid, block } = await resolver.resolveNode(arg, { signal })
      // --resolve-type=false --size=false: no child is read
      if (!ctx.resolveChildren) {
        for await (const l of lsLinks(cid, block, ctx)) yield linkOf(l, ctx)
        return
      }
      yield * mapOrdered(lsLinks(cid, block, ctx), async l => await processLink(l, ctx), ctx.resolveChildren ? CONCURRENCY : 1)
    }
    if (options.stream === true) {
      return (async function * (): AsyncGenerator<LsOutput> {
        for (const arg of args) {
          for await (const link of entries(arg)) yield { Objects: [{ Hash: arg, Links: [link] }] }
        }
      })()
    }
    return (async (): Promise<LsOutput> => {
      const objects = []
      for (const arg of args) {
        const links: LsLink[] = []
        for await (const link of entries(arg)) links.push(link)
        objects.push({ Hash: arg, Links: sortByBytes(links, l => l.Name) })
      }
      return { Objects: objects }
    })()
  },
  // over HTTP a streamed text output cannot tell where one directory ends (no headers, no breaks)
  text: (out: LsOutput, call) => tabularOutput(call, out, '', call.options.stream === true).text,
  /** Kubo's PostRun: headers and breaks between directories, also when streaming */
  cliRender: async (outcome, call, io) => {
    const values: AsyncIterable<unknown> | unknown[] = outcome.kind === 'ndjson' ? outcome.items : outcome.kind === 'single' ? [outcome.value] : []
    let last = ''
    for await (const value of values) {
      if (value == null) continue
      const rendered = tabularOutput(call, value as LsOutput, last, false)
      last = rendered.last
      await writeTo(io.stdout, rendered.text)
    }
  }
})
