// The core container: one awilix container (PROXY, strict) holding the long-lived services.
// awilix/browser everywhere (not 'awilix'): the same container without loadModules, whose fast-glob
// and micromatch (~70 modules) every start-up would load for nothing; one build, so one set of classes.
import path from 'node:path'
import { asFunction, asValue, createContainer, InjectionMode, type AwilixContainer } from 'awilix/browser'
import { LevelDatastore } from 'datastore-level'
import { MemoryDatastore } from 'datastore-core/memory'
import { MemoryBlockstore } from 'blockstore-core/memory'
import type { Datastore } from 'interface-datastore'
import type { Blockstore } from 'interface-blockstore'
import type { Libp2p } from '@libp2p/interface'
import type { CID } from 'multiformats/cid'
import type { Cradle } from './cradle.js'
import { createConfigStore, configPath, type KuboConfig } from './config/index.js'
import { defaultConfig } from './config/defaults.js'
import { createFsKeystore, createMemoryKeystore } from './keystore/index.js'
import { createLogging, type Logger, type Logging } from './logger/index.js'
import { createRepo, generateIdentity, identityOf, privateKeyFromConfig, readRepoConfig } from './repo/index.js'
import { acquireLock, type RepoLock } from './repo/lock.js'
import { checkDatastoreSpec } from './repo/spec.js'
import { cacheRecordReads } from './routing/record-cache.js'
import { dropStalePeers } from './repo/stale-peers.js'
import { FlatfsBlockstore, flatfsSync } from './blockstore/flatfs.js'
import { NodeBlockstore } from './blockstore/index.js'
import { createPins, pinEmptyDir } from './pins/index.js'
import { RequestLog } from './request-log.js'
import { createNodeControl } from './node.js'
import { RwLock } from './util/rwlock.js'
import { createGcRoots } from './gc/roots.js'
import { createResolver, type Resolver } from './resolver/index.js'
import type { BlockExchange } from './bitswap/index.js'
import type { Routing } from './routing/index.js'
import type { Provider } from './provider/index.js'
import type { NameSystem } from './namesys/index.js'
import { dnsResolverFor, lazyOfflineNameSystem } from './lazy-services.js'
import type { Network } from './libp2p/network.js'

export interface CoreInit {
  /** repo folder; omitted: everything in memory (tests, embedding) */
  repoPath?: string
  /** in-memory repos: the config to start from (a fresh identity otherwise) */
  config?: KuboConfig
  configFile?: string
  /** read config and keystore only: no lock, in-memory stores (CLI commands that may run beside a daemon) */
  readOnly?: boolean
  /** start libp2p */
  online?: boolean
  /** online: overrides Pubsub.Enabled (daemon --enable-pubsub-experiment) */
  pubsub?: boolean
  /** online: overrides Ipns.UsePubsub (daemon --enable-namesys-pubsub) */
  ipnsPubsub?: boolean
  /** online: Routing.Type to use instead of the config's (daemon --routing) */
  routingType?: string
  /** inside `tsipfs daemon` */
  daemon?: boolean
  logging?: Logging
  /** the command tree (a registry/ Registry; its type is added to Cradle by registry/registry.ts) */
  registry: Cradle['registry']
  /** what /shutdown does */
  shutdown?: () => void
}

export interface CoreContainer {
  container: AwilixContainer<Cradle>
  /** close the stores and release the repo lock (after stopping services) */
  close: () => Promise<void>
}

