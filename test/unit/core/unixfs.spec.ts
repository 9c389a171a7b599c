import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import * as dagPb from '@ipld/dag-pb'
import { UnixFS } from 'ipfs-unixfs'
import { importer as jsImporter, type ImporterOptions } from 'ipfs-unixfs-importer'
import { balanced as jsBalanced, trickle as jsTrickle } from 'ipfs-unixfs-importer/layout'
import { fixedSize as jsFixedSize } from 'ipfs-unixfs-importer/chunker'
import { MemoryBlockstore } from 'blockstore-core'
import { CID } from 'multiformats/cid'
import { identity } from 'multiformats/hashes/identity'
import { importFiles, resolveImportSettings, validateImportConfig, type ImportedNode, type ImportFlags, type ImportConfig } from '../../../core/unixfs/index.js'
import { buildDirectory, buildHamt, listOf, type DirEntry, type DirEntryList } from '../../../core/unixfs/dir.js'
import { cidBuilder, encodeDataBlock, encodeNode, DataType } from '../../../core/unixfs/pb.js'
import { hashByName } from '../../../core/hashes.js'
import {
  add, addBytes, addRoot, chacha, chachaBytes, deterministicNames, entriesOf, treeEntries, MemSink, nullSink, V1_2025, type E
} from './unixfs-helpers.js'

use(chaiAsPromised)

const sha256 = hashByName('sha2-256') as NonNullable<ReturnType<typeof hashByName>>

function pb (sink: MemSink, cid: CID): { node: dagPb.PBNode, fs: UnixFS } {
  const node = dagPb.decode(sink.get(cid))
  return { node, fs: UnixFS.unmarshal(node.Data as Uint8Array) }
}

const HW = 'hello world'

