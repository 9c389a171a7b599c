// One UnixFS directory being edited (boxo ipld/unixfs/io DynamicDirectory): a basic directory
// that becomes a HAMT when an addition takes its estimated size over the threshold (or its links
// over MaxLinks), and a HAMT that becomes basic again when a change takes it back to or below
// the threshold, with boxo's size bookkeeping (including its quirks: a HAMT switches back only
// after a net shrink since it was loaded or created).
import { dataFieldSize, linkSerializedSize, unixfsSize } from '../unixfs/pb.js'
import type { UnixTime } from '../unixfs/pb.js'
import type { BlockIO } from './blocks.js'
import { MfsError, NotExistError } from './errors.js'
import { Shard, validShardWidth } from './hamt.js'
import { DataType, PbNode, compareNames, decodeUnixfsData, encodeFsData, mtimeOf, permsOf, type Link, type Prefix } from './node.js'

export type SizeEstimation = 'links' | 'block' | 'disabled'

/** Per-directory settings that are not stored in the DAG (inherited from the parent / config). */
export interface DirSettings {
  /** Import.UnixFSDirectoryMaxLinks (0: no limit) */
  maxLinks: number
  /** HAMT fanout for new shards */
  fanout: number
  /** Import.UnixFSHAMTDirectorySizeThreshold (0: sharding off) */
  threshold: number
  estimation: SizeEstimation
}

export const DEFAULT_SHARD_WIDTH = 256

interface BasicState {
  links: Map<string, Link>
  /** the node's Data bytes (kept verbatim, as boxo keeps the ProtoNode's data) */
  data: Uint8Array
  estimated: number
  total: number
}

interface HamtState {
  root: Shard
  sizeChange: number
  total: number
}

const nameLen = (s: string): number => Buffer.byteLength(s)

/** boxo's default link size (name + CID bytes) */
const linkBytes = (name: string, l: Pick<Link, 'cid'>): number => nameLen(name) + l.cid.bytes.length

export class UnixfsDir {
  settings: DirSettings
  /** unix permission bits (0: none) */
  mode = 0
  mtime?: UnixTime
  private basic?: BasicState
  private hamt?: HamtState
  private cached?: PbNode

  private constructor (public prefix: Prefix, settings: DirSettings) {
    this.settings = { ...settings }
  }

  /** NewDirectory: an empty basic directory (with stat when given). */
  static empty (prefix: Prefix, settings: DirSettings, mode = 0, mtime?: UnixTime): UnixfsDir {
    const d = new UnixfsDir(prefix, settings)
    d.mode = mode & 0xfff
    d.mtime = mtime
    d.basic = { links: new Map(), data: d.statData(), estimated: 0, total: 0 }
    d.recompute()
    return d
  }

  /** NewDirectoryFromNode (settings are the parent's). */
  static fromNode (node: PbNode, settings: DirSettings): UnixfsDir {
    const fs = decodeUnixfsData(node.data)
    const d = new UnixfsDir(node.prefix, settings)
    d.mode = permsOf(fs)
    d.mtime = mtimeOf(fs)
    if (fs.type === DataType.Directory) {
      const links = new Map<string, Link>()
      for (const l of node.links) if (!links.has(l.name)) links.set(l.name, l)
      d.basic = { links, data: node.data ?? new Uint8Array(0), estimated: 0, total: 0 }
      d.recompute()
      d.cached = node
    } else if (fs.type === DataType.HAMTShard) {
      const root = Shard.fromNode(node)
      root.mode = d.mode
      root.mtime = d.mtime
      d.hamt = { root, sizeChange: 0, total: node.links.length }
    } else {
      throw new MfsError('merkledag node was not a directory or shard')
    }
    return d
  }

  get sharded (): boolean { return this.hamt != null }

  setPrefix (prefix: Prefix): void {
    this.prefix = prefix
    if (this.hamt != null) {
      this.hamt.root.prefix = prefix
      this.hamt.root.invalidate()
    }
    this.cached = undefined
  }

  /** data of a new basic directory: EmptyDirNode or EmptyDirNodeWithStat */
  private statData (): Uint8Array {
    return encodeFsData({ type: DataType.Directory, blocksizes: [], mode: this.mode !== 0 ? this.mode : undefined, mtime: this.mtime })
  }

