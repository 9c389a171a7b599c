import { expect, use } from 'chai'
import chaiAsPromised from 'chai-as-promised'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { textCall } from '../../../registry/execute.js'
import { cidPlugin } from '../../../plugins/cid/index.js'
import { multibasePlugin } from '../../../plugins/multibase/index.js'
import { MULTIBASES } from '../../../core/go/multibase.js'

use(chaiAsPromised)

const EMOJI_CID = '🚀🪐⭐💻😅❓💎🌈🌸🌚💰💍🌒😵🐶💁🤐🌎👼🙃🙅☺🌚😞🤤⭐🚀😃✈🌕😚🍻💜🐷⚽✌😊'

describe('multibase plugin', () => {
  let node: TestNode
  before(async () => { node = await createTestNode({ plugins: [cidPlugin(), multibasePlugin()] }) })
  after(async () => { await node.stop() })

  const run = async (path: string, content: string | Uint8Array, options: Record<string, unknown> = {}): Promise<Buffer> =>
    await node.invoke(path, { files: filesOf({ content }), options })
  const str = async (path: string, content: string | Uint8Array, options: Record<string, unknown> = {}): Promise<string> =>
    (await run(path, content, options)).toString('utf8')

  describe('registration', () => {
    it('declares the four commands without a repo, bytes out, file in', () => {
      expect(node.registry.node(['multibase'])?.group?.description).to.equal('Encode and decode files or stdin with multibase format')
      for (const name of ['decode', 'encode', 'list', 'transcode']) {
        expect(node.registry.noRepo(['multibase', name]), name).to.equal(true)
      }
      for (const name of ['decode', 'encode', 'transcode']) {
        const cmd = node.registry.node(['multibase', name])?.command
        expect(cmd?.output, name).to.equal('bytes')
        expect(cmd?.args?.[0]).to.include({ kind: 'file', required: true, stdin: true })
      }
      expect(node.registry.node(['multibase', 'encode'])?.command?.options?.b.default).to.equal('base64url')
      expect(node.registry.node(['multibase', 'transcode'])?.command?.options?.b.default).to.equal('base64url')
      expect(node.registry.node(['multibase', 'decode'])?.command?.args?.[0].name).to.equal('encoded_file')
      expect(node.registry.validate()).to.deep.equal([])
    })
  })

  describe('t0295 vectors', () => {
    it('encode: base64url by default, -b base16, no trailing newline', async () => {
      expect(await str('multibase/encode', 'hello')).to.equal('uaGVsbG8')
      expect(await str('multibase/encode', 'hello', { b: 'base16' })).to.equal('f68656c6c6f')
      const viaQuery = await node.invoke('multibase/encode', { files: filesOf({ content: 'hello' }), query: [['b', ['base16']]] })
      expect(viaQuery.toString()).to.equal('f68656c6c6f')
    })

    it('decode', async () => {
      expect(await str('multibase/decode', 'uaGVsbG8')).to.equal('hello')
    })

    it('encode + decode round trip (base64)', async () => {
      const encoded = await run('multibase/encode', 'hello', { b: 'base64' })
      expect(encoded.toString()).to.equal('maGVsbG8')
      expect(await str('multibase/decode', encoded)).to.equal('hello')
    })

    it('transcode', async () => {
      expect(await str('multibase/transcode', 'uaGVsbG8', { b: 'base16' })).to.equal('f68656c6c6f')
      expect(await str('multibase/transcode', 'f68656c6c6f')).to.equal('uaGVsbG8')
    })

    it('unknown prefix', async () => {
      await expect(run('multibase/decode', 'ę-that-should-do-the-trick'))
        .to.be.rejectedWith('failed to decode multibase: selected encoding not supported')
    })

    it('a character outside of the base', async () => {
      await expect(run('multibase/decode', 'f6c6f6cz'))
        .to.be.rejectedWith("failed to decode multibase: encoding/hex: invalid byte: U+007A 'z'")
    })
  })

  describe('bases', () => {
    const sample = Uint8Array.from([0, 0, 1, 2, 3, 250, 251, 252, 253, 254, 255, 0, 17])

    // multiformats/multibase tests/two_leading_zeros.csv
    const SPEC: Record<string, string> = {
      base2: '0000000000000000001111001011001010111001100100000011011010110000101101110011010010010000000100001',
      base16: 'f0000796573206d616e692021',
      base16upper: 'F0000796573206D616E692021',
      base32: 'baaahszltebwwc3tjeaqq',
      base32upper: 'BAAAHSZLTEBWWC3TJEAQQ',
      base32hex: 'v0007ipbj41mm2rj940gg',
      base32hexupper: 'V0007IPBJ41MM2RJ940GG',
      base32pad: 'caaahszltebwwc3tjeaqq====',
      base32padupper: 'CAAAHSZLTEBWWC3TJEAQQ====',
      base32hexpad: 't0007ipbj41mm2rj940gg====',
      base32hexpadupper: 'T0007IPBJ41MM2RJ940GG====',
      base36: 'k002lcpzo5yikidynfl',
      base36upper: 'K002LCPZO5YIKIDYNFL',
      base58flickr: 'Z117Pznk19XTTzBtx',
      base58btc: 'z117paNL19xttacUY',
      base64: 'mAAB5ZXMgbWFuaSAh',
      base64pad: 'MAAB5ZXMgbWFuaSAh',
      base64url: 'uAAB5ZXMgbWFuaSAh',
      base64urlpad: 'UAAB5ZXMgbWFuaSAh',
      base256emoji: '🚀🚀🚀🏃✋🌈😅🌷🤤😻🌟😅👏'
    }
    const DATA = '\x00\x00yes mani !'

    it('every base matches the multibase spec vectors, both ways', async () => {
      expect(Object.keys(SPEC).length).to.equal(MULTIBASES.length - 1)
      for (const [name, encoded] of Object.entries(SPEC)) {
        expect(await str('multibase/encode', DATA, { b: name }), name).to.equal(encoded)
        expect(await str('multibase/decode', encoded), name).to.equal(DATA)
      }
    })

    it('every base round-trips arbitrary bytes', async () => {
      for (const { name } of MULTIBASES) {
        const encoded = await run('multibase/encode', sample, { b: name })
        expect(new Uint8Array(await run('multibase/decode', encoded)), name).to.deep.equal(sample)
      }
    })

    it('-b takes a prefix character, and rejects unknown names', async () => {
      expect(await str('multibase/encode', 'hello', { b: 'f' })).to.equal('f68656c6c6f')
      expect(await str('multibase/encode', 'hello', { b: 'B' })).to.equal('BNBSWY3DP')
      await expect(run('multibase/encode', 'hello', { b: 'base99' })).to.be.rejectedWith('unsupported multibase encoding: base99')
      await expect(run('multibase/encode', 'hello', { b: '' })).to.be.rejectedWith('empty multibase encoding')
      await expect(run('multibase/transcode', 'uaGVsbG8', { b: 'q' })).to.be.rejectedWith('unsupported multibase encoding: q')
    })

    it('base256emoji round trip (a CID as data)', async () => {
      const encoded = await str('multibase/encode', 'hello', { b: 'base256emoji' })
      expect(encoded.startsWith('🚀')).to.equal(true)
      expect(await str('multibase/decode', encoded)).to.equal('hello')
      // the emoji CID of t0290, transcoded to base32
      expect(await str('multibase/transcode', EMOJI_CID, { b: 'base32' })).to.equal('bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi')
    })

    it('identity carries raw bytes behind a NUL prefix', async () => {
      const bytes = Uint8Array.from([0xff, 0x00, 0xc3])
      const encoded = await run('multibase/encode', bytes, { b: 'identity' })
      expect(new Uint8Array(encoded)).to.deep.equal(Uint8Array.from([0x00, 0xff, 0x00, 0xc3]))
      expect(new Uint8Array(await run('multibase/decode', encoded))).to.deep.equal(bytes)
    })

    it('decodes as Go does: case-insensitive base32, newlines ignored by base32/base64', async () => {
      expect(await str('multibase/decode', 'bNBSWY3DP')).to.equal('hello')
      expect(await str('multibase/decode', 'Bnbswy3dp')).to.equal('hello')
      expect(await str('multibase/decode', 'uaGVsbG8\n')).to.equal('hello')
      expect(await str('multibase/decode', 'MaGVsbG8=')).to.equal('hello')
      expect(await str('multibase/decode', '0110100001101001')).to.equal('hi')
    })

    it('Go decoder error texts', async () => {
      const fails = async (input: string, msg: string): Promise<void> => {
        await expect(run('multibase/decode', input), input).to.be.rejectedWith(`failed to decode multibase: ${msg}`)
      }
      await fails('', 'cannot decode multibase for zero length string')
      await fails('f68656c6c6f\n', 'encoding/hex: invalid byte: U+000A')
      await fails('f686', 'encoding/hex: odd length hex string')
      await fails('MaGVsbG8', 'illegal base64 data at input byte 4')
      await fails('uaGVsbG8=', 'illegal base64 data at input byte 7')
      await fails('b!!!', 'illegal base32 data at input byte 0')
      await fails('cpfsxgidnmfxgsib', 'illegal base32 data at input byte 8')
      await fails('bpfsxgidnmfxgsib=', 'illegal base32 data at input byte 15')
      await fails('k', 'can not decode zero-length string')
      await fails('k!!', "invalid base36 character ('!')")
      await fails('z0', "invalid base58 digit ('0')")
      await fails('zé', 'high-bit set on invalid digit')
      await fails('0102', 'error while conversion: strconv.ParseInt: parsing "00000102": invalid syntax')
      await fails('🚀x', "illegal base256emoji data at input byte 0, char: 'x'")
    })

    it('a directory is not a file argument', async () => {
      const dir = (async function * () { yield { path: 'd', type: 'directory' as const } })()
      await expect(node.invoke('multibase/decode', { files: dir })).to.be.rejectedWith('failed to access file: file argument was nil')
    })
  })

  describe('multibase list', () => {
    it('is cid bases under another name', async () => {
      const list = node.registry.prepare(['multibase', 'list'], { options: { prefix: true } })
      const bases = node.registry.prepare(['cid', 'bases'], { options: { prefix: true } })
      const value = await node.invoke('multibase/list')
      expect(value).to.deep.equal(await node.invoke('cid/bases'))
      const text = list.command.text?.(value, textCall(list) as never)
      expect(text).to.equal(bases.command.text?.(value, textCall(bases) as never))
      expect(text?.split('\n').slice(0, 3)).to.deep.equal(['   identity', '0  base2', 'b  base32'])
      expect(list.command.description).to.equal('List available multibase encodings.')
    })
  })
})