export async function createCoreContainer (init: CoreInit): Promise<CoreContainer> {
  const logging = init.logging ?? createLogging()
  const closers: Array<() => Promise<void>> = []
  let lock: RepoLock | undefined
  try {
    let config: KuboConfig
    let datastore: Datastore
    let blockstore: Blockstore
    const repoPath = init.repoPath ?? ''
    if (repoPath !== '' && init.readOnly === true) {
      config = await readRepoConfig(repoPath, init.configFile)
      datastore = new MemoryDatastore()
      blockstore = new MemoryBlockstore()
    } else if (repoPath !== '') {
      config = await readRepoConfig(repoPath, init.configFile)
      lock = await acquireLock(repoPath)
      const stores = await checkDatastoreSpec(repoPath, config)
      const level = new LevelDatastore(stores.datastore)
      await level.open()
      closers.push(async () => { await level.close() })
      await dropStalePeers(level)
      // DHT and IPNS record reads from memory (a GET_VALUE answered, an uncached resolve): no libuv pool hop each
      cacheRecordReads(level)
      datastore = level
      // Datastore.Spec's flatfs `sync` (read at start, as Kubo does)
      const spec = (config.Datastore as { Spec?: unknown } | undefined)?.Spec
      const flatfs = new FlatfsBlockstore(stores.blocks, { sync: flatfsSync(spec) })
      await flatfs.open()
      closers.push(async () => { await flatfs.close() })
      blockstore = flatfs
    } else {
      config = init.config ?? defaultConfig(identityOf(await generateIdentity()))
      datastore = new MemoryDatastore()
      blockstore = new MemoryBlockstore()
    }
    // identity CIDs + Kubo's offline not-found text; the pin store on top
    const nodeBlockstore = new NodeBlockstore(blockstore)
    const pins = createPins({ datastore, blockstore: nodeBlockstore })
    // an in-memory repo starts like a fresh `ipfs init`: the empty directory pinned
    if (repoPath === '') await pinEmptyDir(nodeBlockstore, pins)
    const configStore = createConfigStore(config, repoPath !== '' ? configPath(repoPath, init.configFile) : '')
    let identity = privateKeyFromConfig(config)
    configStore.onChange((cfg) => { try { identity = privateKeyFromConfig(cfg) } catch {} })
    const keystore = repoPath !== ''
      ? createFsKeystore(path.join(repoPath, 'keystore'), () => identity)
      : createMemoryKeystore(() => identity)

    let libp2p: Libp2p | null = null
    let network: Network | null = null
    let bitswap: BlockExchange | null = null
    let routing: Routing | null = null
    let makeProvider: ((mfsRoot: () => Promise<CID | undefined>) => Provider) | undefined
    if (init.online === true) {
      // loaded here, not at the top: an offline node never loads libp2p or bitswap (~50 MiB RSS)
      const { createNetworkHost } = await import('./libp2p/index.js')
      ;({ libp2p, network } = await createNetworkHost({ privateKey: identity, config, datastore, pubsub: init.pubsub, ipnsPubsub: init.ipnsPubsub, routingType: init.routingType, logger: logging.forComponent('swarm') }))
      // the exchange: started after libp2p (registered after it), it plugs into nodeBlockstore
      const settings = (config.Bitswap ?? {}) as { Libp2pEnabled?: unknown, ServerEnabled?: unknown }
      if (settings.Libp2pEnabled !== false) {
        const { createBitswap } = await import('./bitswap/index.js')
        bitswap = createBitswap({ libp2p, blockstore: nodeBlockstore, logger: logging.forComponent('bitswap') }, { serverEnabled: settings.ServerEnabled !== false })
      }
      // routing over the host's DHTs (core/routing) and the provide system over it (core/provider)
      routing = (await import('./routing/index.js')).createRouting(libp2p, datastore)
      const { createProvider } = await import('./provider/index.js')
      const host = libp2p
      const router = routing
      const exchange = bitswap
      makeProvider = (mfsRoot) => createProvider({ libp2p: host, routing: router, blockstore: nodeBlockstore, pins, config: configStore, mfsRoot, lastTransfer: exchange != null ? () => exchange.lastTransfer() : undefined, logger: logging.forComponent('provider') })
    }

    // DNSLink and IPNS (core/dns, core/namesys): the resolver follows /ipns/ paths through them
    const dns = await dnsResolverFor(config)
    // (offline it loads on first use: most offline runs never resolve or publish a name)
    const nameDeps = { datastore, keystore, config: configStore, libp2p, routing, dns, logger: logging.forComponent('namesys') }
    const nameSystem = libp2p != null
      ? (await import('./namesys/index.js')).createNameSystem(nameDeps, { ipnsPubsub: init.ipnsPubsub })
      : lazyOfflineNameSystem(nameDeps, { ipnsPubsub: init.ipnsPubsub })

    const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true })
    container.register({
      repoPath: asValue(repoPath),
      repo: asValue(createRepo(repoPath)),
      config: asValue(configStore),
      logging: asValue(logging),
      logger: asValue(logging.root),
      datastore: asValue(datastore),
      blockstore: asValue(nodeBlockstore),
      pins: asValue(pins),
      resolver: asValue(resolverOver(nodeBlockstore, nameSystem)),
      dns: asValue(dns),
      // a singleton registration so the node starts it (pubsub topics, republisher) after libp2p
      nameSystem: asFunction(() => nameSystem).singleton(),
      keystore: asValue(keystore),
      libp2p: asValue(libp2p),
      // started after libp2p (a singleton registration), stopped before it
      network: asFunction(() => network).singleton(),
      // a singleton registration (not asValue) so the node starts it, after libp2p, and stops it first
      bitswap: asFunction(() => bitswap).singleton(),
      routing: asValue(routing),
      // started after bitswap; MFS is read lazily (the files plugin registers it later)
      provider: asFunction(() => makeProvider?.(async () => {
        if (!container.hasRegistration('mfs')) return undefined
        const mfs = (container.cradle as unknown as { mfs: { roots: () => Promise<CID[]> } }).mfs
        return (await mfs.roots())[0]
      }) ?? null).singleton(),
      registry: asValue(init.registry),
      requestLog: asValue(new RequestLog()),
      gcLock: asValue(new RwLock()),
      gcRoots: asValue(createGcRoots()),
      offlineStores: asValue((scope: AwilixContainer<Cradle>) => { registerOffline(scope, container) }),
      node: asValue(createNodeControl({ daemon: init.daemon === true, online: libp2p != null, shutdown: init.shutdown }))
    })
    const held = lock
    return {
      container,
      close: async () => {
        await container.dispose()
        for (const c of closers.reverse()) await c().catch(() => {})
        await held?.release()
      }
    }
  } catch (err) {
    for (const c of closers.reverse()) await c().catch(() => {})
    await lock?.release()
    throw err
  }
}

