// Running a prepared invocation against its dependencies: the call a handler sees and the normalised
// outcome every front end (RPC, CLI, tests) turns into its own form. No container here: registry/execute.ts
// makes the awilix request scope; the CLI runs commands that need no repo against plain values.
import type { Logger } from '../core/logger/index.js'
import { camelize } from './coerce.js'
import type { BytesOutput, GlobalOptionValues, Invocation, Outcome, Prepared } from './types.js'

const isAsyncIterable = (x: unknown): x is AsyncIterable<unknown> =>
  x != null && typeof (x as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
const isIterable = (x: unknown): x is Iterable<unknown> =>
  x != null && typeof x !== 'string' && !(x instanceof Uint8Array) && typeof (x as Iterable<unknown>)[Symbol.iterator] === 'function'

async function * fromIterable<T> (it: Iterable<T>): AsyncGenerator<T> { yield * it }

export interface RunInit {
  signal: AbortSignal
  /** the request's logger, made on first use */
  log: () => Logger
  /** typed options (camelized prepared.values), when the caller has them already */
  options?: GlobalOptionValues
}

/** Call the handler with `deps` and normalise what it returns to the prepared output kind. */
export async function runPrepared (prepared: Prepared, deps: Invocation['deps'], init: RunInit): Promise<Outcome> {
  const { command } = prepared
  const call: Invocation = {
    path: command.path,
    args: prepared.args,
    files: prepared.files,
    options: init.options ?? camelize(prepared.values) as GlobalOptionValues,
    given: prepared.given,
    deps,
    signal: init.signal,
    get log () { return init.log() }
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
