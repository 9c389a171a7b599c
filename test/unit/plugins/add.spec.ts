// ipfs add through the registry with in-memory stores: Kubo's CID vectors (behaviour.md §3.1, §3.2,
// t0047 mode/mtime), option precedence against Import.*, errors, pins, row order and shapes.
import { Writable } from 'node:stream'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { addAdd } from '../../../plugins/add/add.js'
import { escNonPrint, goText, renderAdd } from '../../../plugins/add/render.js'
import type { AddOutput } from '../../../plugins/add/output.js'
import { execute } from '../../../registry/execute.js'
import { collectFiles } from '../../../server/cli-files.js'
import type { FileEntry } from '../../../registry/types.js'

use(chaiAsPromised)

interface E {
  path: string
  /** omitted with no type: a directory */
  content?: string | Uint8Array
  type?: FileEntry['type']
  target?: string
  mode?: number
  mtime?: { secs: number, nsecs?: number }
}

const file = (p: string, content: string | Uint8Array, extra: Partial<E> = {}): E => ({ path: p, content, ...extra })
const dir = (p: string, extra: Partial<E> = {}): E => ({ path: p, type: 'directory', ...extra })
const link = (p: string, target: string, extra: Partial<E> = {}): E => ({ path: p, type: 'symlink', target, ...extra })

async function * entries (list: E[]): AsyncGenerator<FileEntry> {
  for (const e of list) {
    const type = e.type ?? (e.content === undefined ? 'directory' : 'file')
    const out: FileEntry = { path: e.path, type }
    if (type === 'file') {
      const bytes = typeof e.content === 'string' ? Buffer.from(e.content) : e.content ?? new Uint8Array()
      out.content = (async function * () { if (bytes.length > 0) yield bytes })()
    }
    if (e.target !== undefined) out.target = e.target
    if (e.mode !== undefined) out.mode = e.mode
    if (e.mtime !== undefined) out.mtime = e.mtime
    yield out
  }
}

