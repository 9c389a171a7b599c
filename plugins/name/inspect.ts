// ipfs name inspect: the fields of an IPNS record, optionally verified against a name (Kubo name.go IpnsInspectCmd).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { ipnsNameString, parseIpnsName } from '../../core/namesys/index.js'
import { recordTtlNs, recordValidity, unmarshalRecordGo, validateRecordWithName } from '../../core/namesys/record.js'
import { formatGoDuration } from '../../core/util/duration.js'
import { tabwrite } from '../../core/util/tabwriter.js'
import { readFileArg } from '../key/common.js'
import type { IpnsInspectOutput } from './output.js'

export const nameInspect = defineCommand({
  path: ['name', 'inspect'],
  description: 'Inspects an IPNS Record',
  help: 'Prints values inside of IPNS Record protobuf and its DAG-CBOR Data field.\nPassing --verify will verify signature against provided public key.',
  status: 'experimental',
  args: [{ name: 'record', kind: 'file', required: true, stdin: true, description: 'The IPNS record payload to be verified.' }],
  options: {
    verify: { type: 'string', description: 'CID of the public IPNS key to validate against.' },
    dump: { type: 'bool', default: true, description: 'Include a full hex dump of the raw Protobuf record.' }
  },
  output: 'single',
  async run ({ files, options }): Promise<IpnsInspectOutput> {
    const raw = await readFileArg(files)
    let rec
    try { rec = unmarshalRecordGo(raw) } catch (err) { throw new RpcError((err as Error).message) }
    const data = rec.data
    const int = (k: string): number | null => typeof data[k] === 'number' || typeof data[k] === 'bigint' ? Number(data[k]) : null
    const value = data.Value instanceof Uint8Array ? Buffer.from(data.Value).toString('utf8') : ''
    let validity: string | null = null
    // the record's RFC 3339 text, when it parses (Go re-encodes the parsed time the same way)
    try { recordValidity(rec); validity = Buffer.from(data.Validity as Uint8Array).toString('utf8') } catch {}
    const ttl = recordTtlNs(rec)
    const out: IpnsInspectOutput = {
      Entry: { Value: value, ValidityType: int('ValidityType'), Validity: validity, Sequence: int('Sequence'), TTL: ttl != null ? Number(ttl) : null },
      PbSize: raw.length,
      SignatureType: (rec.pb.signatureV1?.length ?? 0) > 0 || (rec.pb.value?.length ?? 0) > 0 ? 'V1+V2' : rec.pb.data != null ? 'V2' : 'Unknown',
      HexDump: options.dump ? hexDump(raw) : '',
      Validation: null
    }
    if (options.verify != null) {
      const mh = parseIpnsName(options.verify.replace(/^\/ipns\//, ''))
      if (mh == null) throw new RpcError(`invalid IPNS name: ${options.verify}`)
      out.Validation = { Valid: false, Reason: '', Name: ipnsNameString(mh) }
      try {
        await validateRecordWithName(rec, mh)
        out.Validation.Valid = true
      } catch (err) {
        out.Validation.Reason = (err as Error).message
      }
    }
    return out
  },
  text: (out) => {
    const rows: string[] = []
    if (out.Entry.Value !== '') rows.push(`Value:\t${JSON.stringify(out.Entry.Value)}\n`)
    if (out.Entry.ValidityType != null) rows.push(`Validity Type:\t${out.Entry.ValidityType}\n`)
    if (out.Entry.Validity != null) rows.push(`Validity:\t${JSON.stringify(out.Entry.Validity)}\n`)
    if (out.Entry.Sequence != null) rows.push(`Sequence:\t${out.Entry.Sequence}\n`)
    if (out.Entry.TTL != null) rows.push(`TTL:\t${formatGoDuration(BigInt(out.Entry.TTL))}\n`)
    rows.push(`Protobuf Size:\t${out.PbSize}\n`, `Signature Type:\t${out.SignatureType}\n`)
    const tw = { minwidth: 0, tabwidth: 0, padding: 1, padchar: ' ', flags: 0 }
    let text = tabwrite(rows.join(''), tw)
    if (out.Validation == null) {
      text += "\nThis record was not verified. Pass '--verify k51...' to verify.\n"
    } else {
      text += '\nValidation results:\n'
      const v = [`\tValid:\t${String(out.Validation.Valid)}\n`]
      if (out.Validation.Reason !== '') v.push(`\tReason:\t${out.Validation.Reason}\n`)
      v.push(`\tName:\t${out.Validation.Name}\n`)
      text += tabwrite(v.join(''), tw)
    }
    if (out.HexDump !== '') text += `\nHex Dump:\n${out.HexDump}`
    return text
  }
})

/** Go's encoding/hex.Dump. */
export function hexDump (buf: Uint8Array): string {
  let out = ''
  for (let off = 0; off < buf.length; off += 16) {
    const line = buf.subarray(off, off + 16)
    let hex = ''
    for (let i = 0; i < 16; i++) {
      hex += i < line.length ? line[i].toString(16).padStart(2, '0') + ' ' : '   '
      if (i === 7) hex += ' '
    }
    const ascii = [...line].map(b => b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : '.').join('')
    out += `${off.toString(16).padStart(8, '0')}  ${hex} |${ascii}|\n`
  }
  return out
}
