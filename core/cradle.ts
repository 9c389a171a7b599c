// The container's keys. Plugins add their own keys by augmenting `Cradle`
// (declare module '…/core/cradle.js' { interface Cradle { mfs: Mfs } }); the registry adds `registry` that way
// (registry/registry.ts), so core/ never imports registry/, plugins/ or server/.
import type { Logger, Logging } from './logger/index.js'
import type { AwilixContainer } from 'awilix'
import type { Datastore } from 'interface-datastore'
import type { Blockstore } from 'interface-blockstore'
import type { Libp2p } from '@libp2p/interface'
import type { ConfigStore } from './config/index.js'
import type { Keystore } from './keystore/index.js'
import type { Repo } from './repo/index.js'
import type { RequestLog } from './request-log.js'
import type { NodeControl } from './node.js'
import type { CidEncoder } from './cid-encoder.js'
import type { RwLock } from './util/rwlock.js'
import type { Pins } from './pins/index.js'
import type { Resolver } from './resolver/index.js'
import type { GcRoots } from './gc/roots.js'
import type { BlockExchange } from './bitswap/index.js'
import type { Routing } from './routing/index.js'
import type { Provider } from './provider/index.js'
import type { DnsResolver } from './dns/index.js'
import type { NameSystem } from './namesys/index.js'
import type { Network } from './libp2p/network.js'

export interface Cradle {
  /** the repo folder ('' for an in-memory repo) */
  repoPath: string
  repo: Repo
  config: ConfigStore
  logging: Logging
  logger: Logger
  datastore: Datastore
  /**
   * a NodeBlockstore (core/blockstore/index.ts): identity CIDs; online, missing blocks come from bitswap
   * (offline, or in a request with --offline: Kubo's offline not-found error)
   */
  blockstore: Blockstore
  /** recursive/direct pins in Kubo's datastore layout (core/pins) */
  pins: Pins
  /** the one path resolver (core/resolver): /ipfs, /ipld, bare CIDs; UnixFS dirs and HAMTs, dag-cbor/dag-json */
  resolver: Resolver
  keystore: Keystore
  /** DNS TXT lookups and DNSLink (DNS.Resolvers, DNS.MaxCacheTTL) */
  dns: DnsResolver
  /** IPNS publish/resolve, DNSLink names, IPFS_NS_MAP, IPNS over pubsub, republisher (core/namesys) */
  nameSystem: NameSystem
  /** null when the node runs offline */
  libp2p: Libp2p | null
  /** what runs around the libp2p host (core/libp2p/network.ts): bandwidth, filters, connmgr, peering, resources; null offline */
  network: Network | null
  /** block exchange over libp2p (core/bitswap); null offline or with Bitswap.Libp2pEnabled=false */
  bitswap: BlockExchange | null
  /** the node's routing (core/routing: the WAN and LAN DHTs, Kubo's QueryEvents); null offline */
  routing: Routing | null
  /** the provide system (core/provider: Provide.Strategy, the queue, reprovides); null offline */
  provider: Provider | null
  requestLog: RequestLog
  node: NodeControl
  /** shared by writers of new blocks (add, import, pin), exclusive for garbage collection */
  gcLock: RwLock
  /** extra roots GC keeps (MFS registers its root here): gcRoots.add(name, provider) */
  gcRoots: GcRoots
  /**
   * puts a scope off the network (core/container.ts registerOffline): its blockstore, resolver and pins
   * never fetch; used for --offline requests (core/request-scope.ts) and the gateway's local view
   */
  offlineStores: (scope: AwilixContainer<any>) => void
}

/** Per-request keys, registered in a scope created for each invocation. */
export interface RequestCradle extends Cradle {
  cidEncoder: CidEncoder
  signal: AbortSignal
  log: Logger
}
