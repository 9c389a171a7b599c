// The repo's datastore spec and lock as Kubo reads them: datastore_spec is Kubo's DiskSpec of Datastore.Spec,
// a spec that disagrees with it or that tsipfs cannot run (pebbleds, badgerds) is refused before anything is
// written, and repo.lock is a real (fcntl) lock: a second holder is refused while the first holds it.
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { checkDatastoreSpec, diskSpecText, storesOf } from '../../../core/repo/spec.js'
import { acquireLock, repoLocked } from '../../../core/repo/lock.js'
import { initRepo, readRepoConfig } from '../../../core/repo/index.js'
import { DATASTORE_SPEC_FILE, defaultConfig } from '../../../core/config/defaults.js'
import { applyProfiles } from '../../../core/config/profiles.js'

use(chaiAsPromised)

const configWith = (profile?: string): ReturnType<typeof defaultConfig> => {
  const cfg = defaultConfig({ PeerID: 'x', PrivKey: '' })
  if (profile != null) applyProfiles(cfg, profile)
  return cfg
}

describe('repo: datastore spec and lock (Kubo fsrepo)', () => {
  let dir: string
  beforeEach(async () => { dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-spec-')) })
  afterEach(async () => { await fs.rm(dir, { recursive: true, force: true }) })

  it('datastore_spec is Kubo\'s disk spec: the same for the default, flatfs and flatfs-measure specs', () => {
    expect(diskSpecText(configWith())).to.equal(DATASTORE_SPEC_FILE)
    expect(diskSpecText(configWith('flatfs'))).to.equal(DATASTORE_SPEC_FILE)
    expect(diskSpecText(configWith('flatfs-measure'))).to.equal(DATASTORE_SPEC_FILE)
    expect(diskSpecText(configWith('pebbleds'))).to.equal('{"path":"pebbleds","type":"pebbleds"}')
    expect(storesOf('/r', configWith('flatfs-measure'))).to.deep.equal({ blocks: '/r/blocks', datastore: '/r/datastore' })
  })

  it('refuses pebbleds and badgerds specs, and init with them writes nothing', async () => {
    for (const p of ['pebbleds', 'badgerds', 'pebbleds-measure']) {
      expect(() => storesOf(dir, configWith(p))).to.throw(/unsupported datastore type "(pebbleds|badgerds)": tsipfs opens flatfs \+ levelds repos/)
      await expect(initRepo(path.join(dir, p), { profile: p })).to.be.rejectedWith(/unsupported datastore type/)
      expect(await fs.readdir(dir)).to.not.include(p)
    }
  })

  it('a spec that differs from datastore_spec fails with Kubo\'s error; a missing datastore_spec is written', async () => {
    const repo = path.join(dir, 'r')
    await initRepo(repo, { profile: 'test' })
    const cfg = await readRepoConfig(repo)
    applyProfiles(cfg, 'pebbleds')
    await expect(checkDatastoreSpec(repo, cfg)).to.be.rejectedWith(`datastore configuration of '${DATASTORE_SPEC_FILE}' does not match what is on disk '{"path":"pebbleds","type":"pebbleds"}'`)
    await fs.rm(path.join(repo, 'datastore_spec'))
    const stores = await checkDatastoreSpec(repo, await readRepoConfig(repo))
    expect(stores.blocks).to.equal(path.join(repo, 'blocks'))
    expect(await fs.readFile(path.join(repo, 'datastore_spec'), 'utf8')).to.equal(DATASTORE_SPEC_FILE)
  })

  it('init marks blocks/ TOPDIR (chattr +T: shard folders spread over block groups), where the filesystem has the flag', async function () {
    const { spawnSync } = await import('node:child_process')
    const flags = (p: string): string => { const r = spawnSync('lsattr', ['-d', p], { encoding: 'utf8' }); return r.status === 0 ? r.stdout.split(' ')[0] : '' }
    const probe = path.join(dir, 'probe')
    await fs.mkdir(probe)
    spawnSync('chattr', ['+T', probe])
    if (!flags(probe).includes('T')) this.skip() // no lsattr/chattr or no such flag here
    const repo = path.join(dir, 'r')
    await initRepo(repo, { profile: 'test' })
    expect(flags(path.join(repo, 'blocks'))).to.include('T')
    expect(flags(path.join(repo, 'datastore'))).to.not.include('T')
  })

  it('repo.lock is held while open, refused to a second opener, empty (as Kubo needs it) and removed on release', async () => {
    expect(await repoLocked(dir)).to.equal(false)
    const lock = await acquireLock(dir)
    expect(await repoLocked(dir)).to.equal(true)
    expect(await fs.readFile(path.join(dir, 'repo.lock'), 'utf8')).to.equal('')
    await expect(acquireLock(dir)).to.be.rejectedWith(`lock ${path.join(dir, 'repo.lock')}: someone else has the lock`)
    await lock.release()
    expect(await repoLocked(dir)).to.equal(false)
    await fs.writeFile(path.join(dir, 'repo.lock'), '2147483646') // left by a crashed older tsipfs
    const again = await acquireLock(dir)
    expect(await fs.readFile(path.join(dir, 'repo.lock'), 'utf8')).to.equal('')
    await again.release()
  })
})
