import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import { createTestNode, filesOf, type TestNode, withTestNode } from '../../helpers/node.js'
import type { FileEntry } from '../../../registry/types.js'
import { addPlugin } from '../../../plugins/add/index.js'
import { dagPlugin } from '../../../plugins/dag/index.js'
import { pinPlugin } from '../../../plugins/pin/index.js'
import { repoPlugin } from '../../../plugins/repo/index.js'
import { pinAdd } from '../../../plugins/pin/add.js'
import { pinLs } from '../../../plugins/pin/ls.js'
import { pinRm } from '../../../plugins/pin/rm.js'
import { pinUpdate } from '../../../plugins/pin/update.js'
import { pinVerify } from '../../../plugins/pin/verify.js'
import { storageOf } from '../../../core/gc/index.js'

use(chaiAsPromised)

// behaviour.md §3.2 / t0081-repo-pinning.sh: the dir1 tree (each fileN holds "some text N\n")
const FILE1 = 'QmbgX4aXhSSY88GHmPQ4roizD8wFwPX8jzTLjc8VAp89x4'
const FILE2 = 'QmSkjTornLY72QhmK9NvAz26815pTaoAL42rF8Qi3w2WBP'
const FILE3 = 'QmZrr4Pzqp3NnMzMfbMhNe7LghfoUFHVx7c9Po9GZrhKZ7'
const FILE4 = 'QmV1aiVgpDknKQugrK59uBUbMrPnsQM1F9FXbFcfgEvUvH'
const FILE5 = 'QmaN3PtyP8DcVGHi3Q2Fcp7CfAFVcVXKddWbHoNvaA41zf'
const FILE6 = 'QmRsBC3Y2G6VRPYGAVpZczx1W7Xw54MtM1NcLKTkn6rx3U'
const DIR4 = 'QmW98gV71Ns4bX7QbgWAqLiGF3SDC1JpveZSgBh4ExaSAd'
const DIR3 = 'QmRsCaNBMkweZ9vHT5PJRd2TT9rtNKEKyuognCEVxZxF1H'
const DIR2 = 'QmTUTQAgeVfughDSFukMZLbfGvetDJY7Ef5cDXkKK4abKC'
const DIR1 = 'QmNyZVFbgvmzguS2jVMRb8PQMNcCMJrn9E3doDhBbcPNTY'
const EMPTY_DIR = 'QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn'

const DIR1_TREE: Array<[string, string?]> = [
  ['dir1'], ['dir1/dir2'], ['dir1/dir2/dir4'],
  ['dir1/dir2/dir4/file1', 'some text 1\n'], ['dir1/dir2/dir4/file2', 'some text 2\n'], ['dir1/dir2/dir4/file6', 'some text 6\n'],
  ['dir1/dir2/file1', 'some text 1\n'], ['dir1/dir2/file4', 'some text 4\n'],
  ['dir1/dir3'], ['dir1/dir3/file2', 'some text 2\n'], ['dir1/dir3/file5', 'some text 5\n'],
  ['dir1/file1', 'some text 1\n'], ['dir1/file2', 'some text 2\n'], ['dir1/file3', 'some text 3\n']
]

async function * tree (list: Array<[string, string?]>): AsyncGenerator<FileEntry> {
  for (const [path, content] of list) {
    if (content === undefined) yield { path, type: 'directory' }
    else yield { path, type: 'file', content: (async function * () { yield Buffer.from(content) })() }
  }
}

