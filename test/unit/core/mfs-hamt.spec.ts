// core/mfs/hamt.ts: a walk that ends early leaves its child shard loads running; one finishing after a
// change of that child shard (under the MFS mutex, once the walk let go of it) must not put the old
// contents back (2c0af1f stored them in the tree; 4b27d36 keeps the walk's loads out of it).
import { expect } from 'chai'
import { MemoryBlockstore } from 'blockstore-core'
import type { CID } from 'multiformats/cid'
import { BlockIO } from '../../../core/mfs/blocks.js'
import { Shard, hamtHash } from '../../../core/mfs/hamt.js'
import type { DagNode, Link, PbNode } from '../../../core/mfs/node.js'
import { buildHamt, type DirEntry } from '../../../core/unixfs/dir.js'
import { cidBuilder, encodeDataBlock, DataType } from '../../../core/unixfs/pb.js'
import { hashByName } from '../../../core/hashes.js'

const sha256 = hashByName('sha2-256') as NonNullable<ReturnType<typeof hashByName>>

/** While `gating`, the first read of each CID waits until the test lets it go (or fails it); other reads go through. */
class GatedIO extends BlockIO {
  gating = true
  readonly held = new Map<string, { go: () => void, fail: (err: Error) => void }>()
  private readonly seen = new Set<string>()
  override async getNode (cid: CID, signal?: AbortSignal, errOther?: string): Promise<DagNode> {
    const key = cid.toString()
    if (this.gating && !this.seen.has(key)) {
      this.seen.add(key)
      await new Promise<void>((resolve, reject) => { this.held.set(key, { go: resolve, fail: reject }) })
    }
    return await super.getNode(cid, signal, errOther)
  }
}

describe('core/mfs HAMT shard', () => {
  it('a child shard load left over by a walk that failed does not undo a later change of that shard', async () => {
    const blockstore = new MemoryBlockstore()
    const build = cidBuilder({ cidVersion: 0, hash: sha256 })
    const file = encodeDataBlock({ type: DataType.File, data: Buffer.from('x'), fileSize: 1 })
    const fileCid = build(file, 0x70)
    const entries: DirEntry[] = Array.from({ length: 300 }, (_, i) => ({ name: `f${i}`, nameBytes: Buffer.from(`f${i}`), cid: fileCid, size: file.length }))
    const built = await buildHamt(entries, undefined, { build, put: async (cid, bytes) => { await blockstore.put(cid, bytes) }, maxLinks: 0, fanout: 16, threshold: 1, estimation: 'links' })
    const io = new GatedIO(blockstore)
    const rootNode = await new BlockIO(blockstore).getNode(built.cid) as PbNode
    const root = Shard.fromNode(rootNode)
    const links = [...root.children.entries()].filter(([, c]) => c.kind === 'link').map(([idx]) => idx).sort((a, b) => a - b)
    expect(links.length).to.be.above(2)
    const [first, , later] = links

    // the walk starts every root child load, then fails on the first one it reaches
    const walking = (async () => { for await (const _ of root.walk(io)) { /* listing */ } })()
    for (let i = 0; i < 5 && io.held.size < links.length; i++) await new Promise(resolve => setImmediate(resolve))
    expect(io.held.size).to.equal(links.length)
    io.gating = false
    const cidAt = (idx: number): string => rootNode.links.find(l => l.name === idx.toString(16).toUpperCase())?.cid.toString() as string
    io.held.get(cidAt(first))?.fail(new Error('block not found'))
    let failed: unknown
    try { await walking } catch (err) { failed = err }
    expect((failed as Error)?.message).to.equal('block not found')

    // a change that lands in a child shard whose left-over load is still out
    let name = ''
    for (let i = 0; name === ''; i++) if ((hamtHash(`new${i}`)[0] >> 4) === later) name = `new${i}`
    const link: Link = { name, cid: fileCid, tsize: file.length }
    await root.set(io, name, link)
    expect((await root.find(io, name))?.cid.toString()).to.equal(fileCid.toString())

    // the left-over load finishes
    io.held.get(cidAt(later))?.go()
    for (let i = 0; i < 5; i++) await new Promise(resolve => setImmediate(resolve))
    expect((await root.find(io, name))?.name).to.equal(name)
    const names: string[] = []
    for (const h of io.held.values()) h.go()
    for await (const l of root.walk(io)) names.push(l.name)
    expect(names).to.include(name)
    expect(names).to.have.length(301)
  })
})
