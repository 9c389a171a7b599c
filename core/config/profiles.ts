// Config profiles (Kubo config/profile.go): `init --profile a,b` and `config profile apply`.
// Transforms work on the JSON form of the config and write what Kubo's marshallers would write.
import { DEFAULT_SWARM, type Json, type KuboConfig } from './defaults.js'
import { AUTO_PLACEHOLDER, DEFAULT_AUTOCONF_URL } from './autoconf.js'
import { normalizeConfig } from './schema.js'
import { getOwn, setOwn } from '../util/own.js'

export interface ProfileOptions {
  /** randomports: the port to use (Kubo asks the OS for a free one) */
  port?: number
}

export interface Profile {
  description: string
  /** datastore profiles: only meaningful at init (not enforced by `config profile apply`, as in Kubo) */
  initOnly?: boolean
  apply: (cfg: KuboConfig, opts?: ProfileOptions) => void
}

/** defaultServerFilters: non-public ranges (RFC 6890 special-purpose registries). */
export const SERVER_FILTERS = [
  '/ip4/10.0.0.0/ipcidr/8', '/ip4/100.64.0.0/ipcidr/10', '/ip4/127.0.0.0/ipcidr/8', '/ip4/169.254.0.0/ipcidr/16',
  '/ip4/172.16.0.0/ipcidr/12', '/ip4/192.0.0.0/ipcidr/24', '/ip4/192.0.2.0/ipcidr/24', '/ip4/192.168.0.0/ipcidr/16',
  '/ip4/198.18.0.0/ipcidr/15', '/ip4/198.51.100.0/ipcidr/24', '/ip4/203.0.113.0/ipcidr/24', '/ip4/240.0.0.0/ipcidr/4',
  '/ip6/::/ipcidr/3', '/ip6/::1/ipcidr/128', '/ip6/100::/ipcidr/64', '/ip6/2001:2::/ipcidr/48', '/ip6/2001:db8::/ipcidr/32',
  '/ip6/fc00::/ipcidr/7', '/ip6/fe80::/ipcidr/10'
]

/** pebble.FormatNewest in the pebble v2 release Kubo 0.44 uses. */
const PEBBLE_FORMAT_NEWEST = 24

type Obj = { [k: string]: Json }
function sub (o: Obj, key: string): Obj {
  const v = getOwn(o, key)
  if (v == null || typeof v !== 'object' || Array.isArray(v)) setOwn(o, key, {})
  return getOwn(o, key) as Obj
}
const list = (v: Json | undefined): string[] => Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []

/** appendSingle: a ∪ b without duplicates, a's order first. */
function appendSingle (a: Json | undefined, b: string[]): string[] {
  return [...new Set([...list(a), ...b])]
}
/** deleteEntries (Kubo returns a Go map's keys, in random order; this keeps the original order). */
function deleteEntries (a: Json | undefined, del: string[]): string[] {
  return [...new Set(list(a))].filter(x => !del.includes(x))
}

function addressesConfig (): Obj {
  return {
    Swarm: [...DEFAULT_SWARM],
    Announce: [],
    AppendAnnounce: [],
    NoAnnounce: [],
    API: '/ip4/127.0.0.1/tcp/5001',
    Gateway: '/ip4/127.0.0.1/tcp/8080'
  }
}

