// The config `ipfs init` writes (Kubo 0.44 config/init.go), key order as Kubo serialises it.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type KuboConfig = { [key: string]: Json }

export const DEFAULT_SWARM = [
  '/ip4/0.0.0.0/tcp/4001', '/ip6/::/tcp/4001',
  '/ip4/0.0.0.0/udp/4001/webrtc-direct', '/ip4/0.0.0.0/udp/4001/quic-v1',
  '/ip4/0.0.0.0/udp/4001/quic-v1/webtransport', '/ip6/::/udp/4001/webrtc-direct',
  '/ip6/::/udp/4001/quic-v1', '/ip6/::/udp/4001/quic-v1/webtransport'
]

/** Offline fallback for the "auto" bootstrap placeholder (boxo autoconf/fallbacks.go). */
export const FALLBACK_BOOTSTRAP = [
  '/dnsaddr/bootstrap.libp2p.io/p2p/QmNnooDu7bfjPFoTZYxMNLWUQJyrVwtbZg5gBMjTezGAJN',
  '/dnsaddr/bootstrap.libp2p.io/p2p/QmQCU2EcMqAqQPR2i9bChDtGNJchTbq5TbXJJ16u19uLTa',
  '/dnsaddr/bootstrap.libp2p.io/p2p/QmbLHAnMoJPWSCR5Zhtx6BHJX9KiKNN6tpvbUcqanj75Nb',
  '/dnsaddr/bootstrap.libp2p.io/p2p/QmcZf59bWwK5XFi76CZX8cbJ4BhTzzA3gU1ZjYZcYW3dwt',
  '/dnsaddr/va1.bootstrap.libp2p.io/p2p/12D3KooWKnDdG3iXw9eTFijk3EWSunZcFi54Zka4wmtqtt6rPxc8',
  '/ip4/104.131.131.82/tcp/4001/p2p/QmaCpDMGvV2BGHeYERUEnRQAwe3N8SzbUtfsmvsqQLuvuJ',
  '/ip4/104.131.131.82/udp/4001/quic-v1/p2p/QmaCpDMGvV2BGHeYERUEnRQAwe3N8SzbUtfsmvsqQLuvuJ'
]

/**
 * Kubo's default spec, except the flatfs `sync`: Kubo's init writes `false` (no fsync: a power cut may
 * lose or truncate recent blocks); tsipfs's init writes `true` so a new repo is durable by default.
 * Both are honoured (core/blockstore flatfsSync); the `flatfs` profiles keep Kubo's `false`.
 */
export const DEFAULT_DATASTORE_SPEC: KuboConfig = {
  mounts: [
    { mountpoint: '/blocks', path: 'blocks', prefix: 'flatfs.datastore', shardFunc: '/repo/flatfs/shard/v1/next-to-last/2', sync: true, type: 'flatfs' },
    { compression: 'none', mountpoint: '/', path: 'datastore', prefix: 'leveldb.datastore', type: 'levelds' }
  ],
  type: 'mount'
}

/** `datastore_spec` file content: the disk spec drops prefix/sync/compression. */
export const DATASTORE_SPEC_FILE = '{"mounts":[{"mountpoint":"/blocks","path":"blocks","shardFunc":"/repo/flatfs/shard/v1/next-to-last/2","type":"flatfs"},{"mountpoint":"/","path":"datastore","type":"levelds"}],"type":"mount"}'

export function defaultConfig (identity: { PeerID: string, PrivKey: string }): KuboConfig {
  return {
    Identity: { PeerID: identity.PeerID, PrivKey: identity.PrivKey },
    Datastore: {
      StorageMax: '10GB',
      StorageGCWatermark: 90,
      GCPeriod: '1h',
      Spec: structuredClone(DEFAULT_DATASTORE_SPEC),
      HashOnRead: false,
      BloomFilterSize: 0,
      BlockKeyCacheSize: null
    },
    Addresses: {
      Swarm: [...DEFAULT_SWARM],
      Announce: [],
      AppendAnnounce: [],
      NoAnnounce: [],
      API: '/ip4/127.0.0.1/tcp/5001',
      Gateway: '/ip4/127.0.0.1/tcp/8080'
    },
    Mounts: { IPFS: '/ipfs', IPNS: '/ipns', MFS: '/mfs', FuseAllowOther: null, StoreMtime: null, StoreMode: null },
    Discovery: { MDNS: { Enabled: true } },
    Routing: { DelegatedRouters: ['auto'] },
    Ipns: { RepublishPeriod: '', RecordLifetime: '', ResolveCacheSize: 128, DelegatedPublishers: ['auto'] },
    Bootstrap: ['auto'],
    Gateway: {
      HTTPHeaders: {},
      RootRedirect: '',
      NoFetch: false,
      NoDNSLink: false,
      DeserializedResponses: null,
      AllowCodecConversion: null,
      DisableHTMLErrors: null,
      PublicGateways: null,
      ExposeRoutingAPI: null
    },
    API: { HTTPHeaders: {} },
    Swarm: {
      AddrFilters: null,
      DisableBandwidthMetrics: false,
      DisableNatPortMap: false,
      RelayClient: {},
      RelayService: {},
      Transports: { Network: {}, Security: {}, Multiplexers: {} },
      ConnMgr: {},
      ResourceMgr: {}
    },
    AutoNAT: {},
    AutoTLS: {},
    Pubsub: { Router: '', DisableSigning: false },
    Peering: { Peers: null },
    DNS: { Resolvers: { '.': 'auto' } },
    Migration: {},
    AutoConf: {},
    Provide: { DHT: {} },
    Provider: {},
    Reprovider: {},
    HTTPRetrieval: {},
    Experimental: {
      FilestoreEnabled: false,
      UrlstoreEnabled: false,
      Libp2pStreamMounting: false,
      P2pHttpProxy: false,
      OptimisticProvide: false,
      OptimisticProvideJobsPoolSize: 0
    },
    Plugins: { Plugins: null },
    Pinning: { RemoteServices: {} },
    Import: {
      CidVersion: null,
      UnixFSRawLeaves: null,
      UnixFSChunker: null,
      HashFunction: null,
      UnixFSFileMaxLinks: null,
      UnixFSDirectoryMaxLinks: null,
      UnixFSHAMTDirectoryMaxFanout: null,
      UnixFSHAMTDirectorySizeThreshold: null,
      UnixFSHAMTDirectorySizeEstimation: null,
      UnixFSDAGLayout: null,
      BatchMaxNodes: null,
      BatchMaxSize: null,
      FastProvideRoot: null,
      FastProvideDAG: null,
      FastProvideWait: null
    },
    Version: {},
    Internal: {},
    Bitswap: {}
  }
}