describe('core/unixfs importer', function () {
  this.timeout(120_000)

  describe('behaviour.md §3.1 fixed strings', () => {
    const vectors: Array<[string, Parameters<typeof addBytes>[1], Parameters<typeof addBytes>[2], string, string]> = [
      // [content, flags, Import config, expected, what]
      [HW, {}, {}, 'Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD', 'default'],
      [HW, {}, { CidVersion: 1 }, 'bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e', 'Import.CidVersion=1 implies raw leaves'],
      [HW, {}, { CidVersion: 1, UnixFSRawLeaves: false }, 'bafybeihykld7uyxzogax6vgyvag42y7464eywpf55gxi5qpoisibh3c5wa', 'CIDv1 without raw leaves'],
      [HW, {}, { HashFunction: 'sha2-512' }, 'bafkrgqbqt3gerhas23vuzrapkdeqf4vu2dwxp3srdj6hvg6nhsug2tgyn6mj3u23yx7utftq3i2ckw2fwdh5qmhid5qf3t35yvkc5e5ottlw6', 'Import.HashFunction=sha2-512'],
      [HW, { cidVersion: 0 }, { CidVersion: 1 }, 'Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD', 'flag wins over config'],
      [HW, { hash: 'blake2b-256' }, {}, 'bafk2bzaceaswza5ss4iu2ia3galz6pyo6dfm5f4dmiw2lf2de22dmf4k533ba', '--hash=blake2b-256'],
      [HW, { hash: 'sha3-512' }, {}, 'bafkriqeeaadgkpu2zhuvcf5blsivzkvyczrjdduslxu6abhxot7yfvyhtjanjut3dm3smv6gdvdni4bqjsempcfturjhvudu2homx3s5xkuzu', '--hash=sha3-512'],
      [HW, { trickle: true }, {}, 'QmRa57sp5M1iouDtNoZscfeHi73JZFxsHpuqvNEug7zmq2', '--trickle'],
      [HW, { trickle: true, cidVersion: 1 }, {}, 'bafybeihcowtb7l7r3l7ydvxunav2vyv24s5m6tm44oplsoinw3wqztigvy', '--trickle --cid-version=1'],
      [HW, { inline: true, rawLeaves: true }, {}, 'bafkqac3imvwgy3zao5xxe3de', '--inline --raw-leaves'],
      [HW, { inline: true }, {}, 'bafyaaeykceeaeeqlnbswy3dpeb3w64tmmqmaw', '--inline (dag-pb leaf)'],
      ['x', {}, {}, 'QmULKig5Fxrs2sC4qt9nNduucXfb92AFYQ6Hi3YRqDmrYC', 'x, unixfs-v0-2015'],
      ['x', {}, V1_2025, 'bafkreibnoelefnzgwbcacyt4vh52ymxvzbjq7mmqhtcnwarfq4lzegsiqe', 'x, unixfs-v1-2025'],
      ['Hello Worlds!\n', {}, {}, 'QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH', 'default'],
      ['Hello Worlds!\n', { chunker: 'rabin' }, {}, 'QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH', '--chunker=rabin'],
      ['Hello Worlds!\n', { chunker: 'size-64' }, {}, 'QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH', '--chunker=size-64'],
      ['Hello Worlds!\n', { chunker: 'rabin-36-512-1024' }, {}, 'QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH', '--chunker rabin-36-512-1024'],
      ['Hello Worlds!\n', { chunker: 'buzhash' }, {}, 'QmVr26fY1tKyspEJBniVhqxQeEjhF78XerGiqWAwraVLQH', '--chunker buzhash'],
      ['Hello Worlds!\n', { trickle: true }, {}, 'QmUkUQgxXeggyaD5Ckv8ZqfW8wHBX6cYyeiyqvVZYzq5Bi', '-t'],
      ['Hello Worlds!\n', { cidVersion: 1 }, {}, 'bafkreie6juq72qvxhoqf3xdkuysabhxf3wp2p6l5k2gsdsgtre6unpqkqu', '--cid-version=1'],
      ['Helloo Worlds!\n', {}, {}, 'Qmf35k66MZNW2GijohUmXQEWKZU4cCGTCwK6idfnt152wJ', 'default'],
      ['Hello Venus!\n', {}, {}, 'QmU5kp3BH3B8tnWUU2Pikdb2maksBNkb92FHRr56hyghh4', 'default'],
      ['Hello Jupiter!\n', {}, {}, 'QmUnvPcBctVTAcJpigv6KMqDvmDewksPWrNVoy1E1WP5fh', '-q'],
      ['Hello Neptune!\nHello Pluton!', {}, {}, 'QmZDhWpi8NvKrekaYYhxKCdNVGWsFFe1CREnAjP1QbPaB3', 'stdin'],
      ['IPFS\n', {}, {}, 'QmdFyxZXsFiP4csgfM5uPu99AvFiKH62CSPDw5TP92nr7w', '--stdin-name file.txt'],
      ['Hello MFS!\n', {}, {}, 'QmVT8bL3sGBA2TwvX8JPhrv5CYZL8LLLfW7mxkUjPZsgBr', '--to-files'],
      ['file1\n', { cidVersion: 1 }, {}, 'bafkreihm3rktn5z33luic3youqdsn326toaq3ekesmdvsa53sbrd3f5r3a', '--cid-version 1'],
      ['file2\n', { cidVersion: 1 }, {}, 'bafkreidh5zkhr2vnwa2luwmuj24xo6l3jhfgvkgtk5cyp43oxs7owzpxby', '--cid-version 1'],
      ['', {}, {}, 'QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH', 'empty file'],
      ['', { rawLeaves: true }, {}, 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku', 'empty file --raw-leaves'],
      ['', { cidVersion: 1, rawLeaves: false }, {}, 'bafybeif7ztnhq65lumvvtr4ekcwd2ifwgm3awq4zfr3srh462rwyinlb4y', 'empty file CIDv1 dag-pb'],
      ['', { trickle: true }, {}, 'QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH', 'empty file, trickle = balanced'],
      ['foobar\n', {}, {}, 'QmRgutAxd8t7oGkSm4wmeuByG6M51wcTso6cubDdQtuEfL', 'default'],
      ['test\n', {}, {}, 'QmeomffUNfmQy76CQGy9NdmqEnnHU9soCexBnGU3ezPHVH', 'default'],
      ['foo\n', {}, {}, 'QmYNmQKp6SuaVrpgWRsPTgCQCnpxUYGq76YEKBXuj2N4H6', 'default'],
      ['bar\n', {}, {}, 'QmTz3oc4gdpRMKP2sdGUPZTAGRngqjsi99BPoztyP53JMM', 'default'],
      ['baz\n', {}, {}, 'QmWLdkp93sNxGRjnFHPaYg8tCQ35NBY3XPn6KiETd3Z4WR', 'default'],
      ['foo\n', { cidVersion: 1, rawLeaves: false }, {}, 'bafybeievd6mwe6vcwnkwo3eizs3h7w3a34opszbyfxziqdxguhjw7imdve', 'CIDv1 dag-pb'],
      ['set nocompatible\n', {}, {}, 'QmT4uMRDCN7EMpFeqwvKkboszbqeW1kWVGrBxBuCGqZcQc', '.vimrc'],
      ['World\n', {}, {}, 'Qma9CyFdG5ffrZCcYSin2uAETygB25cswVwEYYzwfQuhTe', 'default'],
      ['jkD98jkD975hkD8\n', { inline: true, rawLeaves: true }, {}, 'bafkqaedknncdsodknncdsnzvnbvuioak', 'inline raw (t0046)'],
      ['jkD98jkD975hkD8\n', { inline: true }, {}, 'bafyaagakcyeaeeqqnjvuiojynjvuiojxgvugwrbybimba', 'inline dag-pb leaf'],
      ['foo\n', { hash: 'blake3', rawLeaves: true }, {}, 'bafkr4icj3sdq34o6p7lapfgoxtset5om3lsxll72uz5cjnrkzmb6aoo3si', '--hash=blake3 (t0800)']
    ]
    for (const [content, flags, cfg, expected, what] of vectors) {
      it(`${JSON.stringify(content)} ${what} → ${expected}`, async () => {
        expect(await addBytes(content, flags, cfg)).to.equal(expected)
      })
    }

    it('an unnamed file is named by its CID (stdin without --stdin-name)', async () => {
      const rows = await add([{ path: '', content: 'Hello Neptune!\nHello Pluton!' }])
      expect(rows.map(r => [r.path, r.cid.toString(), r.type])).to.deep.equal([
        ['QmZDhWpi8NvKrekaYYhxKCdNVGWsFFe1CREnAjP1QbPaB3', 'QmZDhWpi8NvKrekaYYhxKCdNVGWsFFe1CREnAjP1QbPaB3', 'file']
      ])
    })

    it('-w wraps named files: hello.txt (v0, v1), file.txt, example.jpg', async () => {
      const hello = await add([{ path: 'hello.txt', content: HW }], { wrapWithDirectory: true })
      expect(hello.map(r => [r.path, r.cid.toString()])).to.deep.equal([
        ['hello.txt', 'Qmf412jQZiuVUtdgnB36FXFX7xg5V6KEbSJ4dpQuhkLyfD'],
        ['', 'QmNxvA5bwvPGgMXbmtyhxA1cKFdvQXnsGnZLCGor3AzYxJ']
      ])
      expect(await addRoot([{ path: 'hello.txt', content: HW }], { wrapWithDirectory: true, cidVersion: 1 }))
        .to.equal('bafybeic6svhkwl3y2wvkj33weshyjjs5cbvgijh7yo3kjasyglrdwe2l74')
      expect(await addRoot([{ path: 'file.txt', content: 'IPFS\n' }], { wrapWithDirectory: true }))
        .to.equal('QmVcbNxL7X3Nhuasd12HHf6u7CKiMGQkULySx9JE5UXMGb')
      const jpg = await add([{ path: 'example.jpg', content: '' }], { wrapWithDirectory: true })
      expect(jpg.map(r => r.cid.toString())).to.deep.equal(['QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH', 'QmaG4FuMqEBnQNn3C8XJ5bpW8kLs7zq2ZXgHptJHbKDDVx'])
    })

    it('base32 test: the CIDv0 shown as CIDv1 with --cid-base=base32 (t0040)', async () => {
      const cid = CID.parse(await addBytes('base32 test\n'))
      expect(cid.version).to.equal(0)
      expect(cid.toV1().toString()).to.equal('bafybeibyosqxljd2eptb4ebbtvk7pb4aoxzqa6ttdsflty6rsslz5y6i34')
    })

    it('foobar\\n leaf block: Data CAISB2Zvb2JhcgoYBw (t0053), Links before Data, no Tsize for leaves', async () => {
      const sink = new MemSink()
      const [row] = await add([{ path: 'foobar', content: 'foobar\n' }], {}, {}, sink)
      const bytes = sink.get(row.cid)
      expect(Buffer.from(dagPb.decode(bytes).Data as Uint8Array).toString('base64')).to.equal('CAISB2Zvb2JhcgoYBw==')
      expect(row.size).to.equal(bytes.length).and.to.equal(15)
      expect(row.bytes).to.equal(7)
    })

    it('empty file block is 0a 04 08 02 18 00', async () => {
      const sink = new MemSink()
      const [row] = await add([{ path: 'e', content: '' }], {}, {}, sink)
      expect(Buffer.from(sink.get(row.cid)).toString('hex')).to.equal('0a0408021800')
    })
  })

  describe('behaviour.md §3.2 directories', () => {
    const planets = { planets: { 'mars.txt': 'Hello Mars!\n', 'venus.txt': 'Hello Venus!\n' } }
    const cids = async (entries: E[], flags = {}, cfg = {}): Promise<Record<string, string>> =>
      Object.fromEntries((await add(entries, flags, cfg)).map(r => [r.path, r.cid.toString()]))

    it('planets: default, --raw-leaves (dir stays CIDv0), --cid-version=1, v1 without raw leaves, blake2b-256', async () => {
      const entries = treeEntries('planets', planets.planets)
      expect(await cids(entries)).to.deep.equal({
        'planets/mars.txt': 'QmPrrHqJzto9m7SyiRzarwkqPcCSsKR2EB1AyqJfe8L8tN',
        'planets/venus.txt': 'QmU5kp3BH3B8tnWUU2Pikdb2maksBNkb92FHRr56hyghh4',
        planets: 'QmWSgS32xQEcXMeqd3YPJLrNBLSdsfYCep2U7CFkyrjXwY'
      })
      expect(await cids(entries, { rawLeaves: true })).to.deep.equal({
        'planets/mars.txt': 'bafkreibmlvvgdyihetgocpof6xk64kjjzdeq2e4c7hqs3krdheosk4tgj4',
        'planets/venus.txt': 'bafkreihfsphazrk2ilejpekyltjeh5k4yvwgjuwg26ueafohqioeo3sdca',
        planets: 'QmfWfQfKCY5Ukv9peBbxM5vqWM9BzmqUSXvdCgjT2wsiBT'
      })
      expect((await cids(entries, { cidVersion: 1 })).planets).to.equal('bafybeih7e5dmkyk25up5vxug4q3hrg2fxbzf23dfrac2fns5h7z4aa7ioi')
      expect(await cids(entries, { cidVersion: 1, rawLeaves: false })).to.deep.equal({
        'planets/mars.txt': 'bafybeiawta2ntdmsy24aro35w3homzl4ak7svr3si7l7gesvq4erglyye4',
        'planets/venus.txt': 'bafybeicvkvhs2fr75ynebtdjqpgm4g2fc63abqbmysupwpmcjl4gx7mzrm',
        planets: 'bafybeif5tuep5ap2d7zyhbktucey75aoacxufgt6i3v4gebmixyipnyp7y'
      })
      expect(await cids(entries, { hash: 'blake2b-256' })).to.deep.equal({
        'planets/mars.txt': 'bafk2bzaceaqcxw46uzkyd2jmczoogof6pnkqt4dpiv3pwkunsv4g5rkkmecie',
        'planets/venus.txt': 'bafk2bzacebxnke2fb5mgzxyjuuavvcfht4fd3gvn4klkujz6k72wboynhuvfw',
        planets: 'bafykbzaceaptbcs7ik5mdfpot3b4ackvxlwh7loc5jcrtkayf64ukl7zyk46e'
      })
    })

    it('moons: CIDs and Kubo’s row order (files in input order, then directories post-order)', async () => {
      const rows = await add(treeEntries('moons', {
        jupiter: { 'europa.txt': 'Hello Europa!\n' },
        saturn: { 'titan.txt': 'Hello Titan!\n' },
        'mercury.txt': 'hey you are no moon!\n'
      }))
      expect(rows.map(r => [r.path, r.cid.toString()])).to.deep.equal([
        ['moons/jupiter/europa.txt', 'Qmbjg7zWdqdMaK2BucPncJQDxiALExph5k3NkQv5RHpccu'],
        ['moons/mercury.txt', 'QmRsTB5CpEUvDUpDgHCzb3VftZ139zrk9zs5ZcgYh9TMPJ'],
        ['moons/saturn/titan.txt', 'QmZzppb9WHn552rmRqpPfgU5FEiHH6gDwi3MrB9cTdPwdb'],
        ['moons/jupiter', 'QmS5mZddhFPLWFX3w6FzAy9QxyYkaxvUpsWCtZ3r7jub9J'],
        ['moons/saturn', 'QmaMagZT4rTE7Nonw8KGSK4oe1bh533yhZrCo1HihSG8FK'],
        ['moons', 'QmbGoaQZm8kjYfCiN1aBsgwhqfUBGDYTrDb91Mz7Dvq81B']
      ])
    })

    it('./{hey, hello/world} (t0040)', async () => {
      expect(await addRoot(treeEntries('.', { hey: 'Hey\n', hello: { world: 'World\n' } }))).to.equal('QmZQWnfcqJ6hNkkPvrY9Q5X39GP3jUnUbAV4AbmbbR3Cb1')
    })

    it('t0042 hidden files: skipped, --hidden, ignore rules', async () => {
      const visible = { 'mars.txt': 'Hello Mars\n', 'venus.txt': 'Hello Venus\n' }
      const hidden = {
        '.gitignore': 'mars.txt\n',
        '.pluto.txt': 'Hello Pluto\n',
        '.charon.txt': 'Hello Charon\n',
        '.asteroids': { 'ceres.txt': 'Hello Ceres\n', 'pallas.txt': 'Hello Pallas\n' }
      }
      const skipped = await cids(treeEntries('planets', visible))
      expect(skipped).to.deep.include({
        'planets/mars.txt': 'QmZy3khu7qf696i5HtkgL2NotsCZ8wzvNZJ1eUdA5n8KaV',
        'planets/venus.txt': 'QmQnv4m3Q5512zgVtpbJ9z85osQrzZzGRn934AGh6iVEXz',
        planets: 'QmR8nD1Vzk5twWVC6oShTHvv7mMYkVh6dApCByBJyV2oj3'
      })
      const all = await cids(treeEntries('planets', { ...visible, ...hidden }))
      expect(all).to.deep.include({
        'planets/.asteroids/ceres.txt': 'QmcAREBcjgnUpKfyFmUGnfajA1NQS5ydqRp7WfqZ6JF8Dx',
        'planets/.asteroids/pallas.txt': 'QmZ5eaLybJ5GUZBNwy24AA9EEDTDpA4B8qXnuN3cGxu2uF',
        'planets/.charon.txt': 'QmaowqjedBkUrMUXgzt9c2ZnAJncM9jpJtkFfgdFstGr5a',
        'planets/.gitignore': 'QmPHrRjTH8FskN3C2iv6BLekDT94o23KSL2u5qLqQqGhVH',
        'planets/.pluto.txt': 'QmU4zFD5eJtRBsWC63AvpozM9Atiadg9kPVTuTrnCYJiNF',
        'planets/.asteroids': 'Qmf6rbs5GF85anDuoxpSAdtuZPM9D2Yt3HngzjUVSQ7kDV',
        planets: 'QmczhHaXyb3bc9APMxe4MXbr87V5YDLKLaw3DZX3fK7HrK'
      })
      const { 'mars.txt': _m, ...noMars } = visible
      expect(await addRoot(treeEntries('planets', { ...noMars, ...hidden }))).to.equal('QmaRsiaCYvc65RqHVAcv2tqyjZgQYgvaNqW1tQGsjfy4N5')
      const { '.asteroids': _a, ...noAsteroids } = hidden
      expect(await addRoot(treeEntries('planets', noAsteroids))).to.equal('QmemuMahjSh7eYLY3hbz2q8sqMPnbQzBQeUdosqNiWChE6')
    })

    it('t0081 dir1 tree', async () => {
      const f = (n: number): string => `some text ${n}\n`
      const got = await cids(treeEntries('dir1', {
        file1: f(1),
        file2: f(2),
        file3: f(3),
        dir2: { file1: f(1), file4: f(4), dir4: { file1: f(1), file2: f(2), file6: f(6) } },
        dir3: { file2: f(2), file5: f(5) }
      }))
      expect(got).to.deep.include({
        'dir1/file1': 'QmbgX4aXhSSY88GHmPQ4roizD8wFwPX8jzTLjc8VAp89x4',
        'dir1/file2': 'QmSkjTornLY72QhmK9NvAz26815pTaoAL42rF8Qi3w2WBP',
        'dir1/file3': 'QmZrr4Pzqp3NnMzMfbMhNe7LghfoUFHVx7c9Po9GZrhKZ7',
        'dir1/dir2/file4': 'QmV1aiVgpDknKQugrK59uBUbMrPnsQM1F9FXbFcfgEvUvH',
        'dir1/dir3/file5': 'QmaN3PtyP8DcVGHi3Q2Fcp7CfAFVcVXKddWbHoNvaA41zf',
        'dir1/dir2/dir4/file6': 'QmRsBC3Y2G6VRPYGAVpZczx1W7Xw54MtM1NcLKTkn6rx3U',
        'dir1/dir2/dir4': 'QmW98gV71Ns4bX7QbgWAqLiGF3SDC1JpveZSgBh4ExaSAd',
        'dir1/dir3': 'QmRsCaNBMkweZ9vHT5PJRd2TT9rtNKEKyuognCEVxZxF1H',
        'dir1/dir2': 'QmTUTQAgeVfughDSFukMZLbfGvetDJY7Ef5cDXkKK4abKC',
        dir1: 'QmNyZVFbgvmzguS2jVMRb8PQMNcCMJrn9E3doDhBbcPNTY'
      })
    })

    it('t0095 A tree', async () => {
      const got = await cids(treeEntries('A', {
        '1.txt': '1\n',
        B: { '1.txt': '1\n', D: { '2.txt': '2\n' } },
        C: { B: { '1.txt': '1\n', D: { '2.txt': '2\n' } } },
        D: { '2.txt': '2\n' }
      }))
      expect(got).to.deep.include({
        'A/1.txt': 'QmdytmR4wULMd3SLo6ePF4s3WcRHWcpnJZ7bHhoj3QB13v',
        'A/D/2.txt': 'QmSFxnK675wQ9Kc1uqWKyJUaNxvSc2BP5DbXCD3x93oq61',
        'A/D': 'QmSanP5DpxpqfDdS4yekHY1MqrVge47gtxQcp2e2yZ4UwS',
        'A/B': 'QmNkQvpiyAEtbeLviC7kqfifYoK1GXPcsSxTpP1yS3ykLa',
        'A/C': 'QmXXazTjeNCKFnpW1D65vTKsTs8fbgkCWTv8Em4pdK2coH',
        A: 'QmU6xujRsYzcrkocuR3fhfnkZBB8eyUFFq4WKRGw2aS15h'
      })
    })

    it('t0044 symlinks: tree (v0, v1), a symlink alone, a broken one', async () => {
      const files = { foo: { baz: 'some text\n' }, bar: { baz: { symlink: 'files/foo/baz' } }, bad: { symlink: 'files/does/not/exist' } }
      expect(await addRoot(treeEntries('files', files))).to.equal('QmWdiHKoeSW8G1u7ATCgpx4yMoUhYaJBQGkyPLkS9goYZ8')
      expect(await addRoot(treeEntries('files', files), { cidVersion: 1 })).to.equal('bafybeibyhlx64cklod6isy3h7tsmr4qvam3ae3b74n3hfes5bythjrwyua')
      const [link] = await add([{ path: 'baz', target: 'files/foo/baz' }])
      expect([link.type, link.cid.toString()]).to.deep.equal(['symlink', 'QmdocmZeF7qwPT9Z8SiVhMSyKA2KKoA2J7jToW6z6WBmxR'])
      expect(await addRoot([{ path: 'bad', target: 'files/does/not/exist' }])).to.equal('QmWYN8SEXCgNT2PSjB6BnxAx6NJQtazWoBkTRH9GRfPFFQ')
    })

    it('t0040 test/{mfs1.txt, mfs2.txt} --cid-version 1', async () => {
      expect(await addRoot(treeEntries('test', { 'mfs1.txt': 'file1\n', 'mfs2.txt': 'file2\n' }), { cidVersion: 1 }))
        .to.equal('bafybeic7xwqwovt4g4bax6d3udp6222i63vj2rblpbim7uy2uw4a5gahha')
    })

    it('empty directory: v0, CIDv1, blake2b-256 (t0250); block 0a 02 08 01', async () => {
      const sink = new MemSink()
      const rows = await add([{ path: 'empty', type: 'directory' }], {}, {}, sink)
      expect(rows.map(r => [r.path, r.cid.toString(), r.type])).to.deep.equal([['empty', 'QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn', 'directory']])
      expect(Buffer.from(sink.get(rows[0].cid)).toString('hex')).to.equal('0a020801')
      expect(await addRoot([{ path: 'empty', type: 'directory' }], {}, { CidVersion: 1 })).to.equal('bafybeiczsscdsbs7ffqz55asqdf3smv6klcw3gofszvwlyarci47bgf354')
      expect(await addRoot([{ path: 'empty', type: 'directory' }], {}, { HashFunction: 'blake2b-256' })).to.equal('bafykbzacebugfutjir6qie7apo5shpry32ruwfi762uytd5g3u2gk7tpscndq')
    })

    it('--empty-dirs=false drops empty sub-directories but keeps the top one', async () => {
      const entries: E[] = [{ path: 'top', type: 'directory' }, { path: 'top/empty', type: 'directory' }, { path: 'top/a', content: 'Hey\n' }]
      const kept = await add(entries)
      expect(kept.map(r => r.path)).to.deep.equal(['top/a', 'top/empty', 'top'])
      const dropped = await add(entries, { emptyDirs: false })
      expect(dropped.map(r => r.path)).to.deep.equal(['top/a', 'top'])
      expect(dropped[1].cid.toString()).to.equal(await addRoot([{ path: 'top', type: 'directory' }, { path: 'top/a', content: 'Hey\n' }]))
      expect((await add([{ path: 'only', type: 'directory' }], { emptyDirs: false })).map(r => r.cid.toString()))
        .to.deep.equal(['QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn'])
      // with -w the arguments are not top-level: an empty argument directory goes
      const wrapped = await add([{ path: 'e', type: 'directory' }, { path: 'f', content: '' }], { wrapWithDirectory: true, emptyDirs: false })
      expect(wrapped.map(r => r.path)).to.deep.equal(['f', ''])
    })
  })

  describe('mode and mtime (t0047)', () => {
    const PRESERVE_MTIME = 1604320482
    const CUSTOM_MTIME = 1603539720
    const NSECS = 54321

    it('empty file: preserved mode/mtime, --mode, --mtime, --mtime-nsecs', async () => {
      const file = (extra: Partial<E>): E[] => [{ path: 'test.txt', content: '', ...extra }]
      expect(await addRoot(file({ mode: 0o640 }), { preserveMode: true })).to.equal('QmQLgxypSNGNFTuUPGCecq6dDEjb6hNB5xSyVmP3cEuNtq')
      expect(await addRoot(file({ mtime: { secs: PRESERVE_MTIME } }), { preserveMtime: true })).to.equal('QmQ6kErEW8kztQFV8vbwNU8E4dmtGsYpRiboiLxUEwibvj')
      expect(await addRoot(file({ mode: 0o640, mtime: { secs: PRESERVE_MTIME } }), { preserveMode: true, preserveMtime: true })).to.equal('QmYkvboLsvLFcSYmqVJRxvBdYRQLroLv9kELf3LRiCqBri')
      expect(await addRoot(file({ mode: 0o600 }), { mode: 0o764 })).to.equal('QmchD3BN8TQ3RW6jPLxSaNkqvfuj7syKhzTRmL4EpyY1Nz')
      expect(await addRoot(file({}), { mtime: CUSTOM_MTIME })).to.equal('QmT3aY4avDcYXCWpU8CJzqUkW7YEuEsx36S8cTNoLcuK1B')
      expect(await addRoot(file({}), { mtime: CUSTOM_MTIME, mtimeNsecs: NSECS })).to.equal('QmaKH8H5rXBUBCX4vdxi7ktGQEL7wejV7L9rX2qpZjwncz')
      expect(await addRoot(file({ mode: 0o600 }), { mode: 0o764, mtime: CUSTOM_MTIME, mtimeNsecs: NSECS })).to.equal('QmUkxrtBA8tPjwCYz1HrsoRfDz6NgKut3asVeHVQNH4C8L')
      // metadata is ignored unless preserved or set
      expect(await addRoot(file({ mode: 0o640, mtime: { secs: PRESERVE_MTIME } }), {})).to.equal('QmbFMke1KXqnYyBBWxB74N4c5SBnJMVAiMNRcGu6x1AwQH')
    })

    it('symlink: mtime stored, mode never', async () => {
      const link = (extra: Partial<E>): E[] => [{ path: 'linkfile', target: 'nothing', ...extra }]
      expect(await addRoot(link({ mtime: { secs: PRESERVE_MTIME } }), { preserveMtime: true })).to.equal('QmbJwotgtr84JxcnjpwJ86uZiyMoxbZuNH4YrdJMypkYaB')
      expect(await addRoot(link({}), { mtime: CUSTOM_MTIME })).to.equal('QmV1Uot2gy4bhY9yvYiZxhhchhyYC6MKKoGV1XtWNmpCLe')
      expect(await addRoot(link({}), { mtime: CUSTOM_MTIME, mtimeNsecs: NSECS })).to.equal('QmPHYCxYvvHj6VxiPNJ3kXxcPsnJLDYUJqsDJWjvytmrmY')
      expect(await addRoot(link({}), { mtime: CUSTOM_MTIME, mode: 0o764 })).to.equal('QmV1Uot2gy4bhY9yvYiZxhhchhyYC6MKKoGV1XtWNmpCLe')
      expect(await addRoot(link({ mode: 0o777 }), { preserveMode: true })).to.equal(await addRoot(link({})))
    })

    const DIR_TIME = 1655158632
    const testdir = (): E[] => [
      { path: 'testdir', type: 'directory', mode: 0o700, mtime: { secs: DIR_TIME } },
      { path: 'testdir/dir1', type: 'directory', mode: 0o755, mtime: { secs: DIR_TIME + 90 } },
      { path: 'testdir/dir2', type: 'directory', mode: 0o755, mtime: { secs: DIR_TIME + 50 } },
      { path: 'testdir/dir2/sub1', type: 'directory', mode: 0o755, mtime: { secs: DIR_TIME + 40 } },
      { path: 'testdir/dir2/sub1/link1', target: '../sub2/file3', mode: 0o777, mtime: { secs: DIR_TIME + 20 } },
      { path: 'testdir/dir2/sub1/sub2', type: 'directory', mode: 0o755, mtime: { secs: DIR_TIME + 30 } },
      { path: 'testdir/dir2/sub1/sub2/file3', content: '', mode: 0o644, mtime: { secs: DIR_TIME + 10 } },
      { path: 'testdir/dir3', type: 'directory', mode: 0o755, mtime: { secs: DIR_TIME + 70 } },
      { path: 'testdir/dir3/file2', content: '', mode: 0o644, mtime: { secs: DIR_TIME + 60 } },
      { path: 'testdir/file1', content: '', mode: 0o644, mtime: { secs: DIR_TIME + 80 } }
    ]

    it('empty directory dir1: no metadata, preserved mode/mtime, --mode, --mtime, --mtime-nsecs', async () => {
      const dir1 = testdir()[1]
      const one = (flags: object): Promise<string> => addRoot([{ ...dir1, path: 'dir1' }], flags)
      expect(await one({})).to.equal('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')
      expect(await one({ preserveMode: true })).to.equal('QmRviohgafvCsbkiTgfQFipbuXJ6k1YtoiaQW4quttJPKu')
      expect(await one({ preserveMtime: true })).to.equal('QmYMy7CZGb498QFSQBF5ZFwv1FYbrAtYZMe4VxhDXxAcvf')
      expect(await one({ mode: 0o713 })).to.equal('QmQ1ABnw2iip7sj23EzzBZ9T77KyyfESP6SUboiXPyzNQe')
      expect(await one({ mtime: CUSTOM_MTIME })).to.equal('QmfWitW6F13WHFXLbJzXRYmwrS1p4gaAJAfucUSMytRPn3')
      expect(await one({ mtime: CUSTOM_MTIME, mtimeNsecs: NSECS })).to.equal('QmZFdCLJay31hT3Tx1LygJ7XfiLEs3qLCXtbeBfhf38aZg')
    })

    const sortedCids = async (flags: object): Promise<string[]> => (await add(testdir(), flags)).map(r => r.cid.toString()).sort()

    it('recursive --preserve-mode --preserve-mtime: every node (sorted -q output), root QmSioyvQ…', async () => {
      const rows = await add(testdir(), { preserveMode: true, preserveMtime: true })
      expect(rows[rows.length - 1].cid.toString()).to.equal('QmSioyvQuXetxg7uo8FswGn9XKKEsisDq1HTMzGyWbw2R6')
      expect(rows.find(r => r.path === 'testdir/dir2/sub1')?.cid.toString()).to.equal('QmeQwX5qAX18fcPDxDdkfM6ttuFCZetF5hgeUa6ov8D5oc')
      expect(rows.map(r => r.cid.toString()).sort()).to.deep.equal([
        'QmRCG3Pprg4jbhfYBzVzfJVyneFHnBquPGXwvXU3jSuf5j', 'QmReHCn4BSJJdtd6Le8Hd8Puai6TmgpPCYb13wyM7FD9AD',
        'QmSioyvQuXetxg7uo8FswGn9XKKEsisDq1HTMzGyWbw2R6', 'QmTMoVgJKhPrz9DfkvT132mxyBXNae5azXQ42WbM9abdSE',
        'QmVzXqpuQGCAgRwEbGuE9xe8Fidi1HEXaPKsQEFEbPJW9j', 'QmW6Nqy2nziduAp3UGx2a52gtSUsYzhVcZMuPdxBRnwCyP',
        'QmeQwX5qAX18fcPDxDdkfM6ttuFCZetF5hgeUa6ov8D5oc', 'QmefofUNwC2U3Xp87rB1x8Aws6AdsDuoXR7B9u2RkEZ4dQ',
        'Qmeu24TFarJwLzJgMTDYDJTr4BMGnzafoSnfxov1513abW', 'Qmf82bbFg2e8HmcqiewutVVw5NoMpiXZD57LpLdC1poBuH'
      ])
      // the rows report what was stored
      const link = rows.find(r => r.type === 'symlink')
      expect(link?.mode).to.equal(undefined)
      expect(link?.mtime).to.deep.equal({ secs: DIR_TIME + 20 })
      expect(rows[rows.length - 1]).to.include({ mode: 0o700 })
    })

    it('recursive --mode=0753', async () => {
      expect(await sortedCids({ mode: 0o753 })).to.deep.equal([
        'QmNZ5cyx3f6maXkczwhh3ufjDCh9f3k9zrDhX218ZZGvoV', 'QmRqtFVLkXfWJuqWtYiCPthgomo3gouno8uvMeGAyCVaWS',
        'QmSkrWNcyDA7s1qiT6Ps7ey4zcB7uBH3sqGcKRfW4UMKhM', 'QmSkrWNcyDA7s1qiT6Ps7ey4zcB7uBH3sqGcKRfW4UMKhM',
        'QmSkrWNcyDA7s1qiT6Ps7ey4zcB7uBH3sqGcKRfW4UMKhM', 'QmZNAZXB6JyJ1cK9h1uJEK4XDo1CKsSuHMPGUUMrzDXCQz',
        'QmbSz6GyS8MNR4M9xtCteuGVJQRYkCXLbW174Fdy8jtaoZ', 'QmccnAQQeJGtmtgZoi3hpEmgdxbuX1ao2hQmrKmmwQnCn9',
        'QmeTZoiAiduFY2hXaNQP4ehiE71BrQFEnrqduBZ5ZjHuFy', 'Qmf13KNurvAHUfMBhMWvZuftmUikhhGY7ohWVaBDDndFMz'
      ])
    })

    it('recursive --mtime', async () => {
      expect(await sortedCids({ mtime: CUSTOM_MTIME })).to.deep.equal([
        'QmPCGFZ8ZFowAwfWdCeGsr9wSbGXwZiHW3bZ7XSYcc1Zby', 'QmT3aY4avDcYXCWpU8CJzqUkW7YEuEsx36S8cTNoLcuK1B',
        'QmT3aY4avDcYXCWpU8CJzqUkW7YEuEsx36S8cTNoLcuK1B', 'QmT3aY4avDcYXCWpU8CJzqUkW7YEuEsx36S8cTNoLcuK1B',
        'QmUGMu9epCEz5HMsuJFgpJxxt3HoahsTQcC65Jje6LNqYF', 'QmXhzoPKuqmkqbyr4kJFznFRXtGwriCXKGFPr4vviyK3aV',
        'QmZ5wKCcL11TckypuDTKLLNFP6JMCBJRCn385XKQQ6PCLt', 'Qmdw3hiAxn6R5MRkkdzLdFvZUa2WJeLCTXXCyB8byFsHSA',
        'QmedF4m2Y8341azfkpvaHSkxbSrZa4fo6FT25h6sRUVkpq', 'QmfWitW6F13WHFXLbJzXRYmwrS1p4gaAJAfucUSMytRPn3'
      ])
    })

    it('mode 0644 is written (not dropped as a default), nanoseconds as fixed32, negative seconds as int64', async () => {
      const sink = new MemSink()
      const [row] = await add([{ path: 'f', content: 'x' }], { mode: 0o644, mtime: -5, mtimeNsecs: 7 }, {}, sink)
      const bytes = Buffer.from(dagPb.decode(sink.get(row.cid)).Data as Uint8Array)
      // 08 02 | 12 01 78 | 18 01 | 38 a4 03 | 42 10 (08 fb ff ff ff ff ff ff ff ff 01) (15 07 00 00 00)
      expect(bytes.toString('hex')).to.equal('0802' + '120178' + '1801' + '38a403' + '4210' + '08fbffffffffffffffff01' + '1507000000')
    })

    it('a multi-chunk file carries mode/mtime on its root only', async () => {
      const sink = new MemSink()
      const [row] = await add([{ path: 'f', content: chachaBytes('mtime-root', 3000), mode: 0o600, mtime: { secs: 12345, nsecs: 6 } }], { chunker: 'size-1000', preserveMode: true, preserveMtime: true }, {}, sink)
      const root = pb(sink, row.cid)
      expect(root.fs.mode).to.equal(0o600)
      expect(root.fs.mtime).to.deep.equal({ secs: 12345n, nsecs: 6 })
      expect(root.node.Links).to.have.length(3)
      for (const l of root.node.Links) {
        const leaf = pb(sink, l.Hash)
        expect(leaf.fs.mtime).to.equal(undefined)
        expect(leaf.fs.type).to.equal('file')
      }
      // the same bytes as ipfs-unixfs-importer builds for non-default metadata
      const js = await jsImport(chachaBytes('mtime-root', 3000), {
        chunker: jsFixedSize({ chunkSize: 1000 }), rawLeaves: false, cidVersion: 0, reduceSingleLeafToSelf: true
      }, { mode: 0o600, mtime: { secs: 12345n, nsecs: 6 } })
      expect(row.cid.toString()).to.equal(js)
    })
  })

  describe('file layouts', () => {
    it('a file in one piece (built at once when it is a single chunk) gets the CID it gets in many pieces', async () => {
      async function * pieces (b: Uint8Array, n: number): AsyncGenerator<Uint8Array> {
        const step = Math.ceil(b.length / n)
        for (let i = 0; i < b.length; i += step) yield b.subarray(i, i + step)
        yield new Uint8Array(0)
      }
      for (const size of [1, 1000, 262143, 262144, 262145]) {
        const data = chachaBytes(`one-piece-${size}`, size)
        const flagSets: ImportFlags[] = [{}, { rawLeaves: true, cidVersion: 1 }, { trickle: true }, { chunker: 'size-1000' }, { mode: 0o600, mtime: 1700000000 }]
        for (const flags of flagSets) {
          const one = await addBytes(data, flags)
          const many = await addBytes(() => pieces(data, 3), flags)
          expect(one, `${size} bytes ${JSON.stringify(flags)}`).to.equal(many)
        }
      }
      // an empty file, and one of empty pieces
      expect(await addBytes(new Uint8Array(0))).to.equal(await addBytes(() => pieces(new Uint8Array(0), 1)))
    })

    it('unixfs-v0-2015 profile: files at/over the chunk size and at/over 174 links (cid_profiles_test)', async () => {
      const at = await add([{ path: '', content: () => chacha('chunk-v0-seed', 262144) }])
      expect(at[0].cid.toString()).to.equal('QmWmRj3dFDZdb6ABvbmKhEL6TmPbAfBZ1t5BxsEyJrcZhE')
      expect(await addBytes(() => chacha('chunk-v0-seed', 262145))).to.equal('QmYyLxtzZyW22zpoVAtKANLRHpDjZtNeDjQdJrcQNWoRkJ')
      const sink = new MemSink()
      const full = await add([{ path: 'f', content: () => chacha('v0-seed', 174 * 262144) }], {}, {}, sink)
      expect(full[0].cid.toString()).to.equal('QmUbBALi174SnogsUzLpYbD4xPiBSFANF4iztWCsHbMKh2')
      expect(pb(sink, full[0].cid).node.Links).to.have.length(174)
      const over = await add([{ path: 'f', content: () => chacha('v0-seed', 174 * 262144 + 1) }], {}, {}, sink)
      expect(over[0].cid.toString()).to.equal('QmV81WL765sC8DXsRhE5fJv2rwhS4icHRaf3J9Zk5FdRnW')
      const root = pb(sink, over[0].cid)
      expect(root.node.Links).to.have.length(2)
      expect(root.fs.blockSizes).to.deep.equal([BigInt(174 * 262144), 1n])
      expect(over[0].bytes).to.equal(174 * 262144 + 1)
    })

    it('unixfs-v1-2025 profile: 1 MiB raw leaf, 2 leaves, 1024 and 1025 leaves (1 GiB)', async () => {
      expect(await addBytes(() => chacha('chunk-v1-seed', 1048576), {}, V1_2025)).to.equal('bafkreiacndfy443ter6qr2tmbbdhadvxxheowwf75s6zehscklu6ezxmta')
      expect(await addBytes(() => chacha('chunk-v1-seed', 1048577), {}, V1_2025)).to.equal('bafybeigmix7t42i6jacydtquhet7srwvgpizfg7gjbq7627d35mjomtu64')
      expect(await addBytes(() => chacha('v1-2025-seed', 1024 * 1048576), {}, V1_2025)).to.equal('bafybeihmf37wcuvtx4hpu7he5zl5qaf2ineo2lqlfrapokkm5zzw7zyhvm')
      expect(await addBytes(() => chacha('v1-2025-seed', 1024 * 1048576 + 1), {}, V1_2025)).to.equal('bafybeibdsi225ugbkmpbdohnxioyab6jsqrmkts3twhpvfnzp77xtzpyhe')
    })

    it('--max-file-links 1024 over 256 MiB (add_test): one layer of 1024 links', async () => {
      const rows = await add([{ path: '', content: () => chacha(HW, 268435456) }], { maxFileLinks: 1024 })
      expect(rows[0].cid.toString()).to.equal('QmbBftNHWmjSWKLC49dMVrfnY8pjrJYntiAXirFJ7oJrNk')
      expect(rows[0].bytes).to.equal(268435456)
    })

    it('balanced: three levels, equal to ipfs-unixfs-importer (v0 dag-pb leaves, v1 raw leaves)', async () => {
      const data = chachaBytes('balanced-3', 60_000)
      for (const [flags, js] of [
        [{ cidVersion: 0 }, { cidVersion: 0, rawLeaves: false }],
        [{ cidVersion: 1 }, { cidVersion: 1, rawLeaves: true }]
      ] as const) {
        const sink = new MemSink()
        const [row] = await add([{ path: 'f', content: data }], { ...flags, chunker: 'size-1000', maxFileLinks: 4 }, {}, sink)
        expect(row.cid.toString()).to.equal(await jsImport(data, { ...js, chunker: jsFixedSize({ chunkSize: 1000 }), layout: jsBalanced({ maxChildrenPerNode: 4 }) }))
        // 60 leaves, 4 per node: depth 3 (64 >= 60)
        let depth = 0
        for (let links = dagPb.decode(sink.get(row.cid)).Links; links.length > 0; depth++) {
          const first = links[0].Hash
          links = first.code === dagPb.code ? dagPb.decode(sink.get(first)).Links : []
        }
        expect(depth).to.equal(3)
      }
    })

    it('balanced boundary: exactly maxLinks chunks → one node; one byte more → root with 2 links', async () => {
      const sink = new MemSink()
      const [full] = await add([{ path: 'f', content: chachaBytes('b', 5000) }], { chunker: 'size-1000', maxFileLinks: 5 }, {}, sink)
      expect(pb(sink, full.cid).node.Links).to.have.length(5)
      const [over] = await add([{ path: 'f', content: chachaBytes('b', 5001) }], { chunker: 'size-1000', maxFileLinks: 5 }, {}, sink)
      const root = pb(sink, over.cid)
      expect(root.node.Links).to.have.length(2)
      expect(root.node.Links[0].Hash.toString()).to.equal(full.cid.toString())
      expect(root.fs.fileSize()).to.equal(5001n)
      // Tsize = block length + children's Tsizes
      expect(over.size).to.equal(sink.get(over.cid).length + root.node.Links.reduce((n, l) => n + (l.Tsize ?? 0), 0))
    })

    it('trickle: several levels, equal to ipfs-unixfs-importer (UnixFS Raw leaves, no single-leaf reduction)', async () => {
      for (const size of [1, 1000, 4000, 4001, 30_000, 123_457]) {
        const data = chachaBytes(`trickle-${size}`, size)
        for (const [flags, js] of [
          [{ cidVersion: 0 }, { cidVersion: 0, rawLeaves: false, leafType: 'raw' }],
          [{ cidVersion: 1 }, { cidVersion: 1, rawLeaves: true }]
        ] as const) {
          const got = await addBytes(data, { ...flags, trickle: true, chunker: 'size-1000', maxFileLinks: 4 })
          const want = await jsImport(data, { ...js, chunker: jsFixedSize({ chunkSize: 1000 }), layout: jsTrickle({ maxChildrenPerNode: 4, layerRepeat: 4 }), reduceSingleLeafToSelf: false })
          expect(got, `trickle ${size} bytes ${JSON.stringify(flags)}`).to.equal(want)
        }
      }
    })

    it('trickle depth: 4 leaves, then 4 subtrees of depth 1, 4 of depth 2, …', async () => {
      const sink = new MemSink()
      // 4 + 4*4 + 4*(4+4*4) = 100 leaves fill depths 1 and 2; one more starts depth 3
      const [row] = await add([{ path: 'f', content: chachaBytes('t', 101) }], { trickle: true, chunker: 'size-1', maxFileLinks: 4 }, {}, sink)
      const root = pb(sink, row.cid)
      expect(root.node.Links).to.have.length(4 + 4 + 4 + 1)
      const leaf = pb(sink, root.node.Links[0].Hash)
      expect(leaf.fs.type).to.equal('raw')
      expect(pb(sink, root.node.Links[4].Hash).node.Links).to.have.length(4)
      expect(pb(sink, root.node.Links[8].Hash).node.Links).to.have.length(4 + 4)
      expect(pb(sink, root.node.Links[12].Hash).node.Links).to.have.length(1)
    })

    it('streams: pieces of any size give the same DAG; memory does not hold the file', async () => {
      const data = chachaBytes('pieces', 50_000)
      const want = await addBytes(data, { chunker: 'size-4096' })
      for (const piece of [1, 7, 4096, 4097, 65536]) {
        const got = await addBytes(() => (async function * () { for (let i = 0; i < data.length; i += piece) yield data.subarray(i, i + piece) })(), { chunker: 'size-4096' })
        expect(got).to.equal(want)
      }
    })
  })

  describe('HAMT sharded directories (§5)', () => {
    const numbered = (dir: string, n: number, name: (i: number) => string): E[] => {
      const e: E[] = [{ path: dir, type: 'directory' }]
      const names: Array<[string, number]> = []
      for (let i = 1; i <= n; i++) names.push([name(i), i])
      names.sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])))
      for (const [nm, i] of names) e.push({ path: `${dir}/${nm}`, content: `${i}\n` })
      return e
    }

    it('t0260: 2000 files, threshold 1G (basic) and 1B (HAMT, v0 and v1)', async () => {
      const entries = numbered('testdata', 2000, i => `file${i}`)
      expect(await addRoot(entries, {}, { UnixFSHAMTDirectorySizeThreshold: '1G' })).to.equal('QmavrTrQG4VhoJmantURAYuw3bowq3E2WcvP36NRQDAC1N')
      const sink = new MemSink()
      const rows = await add(entries, {}, { UnixFSHAMTDirectorySizeThreshold: '1B' }, sink)
      const root = rows[rows.length - 1]
      expect(root.cid.toString()).to.equal('QmSCJD1KYLhVVHqBK3YyXuoEqHt7vggyJhzoFYbT8v1XYL')
      expect(root.sharded).to.equal(true)
      expect(rows.find(r => r.path === 'testdata/file100')?.cid.toString()).to.equal('QmZ3RfWk1u5LEGYLHA633B5TNJy3Du27K6Fny9wcxpowGS')
      const shard = pb(sink, root.cid)
      expect(shard.fs.type).to.equal('hamt-sharded-directory')
      expect(shard.fs.fanout).to.equal(256n)
      // hashType murmur3-x64-64 (0x22) and fanout 256 follow the bitfield
      expect(Buffer.from(shard.node.Data as Uint8Array).subarray(-5).toString('hex')).to.equal('2822308002')
      expect(await addRoot(entries, { cidVersion: 1 }, { UnixFSHAMTDirectorySizeThreshold: '1B' })).to.equal('bafybeibiemewfzzdyhq2l74wrd6qj2oz42usjlktgnlqv4yfawgouaqn4u')
    })

    it('t0250: 5960 files of 10-char names cross 256 KiB (links estimate) → QmWfjnRW…', async () => {
      const rows = await add(numbered('big_dir', 5960, i => `file${String(i).padStart(6, '0')}`))
      expect(rows[rows.length - 1].cid.toString()).to.equal('QmWfjnRWRvdvYezQWnfbvrvY7JjrpevsE9cato1x76UqGr')
      expect(rows[rows.length - 1].sharded).to.equal(true)
    })

    it('t0250 MFS shards (threshold 1B, 100 trickle files): v0 dir, and a v1 dir over v0 files', async () => {
      const rows = await add(numbered('foo', 100, i => `file${i}`), { trickle: true }, { UnixFSHAMTDirectorySizeThreshold: '1B' })
      expect(rows[rows.length - 1].cid.toString()).to.equal('QmPkwLJTYZRGPJ8Lazr9qPdrLmswPtUjaDbEpmR9jEh1se')
      // `files mkdir --cid-version=1 /foo`, files written with the default (CIDv0) builder
      const entries: DirEntry[] = rows.filter(r => r.type === 'file').map(r => {
        const name = r.path.split('/')[1]
        return { name, nameBytes: Buffer.from(name), cid: r.cid, size: r.size }
      })
      const dir = await buildDirectory(entries, undefined, { build: cidBuilder({ cidVersion: 1, hash: sha256 }), put: async () => {}, maxLinks: 0, fanout: 256, threshold: 1, estimation: 'links' })
      expect(dir.cid.toString()).to.equal('bafybeibu4i76qi26jhpgskqhivuactsvdsia44swpi7eaw45r7c3c3lhs4')
    })

    const dirOf = (names: string[]): E[] => [{ path: 'd', type: 'directory' }, ...[...names].sort().map(n => ({ path: `d/${n}`, content: 'x' }))]

    it('unixfs-v0-2015 profile: 4096×(30+34) = 262144 stays basic, 4033×(31+34) = 262145 shards', async () => {
      const names = deterministicNames('hamt-unixfs-v0-2015', 4096, 30)
      expect(names.slice(0, 2)).to.deep.equal(['cg3n3eaurdhsvfhxb0hltbe6iioq0p', 'uggnbxoamfzg1dm6r-0fqt20zhq0lz'])
      const sink = new MemSink()
      const basic = await add(dirOf(names), {}, {}, sink)
      const b = basic[basic.length - 1]
      expect(b.cid.toString()).to.equal('QmX5GtRk3TSSEHtdrykgqm4eqMEn3n2XhfkFAis5fjyZmN')
      expect(pb(sink, b.cid).node.Links).to.have.length(4096)
      expect(b.sharded).to.equal(false)
      expect(await addRoot(dirOf(deterministicNames('hamt-unixfs-v0-2015', 4033, 31)))).to.equal('QmeMiJzmhpJAUgynAcxTQYek5PPKgdv3qEvFsdV3XpVnvP')
    })

    it('unixfs-v1-2025 profile (block estimate): a 262144-byte block stays basic, 262145 shards', async () => {
      const names = deterministicNames('hamt-unixfs-v1-2025', 4766, 11, 21)
      expect(names.slice(0, 2)).to.deep.equal(['fvu7e4jzn1t', 'pq0th5pxd7u'])
      const sink = new MemSink()
      const basic = await add(dirOf(names), {}, V1_2025, sink)
      const b = basic[basic.length - 1]
      expect(b.cid.toString()).to.equal('bafybeic3h7rwruealwxkacabdy45jivq2crwz6bufb5ljwupn36gicplx4')
      expect(sink.get(b.cid).length).to.equal(262144)
      expect(await addRoot(dirOf(deterministicNames('hamt-unixfs-v1-2025', 4766, 11, 22)), {}, V1_2025)).to.equal('bafybeiegvuterwurhdtkikfhbxcldohmxp566vpjdofhzmnhv6o4freidu')
    })

    it('estimation "disabled" and UnixFSDirectoryMaxLinks: shards only past the link count', async () => {
      const entries = numbered('d', 20, i => `f${i}`)
      const flat = await add(entries, {}, { UnixFSHAMTDirectorySizeEstimation: 'disabled', UnixFSHAMTDirectorySizeThreshold: '1B' })
      expect(flat[flat.length - 1].sharded).to.equal(false)
      const at = await add(entries, { maxDirectoryLinks: 20 }, { UnixFSHAMTDirectorySizeEstimation: 'disabled' })
      expect(at[at.length - 1].sharded).to.equal(false)
      const over = await add(entries, { maxDirectoryLinks: 19 }, { UnixFSHAMTDirectorySizeEstimation: 'disabled' })
      expect(over[over.length - 1].sharded).to.equal(true)
      // the links estimate switches on the link count too
      const links = await add(entries, { maxDirectoryLinks: 19 })
      expect(links[links.length - 1].cid.toString()).to.equal(over[over.length - 1].cid.toString())
      // threshold 0 disables sharding: boxo's basic directory then refuses the extra link
      await expect(add(entries, { maxDirectoryLinks: 19 }, { UnixFSHAMTDirectorySizeThreshold: 0 })).to.be.rejectedWith('BasicDirectory: cannot add child: maxLinks reached')
    })

    it('HAMT structure equals ipfs-unixfs-importer’s for fanouts 8…1024 (forced sharding)', async () => {
      const names = deterministicNames('hamt-xcheck', 600, 6)
      for (const bits of [3, 4, 8, 10]) {
        const fanout = 2 ** bits
        const ours = await addRoot(dirOf(names), { maxHamtFanout: fanout, cidVersion: 1 }, { UnixFSHAMTDirectorySizeThreshold: '1B' })
        const bs = new MemoryBlockstore()
        let last: CID | undefined
        const source = [...names].sort().map(n => ({ path: `d/${n}`, content: new TextEncoder().encode('x') }))
        for await (const r of jsImporter(source, bs, { cidVersion: 1, rawLeaves: true, shardSplitThresholdBytes: 1, shardFanoutBits: bits })) last = r.cid
        expect(ours, `fanout ${fanout}`).to.equal(last?.toString())
      }
    })

    it('a HAMT over a DirEntryList: each entry’s CID is read once, when its shard is built; listing order is hash order', async () => {
      const names = deterministicNames('hamt-list', 3000, 5)
      const rows = await add(names.map(n => ({ path: n, content: n })), { wrapWithDirectory: true }, { UnixFSHAMTDirectorySizeThreshold: '1B' })
      const files = rows.filter(r => r.type === 'file')
      const entries: DirEntry[] = files.map(r => ({ name: r.path, nameBytes: Buffer.from(r.path), cid: r.cid, size: r.size }))
      const opts = { build: cidBuilder({ cidVersion: 0, hash: sha256 }), put: async () => {}, maxLinks: 0, fanout: 256, threshold: 1, estimation: 'links' as const }
      const reads = new Array<number>(entries.length).fill(0)
      const array = listOf(entries)
      const list: DirEntryList = { ...array, length: array.length, cid: i => { reads[i]++; return array.cid(i) } }
      const built = await buildHamt(list, undefined, opts)
      expect(built.cid.toString()).to.equal(rows[rows.length - 1].cid.toString())
      expect(reads.every(n => n === 1)).to.equal(true)
      expect((await buildHamt(entries, undefined, opts)).cid.toString()).to.equal(built.cid.toString())
      const { murmur364 } = await import('@multiformats/murmur3')
      const hashOf = (s: string): string => Buffer.from((murmur364.digest(Buffer.from(s)) as { digest: Uint8Array }).digest).toString('hex')
      const listed = Array.from(built.order, i => entries[i].name)
      expect(listed).to.have.length(entries.length)
      expect(listed).to.deep.equal([...listed].sort((x, y) => hashOf(x) < hashOf(y) ? -1 : 1))
      // a basic directory lists by name bytes
      const basic = await buildDirectory(entries.slice(0, 5), undefined, { ...opts, threshold: 1 << 20 })
      expect(Array.from(basic.order, i => entries[i].name)).to.deep.equal(entries.slice(0, 5).map(e => e.name).sort())
    })

    it('a name added twice in one directory fails after the first one\'s row, as Kubo\'s MFS PutNode (top-level names unwrapped are separate imports)', async () => {
      const cfg = { UnixFSHAMTDirectorySizeThreshold: '1B' }
      for (const second of [{ path: 'd/a', content: 'two' }, { path: 'd/a', type: 'symlink' as const, target: 't' }]) {
        const rows: string[] = []
        const it = importFiles(entriesOf([{ path: 'd', type: 'directory' }, { path: 'd/a', content: 'one' }, { path: 'd/b', content: 'b' }, second]), nullSink, resolveImportSettings({}, cfg))
        await expect((async () => { for await (const r of it) rows.push(r.path) })()).to.be.rejectedWith('directory already has entry by that name')
        expect(rows).to.deep.equal(['d/a', 'd/b'])
      }
      // a directory entry where a file is: Kubo's mkdir error
      await expect(add([{ path: 'd', type: 'directory' }, { path: 'd/a', content: 'x' }, { path: 'd/a', type: 'directory' }])).to.be.rejectedWith(/^file already exists$/)
      await expect(add([{ path: 'a', content: 'x' }, { path: 'a', type: 'directory' }], { wrapWithDirectory: true })).to.be.rejectedWith(/^file already exists$/)
      // a directory of that name first: the same error
      await expect(add([{ path: 'd', type: 'directory' }, { path: 'd/a', type: 'directory' }, { path: 'd/a', content: 'x' }])).to.be.rejectedWith('directory already has entry by that name')
      await expect(add([{ path: 'f', content: '1' }, { path: 'f', content: '2' }], { wrapWithDirectory: true })).to.be.rejectedWith('directory already has entry by that name')
      const separate = await add([{ path: 'f', content: '1' }, { path: 'f', content: '2' }])
      expect(separate.map(r => r.path)).to.deep.equal(['f', 'f'])
      // a top-level directory given again is another import, as Kubo runs one per argument
      const dirs = await add([{ path: 'd', type: 'directory' }, { path: 'd/a', content: '1' }, { path: 'd', type: 'directory' }, { path: 'd/a', content: '2' }])
      expect(dirs.map(r => r.path)).to.deep.equal(['d/a', 'd', 'd/a', 'd'])
    })

    it('entries under a file that follow it at once are dropped silently, as Kubo 0.40.1 over HTTP; later ones fail with "file already exists"', async () => {
      const rowsOf = (rows: ImportedNode[]): string[] => rows.map(r => `${r.path} ${r.cid.toString()}`)
      const a = 'QmNqQKFq7xqQz76aGTihW8UJvRmat52i3rSKjDMmDpHmVi'
      const b = 'Qmd4fAUaWxHDDXXTNFck2xdug2znuyd2Ry8NKbAdkvHqiz'
      const dA = 'QmU3mkpAazrZp4Zx2GFP4fQd9hmPr5jCN6Tn9PHPPyzXHF'
      const dAB = 'QmNfnbnKghdGzx8rUySN2HR8o9F5TCrqrzMMsqEgW4LuAx'
      // the rows and roots Kubo 0.40.1 gave for the same multipart parts (curl to /api/v0/add)
      const sink = new MemSink()
      expect(rowsOf(await add([{ path: 'd/a', content: 'aaa' }, { path: 'd/a/z', content: 'zzz' }], {}, {}, sink))).to.deep.equal([`d/a ${a}`, `d ${dA}`])
      expect([...sink.blocks.values()].some(bytes => Buffer.from(bytes).includes('zzz')), 'd/a/z is not imported').to.equal(false)
      expect(rowsOf(await add([
        { path: 'd/a', content: 'aaa' }, { path: 'd/a/z/w', content: 'zzz' }, { path: 'd/a/x', type: 'directory' }, { path: 'd/a/x/z', content: 'zzz' }, { path: 'd/b', content: 'bbb' }
      ]))).to.deep.equal([`d/a ${a}`, `d/b ${b}`, `d ${dAB}`])
      expect(rowsOf(await add([{ path: 'd/a', content: 'aaa' }, { path: 'd/a/z', content: 'zzz' }], { wrapWithDirectory: true }))).to.deep.equal([`d/a ${a}`, `d ${dA}`, ' QmdGEvsFV5vbARxrJbvotFXB6PcSoDLDwU9GUBeaS9QGop'])
      expect(rowsOf(await add([{ path: 'a', content: 'aaa' }, { path: 'a/z', content: 'zzz' }]))).to.deep.equal([`a ${a}`])
      expect(rowsOf(await add([{ path: 'a', content: 'aaa' }, { path: 'a/z', content: 'zzz' }, { path: 'b', content: 'bbb' }], { wrapWithDirectory: true }))).to.deep.equal([`a ${a}`, `b ${b}`, ` ${dAB}`])
      // not right after the file: Kubo's mkdir of d/a finds the file
      for (const [list, flags, before] of [
        [[{ path: 'd/a', content: 'aaa' }, { path: 'd/b', content: 'bbb' }, { path: 'd/a/z', content: 'zzz' }], {}, ['d/a', 'd/b']],
        [[{ path: 'a', content: 'aaa' }, { path: 'b', content: 'bbb' }, { path: 'a/z', content: 'zzz' }], { wrapWithDirectory: true }, ['a', 'b']]
      ] as Array<[E[], ImportFlags, string[]]>) {
        const rows: string[] = []
        const it = importFiles(entriesOf(list), nullSink, resolveImportSettings(flags, {}))
        await expect((async () => { for await (const r of it) rows.push(r.path) })()).to.be.rejectedWith(/^file already exists$/)
        expect(rows).to.deep.equal(before)
      }
      // unwrapped, a top-level name given again after another one is a separate import (Kubo: a, b, a/z, a)
      expect((await add([{ path: 'a', content: 'aaa' }, { path: 'b', content: 'bbb' }, { path: 'a/z', content: 'zzz' }])).map(r => r.path)).to.deep.equal(['a', 'b', 'a/z', 'a'])
    })

    it('directories inside a HAMT are reported in HAMT order, before the HAMT', async () => {
      const entries: E[] = [{ path: 'h', type: 'directory' }]
      for (const n of ['a', 'b', 'c', 'd', 'e', 'f']) entries.push({ path: `h/${n}`, type: 'directory' }, { path: `h/${n}/x`, content: n })
      const rows = await add(entries, {}, { UnixFSHAMTDirectorySizeThreshold: '1B' })
      const dirs = rows.filter(r => r.type === 'directory').map(r => r.path)
      expect(dirs[dirs.length - 1]).to.equal('h')
      expect(rows[rows.length - 1].sharded).to.equal(true)
      // HAMT listing order: by murmur3 hash of the name, not by name
      const { murmur364 } = await import('@multiformats/murmur3')
      const hashOf = (s: string): string => Buffer.from((murmur364.digest(Buffer.from(s)) as { digest: Uint8Array }).digest).toString('hex')
      const expected = ['a', 'b', 'c', 'd', 'e', 'f'].sort((x, y) => hashOf(x) < hashOf(y) ? -1 : 1).map(n => `h/${n}`)
      expect(dirs.slice(0, -1)).to.deep.equal(expected)
    })

    it('murmur3-64 sanity (§5) and the empty shard block', async () => {
      const { murmur364 } = await import('@multiformats/murmur3')
      const h = (s: string): string => Buffer.from((murmur364.digest(Buffer.from(s)) as { digest: Uint8Array }).digest).toString('hex')
      expect([h('hello'), h('file1'), h('')]).to.deep.equal(['cbd8a7b341bd9b02', '499728c4d21b6ed4', '0000000000000000'])
      const stored: Uint8Array[] = []
      const empty = await buildHamt([], undefined, { build: cidBuilder({ cidVersion: 0, hash: sha256 }), put: async (_c, b) => { stored.push(b) }, maxLinks: 0, fanout: 256, threshold: 1, estimation: 'links' })
      expect(Buffer.from(dagPb.decode(stored[0]).Data as Uint8Array).toString('base64')).to.equal('CAUoIjCAAg==')
      expect(empty.sharded).to.equal(true)
    })
  })

  describe('blocks, inline CIDs and the sink', () => {
    it('every block is put once with its CID; identity (inlined) blocks are never put', async () => {
      const sink = new MemSink()
      const rows = await add(treeEntries('d', { a: chachaBytes('s', 2500), b: 'tiny' }), { chunker: 'size-1000', inline: true }, {}, sink)
      // a: 3 leaves + root; b inlined; d
      expect(sink.puts).to.equal(5)
      const b = rows.find(r => r.path === 'd/b') as ImportedNode
      expect(b.cid.multihash.code).to.equal(0)
      expect(b.cid.version).to.equal(1)
      for (const [key, bytes] of sink.blocks) {
        const cid = CID.parse(key)
        expect(sha256.digest(bytes).bytes).to.deep.equal(cid.multihash.bytes)
      }
    })

    it('raw leaves come with their file position (for a filestore)', async () => {
      const seen: Array<[string, string | undefined, number, number]> = []
      const settings = resolveImportSettings({ rawLeaves: true, chunker: 'size-1000' })
      async function * src (): AsyncGenerator<any> { yield { path: 'd/f', type: 'file', abspath: '/x/f', content: chacha('pos', 2500, 700) } }
      const sink = { put: async (_c: CID, b: Uint8Array, leaf?: { path: string, abspath?: string, offset: number }) => { if (leaf != null) seen.push([leaf.path, leaf.abspath, leaf.offset, b.length]) } }
      for await (const _ of importFiles(src(), sink, settings)) { /* drain */ }
      expect(seen).to.deep.equal([['d/f', '/x/f', 0, 1000], ['d/f', '/x/f', 1000, 1000], ['d/f', '/x/f', 2000, 500]])
    })

    it('--inline-limit is inclusive and applies to directories too', async () => {
      // the empty directory block is 4 bytes
      const emptyDir = CID.create(1, 0x70, identity.digest(Uint8Array.from([0x0a, 0x02, 0x08, 0x01])))
      expect(await addRoot([{ path: 'e', type: 'directory' }], { inline: true, inlineLimit: 4 })).to.equal(emptyDir.toString())
      expect(await addRoot([{ path: 'e', type: 'directory' }], { inline: true, inlineLimit: 3 })).to.equal('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')
    })

    it('--hash=identity: small data inlines, data over 128 bytes fails (verifcid)', async () => {
      expect(CID.parse(await addBytes('hi', { hash: 'identity' })).multihash.code).to.equal(0)
      await expect(addBytes('x'.repeat(200), { hash: 'identity' })).to.be.rejectedWith('digest too large: identity digest got 200 bytes, maximum 128')
    })

    it('an insecure hash is refused when the first block is made', async () => {
      await expect(addBytes(HW, { hash: 'md5' })).to.be.rejectedWith('potentially insecure hash functions not allowed')
    })

    it('the chunker is parsed when the first file is imported (a directory-only add ignores it)', async () => {
      expect(await addRoot([{ path: 'e', type: 'directory' }], { chunker: 'bogus' })).to.equal('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')
      await expect(addBytes('x', { chunker: 'bogus' })).to.be.rejectedWith('unrecognized chunker option: bogus')
    })
  })

  describe('rows', () => {
    it('several top-level arguments are separate imports; -w puts them in one root', async () => {
      const entries: E[] = [
        { path: 'a.txt', content: 'World\n' },
        ...treeEntries('planets', { 'mars.txt': 'Hello Mars!\n', 'venus.txt': 'Hello Venus!\n' }),
        { path: 'b', target: 'a.txt' }
      ]
      const rows = await add(entries)
      expect(rows.map(r => r.path)).to.deep.equal(['a.txt', 'planets/mars.txt', 'planets/venus.txt', 'planets', 'b'])
      const wrapped = await add(entries, { wrapWithDirectory: true })
      expect(wrapped.map(r => r.path)).to.deep.equal(['a.txt', 'planets/mars.txt', 'planets/venus.txt', 'b', 'planets', ''])
      expect(wrapped[5].type).to.equal('directory')
    })

    it('implicit parent directories are created (no metadata)', async () => {
      const rows = await add([{ path: 'moons/jupiter/europa.txt', content: 'Hello Europa!\n' }], { mode: 0o700 })
      expect(rows.map(r => [r.path, r.mode])).to.deep.equal([['moons/jupiter/europa.txt', 0o700], ['moons/jupiter', undefined], ['moons', undefined]])
    })

    it('sizes: cumulative DAG size; bytes for files', async () => {
      const rows = await add(treeEntries('planets', { 'mars.txt': 'Hello Mars!\n', 'venus.txt': 'Hello Venus!\n' }))
      expect(rows.map(r => [r.size, r.bytes])).to.deep.equal([[20, 12], [21, 13], [146, undefined]])
    })

    it('progress is reported every 256 KiB and at the end of each file', async () => {
      const seen: Array<[string, number]> = []
      const settings = resolveImportSettings({})
      async function * src (): AsyncGenerator<any> {
        yield { path: 'big', type: 'file', content: chacha('p', 600_000, 100_000) }
        yield { path: 'small', type: 'file', content: chacha('p', 10, 10) }
      }
      for await (const _ of importFiles(src(), nullSink, settings, { onProgress: (n, b) => seen.push([n, b]) })) { /* drain */ }
      expect(seen).to.deep.equal([['big', 300_000], ['big', 600_000], ['big', 600_000], ['small', 10]])
    })

    it('an aborted signal stops the import', async () => {
      const ac = new AbortController()
      const settings = resolveImportSettings({ chunker: 'size-1000' })
      async function * src (): AsyncGenerator<any> { yield { path: 'f', type: 'file', content: chacha('a', 1_000_000, 1000) } }
      const it = importFiles(src(), { put: async () => { ac.abort() } }, settings, { signal: ac.signal })
      await expect(it.next()).to.be.rejectedWith(Error)
    })
  })

  describe('resolveImportSettings', () => {
    it('defaults = unixfs-v0-2015', () => {
      const s = resolveImportSettings({}, {})
      expect({ ...s, hash: s.hash.name }).to.deep.equal({
        cidVersion: 0,
        rawLeaves: false,
        hash: 'sha2-256',
        chunker: 'size-262144',
        layout: 'balanced',
        maxFileLinks: 174,
        maxDirectoryLinks: 0,
        hamtFanout: 256,
        hamtThreshold: 262144,
        hamtEstimation: 'links',
        inline: false,
        inlineLimit: 32,
        wrapWithDirectory: false,
        emptyDirs: true,
        preserveMode: false,
        preserveMtime: false
      })
    })

    it('flag > Import.* > default; CIDv1 ⇒ raw leaves unless set; non-sha2-256 ⇒ CIDv1', () => {
      const cfg = { CidVersion: 1, UnixFSChunker: 'size-1048576', UnixFSFileMaxLinks: 1024, UnixFSDAGLayout: 'trickle', UnixFSHAMTDirectorySizeThreshold: '1KiB', UnixFSHAMTDirectoryMaxFanout: 64, UnixFSDirectoryMaxLinks: 9 }
      const fromCfg = resolveImportSettings({}, cfg)
      expect(fromCfg).to.include({ cidVersion: 1, rawLeaves: true, chunker: 'size-1048576', maxFileLinks: 1024, layout: 'trickle', hamtThreshold: 1024, hamtFanout: 64, maxDirectoryLinks: 9 })
      const flagged = resolveImportSettings({ cidVersion: 0, chunker: 'buzhash', maxFileLinks: 10, trickle: false, maxHamtFanout: 16, maxDirectoryLinks: 3 }, cfg)
      expect(flagged).to.include({ cidVersion: 0, rawLeaves: false, chunker: 'buzhash', maxFileLinks: 10, layout: 'balanced', hamtFanout: 16, maxDirectoryLinks: 3 })
      expect(resolveImportSettings({ cidVersion: 1, rawLeaves: false })).to.include({ rawLeaves: false })
      expect(resolveImportSettings({}, { CidVersion: 1, UnixFSRawLeaves: false })).to.include({ rawLeaves: false })
      expect(resolveImportSettings({ hash: 'sha2-512' })).to.include({ cidVersion: 1, rawLeaves: true })
      expect(resolveImportSettings({ hash: 'SHA2-512' }).hash.name).to.equal('sha2-512')
      expect(resolveImportSettings({ nocopy: true })).to.include({ rawLeaves: true })
      expect(resolveImportSettings({ maxFileLinks: 0 })).to.include({ maxFileLinks: 174 })
      expect(resolveImportSettings({ maxHamtFanout: 0 }, { UnixFSHAMTDirectoryMaxFanout: 32 })).to.include({ hamtFanout: 32 })
      expect(resolveImportSettings({}, { UnixFSHAMTDirectorySizeEstimation: 'block' })).to.include({ hamtEstimation: 'block' })
      expect(resolveImportSettings({}, { UnixFSHAMTDirectorySizeEstimation: 'nope' })).to.include({ hamtEstimation: 'links' })
      expect(resolveImportSettings({ inline: true, inlineLimit: 128 })).to.include({ inline: true, inlineLimit: 128 })
    })

    it('metadata turns raw leaves off; --mode/--mtime win over preserving', () => {
      expect(resolveImportSettings({ cidVersion: 1, mode: 0o644 })).to.include({ rawLeaves: false, mode: 0o644, preserveMode: false })
      expect(resolveImportSettings({ preserveMtime: true }, { CidVersion: 1 })).to.include({ rawLeaves: false, preserveMtime: true })
      expect(resolveImportSettings({ mtime: 5, mtimeNsecs: 6, preserveMtime: true }).mtime).to.deep.equal({ secs: 5, nsecs: 6 })
      expect(resolveImportSettings({ mtime: 5, preserveMtime: true }).preserveMtime).to.equal(false)
    })

    it('Kubo’s error strings', () => {
      const err = (flags: ImportFlags, cfg: ImportConfig = {}): string => {
        try { resolveImportSettings(flags, cfg) } catch (e) { return (e as Error).message }
        return 'no error'
      }
      expect(err({ inline: true, inlineLimit: 129 })).to.equal('inline-limit 129 exceeds maximum allowed size of 128 bytes')
      expect(err({ inlineLimit: 500 })).to.equal('no error')
      expect(err({ rawLeaves: true, mode: 0o644 })).to.equal("raw-leaves can't be used with UnixFS metadata like mode or modification time")
      expect(err({ preserveMode: true }, { UnixFSRawLeaves: true })).to.equal("raw-leaves can't be used with UnixFS metadata like mode or modification time")
      expect(err({ hash: 'Nope' })).to.equal('unrecognized hash function: "nope"')
      expect(err({ mtimeNsecs: 5 })).to.equal('option "mtime-nsecs" requires "mtime" to be provided as well')
      expect(err({ nocopy: true, rawLeaves: false })).to.equal("nocopy option requires '--raw-leaves' to be enabled as well")
      expect(err({ cidVersion: 0, hash: 'sha2-512' })).to.equal('CIDv0 only supports sha2-256')
      expect(err({}, { CidVersion: 0, HashFunction: 'blake2b-256' })).to.equal('CIDv0 only supports sha2-256')
      expect(err({ cidVersion: 2 })).to.equal('unknown CID version: 2')
      expect(err({ cidVersion: 2, hash: 'sha2-512' })).to.equal('unknown CID version: 2')
      expect(err({ cidVersion: -1 })).to.equal('no error')
      expect(err({ maxHamtFanout: 12 })).to.equal('HAMT fanout must be a positive power of 2 and multiple of 8: 12')
      expect(err({ maxHamtFanout: 4 })).to.equal('HAMT fanout must be a positive power of 2 and multiple of 8: 4')
      // order: inline-limit first, then metadata, then the hash
      expect(err({ inline: true, inlineLimit: 200, rawLeaves: true, mode: 1, hash: 'x' })).to.match(/^inline-limit/)
      expect(err({ rawLeaves: true, mode: 1, hash: 'x' })).to.match(/^raw-leaves/)
      expect(err({ hash: 'x', mtimeNsecs: 1 })).to.match(/^unrecognized hash/)
    })
  })

  describe('validateImportConfig (config/import.go)', () => {
    const err = (cfg: ImportConfig): string => {
      try { validateImportConfig(cfg) } catch (e) { return (e as Error).message }
      return 'no error'
    }
    it('accepts the defaults and both profiles', () => {
      expect(err({ CidVersion: null, UnixFSChunker: null })).to.equal('no error')
      expect(err(V1_2025)).to.equal('no error')
      expect(err({ UnixFSChunker: 'rabin-16-32-64' })).to.equal('no error')
    })
    it('Kubo’s messages', () => {
      expect(err({ CidVersion: 2 })).to.equal('Import.CidVersion must be 0 or 1, got 2')
      expect(err({ UnixFSFileMaxLinks: 0 })).to.equal('Import.UnixFSFileMaxLinks must be positive, got 0')
      expect(err({ UnixFSDirectoryMaxLinks: -1 })).to.equal('Import.UnixFSDirectoryMaxLinks must be non-negative, got -1')
      expect(err({ UnixFSHAMTDirectoryMaxFanout: 2048 })).to.equal('Import.UnixFSHAMTDirectoryMaxFanout must be a power of 2, between 8 and 1024 (got 2048)')
      expect(err({ UnixFSHAMTDirectoryMaxFanout: 24 })).to.equal('Import.UnixFSHAMTDirectoryMaxFanout must be a power of 2, between 8 and 1024 (got 24)')
      expect(err({ UnixFSChunker: 'size-0' })).to.equal('Import.UnixFSChunker invalid format: "size-0" (expected "size-<bytes>", "rabin-<min>-<avg>-<max>", or "buzhash")')
      expect(err({ UnixFSChunker: 'rabin' })).to.match(/^Import.UnixFSChunker invalid format: "rabin"/)
      expect(err({ HashFunction: 'nope' })).to.equal('Import.HashFunction unrecognized: "nope"')
      expect(err({ HashFunction: 'md5' })).to.equal('Import.HashFunction "md5" is not allowed for use in IPFS')
      expect(err({ UnixFSHAMTDirectorySizeEstimation: 'x' })).to.equal('Import.UnixFSHAMTDirectorySizeEstimation must be "links", "block", or "disabled", got "x"')
      expect(err({ UnixFSDAGLayout: 'x' })).to.equal('Import.UnixFSDAGLayout must be "balanced" or "trickle", got "x"')
      expect(err({ BatchMaxNodes: 0 })).to.equal('Import.BatchMaxNodes must be positive, got 0')
    })
  })

  describe('encoding', () => {
    it('leaf blocks equal @ipld/dag-pb + ipfs-unixfs encodings', () => {
      const data = chachaBytes('enc', 300)
      const ours = encodeDataBlock({ type: DataType.File, data, fileSize: 300 })
      const theirs = dagPb.encode({ Data: new UnixFS({ type: 'file', data }).marshal(), Links: [] })
      expect(Buffer.from(ours).equals(Buffer.from(theirs))).to.equal(true)
      const node = encodeNode({ type: DataType.File, fileSize: 10, blockSizes: [4, 6] }, [])
      expect(UnixFS.unmarshal(dagPb.decode(node).Data as Uint8Array).blockSizes).to.deep.equal([4n, 6n])
    })
  })
})

/** ipfs-unixfs-importer's CID for one file (the cross-check oracle). */
async function jsImport (data: Uint8Array, options: ImporterOptions, meta: { mode?: number, mtime?: { secs: bigint, nsecs?: number } } = {}): Promise<string> {
  const bs = new MemoryBlockstore()
  let last: CID | undefined
  for await (const r of jsImporter([{ path: 'f', content: data, ...meta }], bs, options)) last = r.cid
  return (last as CID).toString()
}
