// ipfs key verify: check a signature made by key sign, against a key name, IPNS name or peer ID.
import { CID } from 'multiformats/cid'
import { peerIdFromCID, peerIdFromString } from '@libp2p/peer-id'
import type { PublicKey } from '@libp2p/interface'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { multibaseOf } from '../../core/multibase.js'
import { SELF, formatId, ipnsBaseOption, keyEncoder, readFileArg, tryGet } from './common.js'
import { keyIdOf, verifyMessage } from './keys.js'
import { goBool } from './text.js'
import type { KeyVerifyOutput } from './output.js'

/** go-multibase Decode. */
function decodeMultibase (text: string): Uint8Array {
  if (text === '') throw new RpcError('cannot decode multibase for zero length string')
  const base = multibaseOf(text)
  if (base == null) throw new RpcError('selected encoding not supported')
  try { return base.decoder.decode(text) } catch (err) { throw new RpcError((err as Error).message) }
}

/** boxo ipns.NameFromString + ExtractPublicKey: the public key inlined in an IPNS name or peer ID. */
function publicKeyOfName (text: string): PublicKey {
  const s = text.startsWith('/ipns/') ? text.slice('/ipns/'.length) : text
  let peer
  try {
    if (s.startsWith('Qm') || s.startsWith('1')) peer = peerIdFromString(s)
    else {
      const base = multibaseOf(s)
      if (base == null) throw new Error('unknown multibase')
      const cid = CID.parse(s, base.decoder)
      if (cid.code !== 0x72) throw new Error('not a libp2p-key CID')
      peer = peerIdFromCID(cid)
    }
  } catch {
    throw new RpcError(`'${JSON.stringify(text)}' is not a known key, an IPNS Name, or a valid PeerID`)
  }
  if (peer.publicKey == null) throw new RpcError('public key is not embedded in peer ID')
  return peer.publicKey
}

export const keyVerify = defineCommand({
  path: ['key', 'verify'],
  description: 'Verify that the given data and signature match.',
  help: 'Verify if the given data and signatures match. To avoid the signature reuse,\nthe signed payload is always prefixed with "libp2p-key signed message:".',
  status: 'experimental',
  args: [{ name: 'data', kind: 'file', required: true, stdin: true, description: 'The data to verify against the given signature.' }],
  options: {
    key: { type: 'string', aliases: ['k'], description: 'The name of the key to use for verifying.' },
    signature: { type: 'string', aliases: ['s'], description: 'Multibase-encoded signature to verify.' },
    'ipns-base': ipnsBaseOption
  },
  output: 'ndjson',
  async * run ({ options, files, deps: { keystore } }): AsyncGenerator<KeyVerifyOutput> {
    const enc = keyEncoder(options.ipnsBase)
    const keyOrName = options.key ?? ''
    const signature = decodeMultibase(options.signature ?? '')
    const data = await readFileArg(files)
    let name: string
    let pub: PublicKey
    const stored = keyOrName === '' || keyOrName === SELF ? undefined : await tryGet(keystore, keyOrName)
    if (keyOrName === '' || keyOrName === SELF) {
      name = SELF
      pub = keystore.self().publicKey
    } else if (stored != null) {
      name = keyOrName
      pub = stored.publicKey
    } else {
      name = ''
      pub = publicKeyOfName(keyOrName)
    }
    const valid = await verifyMessage(pub, signature, data)
    yield { Key: { Name: name, Id: enc(keyIdOf(pub)) }, SignatureValid: valid }
  },
  textGeneric: true,
  text: (out) => `&{{${out.Key.Name} ${out.Key.Id}} ${goBool(out.SignatureValid)}}`
})