  private dataFieldSize (): number {
    return dataFieldSize(unixfsSize({ type: DataType.Directory, mode: this.mode !== 0 ? this.mode : undefined, mtime: this.mtime }))
  }

  private linkSize (name: string, l: Pick<Link, 'cid' | 'tsize'>): number {
    switch (this.settings.estimation) {
      case 'block': return linkSerializedSize(nameLen(name), l.cid.bytes.length, l.tsize)
      case 'links': return linkBytes(name, l)
      default: return 0
    }
  }

  /** computeEstimatedSizeAndTotalLinks */
  private recompute (): void {
    const b = this.basic as BasicState
    b.estimated = this.settings.estimation === 'block' ? this.dataFieldSize() : 0
    b.total = 0
    for (const [name, l] of b.links) {
      b.estimated += this.linkSize(name, l)
      b.total++
    }
  }

  async find (io: BlockIO, name: string): Promise<Link | undefined> {
    if (this.basic != null) return this.basic.links.get(name)
    return await (this.hamt as HamtState).root.find(io, name)
  }

  /** Entries in directory order (name order for a basic directory, shard order for a HAMT). */
  async * links (io: BlockIO): AsyncGenerator<Link> {
    if (this.basic != null) {
      yield * [...this.basic.links.values()].sort((a, b) => compareNames(a.name, b.name))
      return
    }
    yield * (this.hamt as HamtState).root.walk(io)
  }

  get threshold (): number { return this.settings.threshold }

  // --- basic directory -----------------------------------------------------------------------

  private needsToSwitchToHamt (name: string, link: Link): boolean {
    const b = this.basic as BasicState
    if (this.threshold === 0) return false
    const old = b.links.get(name)
    const maxExceeded = old == null && this.settings.maxLinks > 0 && b.total + 1 > this.settings.maxLinks
    switch (this.settings.estimation) {
      case 'disabled': return maxExceeded
      case 'block': {
        const est = b.estimated - (old != null ? this.linkSize(name, old) : 0) + this.linkSize(name, link)
        return est > this.threshold || maxExceeded
      }
      default: {
        const change = -(old != null ? linkBytes(name, old) : 0) + linkBytes(name, link)
        return b.estimated + change > this.threshold || maxExceeded
      }
    }
  }

  private basicRemove (name: string): void {
    const b = this.basic as BasicState
    const old = b.links.get(name)
    if (old == null) throw new NotExistError()
    b.estimated -= this.linkSize(name, old)
    b.total--
    b.links.delete(name)
    if (b.estimated < 0) this.recompute()
  }

  private basicAdd (name: string, link: Link): void {
    const b = this.basic as BasicState
    if (b.links.has(name)) {
      this.basicRemove(name)
    } else if (this.settings.maxLinks > 0 && b.total + 1 > this.settings.maxLinks) {
      throw new MfsError('BasicDirectory: cannot add child: maxLinks reached')
    }
    b.links.set(name, { ...link, name })
    b.estimated += this.linkSize(name, link)
    b.total++
  }

  private async switchToSharding (io: BlockIO): Promise<void> {
    const b = this.basic as BasicState
    const fanout = validShardWidth(this.settings.fanout) ? this.settings.fanout : DEFAULT_SHARD_WIDTH
    const root = new Shard(fanout, this.prefix)
    root.mode = this.mode
    root.mtime = this.mtime
    for (const [name, l] of b.links) await root.set(io, name, l)
    this.hamt = { root, sizeChange: 0, total: b.links.size }
    this.basic = undefined
  }

  // --- HAMT ----------------------------------------------------------------------------------

  private hamtLinkSize (name: string, l: Pick<Link, 'cid' | 'tsize'>): number {
    return this.settings.estimation === 'block'
      ? linkSerializedSize(nameLen(name), l.cid.bytes.length, l.tsize)
      : linkBytes(name, l)
  }

  /** the name a stored value's link carries (the bucket prefix plus the key) */
  private storedName (key: string): string {
    return 'x'.repeat((this.hamt as HamtState).root.padLen) + key
  }