describe('plugins/pin', function () {
  this.timeout(60_000)
  let node: TestNode

  const opts = { path: ['pin'], args: [] }
  /** the text encoder's rendering of a command's value(s) */
  const textOf = (spec: { text?: (v: any, c: any) => string }, value: unknown, options: Record<string, unknown> = {}): string =>
    (Array.isArray(value) ? value : [value]).map(v => spec.text?.(v, { ...opts, options: { encoding: 'text', ...options } }) ?? '').join('')
  const pinAddText = async (args: string[], options: Record<string, unknown> = {}): Promise<string> =>
    textOf(pinAdd, await node.invoke('pin/add', { args, options }), { recursive: true, ...options })
  /** t0081 test_pin_flag: does `pin ls --type=<t> <cid>` succeed? */
  const pinned = async (cid: string, type: string): Promise<boolean> => {
    try {
      await node.invoke('pin/ls', { args: [cid], options: { type } })
      return true
    } catch (err) {
      expect((err as Error).message).to.equal(`path '${cid}' is not pinned`)
      return false
    }
  }
  /** t0081 test_pin: exactly the given types */
  const expectPin = async (cid: string, ...types: string[]): Promise<void> => {
    for (const t of ['recursive', 'indirect', 'direct']) {
      expect(await pinned(cid, t), `${cid} ${t}`).to.equal(types.includes(t))
    }
  }
  const has = async (cid: string): Promise<boolean> => await node.container.cradle.blockstore.has(CID.parse(cid))
  const addText = async (content: string, options: Record<string, unknown> = {}): Promise<string> => {
    const rows = await node.invoke('add', { files: filesOf({ content }), options })
    return rows.at(-1).Hash
  }

  before(async () => { node = await createTestNode({ plugins: [addPlugin(), dagPlugin(), pinPlugin(), repoPlugin()] }) })
  after(async () => { await node.stop() })

  describe('t0081 repo pinning (dir1 tree)', () => {
    it('adds dir1 and pins it recursively, the rest indirectly', async () => {
      const rows = await node.invoke('add', { files: tree(DIR1_TREE) })
      expect(rows.at(-1)).to.include({ Name: 'dir1', Hash: DIR1 })
      await node.invoke('repo/gc')
      expect(await pinned(DIR1, 'recursive')).to.equal(true)
      for (const c of [FILE6, FILE5, FILE4, FILE3, FILE2, FILE1, DIR3, DIR4, DIR2]) expect(await pinned(c, 'indirect'), c).to.equal(true)
      expect(await pinned(DIR1, 'indirect')).to.equal(false)
      expect(await node.invoke('pin/ls', { options: { type: 'direct' } })).to.deep.equal({})
    })

    it('repo gc keeps every pinned block', async () => {
      await node.invoke('repo/gc')
      for (const c of [FILE6, FILE5, FILE4, FILE3, FILE2, FILE1, DIR3, DIR4, DIR2, DIR1]) expect(await has(c), c).to.equal(true)
    })

    it('pin rm -r dir1: `unpinned <cid>`; none are pinned any more', async () => {
      const out = await node.invoke('pin/rm', { args: [DIR1], options: { recursive: true } })
      expect(out).to.deep.equal({ Pins: [DIR1] })
      expect(textOf(pinRm, out)).to.equal(`unpinned ${DIR1}\n`)
      for (const c of [FILE6, FILE5, FILE4, FILE3, FILE2, FILE1, DIR3, DIR4, DIR2, DIR1]) await expectPin(c)
    })

    it('pins some directly and indirectly', async () => {
      let text = await pinAddText([DIR1], { recursive: false })
      text += await pinAddText([DIR2], { recursive: true })
      text += await pinAddText([FILE1], { recursive: false })
      expect(text).to.equal(`pinned ${DIR1} directly\npinned ${DIR2} recursively\npinned ${FILE1} directly\n`)
      await expectPin(DIR1, 'direct')
      await expectPin(DIR2, 'recursive')
      await expectPin(DIR3)
      await expectPin(DIR4, 'indirect')
      await expectPin(FILE1, 'indirect', 'direct')
      await expectPin(FILE2, 'indirect')
      await expectPin(FILE3)
      await expectPin(FILE4, 'indirect')
      await expectPin(FILE5)
      await expectPin(FILE6, 'indirect')
    })

    it('pin ls <cid> of an indirect pin names its parent', async () => {
      const out = await node.invoke('pin/ls', { args: [FILE4] })
      expect(out).to.deep.equal({ Keys: { [FILE4]: { Type: `indirect through ${DIR2}`, Name: '' } } })
      expect(textOf(pinLs, out)).to.equal(`${FILE4} indirect through ${DIR2}\n`)
    })

    it('pin ls <cid> of a direct+indirect block says direct (type all)', async () => {
      expect(await node.invoke('pin/ls', { args: [FILE1] })).to.deep.equal({ Keys: { [FILE1]: { Type: 'direct', Name: '' } } })
    })

    it('repo gc removes what is no longer pinned', async () => {
      await node.invoke('repo/gc')
      for (const c of [FILE3, FILE5, DIR3]) expect(await has(c), c).to.equal(false)
      for (const c of [FILE6, FILE4, FILE2, FILE1, DIR4, DIR2, DIR1]) expect(await has(c), c).to.equal(true)
    })

    it('a recursive pin fails without its objects and keeps the direct pin', async () => {
      await expect(node.invoke('pin/add', { args: [DIR1], options: { recursive: true } })).to.be.rejectedWith(/^pin: .*ipld: could not find/)
      expect(await pinned(DIR1, 'direct')).to.equal(true)
    })
  })

  describe('t0080 pin errors and listings', () => {
    let hash: string
    before(async () => {
      hash = await addText('some text\n', { pin: false })
    })

    it('pins recursively by default and refuses a direct pin of it', async () => {
      expect(await pinAddText([hash])).to.equal(`pinned ${hash} recursively\n`)
      await expect(node.invoke('pin/add', { args: [hash], options: { recursive: false } })).to.be.rejectedWith(`pin: ${hash} already pinned recursively`)
      await expect(node.invoke('pin/rm', { args: [hash], options: { recursive: false } })).to.be.rejectedWith(`${hash} is pinned recursively`)
    })

    it('moves a recursive pin to a direct one and removes it', async () => {
      expect(textOf(pinRm, await node.invoke('pin/rm', { args: [hash] }))).to.equal(`unpinned ${hash}\n`)
      expect(await pinAddText([hash], { recursive: false })).to.equal(`pinned ${hash} directly\n`)
      const direct = await node.invoke('pin/ls', { options: { type: 'direct' } })
      expect(direct.Keys[hash]).to.deep.equal({ Type: 'direct', Name: '' })
      expect(textOf(pinLs, { Keys: { [hash]: direct.Keys[hash] } })).to.equal(`${hash} direct\n`)
      expect(textOf(pinRm, await node.invoke('pin/rm', { args: [hash] }))).to.equal(`unpinned ${hash}\n`)
      await expect(node.invoke('pin/rm', { args: [hash] })).to.be.rejectedWith('not pinned or pinned indirectly')
    })

    it('rejects an invalid type', async () => {
      await expect(node.invoke('pin/ls', { options: { type: 'foo' } })).to.be.rejectedWith("invalid type 'foo', must be one of {direct, indirect, recursive, all}")
      await expect(node.invoke('pin/ls', { query: [['type', ['6']]] })).to.be.rejectedWith("invalid type '6', must be one of {direct, indirect, recursive, all}")
    })

    it('path is not pinned', async () => {
      await expect(node.invoke('pin/ls', { args: [hash] })).to.be.rejectedWith(`path '${hash}' is not pinned`)
      await expect(node.invoke('pin/ls', { args: [`/ipfs/${hash}`], options: { type: 'direct' } })).to.be.rejectedWith(`path '/ipfs/${hash}' is not pinned`)
    })

    it('a fresh node has exactly the empty directory pinned', async () => {
      await withTestNode({ plugins: [pinPlugin()] }, async (fresh) => {
        const out = await fresh.invoke('pin/ls')
        expect(out).to.deep.equal({ Keys: { [EMPTY_DIR]: { Type: 'recursive', Name: '' } } })
        expect(textOf(pinLs, out)).to.equal(`${EMPTY_DIR} recursive\n`)
        expect(textOf(pinLs, out, { quiet: true })).to.equal(`${EMPTY_DIR}\n`)
      })
    })

    it('type all lists recursive, then direct, then indirect (stream)', async () => {
      const a = await addText('stream a\n')
      const b = await addText('stream b\n', { pin: false })
      await node.invoke('pin/add', { args: [b], options: { recursive: false } })
      const rows = await node.invoke('pin/ls', { options: { stream: true } })
      const types = rows.map((r: { Type: string }) => r.Type)
      const firstDirect = types.indexOf('direct')
      const firstIndirect = types.indexOf('indirect')
      expect(types.slice(0, firstDirect).every((t: string) => t === 'recursive')).to.equal(true)
      expect(firstIndirect).to.be.greaterThan(firstDirect)
      expect(rows).to.deep.include({ Cid: a, Type: 'recursive' })
      expect(rows).to.deep.include({ Cid: b, Type: 'direct' })
      // the stream form omits an empty Name; keys in Go's order
      expect(Object.keys(rows[0])).to.deep.equal(['Cid', 'Type'])
      expect(textOf(pinLs, { Cid: a, Type: 'recursive' }, { stream: true })).to.equal(`${a} recursive\n`)
      // JSON map keys come sorted (Go encoding/json)
      const all = await node.invoke('pin/ls')
      const keys = Object.keys(all.Keys)
      expect(keys).to.deep.equal([...keys].sort())
      // every listed indirect is reachable: DIR2's children are there
      expect(all.Keys[FILE6]).to.deep.equal({ Type: 'indirect', Name: '' })
    })
  })

  describe('names (test/cli/pin_ls_names_test.go)', () => {
    it('stores, filters and shows names only with --names', async () => {
      const a = await addText('name a\n', { pin: false })
      const b = await addText('name b\n', { pin: false })
      await node.invoke('pin/add', { args: [a], options: { name: 'pin-a' } })
      await node.invoke('pin/add', { args: [b], options: { name: 'pin-b', recursive: false } })
      expect(await node.invoke('pin/ls', { args: [a], options: { names: true } })).to.deep.equal({ Keys: { [a]: { Type: 'recursive', Name: 'pin-a' } } })
      expect(await node.invoke('pin/ls', { args: [a] })).to.deep.equal({ Keys: { [a]: { Type: 'recursive', Name: '' } } })
      const named = await node.invoke('pin/ls', { options: { name: 'pin-' } })
      expect(named).to.deep.equal({ Keys: { [a]: { Type: 'recursive', Name: 'pin-a' }, [b]: { Type: 'direct', Name: 'pin-b' } } })
      expect(textOf(pinLs, named)).to.equal(`${a} recursive pin-a\n${b} direct pin-b\n`.split('\n').sort().filter(Boolean).map(l => l + '\n').join(''))
      expect(await node.invoke('pin/ls', { options: { name: 'pin-a', stream: true } })).to.deep.equal([{ Cid: a, Name: 'pin-a', Type: 'recursive' }])
      // pinning again with another name replaces it
      await node.invoke('pin/add', { args: [a], options: { name: 'renamed' } })
      expect((await node.invoke('pin/ls', { args: [a], options: { names: true } })).Keys[a].Name).to.equal('renamed')
      await expect(node.invoke('pin/add', { args: [a], options: { name: 'x'.repeat(256) } })).to.be.rejectedWith('pin name is 256 bytes (max 255 bytes)')
    })
  })

  describe('pin update', () => {
    it("fails with Kubo's errors and moves the pin (keeping its name)", async () => {
      const from = await addText('update from\n', { pin: false })
      const to = await addText('update to\n', { pin: false })
      await expect(node.invoke('pin/update', { args: [from, to] })).to.be.rejectedWith("'from' cid was not recursively pinned already")
      await node.invoke('pin/add', { args: [from], options: { name: 'my-pin' } })
      await node.invoke('pin/add', { args: [to] })
      await expect(node.invoke('pin/update', { args: [from, to] })).to.be.rejectedWith("'to' cid was already recursively pinned")
      await node.invoke('pin/rm', { args: [to] })
      const out = await node.invoke('pin/update', { args: [from, to] })
      expect(out).to.deep.equal({ Pins: [from, to] })
      expect(textOf(pinUpdate, out)).to.equal(`updated ${from} to ${to}\n`)
      expect((await node.invoke('pin/ls', { args: [to], options: { names: true } })).Keys[to]).to.deep.equal({ Type: 'recursive', Name: 'my-pin' })
      await expect(node.invoke('pin/ls', { args: [from] })).to.be.rejectedWith(`path '${from}' is not pinned`)
      // --unpin=false keeps the old one
      const third = await addText('update third\n', { pin: false })
      await node.invoke('pin/update', { args: [to, third], options: { unpin: false } })
      expect(await pinned(to, 'recursive')).to.equal(true)
      expect(await pinned(third, 'recursive')).to.equal(true)
    })
  })

  describe('pin add --progress', () => {
    it('streams progress rows then the pins', async () => {
      const cid = await addText('progress\n', { pin: false })
      const rows = await node.invoke('pin/add', { args: [cid], options: { progress: true } })
      expect(rows.at(-1)).to.deep.equal({ Pins: [cid] })
      expect(rows.at(-2)).to.deep.equal({ Progress: 1, Bytes: 17 })
      expect(textOf(pinAdd, rows, { recursive: true })).to.equal(`pinned ${cid} recursively\n`)
    })
  })

  describe('pin verify', () => {
    let bad: TestNode
    let root: string
    let child: string
    before(async () => {
      bad = await createTestNode({ plugins: [addPlugin(), pinPlugin()] })
      const rows = await bad.invoke('add', { files: tree([['d'], ['d/a', 'verify a\n'], ['d/b', 'verify b\n']]) })
      root = rows.at(-1).Hash
      child = rows.find((r: { Name: string }) => r.Name === 'd/b').Hash
    })
    after(async () => { await bad.stop() })

    it('reports ok pins only with --verbose', async () => {
      expect(await bad.invoke('pin/verify')).to.deep.equal([])
      const rows = await bad.invoke('pin/verify', { options: { verbose: true } })
      expect(rows).to.deep.equal([{ Cid: EMPTY_DIR, Ok: true }, { Cid: root, Ok: true }].sort((x, y) => x.Cid < y.Cid ? -1 : 1))
      expect(textOf(pinVerify, { Cid: root, Ok: true })).to.equal(`${root} ok\n`)
    })

    it('names the missing block of a broken pin', async () => {
      await storageOf(bad.container.cradle.blockstore).delete(CID.parse(child))
      const rows = await bad.invoke('pin/verify')
      const err = `block was not found locally (offline): ipld: could not find ${child}`
      expect(rows).to.deep.equal([{ Cid: root, BadNodes: [{ Cid: child, Err: err }] }])
      expect(textOf(pinVerify, rows)).to.equal(`${root} broken\n  ${child}: ${err}\n`)
      const quiet = await bad.invoke('pin/verify', { options: { quiet: true } })
      expect(quiet).to.deep.equal([{ Cid: root }])
      expect(textOf(pinVerify, quiet, { quiet: true })).to.equal(`${root}\n`)
      await expect(bad.invoke('pin/verify', { options: { quiet: true, verbose: true } })).to.be.rejectedWith('the --verbose and --quiet options can not be used at the same time')
    })
  })
})
