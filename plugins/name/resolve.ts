// ipfs name resolve: the value of an IPNS name or DNSLink domain (Kubo core/commands/name/ipns.go).
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { defineCommand } from '../../registry/define.js'
import type { Invocation } from '../../registry/types.js'
import { RpcError } from '../../core/errors.js'
import { DEFAULT_DEPTH, ERR_RESOLVE_FAILED, ResolveError } from '../../core/namesys/index.js'
import { newPath } from '../../core/resolver/index.js'
import { dhtTimeout } from './common.js'
import type { ResolvedPathOutput } from './output.js'

export const nameResolve = defineCommand({
  path: ['name', 'resolve'],
  description: 'Resolve IPNS names.',
  help: "IPNS is a PKI namespace, where names are the hashes of public keys, and\nthe private key enables publishing new (signed) values. In both publish\nand resolve, the default name used is the node's own PeerID,\nwhich is the hash of its public key.",
  args: [{ name: 'name', kind: 'string', description: "The IPNS name to resolve. Defaults to your node's peerID." }],
  options: {
    recursive: { type: 'bool', aliases: ['r'], default: true, description: 'Resolve until the result is not an IPNS name.' },
    nocache: { type: 'bool', aliases: ['n'], description: 'Do not use cached entries.' },
    'dht-record-count': { type: 'uint', aliases: ['dhtrc'], default: 16, description: 'Number of records to request for DHT resolution.' },
    'dht-timeout': { type: 'string', aliases: ['dhtt'], default: '1m0s', description: 'Max time to collect values during DHT resolution e.g. "30s". Pass 0 for no timeout.' },
    stream: { type: 'bool', aliases: ['s'], description: 'Stream entries as they are found.' }
  },
  output: ({ stream }) => stream === true ? 'ndjson' : 'single',
  run: (call): Promise<ResolvedPathOutput> | AsyncIterable<ResolvedPathOutput> => call.options.stream === true ? streamName(call) : resolveName(call),
  text: (out) => `${out.Path}\n`
})

/** Kubo's Name().Search: a name no record is found for ends the stream with no entry and no error */
async function * streamName (call: Invocation<ResolveOpts>): AsyncGenerator<ResolvedPathOutput> {
  let out: ResolvedPathOutput
  try {
    out = await resolveName(call)
  } catch (err) {
    if (err instanceof ResolveError && err.message === ERR_RESOLVE_FAILED && call.signal?.aborted !== true) return
    throw err
  }
  yield out
}

type ResolveOpts = { recursive: boolean, nocache?: boolean, dhtRecordCount: number, dhtTimeout: string, stream?: boolean }

async function resolveName ({ args, options, deps: { keystore, nameSystem }, signal }: Invocation<ResolveOpts>): Promise<ResolvedPathOutput> {
  let name = args[0] ?? peerIdFromPrivateKey(keystore.self()).toString()
  const timeout = dhtTimeout(options.dhtTimeout)
  if (!name.startsWith('/ipns/')) name = '/ipns/' + name
  newPath(name)
  const res = await nameSystem.resolve(name, {
    depth: options.recursive ? DEFAULT_DEPTH : 1,
    nocache: options.nocache === true,
    dhtRecordCount: options.dhtRecordCount,
    dhtTimeoutMs: timeout,
    offline: options.offline === true,
    signal
  })
  return { Path: canonicalPath(res.path) }
}

/** the paths names resolved to, checked and canonical (a cached name resolves to the same string each time) */
const canonical = new Map<string, string>()

function canonicalPath (path: string): string {
  let text = canonical.get(path)
  if (text != null) return text
  try {
    text = newPath(path).text
  } catch (err) {
    throw new RpcError((err as Error).message)
  }
  if (canonical.size >= 1024) canonical.clear()
  canonical.set(path, text)
  return text
}
