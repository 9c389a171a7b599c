// ipfs refs (kubo core/commands/refs.go): the links of objects, depth-first in link order, with
// Kubo's RefWriter pruning for --unique and --max-depth.
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { nodeLinks, type NodeLink } from '../../core/resolver/index.js'
import type { CidEncoder } from '../../core/cid-encoder.js'
import type { RefWrapper } from './output.js'
import { refsText } from './text.js'

/** children fetched ahead while one is being walked (Kubo fetches all of a node's children at once) */
const PREFETCH = 16

interface RefWriterInit {
  getBlock: (cid: CID) => Promise<Uint8Array>
  encoder: CidEncoder
  unique: boolean
  maxDepth: number
  format: string
}

/** Kubo's RefWriter. */
class RefWriter {
  private readonly seen = new Map<string, number>()
  constructor (private readonly init: RefWriterInit) {}

  /** visit: [go deeper, print] (branch pruning by depth and by what was seen) */
  private visit (cid: CID, depth: number): [boolean, boolean] {
    const { maxDepth, unique } = this.init
    const atMaxDepth = maxDepth >= 0 && depth === maxDepth
    const overMaxDepth = maxDepth >= 0 && depth > maxDepth
    if (overMaxDepth) return [false, false]
    if (!unique) return [!atMaxDepth, true]
    const key = Buffer.from(cid.bytes).toString('latin1')
    const oldDepth = this.seen.get(key)
    if (oldDepth !== undefined && (maxDepth < 0 || oldDepth <= depth)) return [false, false]
    this.seen.set(key, depth)
    return [!atMaxDepth, oldDepth === undefined]
  }

  private edge (from: CID, to: CID, linkname: string): RefWrapper {
    const { format, encoder } = this.init
    let s: string
    if (format !== '') {
      s = format.replaceAll('<src>', encoder.encode(from)).replaceAll('<dst>', encoder.encode(to)).replaceAll('<linkname>', linkname)
    } else {
      s = encoder.encode(to)
    }
    return { Ref: s, Err: '' }
  }

  /** the refs under one root; a failure ends the walk (the caller reports it) */
  async * writeRefs (root: CID): AsyncGenerator<RefWrapper> {
    const block = await this.init.getBlock(root)
    yield * this.walk(root, nodeLinks(root, block), 0)
  }

  private async * walk (cid: CID, links: NodeLink[], depth: number): AsyncGenerator<RefWrapper> {
    const fetches: Array<Promise<Uint8Array> | undefined> = []
    let next = 0
    for (let i = 0; i < links.length; i++) {
      for (; next < links.length && next <= i + PREFETCH; next++) {
        const p = this.init.getBlock(links[next].cid)
        p.catch(() => {})
        fetches[next] = p
      }
      const link = links[i]
      const fetch = fetches[i]
      fetches[i] = undefined
      const [goDeeper, shouldWrite] = this.visit(link.cid, depth + 1)
      if (!shouldWrite && !goDeeper) continue
      const child = await (fetch as Promise<Uint8Array>)
      if (shouldWrite) yield this.edge(cid, link.cid, link.name)
      if (goDeeper) yield * this.walk(link.cid, nodeLinks(link.cid, child), depth + 1)
    }
  }
}

export const refsRefs = defineCommand({
  path: ['refs'],
  description: 'List links (references) from an object.',
  help: `Lists the hashes of all the links an IPFS or IPNS object(s) contains,
with the following format:

  <link base58 hash>

List all references recursively by using the flag '-r'.

NOTE: Like most other commands, Kubo will try to fetch the blocks of the passed path if they can't be found in the local store if it is running in online mode.`,
  bodyArgs: true,
  args: [{ name: 'ipfs-path', kind: 'string', required: true, variadic: true, stdin: true, description: 'Path to the object(s) to list refs from.' }],
  options: {
    format: { type: 'string', default: '<dst>', description: 'Emit edges with given format. Available tokens: <src> <dst> <linkname>.' },
    edges: { type: 'bool', aliases: ['e'], description: 'Emit edge format: `<from> -> <to>`.' },
    unique: { type: 'bool', aliases: ['u'], description: 'Omit duplicate refs from output.' },
    recursive: { type: 'bool', aliases: ['r'], description: 'Recursively list links of child nodes.' },
    'max-depth': { type: 'int', default: -1, description: 'Only for recursive refs, limits fetch and listing to the given depth' }
  },
  output: 'ndjson',
  async * run ({ args, options, deps: { resolver, cidEncoder }, signal }): AsyncGenerator<RefWrapper> {
    let format = options.format
    const maxDepth = options.recursive === true ? options.maxDepth : 1
    if (options.edges === true) {
      if (format !== '<dst>') throw new RpcError('using format argument with edges is not allowed')
      format = '<src> -> <dst>'
    }
    // every path is resolved before the first ref (objectsForPaths)
    const roots: CID[] = []
    for (const arg of args) roots.push((await resolver.resolve(arg, { signal })).cid)

    const writer = new RefWriter({
      getBlock: async (cid) => await resolver.getBlock(cid, { signal }),
      encoder: cidEncoder,
      unique: options.unique === true,
      maxDepth,
      format
    })
    for (const root of roots) {
      try {
        yield * writer.writeRefs(root)
      } catch (err) {
        if (signal.aborted) throw err
        yield { Ref: '', Err: (err as Error).message }
      }
    }
  },
  text: refsText
})
