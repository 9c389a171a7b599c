// Key names are opaque text, as in Kubo 0.40 (checked against its binary: `key gen` takes "a/b", "..",
// "../x", ".x", "a\x00b" and lists them back): each key file is `key_<base32 of the name>`, so no name
// reaches outside the keystore. Only "", "self" and existing names are refused, with Kubo's texts.
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { keyPlugin } from '../../../plugins/key/index.js'
import { initRepo } from '../../../core/repo/index.js'

use(chaiAsPromised)

describe('keystore: hostile key names', () => {
  let dir: string
  let node: TestNode
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-keynames-'))
    await initRepo(path.join(dir, 'repo'), { profile: 'test' })
    node = await createTestNode({ plugins: [keyPlugin()], repoPath: path.join(dir, 'repo') })
  })
  after(async () => {
    await node?.stop()
    await fs.rm(dir, { recursive: true, force: true })
  })

  const names = ['a/b', '..', '../x', '../../escape', '.x', 'a\u0000b', '/abs', 'key_x']
  it('stores names with "/", "..", NUL as opaque text inside the keystore', async () => {
    for (const name of names) {
      const out = await node.invoke('key/gen', { args: [name] }) as { Name: string }
      expect(out.Name).to.equal(name)
    }
    const listed = (await node.invoke('key/ls', {}) as { Keys: Array<{ Name: string }> }).Keys.map(k => k.Name)
    expect(listed).to.include.members(names)
    // every file stays in keystore/, named key_<base32>
    const files = await fs.readdir(path.join(dir, 'repo', 'keystore'))
    expect(files.every(f => /^key_[a-z2-7]+$/.test(f))).to.equal(true)
    expect(files.length).to.equal(names.length)
    expect(await fs.readdir(dir)).to.deep.equal(['repo'])
    // rename and remove through the same encoding
    await node.invoke('key/rename', { args: ['../x', 'c\u0000d'] })
    await node.invoke('key/rm', { args: ['c\u0000d', '../../escape'] })
    expect((await fs.readdir(path.join(dir, 'repo', 'keystore'))).length).to.equal(names.length - 2)
  })

  it('refuses what Kubo refuses, with its texts', async () => {
    await expect(node.invoke('key/gen', { args: [''] })).to.be.rejectedWith('key name must be at least one character')
    await expect(node.invoke('key/gen', { args: ['self'] })).to.be.rejectedWith("cannot create key with name 'self'")
    await expect(node.invoke('key/gen', { args: ['..'] })).to.be.rejectedWith("key with name '..' already exists")
  })
})
