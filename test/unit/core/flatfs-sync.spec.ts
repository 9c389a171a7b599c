// Datastore.Spec's flatfs `sync` is honoured: tsipfs's init writes `true` (durable), a Kubo-made spec
// (`sync: false`) turns the fsyncs off, as in Kubo.
import { expect } from 'chai'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { flatfsSync, FlatfsBlockstore } from '../../../core/blockstore/flatfs.js'
import { DEFAULT_DATASTORE_SPEC } from '../../../core/config/defaults.js'
import { applyProfiles } from '../../../core/config/profiles.js'
import { initRepo } from '../../../core/repo/index.js'
import { createCoreContainer } from '../../../core/container.js'
import type { NodeBlockstore } from '../../../core/blockstore/index.js'
import { Registry } from '../../../registry/registry.js'

const flatfs = (sync?: unknown): Record<string, unknown> => ({ mountpoint: '/blocks', path: 'blocks', shardFunc: '/repo/flatfs/shard/v1/next-to-last/2', type: 'flatfs', ...(sync === undefined ? {} : { sync }) })
const level = { mountpoint: '/', path: 'datastore', type: 'levelds' }

describe('flatfs sync from Datastore.Spec', () => {
  it('reads the flatfs mount through mount, measure and log wrappers', () => {
    expect(flatfsSync({ type: 'mount', mounts: [flatfs(false), level] })).to.equal(false)
    expect(flatfsSync({ type: 'mount', mounts: [level, flatfs(true)] })).to.equal(true)
    expect(flatfsSync({ type: 'mount', mounts: [{ type: 'measure', prefix: 'flatfs.datastore', child: flatfs(false) }, level] })).to.equal(false)
    expect(flatfsSync({ type: 'log', child: { type: 'mount', mounts: [flatfs(false)] } })).to.equal(false)
  })

  it('stays durable unless the spec says sync: false', () => {
    expect(flatfsSync(undefined)).to.equal(true)
    expect(flatfsSync({ type: 'mount', mounts: [flatfs(), level] })).to.equal(true)
    expect(flatfsSync({ type: 'mount', mounts: [flatfs('false'), level] })).to.equal(true)
    expect(flatfsSync({ type: 'mount', mounts: [level] })).to.equal(true)
  })

  it('tsipfs init is durable; the flatfs profile writes Kubo\'s sync: false', () => {
    expect(flatfsSync(DEFAULT_DATASTORE_SPEC)).to.equal(true)
    const cfg: Record<string, any> = { Datastore: { Spec: structuredClone(DEFAULT_DATASTORE_SPEC) } }
    applyProfiles(cfg, 'flatfs')
    expect(flatfsSync(cfg.Datastore.Spec)).to.equal(false)
  })

  describe('on a repo', () => {
    let dir: string
    beforeEach(async () => { dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-flatfs-sync-')) })
    afterEach(async () => { await fs.rm(dir, { recursive: true, force: true }) })

    const storeOf = async (): Promise<boolean> => {
      const core = await createCoreContainer({ repoPath: dir, registry: new Registry() })
      try {
        const inner = (core.container.cradle.blockstore as NodeBlockstore).inner
        expect(inner).to.be.instanceOf(FlatfsBlockstore)
        return (inner as FlatfsBlockstore).durable
      } finally {
        await core.close()
      }
    }

    it('opens the blockstore with the config\'s sync', async () => {
      const { config } = await initRepo(dir)
      expect(flatfsSync((config.Datastore as any).Spec)).to.equal(true)
      expect(await storeOf()).to.equal(true)
      const file = path.join(dir, 'config')
      const saved = JSON.parse(await fs.readFile(file, 'utf8'))
      saved.Datastore.Spec.mounts[0].sync = false
      await fs.writeFile(file, JSON.stringify(saved))
      expect(await storeOf()).to.equal(false)
    })
  })
})
