// Running a prepared invocation: one request scope, the status rules, and a normalised outcome
// that every front end (RPC, CLI, tests) turns into its own form.
import type { AwilixContainer } from 'awilix'
import type { Cradle } from '../core/cradle.js'
import type { Logger } from '../core/logger/index.js'
import { requestCradle } from '../core/request-scope.js'
import { camelize } from './coerce.js'
import { runPrepared } from './run.js'
import type { GlobalOptionValues, Outcome, Prepared, TextCall } from './types.js'

export type { Outcome } from './types.js'



export interface ExecuteInit {
  signal: AbortSignal
}

/** Typed, camelCased options plus the text-encoder view of a prepared call. */
export function textCall (prepared: Prepared): TextCall {
  return new LazyTextCall(prepared)
}

/** The options are camelized on first use (most responses are JSON and never look); a class, as an object literal with a getter is built through V8's slow path. */
class LazyTextCall implements TextCall {
  readonly path: readonly string[]
  readonly args: string[]
  private camelized: TextCall['options'] | undefined
  constructor (private readonly prepared: Prepared) {
    this.path = prepared.command.path
    this.args = prepared.args
  }

  get options (): TextCall['options'] { return (this.camelized ??= camelize(this.prepared.values) as TextCall['options']) }
}

export async function execute (prepared: Prepared, container: AwilixContainer<Cradle>, init: ExecuteInit): Promise<Outcome> {
  const { command } = prepared
  const pathText = command.path.join('/')
  const options = camelize(prepared.values) as GlobalOptionValues
  // the per-command child logger is made only if the handler asks for it (hot path)
  let cmdLog: Logger | undefined
  const getLog = (): Logger => (cmdLog ??= container.cradle.logging.forComponent(`plugin:${prepared.node.plugin ?? command.path[0]}`).child({ cmd: pathText }))
  if (command.status === 'deprecated') {
    container.cradle.registry.onDeprecated(pathText, command.replacement)
  }
  const deps = requestCradle(container, {
    signal: init.signal,
    log: getLog,
    // Kubo cmdenv.GetApi: --offline, else the deprecated --local
    offline: options.offline === true || options.local === true,
    cidBase: options.cidBase,
    upgradeCidv0InOutput: prepared.given.has('upgrade-cidv0-in-output') ? options.upgradeCidv0InOutput : undefined
  })
  return await runPrepared(prepared, deps, { signal: init.signal, log: getLog, options })
}
