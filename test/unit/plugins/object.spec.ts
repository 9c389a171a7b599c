// object diff / patch add-link / patch rm-link through the registry; expected values observed from
// Kubo 0.40.1 (`ipfs add -r` of the same tree, then the same commands, offline).
import { expect } from 'chai'
import * as dagCbor from '@ipld/dag-cbor'
import * as dagPb from '@ipld/dag-pb'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { createTestNode, renderText, type TestNode } from '../../helpers/node.js'
import { rejection } from '../../helpers/assert.js'
import { objectPlugin } from '../../../plugins/object/index.js'
import { removedPlugin } from '../../../plugins/removed/index.js'
import { importBytes, importEntries } from './unixfs-helper.js'

// Kubo: d/a.txt = "hello\n", d/sub/b.txt = "world\n", c.txt = "x\n"
const A = 'QmUKpBKnu8nKiSJM45JTicuDhqwR7XuXZ6dn1HdHZdrgVa'
const C = 'QmUNXr47Bja3aHUMfhXX5mMWTFJKuoUGETcA48vHG7dhag'
const A_TXT = 'QmZULkCELmmk5XNfCgTnCyFgAVxBRBXyDHGGMVoLFLiXEN'
const SUB = 'QmcneUmsv1S7mz36kg5KxcZM9tQ3oUFhHQhqXraG52huNe'
const B_TXT = 'QmaRGe7bVmVaLmxbrMiVNXqW4pRNNp3xq7hFtyRKA3mtJL'
const EMPTY_DIR = 'QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn'
const V1 = 'bafybeic2mefjub7qr2zjti45y44h727or3oo66bulcmpxl34hvqgnrggjq'
const CBOR = 'bafyreihltcnuuyqp2jm24aqydpnlj7b6w3ogwrplomrjtg5rifv44mmjey' // {"a":1}