function flatfsSpec (): Obj {
  return {
    mounts: [
      { mountpoint: '/blocks', path: 'blocks', prefix: 'flatfs.datastore', shardFunc: '/repo/flatfs/shard/v1/next-to-last/2', sync: false, type: 'flatfs' },
      { compression: 'none', mountpoint: '/', path: 'datastore', prefix: 'leveldb.datastore', type: 'levelds' }
    ],
    type: 'mount'
  }
}
function flatfsSpecMeasure (): Obj {
  return {
    mounts: [
      { child: { path: 'blocks', shardFunc: '/repo/flatfs/shard/v1/next-to-last/2', sync: false, type: 'flatfs' }, mountpoint: '/blocks', prefix: 'flatfs.datastore', type: 'measure' },
      { child: { compression: 'none', path: 'datastore', type: 'levelds' }, mountpoint: '/', prefix: 'leveldb.datastore', type: 'measure' }
    ],
    type: 'mount'
  }
}
const pebbleSpec = (): Obj => ({ formatMajorVersion: PEBBLE_FORMAT_NEWEST, path: 'pebbleds', prefix: 'pebble.datastore', type: 'pebbleds' })
const pebbleSpecMeasure = (): Obj => ({ child: { formatMajorVersion: PEBBLE_FORMAT_NEWEST, path: 'pebbleds', type: 'pebbleds' }, prefix: 'pebble.datastore', type: 'measure' })
const badgerSpec = (): Obj => ({ path: 'badgerds', prefix: 'badger.datastore', syncWrites: false, truncate: true, type: 'badgerds' })
const badgerSpecMeasure = (): Obj => ({ child: { path: 'badgerds', syncWrites: false, truncate: true, type: 'badgerds' }, prefix: 'badger.datastore', type: 'measure' })

function unixfsImport (v: { cid: number, raw: boolean, chunker: string, maxLinks: number, estimation: string }): (cfg: KuboConfig) => void {
  return (cfg) => {
    const imp = sub(cfg, 'Import')
    imp.CidVersion = v.cid
    imp.UnixFSRawLeaves = v.raw
    imp.UnixFSChunker = v.chunker
    imp.HashFunction = 'sha2-256'
    imp.UnixFSFileMaxLinks = v.maxLinks
    imp.UnixFSDirectoryMaxLinks = 0
    imp.UnixFSHAMTDirectoryMaxFanout = 256
    imp.UnixFSHAMTDirectorySizeThreshold = '256KiB'
    imp.UnixFSHAMTDirectorySizeEstimation = v.estimation
    imp.UnixFSDAGLayout = 'balanced'
  }
}
const unixfsV02015 = unixfsImport({ cid: 0, raw: false, chunker: 'size-262144', maxLinks: 174, estimation: 'links' })

const randomPort = (): number => 1024 + Math.floor(Math.random() * (65535 - 1024))

