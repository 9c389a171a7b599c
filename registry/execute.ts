// Running a prepared invocation: one request scope, the status rules, and a normalised outcome
// that every front end (RPC, CLI, tests) turns into its own form.
import type { AwilixContainer } from 'awilix'
import type { Cradle } from '../core/cradle.js'
import type { Logger } from 'winston'
import { createRequestScope } from '../core/container.js'
import { camelize } from './coerce.js'
import type { BytesOutput, GlobalOptionValues, Invocation, Outcome, Prepared, TextCall } from './types.js'

export type { Outcome } from './types.js'


const isAsyncIterable = (x: unknown): x is AsyncIterable<unknown> =>
  x != null && typeof (x as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
const isIterable = (x: unknown): x is Iterable<unknown> =>
  x != null && typeof x !== 'string' && !(x instanceof Uint8Array) && typeof (x as Iterable<unknown>)[Symbol.iterator] === 'function'

async function * fromIterable<T> (it: Iterable<T>): AsyncGenerator<T> { yield * it }

export interface ExecuteInit {
  signal: AbortSignal
}

/** Typed, camelCased options plus the text-encoder view of a prepared call. */
export function textCall (prepared: Prepared): TextCall {
  // the options are camelized on first use (most responses are JSON and never look)
  let options: TextCall['options'] | undefined
  return {
    path: prepared.command.path,
    args: prepared.args,
    get options () { return (options ??= camelize(prepared.values) as TextCall['options']) }
  }
}

export async function execute (prepared: Prepared, container: AwilixContainer<Cradle>, init: ExecuteInit): Promise<Outcome> {
  const { command } = prepared
  const pathText = command.path.join('/')
  const options = camelize(prepared.values) as GlobalOptionValues
  const logging = container.cradle.logging
  // the per-command child logger is made only if the handler asks for it (hot path)
  let cmdLog: Logger | undefined
  const getLog = (): Logger => (cmdLog ??= logging.forComponent(`plugin:${prepared.node.plugin ?? command.path[0]}`).child({ cmd: pathText }))
  if (command.status === 'deprecated') {
    container.cradle.registry.onDeprecated(pathText, command.replacement)
  }
  const scope = createRequestScope(container, {
    signal: init.signal,
    log: getLog,
    // Kubo cmdenv.GetApi: --offline, else the deprecated --local
    offline: options.offline === true || options.local === true,
    cidBase: options.cidBase,
    upgradeCidv0InOutput: prepared.given.has('upgrade-cidv0-in-output') ? options.upgradeCidv0InOutput : undefined
  })
  const call: Invocation = {
    path: command.path,
    args: prepared.args,
    files: prepared.files,
    options,
    given: prepared.given,
    deps: scope.cradle,
    signal: init.signal,
    get log () { return getLog() }
  }
  const result = command.run(call as never)
  switch (prepared.output) {
    case 'single':
      return { kind: 'single', value: await result }
    case 'ndjson': {
      if (isAsyncIterable(result)) return { kind: 'ndjson', items: result }
      const value = await result
      if (value === undefined) return { kind: 'ndjson', items: fromIterable([]) }
      if (isAsyncIterable(value)) return { kind: 'ndjson', items: value }
      return { kind: 'ndjson', items: fromIterable(Array.isArray(value) ? value : [value]) }
    }
    case 'bytes': {
      const value = isAsyncIterable(result) ? result : await result
      if (value instanceof Uint8Array) return { kind: 'bytes', body: fromIterable([value]), length: value.length }
      if (isAsyncIterable(value)) return { kind: 'bytes', body: value as AsyncIterable<Uint8Array> }
      if (isIterable(value)) return { kind: 'bytes', body: fromIterable(value as Iterable<Uint8Array>) }
      const out = value as BytesOutput
      const body = out.body instanceof Uint8Array ? fromIterable([out.body]) : out.body
      return { kind: 'bytes', body, length: out.length, contentType: out.contentType }
    }
  }
}