describe('object plugin', () => {
  let node: TestNode
  before(async () => {
    node = await createTestNode({ plugins: [removedPlugin(), objectPlugin()] })
    const bs = node.container.cradle.blockstore
    const tree = [{ path: 'd/a.txt', content: 'hello\n' }, { path: 'd/sub/b.txt', content: 'world\n' }]
    const added = await importEntries(bs, tree)
    expect(added.get('d')).to.equal(A)
    expect((await importEntries(bs, tree, { cidVersion: 1, rawLeaves: true })).get('d')).to.equal(V1)
    expect(await importBytes(bs, 'x\n')).to.equal(C)
    const cbor = dagCbor.encode({ a: 1 })
    const cid = CID.createV1(dagCbor.code, await sha256.digest(cbor))
    expect(cid.toString()).to.equal(CBOR)
    await bs.put(cid, cbor)
  })
  after(async () => { await node.stop() })

  const addLink = async (...args: string[]): Promise<string> => (await node.invoke('object/patch/add-link', { args })).Hash
  const rmLink = async (...args: string[]): Promise<string> => (await node.invoke('object/patch/rm-link', { args })).Hash

  describe('patch add-link', () => {
    it('adds a link (Kubo’s CID), text is the hash and a newline', async () => {
      expect(await addLink(A, 'new', C)).to.equal('QmR8WNXceQ6in7okkFEzznvq2cTpS9MwfhDZbttT4yjdiR')
      expect(await renderText(node, 'object/patch/add-link', { args: [A, 'new', C] })).to.equal('QmR8WNXceQ6in7okkFEzznvq2cTpS9MwfhDZbttT4yjdiR\n')
    })

    it('replaces an existing name and descends into existing nodes, files too', async () => {
      expect(await addLink(A, 'a.txt', C)).to.equal('QmeTN97gPPRBPtPacTnMzBqTygMLugNWQF7brz7D1KrNgS')
      expect(await addLink(A, 'sub/b.txt', C)).to.equal('QmVv1U4ErvAUesGKr3oxY8dR8F3i4TjvHEnTDBy4Ri1NB7')
      expect(await addLink(A, 'a.txt/q', C)).to.equal('Qmb86Yx7FeC1NCXYk67wQpvytp3YDufKEYJa4pw7K3n2WK')
    })

    it('--create makes missing directories; without it Kubo’s error', async () => {
      expect(await node.invoke('object/patch/add-link', { args: [A, 'x/y/z', C], options: { create: true } })).to.deep.equal({ Hash: 'QmXPz3ixBGXgXUa7yEELscZJbnzP8fuNEAgVbAaszoqwPC' })
      expect(await node.invoke('object/patch/add-link', { args: [A, 'q//b', C], options: { p: true } })).to.deep.equal({ Hash: 'QmWQykuVBVaq86MMyxuXfAAQGDZXLKRVme7byvhuxsigTd' })
      expect((await rejection(addLink(A, 'x/y/z', C))).message).to.equal('no link by that name')
      expect((await rejection(addLink(A, 'x/', C))).message).to.equal('no link by that name')
    })

    it('keeps the root’s CID version; paths as root and ref', async () => {
      expect((await node.invoke('object/patch/add-link', { args: [V1, 'n/m', C], options: { create: true } })).Hash).to.equal('bafybeifbc6kbqggjbrlp6qqy7cc3qvakwvt2mh2ertesyjnbmewubten5i')
      expect(await addLink(`/ipfs/${A}/sub`, 'n', C)).to.equal('QmeFxoWiqrxoEELq8si9Sp9ncDmqWY136HQbUqbiYcXP19')
      expect(await addLink(A, 'n', EMPTY_DIR)).to.equal('QmPxsUz2EyRzihR5GbM7hdA2mroRAp58DXETrKhbv6Gxrz')
      expect(await addLink(A, 'n', CBOR)).to.equal('QmRNL2AMJNn2VQGFXQ1PLNwHoLZvYkXKn3aqEUQodiSYzP')
      expect(await addLink(C, 'n', A)).to.equal('QmTbNT7KurUWqT2aGs59Y4Da4JhsUmU7xxHNShrfDuYSd6')
    })

    it('writes the new nodes to the blockstore', async () => {
      const out = (await node.invoke('object/patch/add-link', { args: [A, 'k/l', C], options: { create: true } })).Hash
      const bs = node.container.cradle.blockstore
      expect(await bs.has(CID.parse(out))).to.equal(true)
      const k = (await node.container.cradle.resolver.resolve(`/ipfs/${out}/k`)).cid
      expect(await bs.has(k)).to.equal(true)
      expect((await node.invoke('object/diff', { args: [A, out] })).Changes).to.deep.equal([{ Type: 0, Path: 'k', Before: null, After: { '/': k.toString() } }])
    })

    it('Kubo’s errors: no name, non-dag-pb root, bad path, missing block', async () => {
      expect((await rejection(addLink(A, '', C))).message).to.equal('cannot create link with no name')
      expect((await rejection(addLink(CBOR, 'n', C))).message).to.equal('expected protobuf dag node')
      expect((await rejection(addLink(A, 'n', 'QmNope'))).message).to.equal('invalid path "QmNope": path does not have enough components')
      expect((await rejection(addLink(A, 'n', `/ipfs/${A}/nope`))).message).to.equal(`no link named "nope" under ${A}`)
    })
    it('checks the new root’s size unless --allow-big-block (object patch’s option)', async () => {
      const bytes = dagPb.encode({ Data: new Uint8Array(2 * 1024 * 1024 + 1), Links: [] })
      const big = CID.createV0(await sha256.digest(bytes))
      await node.container.cradle.blockstore.put(big, bytes)
      expect((await rejection(addLink(big.toString(), 'n', C))).message).to.match(/^produced block is over 2MiB/)
      const out = await node.invoke('object/patch/add-link', { args: [big.toString(), 'n', C], options: { 'allow-big-block': true } })
      expect(await node.invoke('object/patch/rm-link', { args: [out.Hash, 'n'], options: { 'allow-big-block': true } })).to.deep.equal({ Hash: big.toString() })
    })
  })

  describe('patch rm-link', () => {
    it('removes a link, nested too (Kubo’s CIDs)', async () => {
      expect(await rmLink(A, 'sub')).to.equal('QmRL7MpyuT5GhpLr8asWP6hgWpCkhKm8ENYa4TykfAcj7E')
      expect(await rmLink(A, 'sub/b.txt')).to.equal('QmSfPC7aCsG61fPwnDt89YFeqPSgJXcrMKaKgarHZuhFiL')
      expect(await rmLink(V1, 'sub/b.txt')).to.equal('bafybeibllggcdxjckcjejop53r7m67bdsedf7oj5kwjria4jp3o7oldnyu')
    })

    it('Kubo’s errors', async () => {
      for (const name of ['nope', '', 'sub/', 'x/y']) expect((await rejection(rmLink(A, name))).message).to.equal('no link by that name')
      expect((await rejection(rmLink(CBOR, 'n'))).message).to.equal('expected protobuf dag node')
    })
  })

  describe('diff', () => {
    const NEW = 'QmR8WNXceQ6in7okkFEzznvq2cTpS9MwfhDZbttT4yjdiR'
    const MOD = 'QmVv1U4ErvAUesGKr3oxY8dR8F3i4TjvHEnTDBy4Ri1NB7'
    before(async () => { await addLink(A, 'new', C); await addLink(A, 'sub/b.txt', C) })

    it('an added link: Kubo’s JSON and texts', async () => {
      expect(await node.invoke('object/diff', { args: [A, NEW] })).to.deep.equal({ Changes: [{ Type: 0, Path: 'new', Before: null, After: { '/': C } }] })
      expect(await renderText(node, 'object/diff', { args: [A, NEW] })).to.equal(`+ ${C} "new"\n`)
      expect(await renderText(node, 'object/diff', { args: [A, NEW], options: { verbose: true } })).to.equal(`Added new link "new" pointing to ${C}.\n`)
    })

    it('a changed link deep down', async () => {
      expect(await node.invoke('object/diff', { args: [A, MOD] })).to.deep.equal({ Changes: [{ Type: 2, Path: 'sub/b.txt', Before: { '/': B_TXT }, After: { '/': C } }] })
      expect(await renderText(node, 'object/diff', { args: [A, MOD] })).to.equal(`~ ${B_TXT} ${C} "sub/b.txt"\n`)
      expect(await renderText(node, 'object/diff', { args: [A, MOD], options: { v: true } })).to.equal(`Changed "sub/b.txt" from ${B_TXT} to ${C}.\n`)
    })

    it('removed and added links, in Kubo’s order', async () => {
      const out = await node.invoke('object/diff', { args: [A, `/ipfs/${A}/sub`] })
      expect(out).to.deep.equal({
        Changes: [
          { Type: 1, Path: 'a.txt', Before: { '/': A_TXT }, After: null },
          { Type: 1, Path: 'sub', Before: { '/': SUB }, After: null },
          { Type: 0, Path: 'b.txt', Before: null, After: { '/': B_TXT } }
        ]
      })
      expect(await renderText(node, 'object/diff', { args: [A, `/ipfs/${A}/sub`], options: { verbose: true } })).to.equal(
        `Removed link "a.txt" (was ${A_TXT}).\nRemoved link "sub" (was ${SUB}).\nAdded new link "b.txt" pointing to ${B_TXT}.\n`)
    })

    it('leaves and other codecs compare by CID; equal objects give no changes', async () => {
      expect(await renderText(node, 'object/diff', { args: [C, EMPTY_DIR] })).to.equal(`~ ${C} ${EMPTY_DIR} ""\n`)
      expect(await renderText(node, 'object/diff', { args: [CBOR, A] })).to.equal(`~ ${CBOR} ${A} ""\n`)
      expect(await node.invoke('object/diff', { args: [A, A] })).to.deep.equal({ Changes: [] })
      expect(await renderText(node, 'object/diff', { args: [A, A] })).to.equal('')
      expect((await rejection(node.invoke('object/diff', { args: [A, 'QmNope'] }))).message).to.equal('invalid path "QmNope": path does not have enough components')
    })
  })

  it('deprecated commands with Kubo’s options and arguments', () => {
    for (const p of [['object', 'diff'], ['object', 'patch', 'add-link'], ['object', 'patch', 'rm-link']]) expect(node.registry.status(p)).to.equal('deprecated')
    const object = node.registry.tree().Subcommands.find(c => c.Name === 'object')
    expect(object?.Subcommands.find(c => c.Name === 'diff')?.Options).to.deep.equal([{ Names: ['verbose', 'v'] }])
    expect(object?.Subcommands.find(c => c.Name === 'patch')?.Subcommands.find(c => c.Name === 'add-link')?.Options).to.deep.equal([{ Names: ['create', 'p'] }, { Names: ['allow-non-unixfs'] }])
    expect(node.registry.validate()).to.deep.equal([])
  })
})
