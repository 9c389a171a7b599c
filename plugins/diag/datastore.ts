// ipfs diag datastore count|get (kubo core/commands/diag.go, experimental, CLI only): raw datastore
// inspection. Prefixes and keys are go-datastore keys (cleaned, rooted); blocks count under /blocks.
import path from 'node:path'
import { Key } from 'interface-datastore'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { hexDump } from '../name/inspect.js'

/** datastore.NewKey(s).String() */
export const cleanKey = (s: string): string => path.posix.normalize('/' + s).replace(/(.)\/+$/, '$1')

export interface DatastoreCount { prefix: string, count: number }
export interface DatastoreGet { key: string, value: string, hex_dump?: string }

export const diagDatastoreCount = defineCommand({
  path: ['diag', 'datastore', 'count'],
  description: 'Count entries matching a datastore prefix.',
  help: "Counts the number of datastore entries whose keys start with the given prefix.\n\nExample:\n\n  $ ipfs diag datastore count /pubsub/seqno/\n  2",
  status: 'experimental',
  args: [{ name: 'prefix', kind: 'string', required: true, description: 'Datastore key prefix (e.g., /pubsub/seqno/)' }],
  http: false,
  output: 'single',
  run: async ({ args, deps, signal }): Promise<DatastoreCount> => {
    const prefix = cleanKey(args[0])
    let count = 0
    for await (const _ of deps.datastore.queryKeys(prefix === '/' ? {} : { prefix: prefix + '/' }, { signal })) count++ // eslint-disable-line @typescript-eslint/no-unused-vars
    // Kubo's blocks live in the same key space under /blocks
    if (prefix === '/' || prefix === '/blocks') {
      for await (const _ of deps.blockstore.getAll({ signal })) count++ // eslint-disable-line @typescript-eslint/no-unused-vars
    }
    return { prefix: args[0], count }
  },
  text: (out) => `${out.count}\n`
})

export const diagDatastoreGet = defineCommand({
  path: ['diag', 'datastore', 'get'],
  description: 'Read a raw key from the datastore.',
  help: 'Returns the value stored at the given datastore key.\nDefault output is raw bytes. Use --hex for human-readable hex dump.',
  status: 'experimental',
  args: [{ name: 'key', kind: 'string', required: true, description: 'Datastore key to read (e.g., /pubsub/seqno/<peerid>)' }],
  options: {
    hex: { type: 'bool', description: 'Output hex dump instead of raw bytes' }
  },
  http: false,
  output: 'single',
  run: async ({ args, options, deps, signal }): Promise<DatastoreGet> => {
    const key = cleanKey(args[0])
    let value: Uint8Array
    try {
      value = await deps.datastore.get(new Key(key), { signal })
    } catch (err) {
      if ((err as Error).name === 'NotFoundError') throw new RpcError(`key not found: ${key}`)
      throw err
    }
    const out: DatastoreGet = { key: args[0], value: Buffer.from(value).toString('base64') }
    if (options.hex === true) out.hex_dump = hexDump(value)
    return out
  },
  text: (out) => out.hex_dump != null ? `Key: ${out.key}\nHex Dump:\n${out.hex_dump}` : Buffer.from(out.value, 'base64').toString('latin1'),
  cliRender: async (outcome, call, io) => {
    if (outcome.kind !== 'single') return
    const out = outcome.value as DatastoreGet
    if (out.hex_dump != null) io.stdout.write(`Key: ${out.key}\nHex Dump:\n${out.hex_dump}`)
    else io.stdout.write(Buffer.from(out.value, 'base64'))
  }
})
