// One scope per invocation: the request's signal, logger and CID encoder (and, offline, the node's
// offline stores). Kept apart from core/container.ts so that running a command needs no store code.
import { createRequire } from 'node:module'
import { asValue, Lifetime, type AwilixContainer, type Resolver } from 'awilix/browser'
import type { Logger } from './logger/index.js'
import type { Cradle, RequestCradle } from './cradle.js'

// the CID encoder (multiformats' bases) is loaded on first use: most commands print no CID
const require = createRequire(import.meta.url)
const cidEncoderModule = (): typeof import('./cid-encoder.js') => require('./cid-encoder.js')

export interface RequestScopeInit {
  signal: AbortSignal
  /** the request runs offline (global --offline/--local): no block fetching from the network */
  offline?: boolean
  /** the request's logger, made on first use */
  log: () => Logger
  cidBase?: string
  upgradeCidv0InOutput?: boolean
}

/**
 * A scoped registration of a factory taking no dependencies: asFunction(fn).scoped() without its reading
 * of the factory's source for parameter names (that parse was a tenth of a small request's cost).
 */
function scoped<T> (make: () => T): Resolver<T> {
  return { resolve: make, lifetime: Lifetime.SCOPED }
}

/** A scope per invocation holding the request's signal, logger and CID encoder (and, offline, the offline store). */
export function createRequestScope (container: AwilixContainer<Cradle>, init: RequestScopeInit): AwilixContainer<RequestCradle> {
  const scope = container.createScope<RequestCradle>()
  scope.register({
    signal: asValue(init.signal),
    log: scoped(init.log),
    // lazy: an unknown --cid-base fails only commands that print CIDs (as Kubo's cmdenv)
    cidEncoder: scoped(() => cidEncoderModule().createCidEncoder({ cidBase: init.cidBase, upgradeCidv0InOutput: init.upgradeCidv0InOutput }))
  })
  if (init.offline === true && container.hasRegistration('offlineStores')) container.cradle.offlineStores(scope)
  return scope
}