export const profiles: Record<string, Profile> = {
  server: {
    description: 'Disables local host discovery, recommended when\nrunning IPFS on machines with public IPv4 addresses.',
    apply: (cfg) => {
      const addrs = sub(cfg, 'Addresses')
      addrs.NoAnnounce = appendSingle(addrs.NoAnnounce, SERVER_FILTERS)
      const swarm = sub(cfg, 'Swarm')
      swarm.AddrFilters = appendSingle(swarm.AddrFilters, SERVER_FILTERS)
      sub(sub(cfg, 'Discovery'), 'MDNS').Enabled = false
      swarm.DisableNatPortMap = true
    }
  },
  'local-discovery': {
    description: 'Sets default values to fields affected by the server\nprofile, enables discovery in local networks.',
    apply: (cfg) => {
      const addrs = sub(cfg, 'Addresses')
      addrs.NoAnnounce = deleteEntries(addrs.NoAnnounce, SERVER_FILTERS)
      const swarm = sub(cfg, 'Swarm')
      swarm.AddrFilters = deleteEntries(swarm.AddrFilters, SERVER_FILTERS)
      sub(sub(cfg, 'Discovery'), 'MDNS').Enabled = true
      swarm.DisableNatPortMap = false
    }
  },
  test: {
    description: 'Reduces external interference of IPFS daemon, this\nis useful when using the daemon in test environments.',
    apply: (cfg) => {
      const addrs = sub(cfg, 'Addresses')
      addrs.API = '/ip4/127.0.0.1/tcp/0'
      addrs.Gateway = '/ip4/127.0.0.1/tcp/0'
      addrs.Swarm = ['/ip4/127.0.0.1/tcp/0']
      sub(cfg, 'Swarm').DisableNatPortMap = true
      sub(cfg, 'Routing').LoopbackAddressesOnLanDHT = true
      cfg.Bootstrap = []
      sub(sub(cfg, 'Discovery'), 'MDNS').Enabled = false
      sub(cfg, 'AutoTLS').Enabled = false
      sub(cfg, 'AutoConf').Enabled = false
      sub(cfg, 'DNS').Resolvers = {}
      sub(cfg, 'Routing').DelegatedRouters = []
      sub(cfg, 'Ipns').DelegatedPublishers = []
    }
  },
  'default-networking': {
    description: 'Restores default network settings.\nInverse profile of the test profile.',
    apply: (cfg) => {
      cfg.Addresses = addressesConfig()
      cfg.Bootstrap = [AUTO_PLACEHOLDER]
      const autoconf = sub(cfg, 'AutoConf')
      delete autoconf.Enabled
      delete autoconf.URL
      sub(cfg, 'Swarm').DisableNatPortMap = false
      sub(sub(cfg, 'Discovery'), 'MDNS').Enabled = true
      delete sub(cfg, 'AutoTLS').Enabled
    }
  },
  'default-datastore': {
    description: 'Configures the node to use the default datastore (flatfs).\n\nRead the "flatfs" profile description for more information on this datastore.\n\nThis profile may only be applied when first initializing the node.\n',
    initOnly: true,
    apply: (cfg) => { sub(cfg, 'Datastore').Spec = flatfsSpec() }
  },
  flatfs: {
    description: "Configures the node to use the flatfs datastore.\n\nThis is the most battle-tested and reliable datastore.\nYou should use this datastore if:\n\n* You need a very simple and very reliable datastore, and you trust your\n  filesystem. This datastore stores each block as a separate file in the\n  underlying filesystem so it's unlikely to loose data unless there's an issue\n  with the underlying file system.\n* You need to run garbage collection in a way that reclaims free space as soon as possible.\n* You want to minimize memory usage.\n* You are ok with the default speed of data import, or prefer to use --nocopy.\n\nSee configuration documentation at:\nhttps://github.com/ipfs/kubo/blob/master/docs/datastores.md#flatfs\n\nNOTE: This profile may only be applied when first initializing node at IPFS_PATH\n      via 'ipfs init --profile flatfs'\n",
    initOnly: true,
    apply: (cfg) => { sub(cfg, 'Datastore').Spec = flatfsSpec() }
  },
  'flatfs-measure': {
    description: "Configures the node to use the flatfs datastore with metrics tracking wrapper.\nAdditional '*_datastore_*' metrics will be exposed on /debug/metrics/prometheus\n\nNOTE: This profile may only be applied when first initializing node at IPFS_PATH\n      via 'ipfs init --profile flatfs-measure'\n",
    initOnly: true,
    apply: (cfg) => { sub(cfg, 'Datastore').Spec = flatfsSpecMeasure() }
  },
  pebbleds: {
    description: "Configures the node to use the pebble high-performance datastore.\n\nPebble is a LevelDB/RocksDB inspired key-value store focused on performance\nand internal usage by CockroachDB.\nYou should use this datastore if:\n\n- You need a datastore that is focused on performance.\n- You need reliability by default, but may choose to disable WAL for maximum performance when reliability is not critical.\n- This datastore is good for multi-terabyte data sets.\n- May benefit from tuning depending on read/write patterns and throughput.\n- Performance is helped significantly by running on a system with plenty of memory.\n\nSee configuration documentation at:\nhttps://github.com/ipfs/kubo/blob/master/docs/datastores.md#pebbleds\n\nNOTE: This profile may only be applied when first initializing node at IPFS_PATH\n      via 'ipfs init --profile pebbleds'\n",
    initOnly: true,
    apply: (cfg) => { sub(cfg, 'Datastore').Spec = pebbleSpec() }
  },
  'pebbleds-measure': {
    description: "Configures the node to use the pebble datastore with metrics tracking wrapper.\nAdditional '*_datastore_*' metrics will be exposed on /debug/metrics/prometheus\n\nNOTE: This profile may only be applied when first initializing node at IPFS_PATH\n      via 'ipfs init --profile pebbleds-measure'\n",
    initOnly: true,
    apply: (cfg) => { sub(cfg, 'Datastore').Spec = pebbleSpecMeasure() }
  },
  badgerds: {
    description: "DEPRECATED: Configures the node to use the legacy badgerv1 datastore.\nThis profile will be removed in a future Kubo release.\nNew deployments should use 'flatfs' or 'pebbleds' instead.\n\nNOTE: this is badger 1.x, which has known bugs and is no longer supported by the upstream team.\nIt is provided here only for pre-existing users, allowing them to migrate away to more modern datastore.\n\nOther caveats:\n\n* This datastore will not properly reclaim space when your datastore is\n  smaller than several gigabytes.  If you run IPFS with --enable-gc, you plan\n  on storing very little data in your IPFS node, and disk usage is more\n  critical than performance, consider using flatfs.\n* This datastore uses up to several gigabytes of memory.\n* Good for medium-size datastores, but may run into performance issues\n  if your dataset is bigger than a terabyte.\n\nTo migrate: create a new IPFS_PATH with 'ipfs init --profile=flatfs',\nmove pinned data via 'ipfs dag export/import' or 'ipfs pin ls -t recursive|add',\nand decommission the old badger-based node.\nWhen it comes to block storage, use experimental 'pebbleds' only if you are sure\nmodern 'flatfs' does not serve your use case (most users will be perfectly fine\nwith flatfs, it is also possible to keep flatfs for blocks and replace leveldb\nwith pebble if preferred over leveldb).\n\nSee configuration documentation at:\nhttps://github.com/ipfs/kubo/blob/master/docs/datastores.md#badgerds\n\nNOTE: This profile may only be applied when first initializing node at IPFS_PATH\n      via 'ipfs init --profile badgerds'\n",
    initOnly: true,
    apply: (cfg) => { sub(cfg, 'Datastore').Spec = badgerSpec() }
  },
  'badgerds-measure': {
    description: "DEPRECATED: Configures the node to use the legacy badgerv1 datastore with metrics wrapper.\nThis profile will be removed in a future Kubo release.\nNew deployments should use 'flatfs' or 'pebbleds' instead.\n\nNOTE: This profile may only be applied when first initializing node at IPFS_PATH\n      via 'ipfs init --profile badgerds-measure'\n",
    initOnly: true,
    apply: (cfg) => { sub(cfg, 'Datastore').Spec = badgerSpecMeasure() }
  },
  lowpower: {
    description: 'Reduces daemon overhead on the system. May affect node\nfunctionality - performance of content discovery and data\nfetching may be degraded.\n',
    apply: (cfg) => {
      sub(cfg, 'Routing').Type = 'autoclient'
      sub(cfg, 'AutoNAT').ServiceMode = 'disabled'
      sub(sub(cfg, 'Swarm'), 'RelayService').Enabled = false
      const cm = sub(sub(cfg, 'Swarm'), 'ConnMgr')
      cm.Type = 'basic'
      cm.LowWater = 20
      cm.HighWater = 40
      cm.GracePeriod = '1m0s'
    }
  },
  'announce-off': {
    description: 'Disables Provide system (announcing to Amino DHT).\n\n\t\tUSE WITH CAUTION:\n\t\tThe main use case for this is setups with manual Peering.Peers config.\n\t\tData from this node will not be announced on the DHT. This will make\n\t\tDHT-based routing and data retrieval impossible if this node is the only\n\t\tone hosting it, and other peers are not already connected to it.\n',
    apply: (cfg) => {
      const p = sub(cfg, 'Provide')
      p.Enabled = false
      sub(p, 'DHT').Interval = '0s'
    }
  },
  'announce-on': {
    description: 'Re-enables Provide system (reverts announce-off profile).',
    apply: (cfg) => {
      const p = sub(cfg, 'Provide')
      p.Enabled = true
      sub(p, 'DHT').Interval = '22h0m0s'
    }
  },
  randomports: {
    description: 'Use a random port number for swarm.',
    apply: (cfg, opts) => {
      const port = opts?.port ?? randomPort()
      sub(cfg, 'Addresses').Swarm = [`/ip4/0.0.0.0/tcp/${port}`, `/ip6/::/tcp/${port}`]
    }
  },
  'unixfs-v0-2015': {
    description: 'Legacy UnixFS import profile for backward-compatible CID generation.\nProduces CIDv0 with no raw leaves, sha2-256, 256 KiB chunks, and\nlink-based HAMT size estimation. Use only when legacy CIDs are required.\nSee https://specs.ipfs.tech/ipips/ipip-0499/. Alias: legacy-cid-v0',
    apply: unixfsV02015
  },
  'legacy-cid-v0': {
    description: 'Alias for unixfs-v0-2015 profile.',
    apply: unixfsV02015
  },
  'unixfs-v1-2025': {
    description: 'Recommended UnixFS import profile for cross-implementation CID determinism.\nUses CIDv1, raw leaves, sha2-256, 1 MiB chunks, 1024 links per file node,\n256 HAMT fanout, and block-based size estimation for HAMT threshold.\nSee https://specs.ipfs.tech/ipips/ipip-0499/',
    apply: unixfsImport({ cid: 1, raw: true, chunker: 'size-1048576', maxLinks: 1024, estimation: 'block' })
  },
  'autoconf-on': {
    description: 'Sets configuration to use implicit defaults from remote autoconf service.\nBootstrap peers, DNS resolvers, delegated routers, and IPNS delegated publishers are set to "auto".\nThis profile requires AutoConf to be enabled and configured.',
    apply: (cfg) => {
      cfg.Bootstrap = [AUTO_PLACEHOLDER]
      sub(cfg, 'DNS').Resolvers = { '.': AUTO_PLACEHOLDER }
      sub(cfg, 'Routing').DelegatedRouters = [AUTO_PLACEHOLDER]
      sub(cfg, 'Ipns').DelegatedPublishers = [AUTO_PLACEHOLDER]
      const ac = sub(cfg, 'AutoConf')
      ac.Enabled = true
      if (ac.URL == null) ac.URL = DEFAULT_AUTOCONF_URL
    }
  },
  'autoconf-off': {
    description: 'Disables AutoConf and sets networking fields to empty for manual configuration.\nBootstrap peers, DNS resolvers, delegated routers, and IPNS delegated publishers are set to empty.\nUse this when you want normal networking but prefer manual control over all endpoints.',
    apply: (cfg) => {
      cfg.Bootstrap = null
      sub(cfg, 'DNS').Resolvers = null
      sub(cfg, 'Routing').DelegatedRouters = null
      sub(cfg, 'Ipns').DelegatedPublishers = null
      sub(cfg, 'AutoConf').Enabled = false
    }
  }
}

/** Kubo's `config profile` help: each profile, sorted by name, description indented. */
export function profileHelp (): string {
  return Object.keys(profiles).sort().map(name =>
    `  '${name}':\n${profiles[name].description.split('\n').map(l => '    ' + l).join('\n')}\n`).join('')
}

/**
 * Apply a comma-separated profile list (init); unknown names fail with Kubo's init text. Afterwards
 * the config is re-encoded as Kubo's struct would be (field order, omitempty), when it decodes.
 */
export function applyProfiles (cfg: KuboConfig, names: string): void {
  if (names === '') return
  for (const name of names.split(',')) {
    const profile = profiles[name]
    if (profile == null) throw new Error(`invalid configuration profile: ${name}`)
    profile.apply(cfg)
  }
  let normalized: KuboConfig
  try { normalized = normalizeConfig(cfg) } catch { return }
  for (const k of Object.keys(cfg)) delete cfg[k]
  for (const [k, v] of Object.entries(normalized)) setOwn(cfg, k, v)
}
