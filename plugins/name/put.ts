// ipfs name put: store a pre-signed IPNS record and put it to the routing system (Kubo name.go IpnsPutCmd).
import { unmarshalIPNSRecord } from 'ipns'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { ipnsNameString, parseIpnsName } from '../../core/namesys/index.js'
import { unmarshalRecordGo, validateRecordWithName, MAX_RECORD_SIZE } from '../../core/namesys/record.js'
import { readFileArg } from '../key/common.js'
import { ERR_BOTH_FLAGS, ERR_NO_DELEGATED, ERR_PUT_ALLOW_OFFLINE, escNonPrint } from './common.js'
import type { IpnsEntryOutput } from './output.js'

export const namePut = defineCommand({
  path: ['name', 'put'],
  description: 'Store a pre-signed IPNS record in the routing system.',
  help: 'Stores a pre-signed IPNS record in the routing system.\n\nThis command accepts a raw IPNS record (protobuf) as defined in the IPNS spec:\nhttps://specs.ipfs.tech/ipns/ipns-record/',
  status: 'experimental',
  args: [
    { name: 'name', kind: 'string', required: true, description: 'The IPNS name to store the record for (e.g., k51... or /ipns/k51...).' },
    { name: 'record', kind: 'file', required: true, stdin: true, description: 'Path to file containing the signed IPNS record.' }
  ],
  options: {
    force: { type: 'bool', aliases: ['f'], description: 'Skip validation (signature, sequence, size).' },
    'allow-offline': { type: 'bool', description: 'Store locally without broadcasting to the network.' },
    'allow-delegated': { type: 'bool', description: 'Publish via HTTP delegated publishers only (no DHT).' },
    quiet: { type: 'bool', aliases: ['q'], description: 'Write no output.' }
  },
  output: 'single',
  async run ({ args, files, options, deps: { nameSystem, node }, signal }): Promise<IpnsEntryOutput> {
    const allowOffline = options.allowOffline === true
    const allowDelegated = options.allowDelegated === true
    if (allowOffline && allowDelegated) throw new RpcError(ERR_BOTH_FLAGS)
    if (allowDelegated && nameSystem.delegatedPublishers().length === 0) throw new RpcError(ERR_NO_DELEGATED)
    const namePart = args[0].replace(/^\/ipns\//, '')
    const mh = parseIpnsName(namePart)
    if (mh == null) throw new RpcError(`invalid IPNS name: ${invalidNameReason(namePart)}`)
    const data = (await readFileArg(files)).subarray(0, 1 << 20)
    if (data.length === 0) throw new RpcError('record is empty')
    if (options.force !== true) {
      if (data.length > MAX_RECORD_SIZE) throw new RpcError(`record exceeds maximum size of ${MAX_RECORD_SIZE} bytes, use --force to skip size check`)
      let rec
      try { rec = unmarshalRecordGo(data) } catch (err) { throw new RpcError(`invalid IPNS record: ${(err as Error).message}`) }
      try { await validateRecordWithName(rec, mh) } catch (err) { throw new RpcError(`record validation failed: ${(err as Error).message}`) }
      const existing = await nameSystem.getRecord(mh, { signal, offline: options.offline === true }).catch(() => undefined)
      if (existing != null && Buffer.compare(existing, data) !== 0) {
        try {
          const oldSeq = unmarshalIPNSRecord(existing).sequence
          const newSeq = BigInt.asUintN(64, BigInt(rec.data.Sequence as number | bigint))
          if (oldSeq >= newSeq) throw new RpcError(`existing IPNS record has sequence ${oldSeq} >= new record sequence ${newSeq}, use 'ipfs name put --force' to skip this check`)
        } catch (err) {
          if (err instanceof RpcError) throw err
        }
      }
    }
    const online = node.online && options.offline !== true
    if (!online && !allowOffline && !allowDelegated) throw new RpcError(ERR_PUT_ALLOW_OFFLINE)
    await nameSystem.putRecord(mh, data, { network: online && !allowDelegated, delegated: allowDelegated, signal })
    let value = ''
    try { value = unmarshalIPNSRecord(data).value } catch {}
    return { Name: ipnsNameString(mh), Value: value }
  },
  text: (out, { options }) => options.quiet === true ? '' : `${escNonPrint(out.Name)}\n`
})

/** A short reason for a name that is not an IPNS key (boxo's texts vary; the prefix is Kubo's). */
function invalidNameReason (name: string): string {
  return `cannot parse IPNS name "${name}"`
}
