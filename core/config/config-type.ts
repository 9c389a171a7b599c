// Kubo's config struct (config/*.go) as data: every field's Go type, JSON name and omitempty flag.
// schema.ts checks and re-encodes configs with it.

export type Custom =
  | 'Flag' | 'Priority' | 'OptionalInteger' | 'OptionalString' | 'OptionalDuration' | 'OptionalBytes'
  | 'Duration' | 'Strings' | 'AutoNATServiceMode' | 'RawMessage' | 'AddrInfo' | 'RouterParser'
  | 'swarmLimits' | 'graphsyncEnabled' | 'experimentalAcceleratedDHTClient'

export type GoType =
  | { kind: 'string' }
  | { kind: 'bool' }
  | { kind: 'int', name: string }
  | { kind: 'any' }
  | { kind: 'slice', elem: GoType }
  | { kind: 'map', elem: GoType }
  | { kind: 'struct', name: string, fields: Field[] }
  | { kind: 'ptr', elem: GoType }
  | { kind: 'custom', name: Custom }

export interface Field { name: string, type: GoType, omitempty: boolean }

export const str: GoType = { kind: 'string' }
const bool: GoType = { kind: 'bool' }
const int: GoType = { kind: 'int', name: 'int' }
export const int64: GoType = { kind: 'int', name: 'int64' }
export const any: GoType = { kind: 'any' }
const strs: GoType = { kind: 'slice', elem: str }
export const slice = (elem: GoType): GoType => ({ kind: 'slice', elem })
const map = (elem: GoType): GoType => ({ kind: 'map', elem })
const ptr = (elem: GoType): GoType => ({ kind: 'ptr', elem })
const custom = (name: Custom): GoType => ({ kind: 'custom', name })
const Flag = custom('Flag')
const Priority = custom('Priority')
const OptInt = custom('OptionalInteger')
export const OptStr = custom('OptionalString')
const OptDur = custom('OptionalDuration')
const OptBytes = custom('OptionalBytes')

/** A struct; field specs are `Name` or `Name?` (omitempty). */
export function struct (name: string, fields: Record<string, GoType>): GoType {
  return {
    kind: 'struct',
    name,
    fields: Object.entries(fields).map(([k, type]) => ({ name: k.replace(/\?$/, ''), type, omitempty: k.endsWith('?') }))
  }
}

const GatewaySpec = struct('GatewaySpec', { Paths: strs, UseSubdomains: bool, NoDNSLink: bool, InlineDNSLink: Flag, DeserializedResponses: Flag })

