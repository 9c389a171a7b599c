import { expect } from 'chai'
import { promises as fs } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { generateKeyPair, privateKeyToProtobuf } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey, peerIdFromString } from '@libp2p/peer-id'
import { base64url } from 'multiformats/bases/base64'
import { createTestNode, filesOf, type TestNode } from '../../helpers/node.js'
import { rejects } from '../../helpers/assert.js'
import { keyPlugin } from '../../../plugins/key/index.js'
import { tabwrite } from '../../../core/util/tabwriter.js'
import { escNonPrint } from '../../../core/go/strings.js'

// OpenSSL-generated PKCS#8 fixtures from Kubo's test/cli/testdata, with their PeerIDs (test/cli/key_test.go)
const ED25519_PEM = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ2M1na2f3dRm4b1FcAQvsn7q08+XfBZcr4MgH4yiBdz\n-----END PRIVATE KEY-----\n'
const ED25519_ID = '12D3KooWAcekXpuJjXdXUVKvtjYsa2WAY7hF5hX4csqGe4S434R6'
const ED25519_K = 'k51qzi5uqu5dgh881t0hm6pfpev7wmidy6m8z3fzl4vxajkfkyd5zfjif5dhkx'
const RSA_PEM = `-----BEGIN PRIVATE KEY-----
MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQDSaJB9EKnShOs6
sbGkB40crn72yNKXj5OBPS2wBDTHWwxyhTB0qJirOT2QYW2DmR/4lPfVk5/f4CJ7
xIHUBJRoC+NTwqHit24DQBd00tNG4EnKn2Dad/arZ/nEVshkKiGXn0qXxiHHsaCn
X/pnVPU4+O7fdfUlz2EKf3Og/ocRCFrdMsULR2QwDc0YWsY8ngrcKegyFCbKjXjo
zvfbGevCDPlhKaZLxRy0PHnON00YC4KO6d77XpbECFvsE1aG1RxYQX0Zjr+i8UvD
UJp/YCoRNEX54/wKpGebMUrFse5K9hBsFen/wCsPnOsYPSb9g8qyoYRDBnr9sIe1
9MxFTMy/AgMBAAECggEAKXu2KQI1CS1tlzfbdySJ/MKmg49afckv4sYmENLzeO6J
iLabtBRdbTyu151t0wlIlWEBb9lYJvJwuggnNJ7mh5D4c9YmxqU1imyDc2PxhcLI
qas8lDYcqvSn+L7HaYAo+VTNhxjoJg/uRbGVk/PbGS1zIxmFiLvXPROdv3sPNBsf
EYMDH9q7/8DI6dNBQPxtTKlTDLDsTezbkNFQ74znlXgQYcfY1mXljcRtbJqhQJT3
uppktESPwLRmqtT9H+v9nCtQR6OLmAmLWNgMrSdGKBsSsgJwv2xfpNMffwd84dtT
uGrS2K+BY0TH2q+Xx04r18GLCst3U5MBSklyHQ/mwQKBgQDqnxNOnK41/n/Q8X4a
/TUnZBx/JHiCoQoa06AsMxFgOvV3ycR+Z9lwb5I5BsicH1GUcHIxSY3mCyd4fLwE
FC0QIyNhPJ5oFKh0Oynjm+79VE8v7kK2qqRL4zUpaCXEsSOrhRsCY0/WQdMUPVsh
okXDUIv37G9KUcjdrhNVpGK3oQKBgQDllK7augIhmlQZTdSLTgmuzhYsXdSGDML/
Bx48q7OvPhvZIIOsygLGhtcBk2xG6PN1yP44cx9dvcTnzxU6TEblO5P8TWY0BSNj
ZuC5wdxLwc3KUdLd9JLR7qcbjqndDruE01rQFVQ3MDbyB1+VrJgiVHIEomJJrKGm
FQ+314moXwKBgQDL90sDlnZk/kED1k15DRN+kSus5HnXpkRwmfWvNx4t+FOZtdCa
y5Fei8Akz17rStbTIwZDDtzLVnsT5exV52xdkQ6a4+YaOYtQsHZ0JwWXOgo1cv6Q
ary2NGns+1uKKS0HWYnng4rOix8Dg2uMS9Q2PfnQqLz/cSYcgc7RLz2awQKBgQDd
HSaLYztKQeldtahPwwlwYuzYLkbSFNh559EnfffBgIAxzy8C7E1gB95sliBi61oQ
x1SR6c776hoLaVd4np5picgt6B3XXFuJETy/rAcQr8gUZFpDi5sctk4cLHtNfTL9
6tI8N061GKrS0GcvMNwVtF9cN0mSy8GkxAQvfFgI4QKBgQC4NVimIPptfFckulAL
/t0vkdLhCRr1+UFNhgsQJhCZpfWZK4x8If6Jru/eiU7ywEsL6fHE2ENvyoTjV33g
b9yJ7SV4zkz4VhBxc3p26SIvBgLqtHwH8IkIonlbfQFoEAg1iOneLvimPy0YGHsG
+bTwwlAJJhctILkFtAbooeAQVQ==
-----END PRIVATE KEY-----
`
const RSA_ID = 'QmWqgbBdPWDUnqDWey5RoRbg98bEciLkoFwLg76xctpKgJ'
const SECP256K1_PEM = `-----BEGIN PRIVATE KEY-----
MIGEAgEAMBAGByqGSM49AgEGBSuBBAAKBG0wawIBAQQg8JXjM5UxXZAbsRh4YlXH
93qwRlt+qZ6rFXhhm27vcKShRANCAATvpVmYLz42SFb/wCogvXiWaNW/Jtjf+NmY
d417YkRfLfQovtY6OH++bZLXuZfF4cIDZ+2N3486dmbEqpbAxLLP
-----END PRIVATE KEY-----
`
const SECP256K1_ID = '16Uiu2HAmUnU2WFKDFtd9zxpedHkDb72z7stLDSj54uyvHpZeVMkp'
const P256_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/QAF0GOky6y9IDH8
N95CQtcIx3W/XdHT9n/fApibcQahRANCAARnkeYbG6MRe8e0ihi8WKl0NRs9ytu1
lCnWT721I/SZGWMqY510cZtkmyuPEEKyQ924OyT7YnHUwfSVrWOsAp4V
-----END PRIVATE KEY-----
`
const P256_ID = 'QmQEEuDFa6ieFFaf3z6zeuRG5HU7vHWiY6AwkGimJ4Zre6'

const PEM = 'pem-pkcs8-cleartext'
const LIBP2P = 'libp2p-protobuf-cleartext'

describe('key plugin', function () {
  this.timeout(60_000)
  let node: TestNode
  let tmp: string
  let n = 0
  const fresh = (): string => `k${++n}`
  const text = (p: string, value: unknown, options: Record<string, unknown> = {}): string => {
    const cmd = node.registry.node(p.split('/'))?.command
    return cmd?.text?.(value as never, { path: p.split('/'), args: [], options: { encoding: 'text', ...options } }) ?? ''
  }
  const selfId = (): string => node.container.cradle.config.getKey('Identity.PeerID') as string
  const importPem = async (name: string, pem: string, options: Record<string, unknown> = {}): Promise<any> =>
    await node.invoke('key/import', { args: [name], files: filesOf({ content: pem }), options: { format: PEM, ...options } })

  before(async () => {
    node = await createTestNode({ plugins: [keyPlugin()] })
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'tsipfs-key-'))
  })

  after(async () => {
    await node?.stop()
    if (tmp != null) await fs.rm(tmp, { recursive: true, force: true })
  })

  describe('tree', () => {
    it('declares the key group and its commands with Kubo statuses', () => {
      expect(node.registry.node(['key'])?.group?.description).to.equal('Create and list IPNS name keypairs')
      const names = [...(node.registry.node(['key'])?.children.keys() ?? [])].sort()
      expect(names).to.deep.equal(['export', 'gen', 'import', 'list', 'ls', 'rename', 'rm', 'rotate', 'sign', 'verify'])
      expect(node.registry.status(['key', 'list'])).to.equal('deprecated')
      expect(node.registry.node(['key', 'list'])?.command?.replacement).to.equal("use 'ipfs key ls' instead")
      expect(node.registry.status(['key', 'sign'])).to.equal('experimental')
      expect(node.registry.status(['key', 'verify'])).to.equal('experimental')
      expect(node.registry.status(['key', 'gen'])).to.equal('active')
    })

    it('keeps export and rotate off HTTP (NoRemote)', () => {
      expect(node.registry.resolveHttp(['key', 'export'])).to.equal(undefined)
      expect(node.registry.resolveHttp(['key', 'rotate'])).to.equal(undefined)
      expect(node.registry.resolveHttp(['key', 'gen'])).to.not.equal(undefined)
      expect(node.registry.validate()).to.deep.equal([])
    })
  })

  describe('gen', () => {
    it('generates an ed25519 key by default, id in base36', async () => {
      const name = fresh()
      const out = await node.invoke('key/gen', { args: [name] })
      expect(Object.keys(out)).to.deep.equal(['Name', 'Id'])
      expect(out.Name).to.equal(name)
      expect(out.Id).to.match(/^k51qzi5uqu5d/).and.have.length(62)
      expect(text('key/gen', out)).to.equal(out.Id + '\n')
      const key = await node.container.cradle.keystore.get(name)
      expect(key.type).to.equal('Ed25519')
    })

    it('generates rsa 2048 (wire options as the RPC clients send them)', async () => {
      const name = fresh()
      const out = await node.invoke('key/gen', { args: [name], query: [['type', ['rsa']], ['size', ['2048']]] })
      expect(out.Id).to.have.length(56).and.match(/^k/)
      const key = await node.container.cradle.keystore.get(name)
      expect(key.type).to.equal('RSA')
      const ls = await node.invoke('key/ls', { options: { 'ipns-base': 'b58mh' } })
      const found = ls.Keys.find((k: any) => k.Name === name)
      expect(found.Id).to.match(/^Qm/).and.have.length(46)
    })

    it('generates secp256k1 and prints b58mh ids', async () => {
      const out = await node.invoke('key/gen', { args: [fresh()], options: { type: 'secp256k1', 'ipns-base': 'b58mh' } })
      expect(out.Id).to.match(/^16Uiu2HA/)
    })

    it('accepts the fixed size 256 for ed25519 and --ipns-base=base32', async () => {
      const out = await node.invoke('key/gen', { args: [fresh()], options: { size: 256, 'ipns-base': 'base32' } })
      expect(out.Id).to.match(/^bafzaa/)
    })

    it("rejects 'self', duplicates, bad types and sizes with Kubo's messages", async () => {
      await rejects(node.invoke('key/gen', { args: ['self'] }), "cannot create key with name 'self'")
      const name = fresh()
      await node.invoke('key/gen', { args: [name] })
      await rejects(node.invoke('key/gen', { args: [name] }), `key with name '${name}' already exists`)
      await rejects(node.invoke('key/gen', { args: [fresh()], options: { type: 'dsa' } }), 'unrecognized key type: dsa')
      await rejects(node.invoke('key/gen', { args: [fresh()], options: { type: 'Ed25519' } }), 'unrecognized key type: Ed25519')
      await rejects(node.invoke('key/gen', { args: [fresh()], query: [['size', ['2048']]] }), 'invalid key size 2048: ed25519 keys are always 256 bits')
      await rejects(node.invoke('key/gen', { args: [fresh()], options: { type: 'secp256k1', size: 128 } }), 'invalid key size 128: secp256k1 keys are always 256 bits')
      await rejects(node.invoke('key/gen', { args: [fresh()], options: { type: 'rsa', size: 1024 } }), 'rsa keys must be >= 2048 bits to be useful')
      await rejects(node.invoke('key/gen', { args: [fresh()], options: { 'ipns-base': 'nope' } }), 'unsupported multibase encoding: nope')
      await rejects(node.invoke('key/gen', { args: [''] }), 'key name must be at least one character')
    })
  })

  describe('ls and list', () => {
    it('lists self first, then stored keys sorted, in the chosen base', async () => {
      const b = 'zz-b'; const a = 'zz-a'
      await node.invoke('key/gen', { args: [b] })
      await node.invoke('key/gen', { args: [a] })
      const out = await node.invoke('key/ls', { options: { 'ipns-base': 'b58mh' } })
      expect(out.Keys[0]).to.deep.equal({ Name: 'self', Id: selfId() })
      const names = out.Keys.map((k: any) => k.Name)
      expect(names.indexOf(a)).to.be.below(names.indexOf(b))
      expect(names.slice(1)).to.deep.equal([...names.slice(1)].sort())
      const k36 = await node.invoke('key/ls')
      expect(k36.Keys[0].Id).to.match(/^k51/)
      expect(k36.Keys.map((k: any) => k.Name)).to.deep.equal(names)
    })

    it('renders names, or aligned id/name columns with -l', () => {
      const list = { Keys: [{ Name: 'self', Id: 'k51aaaa' }, { Name: 'longer-name', Id: 'k51b' }] }
      expect(text('key/ls', list)).to.equal('self\nlonger-name\n')
      expect(text('key/ls', list, { l: true })).to.equal('k51aaaa self        \nk51b    longer-name \n')
      expect(text('key/list', list, { l: true })).to.equal('k51aaaa self        \nk51b    longer-name \n')
    })

    it('key list (deprecated) answers like key ls', async () => {
      const [ls, list] = await Promise.all([node.invoke('key/ls'), node.invoke('key/list')])
      expect(list).to.deep.equal(ls)
    })

    it('wraps encoder errors', async () => {
      await rejects(node.invoke('key/ls', { options: { 'ipns-base': 'x1' } }), 'cannot get key encoder: unsupported multibase encoding: x1')
    })
  })

  describe('rename', () => {
    it('renames and keeps the id', async () => {
      const [from, to] = [fresh(), fresh()]
      const gen = await node.invoke('key/gen', { args: [from] })
      const out = await node.invoke('key/rename', { args: [from, to] })
      expect(out).to.deep.equal({ Was: from, Now: to, Id: gen.Id, Overwrite: false })
      expect(Object.keys(out)).to.deep.equal(['Was', 'Now', 'Id', 'Overwrite'])
      expect(text('key/rename', out)).to.equal(`Key ${gen.Id} renamed to ${to}\n`)
      const names = (await node.invoke('key/ls')).Keys.map((k: any) => k.Name)
      expect(names).to.include(to).and.not.include(from)
    })

    it('overwrites only with --force', async () => {
      const [a, b] = [fresh(), fresh()]
      const ga = await node.invoke('key/gen', { args: [a] })
      await node.invoke('key/gen', { args: [b] })
      await rejects(node.invoke('key/rename', { args: [a, b] }), 'key by that name already exists, refusing to overwrite')
      const out = await node.invoke('key/rename', { args: [a, b], query: [['f', ['true']]] })
      expect(out.Overwrite).to.equal(true)
      expect(text('key/rename', out)).to.equal(`Key ${ga.Id} renamed to ${b} with overwriting\n`)
      const ls = await node.invoke('key/ls')
      expect(ls.Keys.find((k: any) => k.Name === b).Id).to.equal(ga.Id)
    })

    it('renaming onto the same name keeps the key', async () => {
      const a = fresh()
      await node.invoke('key/gen', { args: [a] })
      const out = await node.invoke('key/rename', { args: [a, a], options: { force: true } })
      expect(out.Overwrite).to.equal(false)
      expect(await node.container.cradle.keystore.has(a)).to.equal(true)
    })

    it("refuses 'self' and missing keys", async () => {
      await rejects(node.invoke('key/rename', { args: ['self', 'bar'] }), "cannot rename key with name 'self'")
      const a = fresh()
      await node.invoke('key/gen', { args: [a] })
      await rejects(node.invoke('key/rename', { args: [a, 'self'], options: { force: true } }), "cannot overwrite key with name 'self'")
      await rejects(node.invoke('key/rename', { args: ['nope', 'x'] }), 'no key named nope was found')
    })
  })

  describe('rm', () => {
    it('removes several keys and lists them', async () => {
      const [a, b] = [fresh(), fresh()]
      const ga = await node.invoke('key/gen', { args: [a] })
      const gb = await node.invoke('key/gen', { args: [b] })
      const out = await node.invoke('key/rm', { args: [a, b] })
      expect(out).to.deep.equal({ Keys: [{ Name: a, Id: ga.Id }, { Name: b, Id: gb.Id }] })
      expect(text('key/rm', out)).to.equal(`${a}\n${b}\n`)
      expect(await node.container.cradle.keystore.has(a)).to.equal(false)
    })

    it("refuses 'self' and missing keys", async () => {
      await rejects(node.invoke('key/rm', { args: ['self'] }), "cannot remove key with name 'self'")
      await rejects(node.invoke('key/rm', { args: ['nope'] }), 'no key named nope was found')
    })

    it('takes names from stdin lines', async () => {
      const a = fresh()
      await node.invoke('key/gen', { args: [a] })
      const out = await node.invoke('key/rm', { stdin: [a] })
      expect(out.Keys[0].Name).to.equal(a)
    })
  })

  describe('import and export', () => {
    it('imports the OpenSSL ed25519 PEM to its known PeerID and exports it byte for byte', async () => {
      const b58 = await importPem('ed-pem', ED25519_PEM, { 'ipns-base': 'b58mh' })
      expect(b58).to.deep.equal({ Name: 'ed-pem', Id: ED25519_ID })
      const ls = await node.invoke('key/ls')
      expect(ls.Keys.find((k: any) => k.Name === 'ed-pem').Id).to.equal(ED25519_K)
      const file = path.join(tmp, 'ed.pem')
      const out = await node.invoke('key/export', { args: ['ed-pem'], options: { format: PEM, output: file } })
      expect(out).to.deep.equal([])
      expect(await fs.readFile(file, 'utf8')).to.equal(ED25519_PEM)
      expect((await fs.stat(file)).mode & 0o777).to.equal(0o600)
    })

    it('round-trips the RSA and secp256k1 OpenSSL fixtures', async () => {
      for (const [name, pem, id] of [['rsa-pem', RSA_PEM, RSA_ID], ['k1-pem', SECP256K1_PEM, SECP256K1_ID]]) {
        expect((await importPem(name, pem, { 'ipns-base': 'b58mh' })).Id).to.equal(id)
        const file = path.join(tmp, `${name}.pem`)
        await node.invoke('key/export', { args: [name], options: { format: PEM, output: file } })
        expect(await fs.readFile(file, 'utf8')).to.equal(pem)
        // through the libp2p format and back
        const raw = path.join(tmp, `${name}.key`)
        await node.invoke('key/export', { args: [name], options: { output: raw } })
        await node.invoke('key/rm', { args: [name] })
        const again = await node.invoke('key/import', { args: [name], files: filesOf({ content: await fs.readFile(raw) }), options: { 'ipns-base': 'b58mh' } })
        expect(again.Id).to.equal(id)
        await node.invoke('key/export', { args: [name], options: { format: PEM, output: file } })
        expect(await fs.readFile(file, 'utf8')).to.equal(pem)
      }
    })

    it('refuses ECDSA unless --allow-any-key-type', async () => {
      await rejects(importPem('p256', P256_PEM), "key type *crypto.ECDSAPrivateKey is not allowed to be imported, only RSA, Ed25519, or Secp256k1; use flag --allow-any-key-type if you are sure of what you're doing")
      const out = await importPem('p256', P256_PEM, { 'allow-any-key-type': true, 'ipns-base': 'b58mh' })
      expect(out.Id).to.equal(P256_ID)
      const file = path.join(tmp, 'p256.pem')
      await node.invoke('key/export', { args: ['p256'], options: { format: PEM, output: file } })
      expect(await fs.readFile(file, 'utf8')).to.equal(P256_PEM)
    })

    it('exports the libp2p protobuf of the stored key, to <name>.key by default', async () => {
      const name = fresh()
      await node.invoke('key/gen', { args: [name] })
      const key = await node.container.cradle.keystore.get(name)
      const cwd = process.cwd()
      process.chdir(tmp)
      try {
        await node.invoke('key/export', { args: [name] })
        await node.invoke('key/export', { args: [name], options: { f: PEM } })
      } finally { process.chdir(cwd) }
      expect(new Uint8Array(await fs.readFile(path.join(tmp, `${name}.key`)))).to.deep.equal(privateKeyToProtobuf(key))
      expect(await fs.readFile(path.join(tmp, `${name}.pem`), 'utf8')).to.match(/^-----BEGIN PRIVATE KEY-----\n/)
      expect((await fs.stat(path.join(tmp, `${name}.key`))).mode & 0o777).to.equal(0o600)
    })

    it('imports a libp2p protobuf key made elsewhere', async () => {
      const key = await generateKeyPair('Ed25519')
      const out = await node.invoke('key/import', { args: ['ext'], files: filesOf({ content: privateKeyToProtobuf(key) }), options: { 'ipns-base': 'b58mh' } })
      expect(out.Id).to.equal(key.publicKey.toString())
    })

    it("reports Kubo's import errors", async () => {
      await rejects(importPem('self', ED25519_PEM), "cannot import key with name 'self'")
      await rejects(importPem('ed-pem', ED25519_PEM), "key with name 'ed-pem' already exists")
      await rejects(node.invoke('key/import', { args: ['x'], files: filesOf({ content: ED25519_PEM }) }), 'unexpected PEM block for format=libp2p-protobuf-cleartext: try again with format=pem-pkcs8-cleartext')
      await rejects(importPem('x', 'hello'), 'PEM block not found in input data:\nhello')
      await rejects(importPem('x', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n'), 'expected PRIVATE KEY type in PEM block but got: PUBLIC KEY')
      await rejects(importPem('x', ED25519_PEM, { format: 'der' }), 'unrecognized import format: der')
      await rejects(node.invoke('key/import', { args: ['x'], files: filesOf({ content: 'junk' }) }), /^unable to unmarshall format=libp2p-protobuf-cleartext: /)
      await rejects(node.invoke('key/import', { args: ['x'] }), "file argument 'key' is required")
    })

    it("reports Kubo's export errors", async () => {
      await rejects(node.invoke('key/export', { args: ['self'] }), "cannot export key with name 'self'")
      await rejects(node.invoke('key/export', { args: ['nope'] }), "key with name 'nope' doesn't exist")
      await rejects(node.invoke('key/export', { args: ['ed-pem'], options: { format: 'der', output: path.join(tmp, 'x') } }), 'unrecognized export format: der')
    })
  })

  describe('sign and verify', () => {
    const data = (s: string): ReturnType<typeof filesOf> => filesOf({ content: s })

    it('signs with self (prefixed message) and verifies by name, peer ID and IPNS name', async () => {
      const [out] = await node.invoke('key/sign', { files: data('hello'), options: { 'ipns-base': 'b58mh' } })
      expect(Object.keys(out)).to.deep.equal(['Key', 'Signature'])
      expect(out.Key).to.deep.equal({ Name: 'self', Id: selfId() })
      expect(out.Signature).to.match(/^u/)
      const sig = base64url.decode(out.Signature)
      const pub = node.container.cradle.keystore.self().publicKey
      expect(await pub.verify(new TextEncoder().encode('libp2p-key signed message:hello'), sig)).to.equal(true)
      expect(text('key/sign', out)).to.equal(`&{{self ${selfId()}} ${out.Signature}}`)

      const [v1] = await node.invoke('key/verify', { files: data('hello'), options: { signature: out.Signature } })
      expect(Object.keys(v1)).to.deep.equal(['Key', 'SignatureValid'])
      expect(v1.Key.Name).to.equal('self')
      expect(v1.SignatureValid).to.equal(true)
      expect(text('key/verify', v1)).to.equal(`&{{self ${v1.Key.Id}} %!s(bool=true)}`)

      const [v2] = await node.invoke('key/verify', { files: data('hello'), options: { key: selfId(), signature: out.Signature, 'ipns-base': 'b58mh' } })
      expect(v2).to.deep.equal({ Key: { Name: '', Id: selfId() }, SignatureValid: true })
      const [v3] = await node.invoke('key/verify', { files: data('hello'), options: { key: `/ipns/${v1.Key.Id as string}`, signature: out.Signature } })
      expect(v3.SignatureValid).to.equal(true)

      const [bad] = await node.invoke('key/verify', { files: data('hellO'), options: { signature: out.Signature } })
      expect(bad.SignatureValid).to.equal(false)
    })

    it('signs with a named key and verifies with its name', async () => {
      const name = fresh()
      const gen = await node.invoke('key/gen', { args: [name], options: { type: 'secp256k1' } })
      const [s] = await node.invoke('key/sign', { files: data('x'), options: { key: name } })
      expect(s.Key).to.deep.equal({ Name: name, Id: gen.Id })
      const [v] = await node.invoke('key/verify', { files: data('x'), options: { key: name, signature: s.Signature } })
      expect(v).to.deep.equal({ Key: { Name: name, Id: gen.Id }, SignatureValid: true })
      const peer = peerIdFromString((await node.invoke('key/ls', { options: { 'ipns-base': 'b58mh' } })).Keys.find((k: any) => k.Name === name).Id)
      expect(peer.publicKey?.type).to.equal('secp256k1')
    })

    it('reports an RSA mismatch as an error, as go-libp2p does', async () => {
      const [s] = await node.invoke('key/sign', { files: data('x'), options: { key: 'rsa-pem' } })
      const [ok] = await node.invoke('key/verify', { files: data('x'), options: { key: 'rsa-pem', signature: s.Signature } })
      expect(ok.SignatureValid).to.equal(true)
      await rejects(node.invoke('key/verify', { files: data('y'), options: { key: 'rsa-pem', signature: s.Signature } }), 'crypto/rsa: verification error')
    })

    it('signs with an imported ECDSA key (DER signatures)', async () => {
      const [s] = await node.invoke('key/sign', { files: data('x'), options: { key: 'p256', 'ipns-base': 'b58mh' } })
      expect(s.Key.Id).to.equal(P256_ID)
      const sig = base64url.decode(s.Signature)
      expect(sig[0]).to.equal(0x30)
      const [v] = await node.invoke('key/verify', { files: data('x'), options: { key: 'p256', signature: s.Signature } })
      expect(v.SignatureValid).to.equal(true)
    })

    it("reports Kubo's errors", async () => {
      await rejects(node.invoke('key/verify', { files: data('x') }), 'cannot decode multibase for zero length string')
      await rejects(node.invoke('key/verify', { files: data('x'), options: { signature: '!!' } }), 'selected encoding not supported')
      await rejects(node.invoke('key/verify', { files: data('x'), options: { key: 'nope', signature: 'uAA' } }), `'"nope"' is not a known key, an IPNS Name, or a valid PeerID`)
      await rejects(node.invoke('key/verify', { files: data('x'), options: { key: RSA_ID, signature: 'uAA' } }), 'public key is not embedded in peer ID')
      await rejects(node.invoke('key/sign', { files: data('x'), options: { key: 'nope' } }), 'no key by the given name was found')
      await rejects(node.invoke('key/sign', { files: data('x'), options: { 'ipns-base': 'zz' } }), 'unsupported multibase encoding: zz')
    })
  })

  describe('rotate', () => {
    it('replaces the identity and keeps the old key under --oldkey', async () => {
      const oldId = selfId()
      const oldKey = node.container.cradle.keystore.self()
      const out = await node.invoke('key/rotate', { options: { oldkey: 'backup' } })
      expect(out.map((m: any) => text('key/rotate', m)).join('')).to.equal('generating ED25519 keypair...done\n')
      const newId = selfId()
      expect(newId).to.not.equal(oldId)
      expect(newId).to.match(/^12D3KooW/)
      const ident = node.container.cradle.config.getKey('Identity') as Record<string, string>
      expect(Object.keys(ident)).to.deep.equal(['PeerID', 'PrivKey'])
      expect(peerIdFromPrivateKey(node.container.cradle.keystore.self()).toString()).to.equal(newId)
      expect(ident.PrivKey).to.match(/^CAES/)
      const ls = await node.invoke('key/ls', { options: { 'ipns-base': 'b58mh', l: true } })
      expect(ls.Keys[0]).to.deep.equal({ Name: 'self', Id: newId })
      expect(ls.Keys.find((k: any) => k.Name === 'backup').Id).to.equal(oldId)
      expect((await node.container.cradle.keystore.get('backup')).equals(oldKey)).to.equal(true)
    })

    it('rotates to secp256k1', async () => {
      const out = await node.invoke('key/rotate', { options: { o: 'backup2', t: 'secp256k1' } })
      expect(out.map((m: any) => m.Message).join('')).to.equal('generating secp256k1 keypair...done\n')
      expect(selfId()).to.match(/^16Uiu2HA/)
    })

    it("reports Kubo's errors", async () => {
      await rejects(node.invoke('key/rotate', {}), 'keystore name for backing up old key must be provided')
      await rejects(node.invoke('key/rotate', { options: { oldkey: 'self' } }), "keystore name for back up cannot be named 'self'")
      await rejects(node.invoke('key/rotate', { options: { oldkey: 'b3', size: 2048 } }), 'creating identity (invalid key size 2048: ed25519 keys are always 256 bits)')
      await rejects(node.invoke('key/rotate', { options: { oldkey: 'b3', type: 'dsa' } }), 'creating identity (unrecognized key type: dsa)')
      const before = selfId()
      await rejects(node.invoke('key/rotate', { options: { oldkey: 'backup' } }), 'saving old key in keystore (key by that name already exists, refusing to overwrite)')
      expect(selfId()).to.equal(before)
    })
  })

  describe('text helpers', () => {
    it('tabwriter pads every tab-terminated cell to its column width plus padding', () => {
      expect(tabwrite('a\tbb\t\nccc\td\t\n', { minwidth: 1, padding: 1 })).to.equal('a   bb \nccc d  \n')
      expect(tabwrite('x\n', { minwidth: 1, padding: 1 })).to.equal('x\n')
    })

    it('escapes unprintable names like Go strconv.Quote', () => {
      expect(escNonPrint('plain name')).to.equal('plain name')
      expect(escNonPrint('a\nb"c')).to.equal('a\\nb"c')
      expect(escNonPrint('back\\slash')).to.equal('back\\\\slash')
      expect(escNonPrint('\x01\u200b')).to.equal('\\x01\\u200b')
    })
  })
})
