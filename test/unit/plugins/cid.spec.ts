import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { peerIdFromString } from '@libp2p/peer-id'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { textCall } from '../../../registry/execute.js'
import type { InvokeInput } from '../../../registry/registry.js'
import { cidPlugin } from '../../../plugins/cid/index.js'

use(chaiAsPromised)

const CIDV0 = 'QmS4ustL54uo8FzR9455qaxZwuMiUhyvMcX9Ba8nUH4uVv'
const CIDV1 = 'zdj7WZAAFKPvYPPzyJLso2hhxo8a7ZACFQ4DvvfrNXTHidofr'
const CIDB32 = 'bafybeibxm2nsadl3fnxv2sxcxmxaco2jl53wpeorjdzidjwf5aqdg7wa6u'
const CIDBASE = 'QmYNmQKp6SuaVrpgWRsPTgCQCnpxUYGq76YEKBXuj2N4H6'
const CIDB32PB = 'bafybeievd6mwe6vcwnkwo3eizs3h7w3a34opszbyfxziqdxguhjw7imdve'
const CIDB32RAW = 'bafkreievd6mwe6vcwnkwo3eizs3h7w3a34opszbyfxziqdxguhjw7imdve'
const CIDB32CBOR = 'bafyreievd6mwe6vcwnkwo3eizs3h7w3a34opszbyfxziqdxguhjw7imdve'
const QMZZ = 'QmZZRTyhDpL5Jgift1cHbAhexeE1m2Hw8x8g7rTcPahDvo'
const QMZZ_B32 = 'bafybeifgwyq5gs4l2mru5klgwjfmftjvkmbyyjurbupuz2bst7mhmg2hwa'
const QMZZ_B58 = 'zdj7WgefqQm5HogBQ2bckZuTYYDarRTUZi51GYCnerHD2G86j'
const QMB = 'QmbWqxBEKC3P8tqsKc98xmWNzrzDtRLMiMPL8wBuTGsMnR'
const QMB_B32 = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi'
const QMB_DIGEST = 'c3c4733ec8affd06cf9e9ff50ffc6bcd2ec85a6170004bb709669c31de94391a'
const EMOJI = '🚀🪐⭐💻😅❓💎🌈🌸🌚💰💍🌒😵🐶💁🤐🌎👼🙃🙅☺🌚😞🤤⭐🚀😃✈🌕😚🍻💜🐷⚽✌😊'
const PEER = '12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA'

// t0290 various_cids (two lines with a leading space) and their expected conversions
const VARIOUS = [
  QMZZ,
  ' QmPhk6cJkRcFfZCdYam4c9MKYjFG9V29LswUnbrFNhtk2S',
  'bafybeihtwdtifv43rn5cyilnmkwofdcxi2suqimmo62vn3etf45gjoiuwy',
  'bafybeiek4tfxkc4ov6jsmb63fzbirrsalnjw24zd5xawo2fgxisd4jmpyq',
  'zdj7WgYfT2gfsgiUxzPYboaRbP9H9CxZE5jVMK9pDDwCcKDCR',
  'zdj7WbTaiJT1fgatdet9Ei9iDB5hdCxkbVyhyh8YTUnXMiwYi',
  'uAXASIDsp4T3Wnd6kXFOQaljH3GFK_ixkjMtVhB9VOBrPK3bp',
  ' uAXASIDdmmyANeytvXUriuy4BO0lfd2eR0UjygabF6CAzfsD1'
]
const VARIOUS_B32 = [
  QMZZ_B32,
  'bafybeiauil46g3lb32jemjbl7yspca3twdcg4wwkbsgdgvgdj5fpfv2f64',
  'bafybeihtwdtifv43rn5cyilnmkwofdcxi2suqimmo62vn3etf45gjoiuwy',
  'bafybeiek4tfxkc4ov6jsmb63fzbirrsalnjw24zd5xawo2fgxisd4jmpyq',
  'bafybeifffq3aeaymxejo37sn5fyaf7nn7hkfmzwdxyjculx3lw4tyhk7uy',
  'bafybeiczsscdsbs7ffqz55asqdf3smv6klcw3gofszvwlyarci47bgf354',
  'bafybeib3fhqt3vu532sfyu4qnjmmpxdbjl7cyzemznkyih2vhanm6k3w5e',
  CIDB32
]
const VARIOUS_V1 = [
  QMZZ_B58,
  'zdj7WWnzU3Nbu5rYGWZHKigUXBtAwShs2SHDCM1TQEvC9TeCN',
  'zdj7WmqAbpsfXgiRBtZP1oAP9QWuuY3mqbc5JhpxJkfT3vYCu',
  'zdj7Wen5gtfr7AivXip3zYd1peuq2QfKrqAn4FGiciVWb96YB',
  'zdj7WgYfT2gfsgiUxzPYboaRbP9H9CxZE5jVMK9pDDwCcKDCR',
  'zdj7WbTaiJT1fgatdet9Ei9iDB5hdCxkbVyhyh8YTUnXMiwYi',
  'zdj7WZQrAvnY5ge3FNg5cmCsNwsvpYjdtu2yEmnWYQ4ES7Nzk',
  CIDV1
]

