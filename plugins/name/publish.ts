// ipfs name publish: sign an IPNS record for a key and publish it (Kubo core/commands/name/publish.go).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { parsePath } from '../../core/resolver/index.js'
import { parseGoDuration } from '../../core/util/duration.js'
import { ipnsBaseOption } from '../key/common.js'
import { ERR_ALLOW_OFFLINE, ERR_BOTH_FLAGS, ERR_NO_DELEGATED, durationMs, escNonPrint, keyLookup } from './common.js'
import type { IpnsEntryOutput } from './output.js'

export const namePublish = defineCommand({
  path: ['name', 'publish'],
  description: 'Publish IPNS names.',
  help: "IPNS is a PKI namespace, where names are the hashes of public keys, and\nthe private key enables publishing new (signed) values. In both publish\nand resolve, the default name used is the node's own PeerID,\nwhich is the hash of its public key.",
  args: [{ name: 'ipfs-path', kind: 'string', required: true, stdin: true, description: 'ipfs path of the object to be published.' }],
  options: {
    key: { type: 'string', aliases: ['k'], default: 'self', description: "Name of the key to be used or a valid PeerID, as listed by 'ipfs key list -l'." },
    resolve: { type: 'bool', default: true, description: 'Check if the given path can be resolved before publishing.' },
    lifetime: { type: 'string', aliases: ['t'], default: '48h0m0s', description: 'Time duration the signed record will be valid for. Accepts durations such as "300s", "1.5h" or "7d2h45m"' },
    ttl: { type: 'string', default: '5m0s', description: 'Time duration hint, akin to --lifetime, indicating how long to cache this record before checking for updates.' },
    quieter: { type: 'bool', aliases: ['Q'], description: 'Write only final IPNS Name encoded as CIDv1 (for use in /ipns content paths).' },
    v1compat: { type: 'bool', default: true, description: 'Produce a backward-compatible IPNS Record by including fields for both V1 and V2 signatures.' },
    'allow-offline': { type: 'bool', description: 'Allow publishing when offline - publishes to local datastore without requiring network connectivity.' },
    'allow-delegated': { type: 'bool', description: 'Allow publishing without DHT connectivity - uses local datastore and HTTP delegated publishers only.' },
    sequence: { type: 'uint64', description: 'Set a custom sequence number for the IPNS record (must be higher than current).' },
    'ipns-base': ipnsBaseOption
  },
  output: 'single',
  async run ({ args, options, deps: { keystore, nameSystem, node, resolver }, signal }): Promise<IpnsEntryOutput> {
    const allowOffline = options.allowOffline === true
    const allowDelegated = options.allowDelegated === true
    if (allowOffline && allowDelegated) throw new RpcError(ERR_BOTH_FLAGS)
    const lifetimeMs = durationMs(options.lifetime, 'error parsing lifetime option: ')
    const ttlNs = parseTtl(options.ttl)
    const p = parsePath(args[0])
    if (options.resolve) await resolver.resolveNode(p, { signal })
    const online = node.online && options.offline !== true
    if (allowDelegated) {
      if (nameSystem.delegatedPublishers().length === 0) throw new RpcError(ERR_NO_DELEGATED)
    } else if (!online && !allowOffline) {
      throw new RpcError(ERR_ALLOW_OFFLINE)
    }
    const key = await keyLookup(keystore, options.key)
    const { name } = await nameSystem.publish(key, p.text, {
      lifetimeMs,
      ttlNs,
      v1Compatible: options.v1compat,
      sequence: options.sequence != null ? BigInt(options.sequence) : undefined,
      network: online && !allowDelegated,
      delegated: allowDelegated || online,
      signal
    })
    // Kubo declares --ipns-base here but always answers the base36 name
    return { Name: name, Value: p.text }
  },
  text: (out, { options }) => options.quieter === true ? `${escNonPrint(out.Name)}\n` : `Published to ${escNonPrint(out.Name)}: ${escNonPrint(out.Value)}\n`
})

function parseTtl (text: string): bigint {
  try {
    return parseGoDuration(text)
  } catch (err) {
    throw new RpcError((err as Error).message)
  }
}