  private async needsToSwitchToBasic (io: BlockIO, name: string, link: Link | undefined): Promise<boolean> {
    const h = this.hamt as HamtState
    if (this.threshold === 0) return false
    const old = await h.root.find(io, name)
    let total = h.total
    if (link != null) total++
    if (old != null) total--
    const { maxLinks } = this.settings
    const canMaxLinks = !(maxLinks > 0 && total > maxLinks)
    if (this.settings.estimation === 'disabled') return canMaxLinks && maxLinks > 0 && total <= maxLinks
    let change = 0
    if (old != null) change -= this.hamtLinkSize(this.storedName(name), old)
    // ipld.MakeLink gives the new link no name
    if (link != null) change += this.hamtLinkSize('', link)
    if (h.sizeChange + change >= 0) return false
    return await this.sizeBelowThreshold(io, change) && canMaxLinks
  }

  private async sizeBelowThreshold (io: BlockIO, change: number): Promise<boolean> {
    let partial = this.settings.estimation === 'block' ? this.dataFieldSize() : 0
    for await (const l of (this.hamt as HamtState).root.walk(io)) {
      partial += this.hamtLinkSize(l.name, l)
      if (partial + change > this.threshold) return false
    }
    return true
  }

  private async switchToBasic (io: BlockIO, maxLinks: number): Promise<UnixfsDir> {
    const d = UnixfsDir.empty(this.prefix, { ...this.settings, maxLinks }, this.mode, this.mtime)
    for await (const l of (this.hamt as HamtState).root.walk(io)) d.basicAdd(l.name, l)
    return d
  }

  private adopt (d: UnixfsDir): void {
    this.basic = d.basic
    this.hamt = d.hamt
    this.settings = d.settings
  }

  private async hamtAdd (io: BlockIO, name: string, link: Link): Promise<void> {
    const h = this.hamt as HamtState
    const old = await h.root.set(io, name, link)
    if (old != null) h.sizeChange -= linkBytes(this.storedName(name), old)
    h.sizeChange += linkBytes(name, link)
    if (old == null) h.total++
  }

  // --- the Directory interface ----------------------------------------------------------------

  /** AddChild: add or replace an entry. */
  async addChild (io: BlockIO, name: string, link: Link): Promise<void> {
    this.cached = undefined
    if (this.hamt != null) {
      if (await this.needsToSwitchToBasic(io, name, link)) {
        const d = await this.switchToBasic(io, this.settings.maxLinks)
        d.basicAdd(name, link)
        this.adopt(d)
        return
      }
      await this.hamtAdd(io, name, link)
      return
    }
    if (!this.needsToSwitchToHamt(name, link)) {
      this.basicAdd(name, link)
      return
    }
    await this.switchToSharding(io)
    await this.hamtAdd(io, name, link)
  }

  /** RemoveChild: fails with `file does not exist` for a missing entry. */
  async removeChild (io: BlockIO, name: string): Promise<void> {
    if (this.hamt == null) {
      this.basicRemove(name)
      this.cached = undefined
      return
    }
    const h = this.hamt
    if (!await this.needsToSwitchToBasic(io, name, undefined)) {
      const old = await h.root.take(io, name)
      if (old == null) throw new NotExistError()
      h.sizeChange -= linkBytes(this.storedName(name), old)
      h.total--
      this.cached = undefined
      return
    }
    let maxLinks = this.settings.maxLinks
    if (maxLinks > 0) maxLinks++
    const d = await this.switchToBasic(io, maxLinks)
    d.basicRemove(name)
    if (maxLinks > 0) d.settings.maxLinks--
    this.adopt(d)
    this.cached = undefined
  }

  /** SetStat: a mode and/or mtime for the directory (affects a HAMT's root node). */
  setStat (mode: number, mtime?: UnixTime): void {
    if (mode > 0) this.mode = mode & 0xfff
    if (mtime != null) this.mtime = mtime
    if (this.hamt != null) {
      this.hamt.root.mode = this.mode
      this.hamt.root.mtime = this.mtime
      this.hamt.root.invalidate()
      this.cached = undefined
    } else {
      this.recompute()
    }
  }

  /** GetNode: the directory's node, stored. */
  async node (io: BlockIO): Promise<PbNode> {
    if (this.cached != null) return this.cached
    let node: PbNode
    if (this.hamt != null) {
      node = await this.hamt.root.node(io)
    } else {
      const b = this.basic as BasicState
      node = new PbNode(this.prefix, b.data, [...b.links.values()])
      await io.putNode(node)
    }
    this.cached = node
    return node
  }
}
