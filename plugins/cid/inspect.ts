// ipfs cid inspect (Kubo core/commands/cid.go inspectCmd).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { BASE32, BASE36, BASE58BTC, decodeMultibase, multibaseName } from '../../core/go/multibase.js'
import { cidStringOfBase, cidV1, DAG_PB, decodeCid, decodeMultihash, extractEncoding, hashName, LIBP2P_KEY, SHA2_256, type GoCid } from '../../core/go/cid.js'
import { codecName } from '../../core/go/multicodec.js'
import type { CidInspectOutput } from './output.js'

/** The libp2p-key CIDv1 (base36) of a base58 peer ID (`Qm…`, `1…`), as go-libp2p peer.Decode + ToCid. */
function peerIdCid (text: string): string | undefined {
  if (!text.startsWith('Qm') && !text.startsWith('1')) return undefined
  try {
    const hash = decodeMultibase('z' + text).data
    decodeMultihash(hash)
    return cidStringOfBase(cidV1(LIBP2P_KEY, hash), BASE36)
  } catch {
    return undefined
  }
}

function failed (cid: string, errorMsg: string): CidInspectOutput {
  return {
    cid,
    version: 0,
    multibase: { prefix: '', name: '' },
    multicodec: { code: 0, name: '' },
    multihash: { code: 0, name: '', length: 0, digest: '' },
    cidV1: '',
    errorMsg
  }
}

export function inspectCid (cidStr: string): CidInspectOutput {
  let c: GoCid
  try {
    c = decodeCid(cidStr)
  } catch (err) {
    let msg = `invalid CID: ${(err as Error).message}`
    const peerCid = peerIdCid(cidStr)
    if (peerCid !== undefined) msg += `\nNote: the value is a PeerID; inspect its CID representation instead:\n  ${peerCid}`
    return failed(cidStr, msg)
  }
  let multibase: CidInspectOutput['multibase']
  if (c.version === 0) {
    multibase = { prefix: 'z', name: 'base58btc' }
  } else {
    const code = extractEncoding(cidStr)
    multibase = { prefix: code < 0 ? '\ufffd' : String.fromCodePoint(code), name: multibaseName(code) ?? '' }
  }
  let name = codecName(c.codec)
  if (name === '' || name.startsWith('Code(')) name = 'unknown'
  const dm = decodeMultihash(c.hash)
  const canV0 = c.codec === DAG_PB && dm.code === SHA2_256 && dm.length === 32
  return {
    cid: cidStr,
    version: c.version,
    multibase,
    multicodec: { code: Number(c.codec), name },
    multihash: { code: Number(dm.code), name: hashName(dm.code) ?? 'unknown', length: dm.length, digest: Buffer.from(dm.digest).toString('hex') },
    ...(canV0 ? { cidV0: cidStringOfBase({ ...c, version: 0 }, BASE58BTC) } : {}),
    // base36 for libp2p-key, base32 for everything else
    cidV1: cidStringOfBase(cidV1(c.codec, c.hash), c.codec === LIBP2P_KEY ? BASE36 : BASE32)
  }
}

export function inspectText (res: CidInspectOutput): string {
  if (res.errorMsg !== undefined && res.errorMsg !== '') throw new RpcError(res.errorMsg)
  const implicit = res.version === 0 ? ', implicit' : ''
  const hex = (n: number): string => '0x' + n.toString(16)
  const lines = [
    `CID:        ${res.cid}`,
    `Version:    ${res.version}`,
    res.version === 0
      ? `Multibase:  ${res.multibase.name} (implicit)`
      : `Multibase:  ${res.multibase.name} (${res.multibase.prefix})`,
    `Multicodec: ${res.multicodec.name} (${hex(res.multicodec.code)}${implicit})`,
    `Multihash:  ${res.multihash.name} (${hex(res.multihash.code)}${implicit})`,
    `  Length:   ${res.multihash.length} bytes`,
    `  Digest:   ${res.multihash.digest}`
  ]
  if (res.cidV0 !== undefined && res.cidV0 !== '') {
    lines.push(`CIDv0:      ${res.cidV0}`)
  } else if (res.multicodec.code !== Number(DAG_PB)) {
    lines.push(`CIDv0:      not possible, requires dag-pb (0x70), got ${res.multicodec.name} (${hex(res.multicodec.code)})`)
  } else if (res.multihash.code !== Number(SHA2_256)) {
    lines.push(`CIDv0:      not possible, requires sha2-256 (0x12), got ${res.multihash.name} (${hex(res.multihash.code)})`)
  } else if (res.multihash.length !== 32) {
    lines.push(`CIDv0:      not possible, requires 32-byte digest, got ${res.multihash.length}`)
  }
  lines.push(`CIDv1:      ${res.cidV1}`)
  return lines.join('\n') + '\n'
}

export const cidInspect = defineCommand({
  path: ['cid', 'inspect'],
  description: 'Inspect and display detailed information about a CID.',
  help: `'ipfs cid inspect' breaks down a CID and displays its components:
- CID version (0 or 1)
- Multibase encoding (explicit for CIDv1, implicit for CIDv0)
- Multicodec (DAG type)
- Multihash (hash algorithm, length, and digest)
- Equivalent CIDv0 and CIDv1 representations

For CIDv0, multibase, multicodec, and multihash are marked as
implicit because they are not explicitly encoded in the binary.

If a PeerID string is provided instead of a CID, a helpful error
with the equivalent CID representation is returned.

Use --enc=json for machine-readable output same as the HTTP RPC API.`,
  noRepo: true,
  args: [{ name: 'cid', kind: 'string', required: true, stdin: true, description: 'CID to inspect.' }],
  output: 'single',
  run: ({ args }): CidInspectOutput => inspectCid(args[0]),
  text: inspectText
})
