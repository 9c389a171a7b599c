// mount (no FUSE: Kubo's nofuse answers) and update (Kubo's external ipfs-update) through the registry.
import { expect } from 'chai'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { mountPlugin } from '../../../plugins/mount/index.js'
import { updatePlugin } from '../../../plugins/update/index.js'
import { defaultConfig } from '../../../core/config/defaults.js'
import { generateIdentity, identityOf } from '../../../core/repo/index.js'

const text = async (out: Promise<Buffer> | Buffer): Promise<string> => Buffer.from(await out).toString()

describe('mount and update plugins', () => {
  describe('mount', () => {
    it('offline: Kubo’s not-online error (observed from Kubo 0.40.1 `ipfs mount`)', async () => {
      const node = await createTestNode({ plugins: [mountPlugin()] })
      try {
        const err = await rejection(node.invoke('mount', { options: { f: '/tmp/x' } }))
        expect(err.message).to.equal("this command must be run in online mode. Try running 'ipfs daemon' first")
        expect(node.registry.status(['mount'])).to.equal('experimental')
        const opts = node.registry.tree().Subcommands.find(c => c.Name === 'mount')?.Options
        expect(opts).to.deep.equal([{ Names: ['ipfs-path', 'f'] }, { Names: ['ipns-path', 'n'] }, { Names: ['mfs-path', 'm'] }])
      } finally { await node.stop() }
    })

    it('online: Kubo’s nofuse error', async function () {
      this.timeout(30_000)
      const cfg = defaultConfig(identityOf(await generateIdentity()))
      ;(cfg.Addresses as Record<string, unknown>).Swarm = ['/ip4/127.0.0.1/tcp/0']
      cfg.Bootstrap = []
      ;(cfg.Routing as Record<string, unknown>).DelegatedRouters = []
      const node = await createTestNode({ plugins: [mountPlugin()], online: true, config: cfg })
      try {
        expect((await rejection(node.invoke('mount'))).message).to.equal('not compiled in')
      } finally { await node.stop() }
    })
  })

  describe('update', () => {
    let node: TestNode
    let dir: string
    const savedPath = process.env.PATH
    before(async () => {
      node = await createTestNode({ plugins: [updatePlugin()] })
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-update-'))
    })
    after(async () => {
      process.env.PATH = savedPath
      await node.stop()
      await fs.rm(dir, { recursive: true, force: true })
    })

    it('without ipfs-update in $PATH: Kubo’s error, and its --help text', async () => {
      process.env.PATH = dir
      expect((await rejection(node.invoke('update', { args: ['check'] }))).message).to.equal('ipfs-update not installed')
      expect(await text(node.invoke('update', { args: ['--help'] }))).to.equal(
        "ipfs-update is an 'external' command.\nIt does not currently appear to be installed.\nPlease see https://github.com/ipfs/ipfs-update/blob/master/README.md#install for installation instructions.\n")
      expect(node.registry.resolveHttp(['update'])).to.equal(undefined)
    })

    it('runs ipfs-update from $PATH with the arguments; its exit status fails the command', async () => {
      const bin = path.join(dir, 'ipfs-update')
      await fs.writeFile(bin, '#!/bin/sh\necho "args: $*"\necho oops >&2\n[ "$1" = fail ] && exit 3\nexit 0\n', { mode: 0o755 })
      process.env.PATH = dir + path.delimiter + (savedPath ?? '')
      const out = await text(node.invoke('update', { args: ['versions', '-n', '2'] }))
      expect(out.split('\n').sort()).to.deep.equal(['', 'args: versions -n 2', 'oops'])
      expect((await rejection(node.invoke('update', { args: ['fail'] }))).message).to.equal('exit status 3')
    })
  })
})
