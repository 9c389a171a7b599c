// Probe commands shared by the RPC wire specs (test/unit/server/contract.spec.ts, rpc-context.spec.ts).
import { defineCommand } from '../../registry/define.js'
import { InvalidArgumentError, RpcError } from '../../core/errors.js'
import type { Plugin } from '../../registry/types.js'

/** how many `chunks` and `rows` streams have ended (finished, failed or abandoned) */
export const probeStops = { chunks: 0, rows: 0 }

/** Commands that exercise the RPC wire (test/unit/server: the HTTP contract and the Koa-free path specs). */
export const probe: Plugin = {
  name: 'probe',
  groups: [{ path: ['grp'], description: 'A group.' }],
  commands: [
    defineCommand({
      path: ['echo'],
      description: 'Echo arguments and options.',
      args: [{ name: 'a', kind: 'string', required: true, variadic: true, stdin: true, description: '' }],
      bodyArgs: true,
      options: { n: { type: 'int', description: '' }, flag: { type: 'bool', aliases: ['f'], default: true, description: '' }, list: { type: 'strings', description: '' } },
      output: 'single',
      run: ({ args, options }) => ({ Args: args, N: options.n ?? null, Flag: options.flag, List: options.list ?? null, Html: '<&>' }),
      text: (v: { Args: string[] }) => v.Args.join(',') + '\n'
    }),
    defineCommand({
      path: ['stream'],
      description: 'Stream values, maybe failing.',
      options: { fail: { type: 'string', description: '' }, count: { type: 'int', default: 2, description: '' } },
      output: 'ndjson',
      async * run ({ options }) {
        if (options.fail === 'early') throw new RpcError('early failure')
        if (options.fail === 'client') throw new InvalidArgumentError('bad input')
        for (let i = 0; i < Number(options.count); i++) {
          if (i > 0) await new Promise(resolve => setImmediate(resolve))
          yield { I: i }
        }
        if (options.fail === 'late') throw new Error('late failure')
        if (String(options.fail).startsWith('late:')) throw new Error(String(options.fail).slice(5))
      },
      text: (v: { I: number }) => `${v.I}\n`
    }),
    defineCommand({
      path: ['bytes'],
      description: 'Bytes.',
      output: 'bytes',
      run: () => ({ body: Buffer.from('hello'), length: 5 })
    }),
    defineCommand({
      path: ['chunks'],
      description: 'Many byte chunks, maybe failing.',
      options: { count: { type: 'int', default: 64, description: '' }, fail: { type: 'bool', description: '' } },
      output: 'bytes',
      async * run ({ options }) {
        try {
          for (let i = 0; i < Number(options.count); i++) yield Buffer.alloc(256 * 1024, i % 256)
          if (options.fail === true) throw new Error('broke\nmid-stream')
        } finally {
          probeStops.chunks++
        }
      }
    }),
    defineCommand({
      path: ['rows'],
      description: 'NDJSON rows that come one event-loop turn apart (streamed, not sent at once), maybe failing.',
      options: { count: { type: 'int', default: 3, description: '' }, fail: { type: 'bool', description: '' } },
      output: 'ndjson',
      async * run ({ options }) {
        try {
          for (let i = 0; i < Number(options.count); i++) {
            await new Promise(resolve => setImmediate(resolve))
            yield { I: i, Pad: 'x'.repeat(1000) }
          }
          if (options.fail === true) throw new Error('broke\nlate')
        } finally {
          probeStops.rows++
        }
      }
    }),
    defineCommand({
      path: ['nothing'],
      description: 'Emits nothing.',
      output: 'ndjson',
      run: async () => undefined
    }),
    defineCommand({
      path: ['upload'],
      description: 'Reads files.',
      args: [{ name: 'data', kind: 'file', required: true, variadic: true, description: '' }],
      output: 'ndjson',
      async * run ({ files }) {
        for await (const f of files ?? []) {
          let size = 0
          for await (const c of f.content ?? []) size += c.length
          yield { Path: f.path, Type: f.type, Size: size, Mode: f.mode ?? null, Mtime: f.mtime?.secs ?? null }
        }
      }
    }),
    defineCommand({ path: ['boom'], description: 'Throws a non-RPC error.', output: 'single', run: (): { Ok: boolean } => { throw new TypeError('kaput') } }),
    defineCommand({ path: ['grp', 'child'], description: 'Child.', output: 'single', run: () => ({ Ok: true }) }),
    defineCommand({ path: ['local'], description: 'NoRemote.', http: false, output: 'single', run: () => ({}) })
  ]
}