const BASES_PREFIX_NUMERIC = `        0  identity
0      48  base2
b      98  base32
B      66  base32upper
c      99  base32pad
C      67  base32padupper
f     102  base16
F      70  base16upper
k     107  base36
K      75  base36upper
m     109  base64
M      77  base64pad
t     116  base32hexpad
T      84  base32hexpadupper
u     117  base64url
U      85  base64urlpad
v     118  base32hex
V      86  base32hexupper
z     122  base58btc
Z      90  base58flickr
🚀  128640  base256emoji
`

const CODECS_NUMERIC = `   81  cbor
   85  raw
  112  dag-pb
  113  dag-cbor
  114  libp2p-key
  120  git-raw
  123  torrent-info
  124  torrent-file
  128  blake3-hashseq
  129  leofcoin-block
  130  leofcoin-tx
  131  leofcoin-pr
  133  dag-jose
  134  dag-cose
  144  eth-block
  145  eth-block-list
  146  eth-tx-trie
  147  eth-tx
  148  eth-tx-receipt-trie
  149  eth-tx-receipt
  150  eth-state-trie
  151  eth-account-snapshot
  152  eth-storage-trie
  153  eth-receipt-log-trie
  154  eth-receipt-log
  176  bitcoin-block
  177  bitcoin-tx
  178  bitcoin-witness-commitment
  192  zcash-block
  193  zcash-tx
  208  stellar-block
  209  stellar-tx
  224  decred-block
  225  decred-tx
  240  dash-block
  241  dash-tx
  250  swarm-manifest
  251  swarm-feed
  252  beeson
  297  dag-json
  496  swhid-1-snp
  512  json
46083  rdfc-1
46593  json-jcs
`

const SUPPORTED_NUMERIC = `   81  cbor
   85  raw
  112  dag-pb
  113  dag-cbor
  114  libp2p-key
  120  git-raw
  133  dag-jose
  297  dag-json
  512  json
`

function hashesNumeric (): string {
  const fixed: Array<[number, string]> = [[0, 'identity'], [17, 'sha1'], [18, 'sha2-256'], [19, 'sha2-512'], [20, 'sha3-512'],
    [21, 'sha3-384'], [22, 'sha3-256'], [23, 'sha3-224'], [25, 'shake-256'], [26, 'keccak-224'], [27, 'keccak-256'],
    [28, 'keccak-384'], [29, 'keccak-512'], [30, 'blake3'], [86, 'dbl-sha2-256']]
  for (let bits = 160; bits <= 512; bits += 8) fixed.push([45568 + bits / 8, `blake2b-${bits}`])
  for (let bits = 160; bits <= 256; bits += 8) fixed.push([45632 + bits / 8, `blake2s-${bits}`])
  return fixed.map(([code, name]) => `${String(code).padStart(5, ' ')}  ${name}\n`).join('')
}

/** Strip the `%5d  ` / `%7d  ` columns of a numeric listing (Kubo's tests use `cut -c 8-`). */
const namesOnly = (text: string): string => text.split('\n').map(l => l.replace(/^.*? {2}(?=\S+$)/u, '')).join('\n')