/** config.Config of Kubo 0.44. */
export const CONFIG_TYPE: GoType = struct('Config', {
  Identity: struct('Identity', { PeerID: str, 'PrivKey?': str }),
  Datastore: struct('Datastore', {
    StorageMax: str,
    StorageGCWatermark: int64,
    GCPeriod: str,
    'Type?': str,
    'Path?': str,
    'NoSync?': bool,
    'Params?': ptr(custom('RawMessage')),
    Spec: map(any),
    HashOnRead: bool,
    BloomFilterSize: int,
    BlockKeyCacheSize: OptInt,
    'WriteThrough?': Flag
  }),
  Addresses: struct('Addresses', { Swarm: strs, Announce: strs, AppendAnnounce: strs, NoAnnounce: strs, API: custom('Strings'), Gateway: custom('Strings') }),
  Mounts: struct('Mounts', { IPFS: str, IPNS: str, MFS: str, FuseAllowOther: Flag, StoreMtime: Flag, StoreMode: Flag }),
  Discovery: struct('Discovery', { MDNS: struct('MDNS', { Enabled: bool }) }),
  Routing: struct('Routing', {
    'Type?': ptr(OptStr),
    'AcceleratedDHTClient?': Flag,
    'LoopbackAddressesOnLanDHT?': Flag,
    'IgnoreProviders?': strs,
    DelegatedRouters: strs,
    'Routers?': map(custom('RouterParser')),
    'Methods?': map(struct('Method', { RouterName: str }))
  }),
  Ipns: struct('Ipns', {
    RepublishPeriod: str,
    RecordLifetime: str,
    ResolveCacheSize: int,
    'MaxCacheTTL?': ptr(OptDur),
    'UsePubsub?': Flag,
    DelegatedPublishers: strs
  }),
  Bootstrap: strs,
  Gateway: struct('Gateway', {
    HTTPHeaders: map(strs),
    RootRedirect: str,
    NoFetch: bool,
    NoDNSLink: bool,
    DeserializedResponses: Flag,
    AllowCodecConversion: Flag,
    DisableHTMLErrors: Flag,
    PublicGateways: map(ptr(GatewaySpec)),
    ExposeRoutingAPI: Flag,
    'RetrievalTimeout?': ptr(OptDur),
    'MaxRequestDuration?': ptr(OptDur),
    'MaxConcurrentRequests?': ptr(OptInt),
    'MaxRangeRequestFileSize?': ptr(OptBytes),
    'DiagnosticServiceURL?': ptr(OptStr)
  }),
  API: struct('API', {
    HTTPHeaders: map(strs),
    'Authorizations?': map(ptr(struct('RPCAuthScope', { AuthSecret: str, AllowedPaths: strs })))
  }),
  Swarm: struct('SwarmConfig', {
    AddrFilters: strs,
    DisableBandwidthMetrics: bool,
    DisableNatPortMap: bool,
    RelayClient: struct('RelayClient', { 'Enabled?': Flag, 'StaticRelays?': strs }),
    RelayService: struct('RelayService', {
      'Enabled?': Flag,
      'ConnectionDurationLimit?': ptr(OptDur),
      'ConnectionDataLimit?': ptr(OptInt),
      'ReservationTTL?': ptr(OptDur),
      'MaxReservations?': ptr(OptInt),
      'MaxCircuits?': ptr(OptInt),
      'BufferSize?': ptr(OptInt),
      'MaxReservationsPerIP?': ptr(OptInt),
      'MaxReservationsPerASN?': ptr(OptInt)
    }),
    'EnableHolePunching?': Flag,
    Transports: struct('Transports', {
      Network: struct('', { 'QUIC?': Flag, 'TCP?': Flag, 'Websocket?': Flag, 'Relay?': Flag, 'WebTransport?': Flag, 'WebRTCDirect?': Flag }),
      Security: struct('', { 'TLS?': Priority, 'Noise?': Priority }),
      Multiplexers: struct('', { 'Yamux?': Priority })
    }),
    ConnMgr: struct('ConnMgr', { 'Type?': ptr(OptStr), 'LowWater?': ptr(OptInt), 'HighWater?': ptr(OptInt), 'GracePeriod?': ptr(OptDur), 'SilencePeriod?': ptr(OptDur) }),
    ResourceMgr: struct('ResourceMgr', {
      'Enabled?': Flag,
      'Limits?': custom('swarmLimits'),
      'MaxMemory?': ptr(OptBytes),
      'MaxFileDescriptors?': ptr(OptInt),
      'Allowlist?': strs
    })
  }),
  AutoNAT: struct('AutoNATConfig', {
    'ServiceMode?': custom('AutoNATServiceMode'),
    'Throttle?': ptr(struct('AutoNATThrottleConfig', { GlobalLimit: int, PeerLimit: int, Interval: OptDur }))
  }),
  AutoTLS: struct('AutoTLS', {
    'Enabled?': Flag,
    'AutoWSS?': Flag,
    'SkipDNSLookup?': Flag,
    'DomainSuffix?': ptr(OptStr),
    'RegistrationEndpoint?': ptr(OptStr),
    'RegistrationToken?': ptr(OptStr),
    'RegistrationDelay?': ptr(OptDur),
    'CAEndpoint?': ptr(OptStr),
    'ShortAddrs?': Flag
  }),
  Pubsub: struct('PubsubConfig', { Router: str, DisableSigning: bool, 'Enabled?': Flag, 'SeenMessagesTTL?': ptr(OptDur), 'SeenMessagesStrategy?': ptr(OptStr) }),
  Peering: struct('Peering', { Peers: slice(custom('AddrInfo')) }),
  DNS: struct('DNS', { Resolvers: map(str), 'MaxCacheTTL?': ptr(OptDur) }),
  Migration: struct('Migration', { 'DownloadSources?': strs, 'Keep?': str }),
  AutoConf: struct('AutoConf', { 'URL?': ptr(OptStr), 'Enabled?': Flag, 'RefreshInterval?': ptr(OptDur), 'TLSInsecureSkipVerify?': Flag }),
  Provide: struct('Provide', {
    'Enabled?': Flag,
    'Strategy?': ptr(OptStr),
    'BloomFPRate?': ptr(OptInt),
    DHT: struct('ProvideDHT', {
      'Interval?': ptr(OptDur),
      'MaxWorkers?': ptr(OptInt),
      'SweepEnabled?': Flag,
      'DedicatedPeriodicWorkers?': ptr(OptInt),
      'DedicatedBurstWorkers?': ptr(OptInt),
      'MaxProvideConnsPerWorker?': ptr(OptInt),
      'KeystoreBatchSize?': ptr(OptInt),
      'OfflineDelay?': ptr(OptDur),
      'SendProviderRecordTimeout?': ptr(OptDur),
      'ResumeEnabled?': Flag
    })
  }),
  Provider: struct('Provider', { 'Enabled?': Flag, 'Strategy?': ptr(OptStr), 'WorkerCount?': ptr(OptInt) }),
  Reprovider: struct('Reprovider', { 'Interval?': ptr(OptDur), 'Strategy?': ptr(OptStr) }),
  HTTPRetrieval: struct('HTTPRetrieval', {
    'Enabled?': Flag,
    'Allowlist?': strs,
    'Denylist?': strs,
    'NumWorkers?': ptr(OptInt),
    'MaxBlockSize?': ptr(OptStr),
    'TLSInsecureSkipVerify?': Flag
  }),
  Experimental: struct('Experiments', {
    FilestoreEnabled: bool,
    UrlstoreEnabled: bool,
    'ShardingEnabled?': bool,
    Libp2pStreamMounting: bool,
    P2pHttpProxy: bool,
    'StrategicProviding?': bool,
    OptimisticProvide: bool,
    OptimisticProvideJobsPoolSize: int,
    'GatewayOverLibp2p?': bool,
    'GraphsyncEnabled?': custom('graphsyncEnabled'),
    'AcceleratedDHTClient?': custom('experimentalAcceleratedDHTClient')
  }),
  Plugins: struct('Plugins', { Plugins: map(struct('Plugin', { Disabled: bool, 'Config?': any })) }),
  Pinning: struct('Pinning', {
    RemoteServices: map(struct('RemotePinningService', {
      API: struct('RemotePinningServiceAPI', { Endpoint: str, Key: str }),
      Policies: struct('RemotePinningServicePolicies', {
        MFS: struct('RemotePinningServiceMFSPolicy', { Enable: bool, PinName: str, RepinInterval: str })
      })
    }))
  }),
  Import: struct('Import', {
    CidVersion: OptInt,
    UnixFSRawLeaves: Flag,
    UnixFSChunker: OptStr,
    HashFunction: OptStr,
    UnixFSFileMaxLinks: OptInt,
    UnixFSDirectoryMaxLinks: OptInt,
    UnixFSHAMTDirectoryMaxFanout: OptInt,
    UnixFSHAMTDirectorySizeThreshold: OptBytes,
    UnixFSHAMTDirectorySizeEstimation: OptStr,
    UnixFSDAGLayout: OptStr,
    BatchMaxNodes: OptInt,
    BatchMaxSize: OptInt,
    FastProvideRoot: Flag,
    FastProvideDAG: Flag,
    FastProvideWait: Flag
  }),
  Version: struct('Version', { 'AgentSuffix?': ptr(OptStr), 'SwarmCheckEnabled?': Flag, 'SwarmCheckPercentThreshold?': ptr(OptInt) }),
  Internal: struct('Internal', {
    'Bitswap?': ptr(struct('InternalBitswap', {
      TaskWorkerCount: OptInt,
      EngineBlockstoreWorkerCount: OptInt,
      EngineTaskWorkerCount: OptInt,
      MaxOutstandingBytesPerPeer: OptInt,
      ProviderSearchDelay: OptDur,
      ProviderSearchMaxResults: OptInt,
      WantHaveReplaceSize: OptInt,
      BroadcastControl: ptr(struct('BitswapBroadcastControl', {
        'Enable?': Flag,
        MaxPeers: OptInt,
        'LocalPeers?': Flag,
        'PeeredPeers?': Flag,
        MaxRandomPeers: OptInt,
        'SendToPendingPeers?': Flag
      }))
    })),
    'UnixFSShardingSizeThreshold?': ptr(OptStr),
    'Libp2pForceReachability?': ptr(OptStr),
    'BackupBootstrapInterval?': ptr(OptDur),
    'MFSNoFlushLimit?': ptr(OptInt),
    'ShutdownTimeout?': ptr(OptDur),
    'CGNATCheck?': Flag,
    'DeadListenerCheck?': Flag,
    'NonPublicAddrPublishing?': Flag
  }),
  Bitswap: struct('Bitswap', { 'Libp2pEnabled?': Flag, 'ServerEnabled?': Flag })
})