describe('plugins/add', function () {
  this.timeout(30_000)
  let node: TestNode

  const add = async (list: E[], options: Record<string, unknown> = {}): Promise<AddOutput[]> =>
    await node.invoke('add', { files: entries(list), options })
  /** the Hash of the row named `name` */
  const hashOf = (rows: AddOutput[], name: string): string | undefined => rows.find(r => r.Name === name && r.Hash != null)?.Hash
  const root = (rows: AddOutput[]): string | undefined => rows.filter(r => r.Hash != null).at(-1)?.Hash
  const stdin = async (content: string | Uint8Array, options: Record<string, unknown> = {}): Promise<string | undefined> =>
    root(await add([file('', content)], options))
  const setImport = async (values: Record<string, unknown>): Promise<void> => {
    for (const [k, v] of Object.entries(values)) await node.container.cradle.config.setKey(`Import.${k}`, v as never)
  }
  const resetImport = async (): Promise<void> => {
    for (const k of ['CidVersion', 'UnixFSRawLeaves', 'UnixFSChunker', 'HashFunction', 'UnixFSFileMaxLinks', 'UnixFSDirectoryMaxLinks', 'UnixFSHAMTDirectoryMaxFanout', 'UnixFSHAMTDirectorySizeThreshold', 'UnixFSHAMTDirectorySizeEstimation', 'UnixFSDAGLayout']) {
      await node.container.cradle.config.setKey(`Import.${k}`, null)
    }
  }

  before(async () => { node = await createTestNode({ plugins: [addPlugin()] }) })
  after(async () => { await node.stop() })
  afterEach(resetImport)

  describe('§3.1 fixed strings', () => {
    const hw = 'hello world'
    it('hello world, default', async () => {
      expect(await stdin(hw)).to.equal('Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD')
    })
    it('Import.CidVersion=1 (raw leaves)', async () => {
      await setImport({ CidVersion: 1 })
      expect(await stdin(hw)).to.equal('bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e')
    })
    it('Import.CidVersion=1 with Import.UnixFSRawLeaves=false', async () => {
      await setImport({ CidVersion: 1, UnixFSRawLeaves: false })
      expect(await stdin(hw)).to.equal('bafybeihykld7uyxzogax6vgyvag42y7464eywpf55gxi5qpoisibh3c5wa')
    })
    it('Import.HashFunction=sha2-512', async () => {
      await setImport({ HashFunction: 'sha2-512' })
      expect(await stdin(hw)).to.equal('bafkrgqbqt3gerhas23vuzrapkdeqf4vu2dwxp3srdj6hvg6nhsug2tgyn6mj3u23yx7utftq3i2ckw2fwdh5qmhid5qf3t35yvkc5e5ottlw6')
    })
    it('the --cid-version flag wins over Import.CidVersion', async () => {
      await setImport({ CidVersion: 1 })
      expect(await stdin(hw, { 'cid-version': 0 })).to.equal('Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD')
    })
    it('flags are coerced from query strings', async () => {
      const rows = await node.invoke('add', { files: entries([file('', hw)]), query: [['cid-version', ['1']], ['raw-leaves', ['false']]] })
      expect(root(rows)).to.equal('bafybeihykld7uyxzogax6vgyvag42y7464eywpf55gxi5qpoisibh3c5wa')
    })
    const vectors: Array<[string, Record<string, unknown>, string]> = [
      ['--hash=blake2b-256', { hash: 'blake2b-256' }, 'bafk2bzaceaswza5ss4iu2ia3galz6pyo6dfm5f4dmiw2lf2de22dmf4k533ba'],
      ['--hash=sha3-512', { hash: 'sha3-512' }, 'bafkriqeeaadgkpu2zhuvcf5blsivzkvyczrjdduslxu6abhxot7yfvyhtjanjut3dm3smv6gdvdni4bqjsempcfturjhvudu2homx3s5xkuzu'],
      ['--trickle', { trickle: true }, 'QmRa57sp5M1iouDtNoZscfeHi73JZFxsHpuqvNEug7zmq2'],
      ['--trickle --cid-version=1', { trickle: true, 'cid-version': 1 }, 'bafybeihcowtb7l7r3l7ydvxunav2vyv24s5m6tm44oplsoinw3wqztigvy'],
      ['--inline --raw-leaves', { inline: true, 'raw-leaves': true }, 'bafkqac3imvwgy3zao5xxe3de'],
      ['--inline', { inline: true }, 'bafyaaeykceeaeeqlnbswy3dpeb3w64tmmqmaw']
    ]
    for (const [label, options, expected] of vectors) {
      it(`hello world ${label}`, async () => { expect(await stdin(hw, options)).to.equal(expected) })
    }
    it('-w --stdin-name hello.txt (wrapper root), v0 and v1', async () => {
      expect(root(await add([file('hello.txt', hw)], { 'wrap-with-directory': true }))).to.equal('QmNxvA5bwvPGgMXbmtyhxA1cKFdvQXnsGnZLCGor3AzYxJ')
      expect(root(await add([file('hello.txt', hw)], { w: true, 'cid-version': 1 }))).to.equal('bafybeic6svhkwl3y2wvkj33weshyjjs5cbvgijh7yo3kjasyglrdwe2l74')
    })
    it('x: default and unixfs-v1-2025', async () => {
      expect(await stdin('x')).to.equal('QmULKig5Fxrs2sC4qt9nNduucXfb92AFYQ6Hi3YRqDmrYC')
      await setImport({ CidVersion: 1, UnixFSRawLeaves: true, UnixFSChunker: 'size-1048576', UnixFSFileMaxLinks: 1024, UnixFSHAMTDirectorySizeEstimation: 'block' })
      expect(await stdin('x')).to.equal('bafkreibnoelefnzgwbcacyt4vh52ymxvzbjq7mmqhtcnwarfq4lzegsiqe')
    })
    it('Hello Worlds! with every single-chunk chunker and --only-hash', async () => {
      for (const options of [{}, { 'only-hash': true }, { chunker: 'rabin' }, { chunker: 'size-64' }, { s: 'rabin-36-512-1024' }, { chunker: 'buzhash' }]) {
        expect(root(await add([file('hello.txt', 'Hello Worlds!\n')], options)), JSON.stringify(options)).to.equal('QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH')
      }
      expect(root(await add([file('.hello.txt', 'Hello Worlds!\n')]))).to.equal('QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH')
      expect(root(await add([file('hello.txt', 'Hello Worlds!\n')], { t: true }))).to.equal('QmUkUQgxXeggyaD5Ckv8ZqfW8wHBX6cYyeiyqvVZYzq5Bi')
      expect(root(await add([file('hello.txt', 'Hello Worlds!\n')], { 'cid-version': 1 }))).to.equal('bafkreie6juq72qvxhoqf3xdkuysabhxf3wp2p6l5k2gsdsgtre6unpqkqu')
    })
    const strings: Array<[string, string]> = [
      ['Helloo Worlds!\n', 'Qmf35k66MZNW2GijohUmXQEWKZU4cCGTCwK6idfnt152wJ'],
      ['Hello Venus!\n', 'QmU5kp3BH3B8tnWUU2Pikdb2maksBNkb92FHRr56hyghh4'],
      ['Hello Jupiter!\n', 'QmUnvPcBctVTAcJpigv6KMqDvmDewksPWrNVoy1E1WP5fh'],
      ['', 'QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH'],
      ['foobar\n', 'QmRgutAxd8t7oGkSm4wmeuByG6M51wcTso6cubDdQtuEfL'],
      ['test\n', 'QmeomffUNfmQy76CQGy9NdmqEnnHU9soCexBnGU3ezPHVH'],
      ['foo\n', 'QmYNmQKp6SuaVrpgWRsPTgCQCnpxUYGq76YEKBXuj2N4H6'],
      ['bar\n', 'QmTz3oc4gdpRMKP2sdGUPZTAGRngqjsi99BPoztyP53JMM'],
      ['baz\n', 'QmWLdkp93sNxGRjnFHPaYg8tCQ35NBY3XPn6KiETd3Z4WR'],
      ['World\n', 'Qma9CyFdG5ffrZCcYSin2uAETygB25cswVwEYYzwfQuhTe']
    ]
    for (const [content, expected] of strings) {
      it(`${JSON.stringify(content)} → ${expected}`, async () => { expect(await stdin(content)).to.equal(expected) })
    }
    it('stdin without a name is named by its CID', async () => {
      const rows = await add([file('', 'Hello Neptune!\nHello Pluton!')])
      expect(rows).to.deep.equal([{ Name: 'QmZDhWpi8NvKrekaYYhxKCdNVGWsFFe1CREnAjP1QbPaB3', Hash: 'QmZDhWpi8NvKrekaYYhxKCdNVGWsFFe1CREnAjP1QbPaB3', Size: '36' }])
    })
    it('--stdin-name file.txt, and -w with it', async () => {
      const rows = await add([file('file.txt', 'IPFS\n')])
      expect(rows.map(r => [r.Name, r.Hash])).to.deep.equal([['file.txt', 'QmdFyxZXsFiP4csgfM5uPu99AvFiKH62CSPDw5TP92nr7w']])
      expect(root(await add([file('file.txt', 'IPFS\n')], { w: true, Q: true }))).to.equal('QmVcbNxL7X3Nhuasd12HHf6u7CKiMGQkULySx9JE5UXMGb')
    })
    it('--cid-base=base32 upgrades CIDv0 in the output', async () => {
      expect(await stdin('base32 test\n', { 'cid-base': 'base32' })).to.equal('bafybeibyosqxljd2eptb4ebbtvk7pb4aoxzqa6ttdsflty6rsslz5y6i34')
    })
    it('file1/file2 with --cid-version 1, and their directory', async () => {
      expect(await stdin('file1\n', { 'cid-version': 1 })).to.equal('bafkreihm3rktn5z33luic3youqdsn326toaq3ekesmdvsa53sbrd3f5r3a')
      expect(await stdin('file2\n', { 'cid-version': 1 })).to.equal('bafkreidh5zkhr2vnwa2luwmuj24xo6l3jhfgvkgtk5cyp43oxs7owzpxby')
      const rows = await add([dir('test'), file('test/mfs1.txt', 'file1\n'), file('test/mfs2.txt', 'file2\n')], { 'cid-version': 1 })
      expect(hashOf(rows, 'test')).to.equal('bafybeic7xwqwovt4g4bax6d3udp6222i63vj2rblpbim7uy2uw4a5gahha')
    })
    it('empty file variants', async () => {
      expect(await stdin('', { 'raw-leaves': true })).to.equal('bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku')
      expect(await stdin('', { 'cid-version': 1, 'raw-leaves': false })).to.equal('bafybeif7ztnhq65lumvvtr4ekcwd2ifwgm3awq4zfr3srh462rwyinlb4y')
      const rows = await add([file('example.jpg', '')], { w: true })
      expect(rows.map(r => [r.Name, r.Hash])).to.deep.equal([
        ['example.jpg', 'QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH'],
        ['', 'QmaG4FuMqEBnQNn3C8XJ5bpW8kLs7zq2ZXgHptJHbKDDVx']
      ])
    })
    it('foo with --cid-version=1 --raw-leaves=false, a hidden name, inline vectors, blake3', async () => {
      expect(await stdin('foo\n', { 'cid-version': 1, 'raw-leaves': false })).to.equal('bafybeievd6mwe6vcwnkwo3eizs3h7w3a34opszbyfxziqdxguhjw7imdve')
      expect(root(await add([file('.vimrc', 'set nocompatible\n')]))).to.equal('QmT4uMRDCN7EMpFeqwvKkboszbqeW1kWVGrBxBuCGqZcQc')
      expect(await stdin('jkD98jkD975hkD8\n', { inline: true, 'raw-leaves': true })).to.equal('bafkqaedknncdsodknncdsnzvnbvuioak')
      expect(await stdin('jkD98jkD975hkD8\n', { inline: true })).to.equal('bafyaagakcyeaeeqqnjvuiojynjvuiojxgvugwrbybimba')
      expect(await stdin('foo\n', { hash: 'blake3', 'raw-leaves': true })).to.equal('bafkr4icj3sdq34o6p7lapfgoxtset5om3lsxll72uz5cjnrkzmb6aoo3si')
    })
  })

  describe('§3.2 directories', () => {
    const planets = [dir('planets'), file('planets/mars.txt', 'Hello Mars!\n'), file('planets/venus.txt', 'Hello Venus!\n')]
    it('planets: default, rows in Kubo order', async () => {
      const rows = await add(planets)
      expect(rows.map(r => [r.Name, r.Hash])).to.deep.equal([
        ['planets/mars.txt', 'QmPrrHqJzto9m7SyiRzarwkqPcCSsKR2EB1AyqJfe8L8tN'],
        ['planets/venus.txt', 'QmU5kp3BH3B8tnWUU2Pikdb2maksBNkb92FHRr56hyghh4'],
        ['planets', 'QmWSgS32xQEcXMeqd3YPJLrNBLSdsfYCep2U7CFkyrjXwY']
      ])
    })
    it('planets: --raw-leaves keeps the directory CIDv0', async () => {
      const rows = await add(planets, { 'raw-leaves': true })
      expect(rows.map(r => r.Hash)).to.deep.equal(['bafkreibmlvvgdyihetgocpof6xk64kjjzdeq2e4c7hqs3krdheosk4tgj4', 'bafkreihfsphazrk2ilejpekyltjeh5k4yvwgjuwg26ueafohqioeo3sdca', 'QmfWfQfKCY5Ukv9peBbxM5vqWM9BzmqUSXvdCgjT2wsiBT'])
    })
    it('planets: --cid-version=1, with and without raw leaves, and blake2b-256', async () => {
      expect(root(await add(planets, { 'cid-version': 1 }))).to.equal('bafybeih7e5dmkyk25up5vxug4q3hrg2fxbzf23dfrac2fns5h7z4aa7ioi')
      expect((await add(planets, { 'cid-version': 1, 'raw-leaves': false })).map(r => r.Hash)).to.deep.equal([
        'bafybeiawta2ntdmsy24aro35w3homzl4ak7svr3si7l7gesvq4erglyye4', 'bafybeicvkvhs2fr75ynebtdjqpgm4g2fc63abqbmysupwpmcjl4gx7mzrm', 'bafybeif5tuep5ap2d7zyhbktucey75aoacxufgt6i3v4gebmixyipnyp7y'
      ])
      expect((await add(planets, { hash: 'blake2b-256' })).map(r => r.Hash)).to.deep.equal([
        'bafk2bzaceaqcxw46uzkyd2jmczoogof6pnkqt4dpiv3pwkunsv4g5rkkmecie', 'bafk2bzacebxnke2fb5mgzxyjuuavvcfht4fd3gvn4klkujz6k72wboynhuvfw', 'bafykbzaceaptbcs7ik5mdfpot3b4ackvxlwh7loc5jcrtkayf64ukl7zyk46e'
      ])
    })
    it('moons: files first, then directories post-order', async () => {
      const rows = await add([
        dir('moons'), dir('moons/jupiter'), file('moons/jupiter/europa.txt', 'Hello Europa!\n'), file('moons/mercury.txt', 'hey you are no moon!\n'),
        dir('moons/saturn'), file('moons/saturn/titan.txt', 'Hello Titan!\n')
      ], { n: true })
      expect(rows.map(r => [r.Name, r.Hash])).to.deep.equal([
        ['moons/jupiter/europa.txt', 'Qmbjg7zWdqdMaK2BucPncJQDxiALExph5k3NkQv5RHpccu'],
        ['moons/mercury.txt', 'QmRsTB5CpEUvDUpDgHCzb3VftZ139zrk9zs5ZcgYh9TMPJ'],
        ['moons/saturn/titan.txt', 'QmZzppb9WHn552rmRqpPfgU5FEiHH6gDwi3MrB9cTdPwdb'],
        ['moons/jupiter', 'QmS5mZddhFPLWFX3w6FzAy9QxyYkaxvUpsWCtZ3r7jub9J'],
        ['moons/saturn', 'QmaMagZT4rTE7Nonw8KGSK4oe1bh533yhZrCo1HihSG8FK'],
        ['moons', 'QmbGoaQZm8kjYfCiN1aBsgwhqfUBGDYTrDb91Mz7Dvq81B']
      ])
    })
    it('a directory added as "." (hey, hello/world)', async () => {
      expect(root(await add([dir('cwd'), dir('cwd/hello'), file('cwd/hello/world', 'World\n'), file('cwd/hey', 'Hey\n')]))).to.equal('QmZQWnfcqJ6hNkkPvrY9Q5X39GP3jUnUbAV4AbmbbR3Cb1')
    })
    const skip = (names: string[]): E[] => {
      const all: Record<string, string> = {
        '.asteroids/ceres.txt': 'Hello Ceres\n', '.asteroids/pallas.txt': 'Hello Pallas\n', '.charon.txt': 'Hello Charon\n', '.gitignore': 'mars.txt\n',
        '.pluto.txt': 'Hello Pluto\n', 'mars.txt': 'Hello Mars\n', 'venus.txt': 'Hello Venus\n'
      }
      const out: E[] = [dir('planets')]
      if (names.some(n => n.startsWith('.asteroids/'))) out.push(dir('planets/.asteroids'))
      for (const n of Object.keys(all)) if (names.includes(n)) out.push(file(`planets/${n}`, all[n]))
      return out
    }
    it('t0042: hidden files skipped, included, ignored', async () => {
      const rows = await add(skip(['mars.txt', 'venus.txt']))
      expect(rows.map(r => r.Hash)).to.deep.equal(['QmZy3khu7qf696i5HtkgL2NotsCZ8wzvNZJ1eUdA5n8KaV', 'QmQnv4m3Q5512zgVtpbJ9z85osQrzZzGRn934AGh6iVEXz', 'QmR8nD1Vzk5twWVC6oShTHvv7mMYkVh6dApCByBJyV2oj3'])
      const hidden = await add(skip(['.asteroids/ceres.txt', '.asteroids/pallas.txt', '.charon.txt', '.gitignore', '.pluto.txt', 'mars.txt', 'venus.txt']))
      expect(hashOf(hidden, 'planets/.asteroids/ceres.txt')).to.equal('QmcAREBcjgnUpKfyFmUGnfajA1NQS5ydqRp7WfqZ6JF8Dx')
      expect(hashOf(hidden, 'planets/.asteroids/pallas.txt')).to.equal('QmZ5eaLybJ5GUZBNwy24AA9EEDTDpA4B8qXnuN3cGxu2uF')
      expect(hashOf(hidden, 'planets/.charon.txt')).to.equal('QmaowqjedBkUrMUXgzt9c2ZnAJncM9jpJtkFfgdFstGr5a')
      expect(hashOf(hidden, 'planets/.gitignore')).to.equal('QmPHrRjTH8FskN3C2iv6BLekDT94o23KSL2u5qLqQqGhVH')
      expect(hashOf(hidden, 'planets/.pluto.txt')).to.equal('QmU4zFD5eJtRBsWC63AvpozM9Atiadg9kPVTuTrnCYJiNF')
      expect(hashOf(hidden, 'planets/.asteroids')).to.equal('Qmf6rbs5GF85anDuoxpSAdtuZPM9D2Yt3HngzjUVSQ7kDV')
      expect(hashOf(hidden, 'planets')).to.equal('QmczhHaXyb3bc9APMxe4MXbr87V5YDLKLaw3DZX3fK7HrK')
      expect(root(await add(skip(['.asteroids/ceres.txt', '.asteroids/pallas.txt', '.charon.txt', '.gitignore', '.pluto.txt', 'venus.txt'])))).to.equal('QmaRsiaCYvc65RqHVAcv2tqyjZgQYgvaNqW1tQGsjfy4N5')
      // --ignore-rules-path=.gitignore --ignore .asteroids --ignore venus.txt --hidden
      expect(root(await add(skip(['.charon.txt', '.gitignore', '.pluto.txt'])))).to.equal('QmemuMahjSh7eYLY3hbz2q8sqMPnbQzBQeUdosqNiWChE6')
    })
    it('t0042 end to end: the CLI walk of a real tree feeds the same CIDs', async () => {
      const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-add-'))
      try {
        const p = path.join(tmp, 'planets')
        await fs.mkdir(path.join(p, '.asteroids'), { recursive: true })
        for (const [n, c] of Object.entries({ '.gitignore': 'mars.txt\n', 'mars.txt': 'Hello Mars\n', 'venus.txt': 'Hello Venus\n', '.pluto.txt': 'Hello Pluto\n', '.charon.txt': 'Hello Charon\n', '.asteroids/ceres.txt': 'Hello Ceres\n', '.asteroids/pallas.txt': 'Hello Pallas\n' })) {
          await fs.writeFile(path.join(p, n), c)
        }
        const run = async (opts: Parameters<typeof collectFiles>[1]): Promise<string | undefined> => {
          const list = await collectFiles(['.'], opts)
          return root(await node.invoke('add', { files: (async function * () { yield * list })() }))
        }
        expect(await run({ recursive: true, cwd: p })).to.equal('QmR8nD1Vzk5twWVC6oShTHvv7mMYkVh6dApCByBJyV2oj3')
        expect(await run({ recursive: true, hidden: true, cwd: p })).to.equal('QmczhHaXyb3bc9APMxe4MXbr87V5YDLKLaw3DZX3fK7HrK')
        expect(await run({ recursive: true, hidden: true, ignoreRulesPath: '.gitignore', cwd: p })).to.equal('QmaRsiaCYvc65RqHVAcv2tqyjZgQYgvaNqW1tQGsjfy4N5')
        expect(await run({ recursive: true, hidden: true, ignoreRulesPath: '.gitignore', ignore: ['.asteroids', 'venus.txt'], cwd: p })).to.equal('QmemuMahjSh7eYLY3hbz2q8sqMPnbQzBQeUdosqNiWChE6')
      } finally {
        await fs.rm(tmp, { recursive: true, force: true })
      }
    })
    it('t0081 dir1 tree', async () => {
      const rows = await add([
        dir('dir1'), file('dir1/file1', 'some text 1\n'), file('dir1/file2', 'some text 2\n'), file('dir1/file3', 'some text 3\n'),
        dir('dir1/dir2'), file('dir1/dir2/file1', 'some text 1\n'), file('dir1/dir2/file4', 'some text 4\n'),
        dir('dir1/dir2/dir4'), file('dir1/dir2/dir4/file1', 'some text 1\n'), file('dir1/dir2/dir4/file2', 'some text 2\n'), file('dir1/dir2/dir4/file6', 'some text 6\n'),
        dir('dir1/dir3'), file('dir1/dir3/file2', 'some text 2\n'), file('dir1/dir3/file5', 'some text 5\n')
      ])
      expect(hashOf(rows, 'dir1/file1')).to.equal('QmbgX4aXhSSY88GHmPQ4roizD8wFwPX8jzTLjc8VAp89x4')
      expect(hashOf(rows, 'dir1/dir2/file4')).to.equal('QmV1aiVgpDknKQugrK59uBUbMrPnsQM1F9FXbFcfgEvUvH')
      expect(hashOf(rows, 'dir1/dir3/file5')).to.equal('QmaN3PtyP8DcVGHi3Q2Fcp7CfAFVcVXKddWbHoNvaA41zf')
      expect(hashOf(rows, 'dir1/dir2/dir4/file6')).to.equal('QmRsBC3Y2G6VRPYGAVpZczx1W7Xw54MtM1NcLKTkn6rx3U')
      expect(hashOf(rows, 'dir1/dir2/dir4')).to.equal('QmW98gV71Ns4bX7QbgWAqLiGF3SDC1JpveZSgBh4ExaSAd')
      expect(hashOf(rows, 'dir1/dir3')).to.equal('QmRsCaNBMkweZ9vHT5PJRd2TT9rtNKEKyuognCEVxZxF1H')
      expect(hashOf(rows, 'dir1/dir2')).to.equal('QmTUTQAgeVfughDSFukMZLbfGvetDJY7Ef5cDXkKK4abKC')
      expect(root(rows)).to.equal('QmNyZVFbgvmzguS2jVMRb8PQMNcCMJrn9E3doDhBbcPNTY')
    })
    it('t0095 A tree', async () => {
      const rows = await add([
        dir('A'), file('A/1.txt', '1\n'), dir('A/B'), file('A/B/1.txt', '1\n'), dir('A/B/D'), file('A/B/D/2.txt', '2\n'),
        dir('A/C'), dir('A/C/B'), file('A/C/B/1.txt', '1\n'), dir('A/C/B/D'), file('A/C/B/D/2.txt', '2\n'), dir('A/D'), file('A/D/2.txt', '2\n')
      ])
      expect(hashOf(rows, 'A/1.txt')).to.equal('QmdytmR4wULMd3SLo6ePF4s3WcRHWcpnJZ7bHhoj3QB13v')
      expect(hashOf(rows, 'A/D/2.txt')).to.equal('QmSFxnK675wQ9Kc1uqWKyJUaNxvSc2BP5DbXCD3x93oq61')
      expect(hashOf(rows, 'A/D')).to.equal('QmSanP5DpxpqfDdS4yekHY1MqrVge47gtxQcp2e2yZ4UwS')
      expect(hashOf(rows, 'A/B')).to.equal('QmNkQvpiyAEtbeLviC7kqfifYoK1GXPcsSxTpP1yS3ykLa')
      expect(hashOf(rows, 'A/C')).to.equal('QmXXazTjeNCKFnpW1D65vTKsTs8fbgkCWTv8Em4pdK2coH')
      expect(root(rows)).to.equal('QmU6xujRsYzcrkocuR3fhfnkZBB8eyUFFq4WKRGw2aS15h')
    })
    it('t0044 symlinks', async () => {
      const tree = [dir('files'), dir('files/bar'), link('files/bar/baz', 'files/foo/baz'), link('files/bad', 'files/does/not/exist'), dir('files/foo'), file('files/foo/baz', 'some text\n')]
      expect(root(await add(tree, { Q: true }))).to.equal('QmWdiHKoeSW8G1u7ATCgpx4yMoUhYaJBQGkyPLkS9goYZ8')
      expect(root(await add(tree, { 'cid-version': 1 }))).to.equal('bafybeibyhlx64cklod6isy3h7tsmr4qvam3ae3b74n3hfes5bythjrwyua')
      expect(await add([link('baz', 'files/foo/baz')])).to.deep.equal([{ Name: 'baz', Hash: 'QmdocmZeF7qwPT9Z8SiVhMSyKA2KKoA2J7jToW6z6WBmxR', Size: '19', Mode: '01000000777' }])
      expect(root(await add([link('bad', 'files/does/not/exist')]))).to.equal('QmWYN8SEXCgNT2PSjB6BnxAx6NJQtazWoBkTRH9GRfPFFQ')
    })
    it('empty directories', async () => {
      expect(await add([dir('empty')])).to.deep.equal([{ Name: 'empty', Hash: 'QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn', Size: '4' }])
      expect(root(await add([dir('empty')], { 'cid-version': 1 }))).to.equal('bafybeiczsscdsbs7ffqz55asqdf3smv6klcw3gofszvwlyarci47bgf354')
      expect(root(await add([dir('empty')], { hash: 'blake2b-256' }))).to.equal('bafykbzacebugfutjir6qie7apo5shpry32ruwfi762uytd5g3u2gk7tpscndq')
    })
    it('--empty-dirs=false drops nested empty directories but keeps the top one', async () => {
      const withEmpty = await add([dir('d'), dir('d/e'), file('d/f', 'World\n')])
      const without = await add([dir('d'), dir('d/e'), file('d/f', 'World\n')], { E: false })
      expect(withEmpty.map(r => r.Name)).to.deep.equal(['d/f', 'd/e', 'd'])
      expect(without.map(r => r.Name)).to.deep.equal(['d/f', 'd'])
      expect(root(without)).to.equal(root(await add([dir('d'), file('d/f', 'World\n')])))
      expect(root(await add([dir('e')], { 'empty-dirs': false }))).to.equal('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')
    })
  })

  describe('t0047 mode and mtime', () => {
    const T = 1604320482
    const CT = 1603539720
    it('an empty file: preserved mode/mtime only when asked', async () => {
      const f = (): E[] => [file('test.txt', '', { mode: 0o640, mtime: { secs: T } })]
      expect(root(await add(f()))).to.equal('QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH')
      expect(root(await add(f(), { 'preserve-mode': true }))).to.equal('QmQLgxypSNGNFTuUPGCecq6dDEjb6hNB5xSyVmP3cEuNtq')
      expect(root(await add(f(), { 'preserve-mtime': true }))).to.equal('QmQ6kErEW8kztQFV8vbwNU8E4dmtGsYpRiboiLxUEwibvj')
      expect(root(await add(f(), { 'preserve-mode': true, 'preserve-mtime': true }))).to.equal('QmYkvboLsvLFcSYmqVJRxvBdYRQLroLv9kELf3LRiCqBri')
    })
    it('Go-style modes from the Kubo CLI (type bits) are stored as Unix permissions', async () => {
      expect(root(await add([file('test.txt', '', { mode: 0o640 + 0 })], { 'preserve-mode': true }))).to.equal('QmQLgxypSNGNFTuUPGCecq6dDEjb6hNB5xSyVmP3cEuNtq')
      expect(root(await add([dir('d', { mode: 2 ** 31 + 0o755 })], { 'preserve-mode': true }))).to.equal('QmRviohgafvCsbkiTgfQFipbuXJ6k1YtoiaQW4quttJPKu')
    })
    it('custom --mode/--mtime/--mtime-nsecs on a file (query coercion: octal mode)', async () => {
      const f = (): E[] => [file('test.txt', '', { mode: 0o600, mtime: { secs: 1604320482 } })]
      const q = async (query: Array<[string, string[]]>): Promise<string | undefined> => root(await node.invoke('add', { files: entries(f()), query }))
      expect(await q([['mode', ['0764']]])).to.equal('QmchD3BN8TQ3RW6jPLxSaNkqvfuj7syKhzTRmL4EpyY1Nz')
      expect(await q([['mtime', [String(CT)]]])).to.equal('QmT3aY4avDcYXCWpU8CJzqUkW7YEuEsx36S8cTNoLcuK1B')
      expect(await q([['mtime', [String(CT)]], ['mtime-nsecs', ['54321']]])).to.equal('QmaKH8H5rXBUBCX4vdxi7ktGQEL7wejV7L9rX2qpZjwncz')
      expect(await q([['mode', ['0764']], ['mtime', [String(CT)]], ['mtime-nsecs', ['54321']]])).to.equal('QmUkxrtBA8tPjwCYz1HrsoRfDz6NgKut3asVeHVQNH4C8L')
      // --mode wins over --preserve-mode
      expect(await q([['mode', ['0764']], ['preserve-mode', ['true']]])).to.equal('QmchD3BN8TQ3RW6jPLxSaNkqvfuj7syKhzTRmL4EpyY1Nz')
    })
    it('symlink mtimes (a mode is never stored on a symlink)', async () => {
      expect(root(await add([link('linkfile', 'nothing', { mtime: { secs: T } })], { 'preserve-mtime': true }))).to.equal('QmbJwotgtr84JxcnjpwJ86uZiyMoxbZuNH4YrdJMypkYaB')
      expect(root(await add([link('linkfile', 'nothing')], { mtime: CT }))).to.equal('QmV1Uot2gy4bhY9yvYiZxhhchhyYC6MKKoGV1XtWNmpCLe')
      expect(root(await add([link('linkfile', 'nothing')], { mtime: CT, 'mtime-nsecs': 54321 }))).to.equal('QmPHYCxYvvHj6VxiPNJ3kXxcPsnJLDYUJqsDJWjvytmrmY')
      expect(root(await add([link('linkfile', 'nothing')], { mtime: CT, mode: 0o764 }))).to.equal('QmV1Uot2gy4bhY9yvYiZxhhchhyYC6MKKoGV1XtWNmpCLe')
    })
    it('an empty directory', async () => {
      const d = (): E[] => [dir('dir1', { mode: 0o755, mtime: { secs: 1655158632 + 90 } })]
      expect(root(await add(d()))).to.equal('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')
      expect(root(await add(d(), { 'preserve-mode': true }))).to.equal('QmRviohgafvCsbkiTgfQFipbuXJ6k1YtoiaQW4quttJPKu')
      expect(root(await add(d(), { 'preserve-mtime': true }))).to.equal('QmYMy7CZGb498QFSQBF5ZFwv1FYbrAtYZMe4VxhDXxAcvf')
      expect(root(await add(d(), { mode: 0o713 }))).to.equal('QmQ1ABnw2iip7sj23EzzBZ9T77KyyfESP6SUboiXPyzNQe')
      expect(root(await add(d(), { mtime: CT }))).to.equal('QmfWitW6F13WHFXLbJzXRYmwrS1p4gaAJAfucUSMytRPn3')
      expect(root(await add(d(), { mtime: CT, 'mtime-nsecs': 54321 }))).to.equal('QmZFdCLJay31hT3Tx1LygJ7XfiLEs3qLCXtbeBfhf38aZg')
    })
    it('a whole tree, recursively', async () => {
      const D = 1655158632
      const tree = (): E[] => [
        dir('t', { mode: 0o700, mtime: { secs: D } }),
        dir('t/dir1', { mode: 0o755, mtime: { secs: D + 90 } }),
        dir('t/dir2', { mode: 0o755, mtime: { secs: D + 50 } }),
        dir('t/dir2/sub1', { mode: 0o755, mtime: { secs: D + 40 } }),
        link('t/dir2/sub1/link1', '../sub2/file3', { mode: 0o777, mtime: { secs: D + 20 } }),
        dir('t/dir2/sub1/sub2', { mode: 0o755, mtime: { secs: D + 30 } }),
        file('t/dir2/sub1/sub2/file3', '', { mode: 0o644, mtime: { secs: D + 10 } }),
        dir('t/dir3', { mode: 0o755, mtime: { secs: D + 70 } }),
        file('t/dir3/file2', '', { mode: 0o644, mtime: { secs: D + 60 } }),
        file('t/file1', '', { mode: 0o644, mtime: { secs: D + 80 } })
      ]
      const sorted = async (options: Record<string, unknown>): Promise<string[]> => (await add(tree(), options)).map(r => r.Hash as string).sort()
      expect(await sorted({ 'preserve-mode': true, 'preserve-mtime': true })).to.deep.equal([
        'QmRCG3Pprg4jbhfYBzVzfJVyneFHnBquPGXwvXU3jSuf5j', 'QmReHCn4BSJJdtd6Le8Hd8Puai6TmgpPCYb13wyM7FD9AD', 'QmSioyvQuXetxg7uo8FswGn9XKKEsisDq1HTMzGyWbw2R6',
        'QmTMoVgJKhPrz9DfkvT132mxyBXNae5azXQ42WbM9abdSE', 'QmVzXqpuQGCAgRwEbGuE9xe8Fidi1HEXaPKsQEFEbPJW9j', 'QmW6Nqy2nziduAp3UGx2a52gtSUsYzhVcZMuPdxBRnwCyP',
        'QmeQwX5qAX18fcPDxDdkfM6ttuFCZetF5hgeUa6ov8D5oc', 'QmefofUNwC2U3Xp87rB1x8Aws6AdsDuoXR7B9u2RkEZ4dQ', 'Qmeu24TFarJwLzJgMTDYDJTr4BMGnzafoSnfxov1513abW',
        'Qmf82bbFg2e8HmcqiewutVVw5NoMpiXZD57LpLdC1poBuH'
      ])
      expect(await sorted({ mode: 0o753 })).to.deep.equal([
        'QmNZ5cyx3f6maXkczwhh3ufjDCh9f3k9zrDhX218ZZGvoV', 'QmRqtFVLkXfWJuqWtYiCPthgomo3gouno8uvMeGAyCVaWS', 'QmSkrWNcyDA7s1qiT6Ps7ey4zcB7uBH3sqGcKRfW4UMKhM',
        'QmSkrWNcyDA7s1qiT6Ps7ey4zcB7uBH3sqGcKRfW4UMKhM', 'QmSkrWNcyDA7s1qiT6Ps7ey4zcB7uBH3sqGcKRfW4UMKhM', 'QmZNAZXB6JyJ1cK9h1uJEK4XDo1CKsSuHMPGUUMrzDXCQz',
        'QmbSz6GyS8MNR4M9xtCteuGVJQRYkCXLbW174Fdy8jtaoZ', 'QmccnAQQeJGtmtgZoi3hpEmgdxbuX1ao2hQmrKmmwQnCn9', 'QmeTZoiAiduFY2hXaNQP4ehiE71BrQFEnrqduBZ5ZjHuFy',
        'Qmf13KNurvAHUfMBhMWvZuftmUikhhGY7ohWVaBDDndFMz'
      ])
      expect(await sorted({ mtime: CT })).to.deep.equal([
        'QmPCGFZ8ZFowAwfWdCeGsr9wSbGXwZiHW3bZ7XSYcc1Zby', 'QmT3aY4avDcYXCWpU8CJzqUkW7YEuEsx36S8cTNoLcuK1B', 'QmT3aY4avDcYXCWpU8CJzqUkW7YEuEsx36S8cTNoLcuK1B',
        'QmT3aY4avDcYXCWpU8CJzqUkW7YEuEsx36S8cTNoLcuK1B', 'QmUGMu9epCEz5HMsuJFgpJxxt3HoahsTQcC65Jje6LNqYF', 'QmXhzoPKuqmkqbyr4kJFznFRXtGwriCXKGFPr4vviyK3aV',
        'QmZ5wKCcL11TckypuDTKLLNFP6JMCBJRCn385XKQQ6PCLt', 'Qmdw3hiAxn6R5MRkkdzLdFvZUa2WJeLCTXXCyB8byFsHSA', 'QmedF4m2Y8341azfkpvaHSkxbSrZa4fo6FT25h6sRUVkpq',
        'QmfWitW6F13WHFXLbJzXRYmwrS1p4gaAJAfucUSMytRPn3'
      ])
    })
    it('reports the top-level part\'s mode and mtime on every event', async () => {
      const rows = await add([file('a.txt', 'World\n', { mode: 0o644, mtime: { secs: 1700000000, nsecs: 5 } })], { progress: true })
      expect(rows).to.deep.equal([
        { Name: 'a.txt', Bytes: 6, Mode: '0644', Mtime: 1700000000, MtimeNsecs: 5 },
        { Name: 'a.txt', Hash: 'Qma9CyFdG5ffrZCcYSin2uAETygB25cswVwEYYzwfQuhTe', Size: '14', Mode: '0644', Mtime: 1700000000, MtimeNsecs: 5 }
      ])
      const nested = await add([dir('d', { mode: 2 ** 31 + 0o755, mtime: { secs: -5 } }), file('d/f', 'World\n', { mode: 0o600 })])
      expect(nested.map(r => r.Mode)).to.deep.equal(['020000000755', '020000000755'])
      expect(nested.every(r => r.Mtime === undefined)).to.equal(true)
      // -w: the wrapper has no metadata of its own
      const wrapped = await add([file('a.txt', 'World\n', { mode: 0o644 })], { w: true })
      expect(wrapped.every(r => r.Mode === undefined)).to.equal(true)
    })
  })

  describe('options and errors', () => {
    const hw = 'hello world'
    it('Import.UnixFSChunker applies unless --chunker is given', async () => {
      const big = Buffer.alloc(1000, 'a')
      const dflt = await stdin(big)
      await setImport({ UnixFSChunker: 'size-100' })
      const fromConfig = await stdin(big)
      expect(fromConfig).to.not.equal(dflt)
      expect(await stdin(big, { chunker: 'size-100' })).to.equal(fromConfig)
      expect(await stdin(big, { chunker: 'size-262144' })).to.equal(dflt)
    })
    it('Import.UnixFSDAGLayout=trickle applies unless --trickle=false', async () => {
      await setImport({ UnixFSDAGLayout: 'trickle' })
      expect(await stdin(hw)).to.equal('QmRa57sp5M1iouDtNoZscfeHi73JZFxsHpuqvNEug7zmq2')
      expect(await stdin(hw, { trickle: false })).to.equal('Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD')
    })
    it('Import.UnixFSFileMaxLinks applies unless --max-file-links is given', async () => {
      const data = Buffer.alloc(5 * 64, 'z')
      const base = await stdin(data, { chunker: 'size-64' })
      await setImport({ UnixFSFileMaxLinks: 2 })
      const fromConfig = await stdin(data, { chunker: 'size-64' })
      expect(fromConfig).to.not.equal(base)
      expect(await stdin(data, { chunker: 'size-64', 'max-file-links': 174 })).to.equal(base)
    })
    it('Import.UnixFSRawLeaves=true with metadata is an error', async () => {
      await setImport({ UnixFSRawLeaves: true })
      await expect(add([file('', hw)], { 'preserve-mode': true })).to.be.rejectedWith("raw-leaves can't be used with UnixFS metadata like mode or modification time")
    })
    const errors: Array<[string, Record<string, unknown>, string]> = [
      ['inline-limit', { inline: true, 'inline-limit': 200 }, 'inline-limit 200 exceeds maximum allowed size of 128 bytes'],
      ['pin name too long', { 'pin-name': 'x'.repeat(256) }, 'pin name is 256 bytes (max 255 bytes)'],
      ['metadata + raw leaves', { mode: 0o644, 'raw-leaves': true }, "raw-leaves can't be used with UnixFS metadata like mode or modification time"],
      ['only-hash + to-files', { n: true, 'to-files': '/x' }, 'only-hash and to-files options are not compatible'],
      ['pin-name without pin', { pin: false, 'pin-name': 'a' }, 'pin-name option requires pin to be set'],
      ['pin-name with only-hash', { 'only-hash': true, 'pin-name': 'a' }, 'pin-name option requires pin to be set'],
      ['wrap + to-files', { w: true, 'to-files': '/x' }, 'wrap-with-directory and to-files options are not compatible'],
      ['unknown hash', { hash: 'FOO' }, 'unrecognized hash function: "foo"'],
      ['CIDv0 + other hash', { hash: 'sha2-512', 'cid-version': 0 }, 'CIDv0 only supports sha2-256'],
      ['unknown CID version', { 'cid-version': 2 }, 'unknown CID version: 2'],
      ['mtime-nsecs alone', { 'mtime-nsecs': 5 }, 'option "mtime-nsecs" requires "mtime" to be provided as well'],
      ['nocopy without filestore', { nocopy: true }, 'either the filestore or the urlstore must be enabled to use nocopy, see: https://github.com/ipfs/kubo/blob/master/docs/experimental-features.md#ipfs-filestore'],
      ['to-files (no MFS yet)', { 'to-files': '/x' }, 'to-files: MFS is not supported by this node yet'],
      ['unknown chunker', { chunker: 'foo' }, 'unrecognized chunker option: foo'],
      ['zero chunk size', { chunker: 'size-0' }, 'chunker size must be greater than 0'],
      ['insecure hash', { hash: 'md5' }, 'potentially insecure hash functions not allowed']
    ]
    for (const [label, options, message] of errors) {
      it(`error: ${label}`, async () => {
        await expect(add([file('', hw)], options)).to.be.rejectedWith(message)
      })
    }
    it('error: identity hash over 128 bytes', async () => {
      await expect(add([file('', Buffer.alloc(200, 1))], { hash: 'identity' })).to.be.rejectedWith('digest too large: identity digest got')
      expect(await stdin('hi', { hash: 'identity' })).to.match(/^bafkqa/)
    })
    it('error: no file parts', async () => {
      await expect(add([])).to.be.rejectedWith('expected a file argument')
    })
    it('accepts --fscache and --fast-provide-* (no-ops here)', async () => {
      expect(await stdin(hw, { fscache: true, 'fast-provide-root': true, 'fast-provide-dag': true, 'fast-provide-wait': true })).to.equal('Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD')
    })
  })

  describe('pins and storage', () => {
    const cid = (s: string): CID => CID.parse(s)
    it('pins the root recursively (children indirect) and stores every block', async () => {
      const rows = await add([dir('pinned'), file('pinned/a', 'pin me a\n'), file('pinned/b', 'pin me b\n')], { 'pin-name': 'mine' })
      const r = cid(root(rows) as string)
      expect(await node.container.cradle.pins.isPinned(r)).to.deep.include({ pinned: true, type: 'recursive' })
      expect(await node.container.cradle.pins.nameOf(r, 'recursive')).to.equal('mine')
      const child = await node.container.cradle.pins.isPinned(cid(hashOf(rows, 'pinned/a') as string))
      expect(child).to.deep.include({ pinned: true, type: 'indirect' })
      for (const row of rows) expect(await node.container.cradle.blockstore.has(cid(row.Hash as string))).to.equal(true)
    })
    it('pins each top-level entry', async () => {
      const rows = await add([file('one.txt', 'top one\n'), file('two.txt', 'top two\n')])
      expect(rows.map(r => r.Name)).to.deep.equal(['one.txt', 'two.txt'])
      for (const row of rows) expect(await node.container.cradle.pins.isPinned(cid(row.Hash as string))).to.deep.include({ pinned: true, type: 'recursive' })
    })
    it('--pin=false stores but does not pin', async () => {
      const r = cid(await stdin('not pinned\n', { pin: false }) as string)
      expect(await node.container.cradle.blockstore.has(r)).to.equal(true)
      expect(await node.container.cradle.pins.isPinned(r)).to.deep.equal({ pinned: false })
    })
    it('--only-hash stores and pins nothing', async () => {
      const rows = await add([dir('oh'), file('oh/x', 'only hash x\n')], { 'only-hash': true })
      for (const row of rows) {
        expect(await node.container.cradle.blockstore.has(cid(row.Hash as string))).to.equal(false)
        expect(await node.container.cradle.pins.isPinned(cid(row.Hash as string))).to.deep.equal({ pinned: false })
      }
    })
    it('a failed add leaves no pin (not even of the entries that finished)', async () => {
      async function * failing (): AsyncGenerator<FileEntry> {
        yield { path: 'good.txt', type: 'file', content: (async function * () { yield Buffer.from('finished fine\n') })() }
        yield { path: 'bad.txt', type: 'file', content: (async function * () { yield Buffer.from('x'); throw new Error('read failed') })() }
      }
      const before = await node.container.cradle.pins.ls({ type: 'recursive' })
      let n = 0
      for await (const _ of before) n++
      await expect(node.invoke('add', { files: failing() })).to.be.rejectedWith('read failed')
      let m = 0
      for await (const _ of node.container.cradle.pins.ls({ type: 'recursive' })) m++
      expect(m).to.equal(n)
    })
    it('an abandoned add (client gone after the root row) pins nothing', async () => {
      const prepared = node.registry.prepare(['add'], { files: entries([dir('gone'), file('gone/f', 'client went away\n')]) })
      const controller = new AbortController()
      const outcome = await execute(prepared, node.container, { signal: controller.signal })
      if (outcome.kind !== 'ndjson') throw new Error('expected a stream')
      let rootHash = ''
      for await (const item of outcome.items) {
        const row = item as AddOutput
        if (row.Name === 'gone') { rootHash = row.Hash as string; break }
      }
      expect(rootHash).to.match(/^Qm/)
      expect(await node.container.cradle.pins.isPinned(cid(rootHash))).to.deep.equal({ pinned: false })
    })
    it('an aborted request fails and pins nothing', async () => {
      const controller = new AbortController()
      async function * slow (): AsyncGenerator<FileEntry> {
        yield { path: 'slow.txt', type: 'file', content: (async function * () { yield Buffer.from('a'); controller.abort(); yield Buffer.from('b') })() }
      }
      const count = async (): Promise<number> => { let n = 0; for await (const _ of node.container.cradle.pins.ls({ type: 'recursive' })) n++; return n }
      const before = await count()
      await expect(node.registry.invoke(['add'], { files: slow() }, node.container, controller.signal)).to.be.rejectedWith(/abort/i)
      expect(await count()).to.equal(before)
    })
  })

  describe('output rows', () => {
    it('progress rows come before each file row; an empty file reports no Bytes', async () => {
      const big = Buffer.alloc(600 * 1024, 7)
      const rows = await add([dir('p'), file('p/big', big), file('p/empty', '')], { progress: true })
      const names = rows.map(r => `${r.Name}:${r.Hash != null ? 'added' : String(r.Bytes)}`)
      expect(names).to.deep.equal(['p/big:262144', 'p/big:524288', 'p/big:614400', 'p/big:added', 'p/empty:undefined', 'p/empty:added', 'p:added'])
      expect(rows[4]).to.deep.equal({ Name: 'p/empty' })
    })
    it('no progress rows without --progress; Size is the cumulative DAG size', async () => {
      const rows = await add([file('', 'hello world')])
      expect(rows).to.deep.equal([{ Name: 'Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD', Hash: 'Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD', Size: '19' }])
    })
    it('--silent drops file rows but not directory rows', async () => {
      expect(await add([file('', 'silent\n')], { silent: true })).to.deep.equal([])
      const rows = await add([dir('s'), file('s/f', 'silent\n')], { silent: true })
      expect(rows.map(r => r.Name)).to.deep.equal(['s'])
    })
    it('-w names an unnamed part by its CID inside the wrapper', async () => {
      const rows = await add([file('', 'Hello Jupiter!\n')], { w: true })
      expect(rows.map(r => r.Name)).to.deep.equal(['QmUnvPcBctVTAcJpigv6KMqDvmDewksPWrNVoy1E1WP5fh', ''])
    })
    it('the text encoder is Go\'s %s of the event', () => {
      const call = { path: ['add'], args: [], options: { encoding: 'text' } } as never
      expect(addAdd.text?.({ Name: 'a', Hash: 'Qm', Size: '12' }, call)).to.equal('&{a Qm %!s(int64=0) 12  %!s(int64=0) %!s(int=0)}')
      expect(goText({ Name: 'a', Bytes: 5, Mode: '0644', Mtime: 3, MtimeNsecs: 4 })).to.equal('&{a  %!s(int64=5)  0644 %!s(int64=3) %!s(int=4)}')
    })
  })

  describe('CLI rendering', () => {
    const sinkStream = (): { stream: Writable, text: () => string } => {
      const chunks: string[] = []
      return { stream: new Writable({ write (c, _e, cb) { chunks.push(c.toString()); cb() } }), text: () => chunks.join('') }
    }
    const rowsOf = (): AddOutput[] => [
      { Name: 'd/a', Bytes: 3 },
      { Name: 'd/a', Hash: 'QmA', Size: '11' },
      { Name: 'd/bad\x7fname.txt', Hash: 'QmB', Size: '12' },
      { Name: 'd', Hash: 'QmD', Size: '50' }
    ]
    const render = async (options: Record<string, boolean>, items = rowsOf()): Promise<{ out: string, err: string }> => {
      const out = sinkStream()
      const err = sinkStream()
      await renderAdd({ kind: 'ndjson', items: (async function * () { yield * items })() }, options, { stdout: out.stream, stderr: err.stream, isTTY: false, cwd: '/' })
      return { out: out.text(), err: err.text() }
    }
    it('added lines with escaped names', async () => {
      expect((await render({})).out).to.equal('added QmA d/a\nadded QmB d/bad\\x7fname.txt\nadded QmD d\n')
    })
    it('-q prints CIDs, -Q only the last one', async () => {
      expect((await render({ quiet: true })).out).to.equal('QmA\nQmB\nQmD\n')
      expect((await render({ quieter: true })).out).to.equal('QmD\n')
    })
    it('a progress bar on stderr, cleared before each line', async () => {
      const { out, err } = await render({ progress: true })
      expect(out).to.equal('added QmA d/a\nadded QmB d/bad\\x7fname.txt\nadded QmD d\n')
      expect(err).to.include('\x1b[2K\r')
      expect(err).to.include('3 B')
    })
    it('-Q prints the last hash even when the stream fails', async () => {
      const out = sinkStream()
      const items = (async function * () { yield { Name: 'x', Hash: 'QmX', Size: '1' }; throw new Error('boom') })()
      await expect(renderAdd({ kind: 'ndjson', items }, { quieter: true }, { stdout: out.stream, stderr: out.stream, isTTY: false, cwd: '/' })).to.be.rejectedWith('boom')
      expect(out.text()).to.equal('QmX\n')
    })
    it('escapes like Go strconv.Quote', () => {
      expect(escNonPrint('plain name.txt')).to.equal('plain name.txt')
      expect(escNonPrint('a\\b')).to.equal('a\\\\b')
      expect(escNonPrint('tab\there"q')).to.equal('tab\\there"q')
      expect(escNonPrint('é\u0085\u{1F600}\u200b')).to.equal('é\\u0085\u{1F600}\\u200b')
    })
    it('the CLI turns progress on only for a terminal, unless quiet or silent', () => {
      const defaults = addAdd.cliDefaults
      if (defaults == null) throw new Error('no cliDefaults')
      const none = (): undefined => undefined
      expect(defaults(none, { isTTY: true })).to.deep.equal({ progress: 'true' })
      expect(defaults(none, { isTTY: false })).to.deep.equal({ progress: 'false' })
      expect(defaults((n) => n === 'quiet' ? 'true' : undefined, { isTTY: true })).to.deep.equal({})
      expect(defaults((n) => n === 'progress' ? 'false' : undefined, { isTTY: true })).to.deep.equal({})
    })
  })
})
