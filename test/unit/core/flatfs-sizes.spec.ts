import { expect } from 'chai'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { BlockSizes } from '../../../core/blockstore/flatfs-sizes.js'
import { FlatfsBlockstore, blockKey } from '../../../core/blockstore/flatfs.js'
import { storageUsage } from '../../../core/gc/usage.js'

describe('core/blockstore/flatfs-sizes (repo stat without a stat per known block, issue 15)', () => {
  it('BlockSizes: remembers each name\'s size, knows no other name, grows', () => {
    const t = new BlockSizes()
    const names = Array.from({ length: 50_000 }, () => 'CIQ' + randomBytes(24).toString('hex').toUpperCase())
    names.forEach((n, i) => t.set(n, i * 7))
    expect(t.size).to.equal(names.length)
    names.forEach((n, i) => expect(t.get(n)).to.equal(i * 7))
    for (let i = 0; i < 1000; i++) expect(t.get('CIQ' + randomBytes(24).toString('hex').toUpperCase())).to.equal(undefined)
    // a name followed by '.data': only its first `end` characters count
    expect(t.get(names[5] + '.data', names[5].length)).to.equal(35)
    t.set(names[5], 1)
    expect(t.get(names[5])).to.equal(1)
    expect(t.size).to.equal(names.length)
  })

  it('BlockSizes: its table stays within 48 MiB however many names come (names past the cap are not kept)', function () {
    this.timeout(60_000)
    const t = new BlockSizes()
    for (let i = 0; i < 3_300_000; i++) t.set('K' + String(i), i & 1023)
    expect(t.bytes).to.be.at.most(48 * 1024 * 1024)
    expect(t.get('K0')).to.equal(0)
    expect(t.get('K3299999')).to.equal(undefined)
  })

  it('repo stat over flatfs: the same size and count whether the store wrote the blocks, another did, or blocks came and went behind it', async () => {
    const repo = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-sizes-'))
    const dir = path.join(repo, 'blocks')
    const store = new FlatfsBlockstore(dir, { sync: false })
    await store.open()
    try {
      const cids: CID[] = []
      for (let i = 0; i < 300; i++) {
        const bytes = randomBytes(1 + (i * 37) % 3000)
        const cid = CID.createV1(0x55, await sha256.digest(bytes))
        await store.put(cid, bytes)
        cids.push(cid)
      }
      const first = await storageUsage(repo, store)
      expect(first.blocks).to.equal(300)
      // a fresh store (nothing known: every file stat'ed) agrees, and learns the sizes
      const other = new FlatfsBlockstore(dir, { sync: false })
      await other.open()
      expect(other.sizes.size).to.equal(0)
      expect(await storageUsage(repo, other)).to.deep.equal(first)
      expect(other.sizes.size).to.equal(300)
      await other.close()
      // behind the store's back: one block file removed, one written by hand (another process)
      await fs.unlink(store.fileOf(cids[0]))
      const extra = randomBytes(5000)
      const extraCid = CID.createV1(0x55, await sha256.digest(extra))
      await fs.mkdir(path.dirname(store.fileOf(extraCid)), { recursive: true })
      await fs.writeFile(store.fileOf(extraCid), extra)
      const after = await storageUsage(repo, store)
      expect(after.blocks).to.equal(300)
      const fresh = new FlatfsBlockstore(dir, { sync: false })
      await fresh.open()
      expect(await storageUsage(repo, fresh)).to.deep.equal(after)
      await fresh.close()
      expect(store.sizes.get(blockKey(extraCid))).to.equal(5000)
    } finally {
      await store.close()
      await fs.rm(repo, { recursive: true, force: true })
    }
  })
})
