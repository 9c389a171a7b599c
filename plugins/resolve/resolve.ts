// ipfs resolve: a name or path to its /ipfs/ form (Kubo core/commands/resolve.go).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { parsePath } from '../../core/resolver/index.js'
import { encoderFromPath } from '../dag/resolve.js'
import { dhtTimeout } from '../name/common.js'

export interface ResolvedPathOutput { Path: string }

export const resolve = defineCommand({
  path: ['resolve'],
  description: 'Resolve the value of names to IPFS.',
  help: "There are a number of mutable name protocols that can link among\nthemselves and into IPNS. This command accepts any of these\nidentifiers and resolves them to the referenced item.",
  args: [{ name: 'name', kind: 'string', required: true, stdin: true, description: 'The name to resolve.' }],
  options: {
    recursive: { type: 'bool', aliases: ['r'], default: true, description: 'Resolve until the result is an IPFS name.' },
    'dht-record-count': { type: 'int', aliases: ['dhtrc'], description: 'Number of records to request for DHT resolution.' },
    'dht-timeout': { type: 'string', aliases: ['dhtt'], description: 'Max time to collect values during DHT resolution e.g. "30s". Pass 0 for no timeout.' }
  },
  output: 'single',
  async run ({ args, options, deps: { nameSystem, resolver, cidEncoder }, signal }): Promise<ResolvedPathOutput> {
    const name = args[0]
    if (name.startsWith('/ipns/') && !options.recursive) {
      const res = await nameSystem.resolve(name, {
        depth: 1,
        dhtRecordCount: options.dhtRecordCount,
        dhtTimeoutMs: dhtTimeout(options.dhtTimeout),
        offline: options.offline === true,
        signal
      })
      return { Path: res.path }
    }
    const enc = (options.cidBase == null || options.cidBase === '') && !name.startsWith('/ipns/') ? encoderFromPath(name) ?? cidEncoder : cidEncoder
    const p = parsePath(name)
    const resolved = await resolver.resolve(p, { signal })
    let out = `/${resolved.namespace}/${enc.encode(resolved.cid)}`
    if (resolved.remainder.length > 0) out += '/' + resolved.remainder.join('/')
    if (out.includes('//')) throw new RpcError(`invalid path ${JSON.stringify(out)}`)
    return { Path: out }
  },
  text: (out) => `${out.Path}\n`
})