describe('cid plugin', () => {
  let node: TestNode
  before(async () => { node = await createTestNode({ plugins: [cidPlugin()] }) })
  after(async () => { await node.stop() })

  /** The text a CLI would print: stdout and stderr parts (ndjson values rendered one by one). */
  async function render (path: string, input: InvokeInput = {}): Promise<{ stdout: string, stderr: string }> {
    const prepared = node.registry.prepare(path.split('/'), input)
    const value = await node.invoke(path, input)
    const values = prepared.output === 'ndjson' ? value as unknown[] : [value]
    const out = { stdout: '', stderr: '' }
    for (const v of values) {
      const text = prepared.command.text?.(v, textCall(prepared) as never) ?? ''
      out[prepared.command.textStream?.(v) ?? 'stdout'] += text
    }
    return out
  }
  const formatted = async (path: string, input: InvokeInput): Promise<string[]> =>
    (await node.invoke(path, input) as Array<{ Formatted: string }>).map(r => r.Formatted)

  describe('registration', () => {
    it('declares every command without a repo, under the cid group', () => {
      for (const name of ['base32', 'bases', 'codecs', 'format', 'hashes', 'inspect']) {
        expect(node.registry.node(['cid', name])?.command, name).to.not.equal(undefined)
        expect(node.registry.noRepo(['cid', name]), name).to.equal(true)
      }
      expect(node.registry.node(['cid'])?.group?.description).to.equal('Convert and discover properties of CIDs')
      expect(node.registry.validate()).to.deep.equal([])
    })

    it('uses Kubo option names and aliases', () => {
      const names = (p: string): string[][] => Object.entries(node.registry.node(p.split('/'))?.command?.options ?? {})
        .map(([k, o]) => [k, ...(o.aliases ?? [])])
      expect(names('cid/format')).to.deep.equal([['f'], ['v'], ['mc'], ['b']])
      expect(names('cid/bases')).to.deep.equal([['prefix'], ['numeric']])
      expect(names('cid/codecs')).to.deep.equal([['numeric', 'n'], ['supported', 's']])
      expect(names('cid/hashes')).to.deep.equal([['numeric', 'n'], ['supported', 's']])
      expect(node.registry.node(['cid', 'format'])?.command?.options?.f.default).to.equal('%s')
    })
  })

  describe('cid base32', () => {
    it('converts CIDv0 and base58 CIDv1 to base32 CIDv1', async () => {
      expect(await formatted('cid/base32', { args: [CIDV0] })).to.deep.equal([CIDB32])
      expect(await formatted('cid/base32', { args: [CIDV1] })).to.deep.equal([CIDB32])
      expect(await formatted('cid/base32', { args: [QMZZ, QMZZ_B58, QMZZ_B32] })).to.deep.equal([QMZZ_B32, QMZZ_B32, QMZZ_B32])
    })

    it('reads the CIDs from the body, one per line, trimmed (t0290)', async () => {
      expect(await formatted('cid/base32', { stdin: VARIOUS })).to.deep.equal(VARIOUS_B32)
      const { stdout } = await render('cid/base32', { stdin: VARIOUS })
      expect(stdout).to.equal(VARIOUS_B32.map(c => c + '\n').join(''))
    })

    it('reports an invalid CID in its row; valid ones still convert', async () => {
      const rows = await node.invoke('cid/base32', { args: [QMZZ, 'invalid-cid'] })
      expect(rows).to.deep.equal([
        { CidStr: QMZZ, Formatted: QMZZ_B32, ErrorMsg: '' },
        { CidStr: 'invalid-cid', Formatted: '', ErrorMsg: 'invalid cid: selected encoding not supported' }
      ])
      expect(Object.keys(rows[0])).to.deep.equal(['CidStr', 'Formatted', 'ErrorMsg'])
      const { stdout, stderr } = await render('cid/base32', { args: [QMZZ, 'invalid-cid'] })
      expect(stdout).to.equal(QMZZ_B32 + '\n')
      expect(stderr).to.equal('invalid-cid: invalid cid: selected encoding not supported\n')
    })

    it('stdin with a bad line (cid_test.go)', async () => {
      const rows = await node.invoke('cid/base32', { stdin: [QMZZ, 'bad-cid', QMZZ_B32] })
      expect(rows.map((r: { Formatted: string }) => r.Formatted)).to.deep.equal([QMZZ_B32, '', QMZZ_B32])
      expect(rows[1].ErrorMsg).to.equal('invalid cid: illegal base32 data at input byte 2')
    })
  })

  describe('cid format', () => {
    it('-v 1 -b base58btc', async () => {
      expect(await formatted('cid/format', { args: [CIDV0], options: { v: '1', b: 'base58btc' } })).to.deep.equal([CIDV1])
      expect(await formatted('cid/format', { args: [CIDB32], options: { v: '1', b: 'base58btc' } })).to.deep.equal([CIDV1])
      expect(await formatted('cid/format', { args: [QMZZ, QMZZ_B32], query: [['v', ['1']], ['b', ['base58btc']]] }))
        .to.deep.equal([QMZZ_B58, QMZZ_B58])
    })

    it('-v 1 -b base58btc from the body (t0290 various_cids_v1)', async () => {
      expect(await formatted('cid/format', { stdin: VARIOUS, options: { v: '1', b: 'base58btc' } })).to.deep.equal(VARIOUS_V1)
    })

    it('-v 0, and no options keeps the input', async () => {
      expect(await formatted('cid/format', { args: [CIDB32], options: { v: '0' } })).to.deep.equal([CIDV0])
      expect(await formatted('cid/format', { args: [QMZZ_B32], options: { v: '0' } })).to.deep.equal([QMZZ])
      expect(await formatted('cid/format', { args: [QMZZ] })).to.deep.equal([QMZZ])
      expect(await formatted('cid/format', { args: [CIDV1] })).to.deep.equal([CIDV1])
      const { stdout } = await render('cid/format', { args: [QMZZ] })
      expect(stdout).to.equal(QMZZ + '\n')
    })

    it('--mc changes the codec; the input base is kept without -b', async () => {
      expect(await formatted('cid/format', { args: [CIDB32PB], options: { mc: 'raw', b: 'base32' } })).to.deep.equal([CIDB32RAW])
      expect(await formatted('cid/format', { args: [CIDB32PB], options: { mc: 'dag-cbor' } })).to.deep.equal([CIDB32CBOR])
      expect(await formatted('cid/format', { args: [CIDB32RAW], options: { mc: 'dag-pb', v: '0' } })).to.deep.equal([CIDBASE])
      // a known code number works too (go-multicodec Code.Set)
      expect(await formatted('cid/format', { args: [CIDB32PB], options: { mc: '0x55' } })).to.deep.equal([CIDB32RAW])
    })

    it('base256emoji both ways', async () => {
      expect(await formatted('cid/format', { args: [QMB_B32], options: { b: 'base256emoji' } })).to.deep.equal([EMOJI])
      expect(await formatted('cid/format', { args: [EMOJI], options: { b: 'base32' } })).to.deep.equal([QMB_B32])
    })

    it('-b accepts a single-character prefix; -b alone upgrades CIDv0', async () => {
      expect(await formatted('cid/format', { args: [QMB], options: { b: 'k' } }))
        .to.deep.equal([CID.parse(QMB).toV1().toString((await import('multiformats/bases/base36')).base36)])
      expect(await formatted('cid/format', { args: [QMB], options: { b: 'base32' } })).to.deep.equal([QMB_B32])
    })

    it('-f specifiers (go-cidutil)', async () => {
      const [out] = await formatted('cid/format', { args: [QMB_B32], options: { f: '%b|%B|%v|%V|%c|%C|%h|%H|%L|%s|%S|%P|%%' } })
      expect(out).to.equal(`base32|b|cidv1|1|dag-pb|112|sha2-256|18|32|${QMB_B32}|${QMB_B32.slice(1)}|cidv1-dag-pb-sha2-256-32|%`)
      const [mh] = await formatted('cid/format', { args: [QMB], options: { f: '%m %M %d %D' } })
      // CIDv0: base58btc; %m is the multihash (the v0 string with a z prefix)
      expect(mh.split(' ')[0]).to.equal('z' + QMB)
      expect(mh.split(' ')[1]).to.equal(QMB)
      const [hex] = await formatted('cid/format', { args: [QMB], options: { f: '%d', v: '1', b: 'base16' } })
      expect(hex).to.equal('f' + QMB_DIGEST)
      const [hexBare] = await formatted('cid/format', { args: [QMB], options: { f: '%D', v: '1', b: 'f' } })
      expect(hexBare).to.equal(QMB_DIGEST)
    })

    it('a CID whose codec has no ipld tag is named as go-multicodec names it', async () => {
      const [out] = await formatted('cid/format', { args: [CIDB32PB], options: { mc: 'fil-commitment-unsealed', f: '%c %C' } })
      expect(out).to.equal('fil-commitment-unsealed 61697')
    })

    it('rejects bad options with Kubo\'s messages', async () => {
      await expect(node.invoke('cid/format', { args: [QMZZ], options: { f: 'abc' } })).to.be.rejectedWith('invalid format string: "abc"')
      await expect(node.invoke('cid/format', { args: [QMZZ], options: { v: '2' } })).to.be.rejectedWith('invalid cid version: "2"')
      await expect(node.invoke('cid/format', { args: [QMZZ], options: { v: '0', mc: 'raw' } }))
        .to.be.rejectedWith('cannot convert to CIDv0 with any codec other than dag-pb')
      await expect(node.invoke('cid/format', { args: [QMZZ], options: { v: '0', b: 'base32' } }))
        .to.be.rejectedWith('cannot convert to CIDv0 with any multibase other than the implicit base58btc')
      await expect(node.invoke('cid/format', { args: [QMZZ], options: { mc: 'nope' } })).to.be.rejectedWith('unknown multicodec: "nope"')
      await expect(node.invoke('cid/format', { args: [QMZZ], options: { b: 'base99' } })).to.be.rejectedWith('unsupported multibase encoding: base99')
      await expect(node.invoke('cid/format', { args: [QMZZ], options: { f: '%X' } }))
        .to.be.rejectedWith('unrecognized specifier in format string: %X')
      await expect(node.invoke('cid/format', { args: [QMZZ], options: { f: 'x%' } }))
        .to.be.rejectedWith('premature end of format string')
      await expect(node.invoke('cid/format', { args: [] })).to.be.rejectedWith('argument "cid" is required')
    })

    it('per-entry failures: non-dag-pb to v0, invalid CIDs', async () => {
      const rows = await node.invoke('cid/format', { args: [CIDB32RAW, 'not-a-cid', QMZZ_B32], options: { v: '0' } })
      expect(rows).to.deep.equal([
        { CidStr: CIDB32RAW, Formatted: '', ErrorMsg: "can't convert non-dag-pb nodes to cidv0" },
        { CidStr: 'not-a-cid', Formatted: '', ErrorMsg: 'invalid cid: selected encoding not supported' },
        { CidStr: QMZZ_B32, Formatted: QMZZ, ErrorMsg: '' }
      ])
      const { stdout, stderr } = await render('cid/format', { args: ['not-a-cid', QMZZ] })
      expect(stdout).to.equal(QMZZ + '\n')
      expect(stderr).to.equal('not-a-cid: invalid cid: selected encoding not supported\n')
    })

    it('go-cid error texts', async () => {
      const err = async (s: string): Promise<string> => (await node.invoke('cid/format', { args: [s] }))[0].ErrorMsg
      expect(await err('b')).to.equal('invalid cid: cid too short')
      expect(await err('f6c6f6cz')).to.equal("invalid cid: encoding/hex: invalid byte: U+007A 'z'")
      expect(await err('zII')).to.equal("invalid cid: invalid base58 digit ('I')")
      expect(await err('QmS4ustL54uo8FzR9455qaxZwuMiUhyvMcX9Ba8nUH4uV0')).to.equal("invalid cid: input isn't valid multihash")
      // version 2 and trailing bytes (base16 of the raw CID bytes)
      expect(await err('f0255122000')).to.equal('invalid cid: invalid cid: expected 1 as the cid version number, got: 2')
      expect(await err('f01551200ff')).to.equal('invalid cid: trailing bytes in data buffer passed to cid Cast')
      expect(await err('f0155120aff')).to.equal('invalid cid: invalid cid: length greater than remaining number of bytes in buffer')
    })
  })

  describe('cid inspect', () => {
    const text = async (cid: string): Promise<string> => (await render('cid/inspect', { args: [cid] })).stdout

    it('CIDv0: everything implicit', async () => {
      expect(await text(QMB)).to.equal([
        `CID:        ${QMB}`,
        'Version:    0',
        'Multibase:  base58btc (implicit)',
        'Multicodec: dag-pb (0x70, implicit)',
        'Multihash:  sha2-256 (0x12, implicit)',
        '  Length:   32 bytes',
        `  Digest:   ${QMB_DIGEST}`,
        `CIDv0:      ${QMB}`,
        `CIDv1:      ${QMB_B32}`
      ].join('\n') + '\n')
    })

    it('CIDv1 base32 dag-pb', async () => {
      const out = await text(QMB_B32)
      expect(out).to.contain('Version:    1\nMultibase:  base32 (b)\nMulticodec: dag-pb (0x70)\nMultihash:  sha2-256 (0x12)\n')
      expect(out).to.not.contain('implicit')
      expect(out).to.contain(`CIDv0:      ${QMB}\nCIDv1:      ${QMB_B32}\n`)
    })

    it('raw codec: CIDv0 not possible', async () => {
      const raw = 'bafkreigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi'
      const out = await text(raw)
      expect(out).to.contain('Multicodec: raw (0x55)\n')
      expect(out).to.contain(`  Digest:   ${QMB_DIGEST}\n`)
      expect(out).to.contain('CIDv0:      not possible, requires dag-pb (0x70), got raw (0x55)\n')
      expect(out).to.contain(`CIDv1:      ${raw}\n`)
    })

    it('base36 input', async () => {
      const out = await text('k2jmtxw8rjh1z69c6not3wtdxb0u3urbzhyll1t9jg6ox26dhi5sfi1m')
      expect(out).to.contain('Multibase:  base36 (k)\nMulticodec: dag-pb (0x70)\n')
      expect(out).to.contain(`CIDv0:      ${QMB}\nCIDv1:      ${QMB_B32}\n`)
    })

    it('identity multihash', async () => {
      const out = await text('bafkqabdumvzxi')
      expect(out).to.contain('Multicodec: raw (0x55)\nMultihash:  identity (0x0)\n  Length:   4 bytes\n  Digest:   74657374\n')
    })

    it('libp2p-key CIDv1 is shown in base36', async () => {
      const cid = peerIdFromString(PEER).toCID().toString()
      const out = await text(cid)
      expect(out).to.contain('Multicodec: libp2p-key (0x72)\n')
      expect(out).to.match(/\nCIDv1: {6}k51/)
      expect(out).to.contain('CIDv0:      not possible, requires dag-pb (0x70), got libp2p-key (0x72)\n')
    })

    it('unknown codec, and non-sha256 / short-digest dag-pb', async () => {
      const digest = await sha256.digest(new TextEncoder().encode('test'))
      const out = await text(CID.createV1(0x9999, digest).toString())
      expect(out).to.contain('Multicodec: unknown (0x9999)\n')
      expect(out).to.contain('not possible, requires dag-pb (0x70), got unknown (0x9999)')
      expect(await text('bafyaabdumvzxi')).to.contain('CIDv0:      not possible, requires sha2-256 (0x12), got identity (0x0)\n')
      expect(await text('bafybebdumvzxi')).to.contain('CIDv0:      not possible, requires 32-byte digest, got 4\n')
    })

    it('JSON shape: lower-case keys, cidV0 omitted when impossible', async () => {
      const out = await node.invoke('cid/inspect', { args: [QMB_B32] })
      expect(Object.keys(out)).to.deep.equal(['cid', 'version', 'multibase', 'multicodec', 'multihash', 'cidV0', 'cidV1'])
      expect(out.multibase).to.deep.equal({ prefix: 'b', name: 'base32' })
      expect(out.multihash).to.deep.equal({ code: 18, name: 'sha2-256', length: 32, digest: QMB_DIGEST })
      expect(out.cidV0).to.equal(QMB)
      const raw = await node.invoke('cid/inspect', { args: ['bafkreigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi'] })
      expect(raw).to.not.have.property('cidV0')
      expect(raw.cidV1).to.match(/^b/)
    })

    it('invalid input: errorMsg in JSON, an error in text', async () => {
      const out = await node.invoke('cid/inspect', { args: ['garbage'] })
      expect(out.errorMsg).to.equal('invalid CID: invalid cid: selected encoding not supported')
      expect(out.cidV1).to.equal('')
      expect(Object.keys(out)).to.deep.equal(['cid', 'version', 'multibase', 'multicodec', 'multihash', 'cidV1', 'errorMsg'])
      await expect(render('cid/inspect', { args: ['garbage'] })).to.be.rejectedWith('invalid CID')
    })

    it('a PeerID gets a hint with its base36 CID', async () => {
      const out = await node.invoke('cid/inspect', { args: [PEER] })
      const k = peerIdFromString(PEER).toCID().toString((await import('multiformats/bases/base36')).base36)
      expect(out.errorMsg).to.equal('invalid CID: invalid cid: selected encoding not supported\n' +
        `Note: the value is a PeerID; inspect its CID representation instead:\n  ${k}`)
      expect(k).to.match(/^k/)
    })

    it('reads the CID from the body', async () => {
      expect((await node.invoke('cid/inspect', { stdin: [QMB] })).cidV1).to.equal(QMB_B32)
    })
  })

  describe('listings', () => {
    it('cid bases: text with every flag combination (t0290)', async () => {
      expect((await render('cid/bases', { options: { prefix: true, numeric: true } })).stdout).to.equal(BASES_PREFIX_NUMERIC)
      const lines = BASES_PREFIX_NUMERIC.trimEnd().split('\n')
      expect((await render('cid/bases')).stdout).to.equal(lines.map(l => l.slice(l.lastIndexOf(' ') + 1) + '\n').join(''))
      const prefix = (await render('cid/bases', { query: [['prefix', ['true']]] })).stdout
      expect(prefix.split('\n')[0]).to.equal('   identity')
      expect(prefix).to.contain('\nb  base32\n').and.to.contain('\n🚀  base256emoji\n')
      const numeric = (await render('cid/bases', { options: { numeric: true } })).stdout
      expect(numeric.split('\n')[0]).to.equal('      0  identity')
      expect(numeric).to.contain('\n 128640  base256emoji\n')
    })

    it('cid bases: JSON is a list of {Code, Name}', async () => {
      const rows = await node.invoke('cid/bases')
      expect(rows).to.have.length(21)
      expect(rows).to.deep.include({ Code: 98, Name: 'base32' })
      expect(rows).to.deep.include({ Code: 128640, Name: 'base256emoji' })
      expect(Object.keys(rows[0])).to.deep.equal(['Code', 'Name'])
    })

    it('cid codecs (plain, --numeric, --supported)', async () => {
      expect((await render('cid/codecs', { options: { numeric: true } })).stdout).to.equal(CODECS_NUMERIC)
      expect((await render('cid/codecs')).stdout).to.equal(namesOnly(CODECS_NUMERIC))
      expect((await render('cid/codecs', { query: [['s', ['true']], ['n', ['true']]] })).stdout).to.equal(SUPPORTED_NUMERIC)
      expect((await render('cid/codecs', { options: { supported: true } })).stdout).to.equal(namesOnly(SUPPORTED_NUMERIC))
      expect(await node.invoke('cid/codecs', { options: { supported: true } })).to.deep.include({ Code: 114, Name: 'libp2p-key' })
    })

    it('cid hashes (plain, --numeric)', async () => {
      expect((await render('cid/hashes', { options: { numeric: true } })).stdout).to.equal(hashesNumeric())
      expect((await render('cid/hashes')).stdout).to.equal(namesOnly(hashesNumeric()))
      const rows = await node.invoke('cid/hashes')
      expect(rows).to.have.length(15 + 45 + 13)
      expect(rows).to.not.deep.include({ Code: 0xd5, Name: 'md5' })
    })
  })
})