/** The path resolver over a blockstore (the node's, or its offline view in an offline scope). */
function resolverOver (blockstore: Blockstore, names: NameSystem, offline = false): Resolver {
  return createResolver({
    blockstore,
    resolveName: async (path, options) => (await names.resolve(`/ipns/${path.root}`, { signal: options.signal, offline })).path
  })
}

/**
 * Keep a scope off the network (Kubo's offline CoreAPI): its `blockstore` is the node's store without
 * the exchange (a missing block fails at once with the offline error) and its `resolver` reads that.
 * Its `pins` walk that store too; the MFS (built over the node's store) still fetches.
 */
function registerOffline (scope: AwilixContainer<Cradle>, container: AwilixContainer<Cradle>): void {
  const store = container.cradle.blockstore
  if (!(store instanceof NodeBlockstore)) return
  const local = store.offline()
  scope.register({
    blockstore: asValue(local),
    resolver: asFunction(() => resolverOver(local, container.cradle.nameSystem, true)).scoped(),
    // the same pin set, its DAG walks reading the offline store (pin add/verify/ls never fetch)
    pins: asFunction(() => container.cradle.pins.offline()).scoped()
  })
}

/** A long-lived scope whose blockstore and resolver never fetch (the gateway's local view). */
export function createOfflineScope (container: AwilixContainer<Cradle>): AwilixContainer<Cradle> {
  const scope = container.createScope<Cradle>()
  registerOffline(scope, container)
  return scope
}

export { createRequestScope, type RequestScopeInit } from './request-scope.js'
