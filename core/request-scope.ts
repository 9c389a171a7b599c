// One scope per invocation: the request's signal, logger and CID encoder (and, offline, the node's
// offline stores). Kept apart from core/container.ts so that running a command needs no store code.
import { createRequire } from 'node:module'
import { asValue, Lifetime, type AwilixContainer, type Resolver } from 'awilix/browser'
import type { Logger } from './logger/index.js'
import type { Cradle, RequestCradle } from './cradle.js'

// the CID encoder (multiformats' bases) is loaded on first use: most commands print no CID
const require = createRequire(import.meta.url)
let cidEncoderLoaded: typeof import('./cid-encoder.js') | undefined
// kept once loaded: require() of a loaded module still resolves it (~2 µs a request)
const cidEncoderModule = (): typeof import('./cid-encoder.js') => (cidEncoderLoaded ??= require('./cid-encoder.js'))

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

const STATE = Symbol('request')
interface RequestState { init: RequestScopeInit, log?: Logger, cidEncoder?: RequestCradle['cidEncoder'] }
/** per container: the request keys as getters over its cradle (awilix's cradle refuses assignments: state lives apart) */
const protos = new WeakMap<object, object>()

/**
 * The request's cradle without an awilix scope (creating one and resolving through it were ~3 % of a small
 * request's CPU): signal, log and cidEncoder of the request, every other key the container's (values and
 * singletons, as a scope resolves them). An offline request gets a scope (its stores are scoped registrations).
 */
export function requestCradle (container: AwilixContainer<Cradle>, init: RequestScopeInit): RequestCradle {
  if (init.offline === true && container.hasRegistration('offlineStores')) return createRequestScope(container, init).cradle
  let proto = protos.get(container)
  if (proto == null) {
    proto = Object.create(container.cradle, {
      signal: { get (this: { [STATE]: RequestState }) { return this[STATE].init.signal }, enumerable: true },
      log: { get (this: { [STATE]: RequestState }) { const s = this[STATE]; return (s.log ??= s.init.log()) }, enumerable: true },
      cidEncoder: {
        get (this: { [STATE]: RequestState }) {
          const s = this[STATE]
          return (s.cidEncoder ??= cidEncoderModule().createCidEncoder({ cidBase: s.init.cidBase, upgradeCidv0InOutput: s.init.upgradeCidv0InOutput }))
        },
        enumerable: true
      }
    }) as object
    protos.set(container, proto)
  }
  const state: RequestState = { init }
  return Object.create(proto, { [STATE]: { value: state } }) as RequestCradle
}
