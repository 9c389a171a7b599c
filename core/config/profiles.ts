// Config profiles (Kubo config/profile.go): `init --profile a,b` and `config profile apply`.
import { DEFAULT_SWARM, type Json, type KuboConfig } from './defaults.js'

export interface Profile {
  description: string
  /** datastore profiles only make sense at init */
  initOnly?: boolean
  apply: (cfg: KuboConfig) => void
}

const NON_PUBLIC = [
  '/ip4/10.0.0.0/ipcidr/8', '/ip4/100.64.0.0/ipcidr/10', '/ip4/127.0.0.0/ipcidr/8', '/ip4/169.254.0.0/ipcidr/16',
  '/ip4/172.16.0.0/ipcidr/12', '/ip4/192.0.0.0/ipcidr/24', '/ip4/192.0.2.0/ipcidr/24', '/ip4/192.168.0.0/ipcidr/16',
  '/ip4/198.18.0.0/ipcidr/15', '/ip4/198.51.100.0/ipcidr/24', '/ip4/203.0.113.0/ipcidr/24', '/ip4/240.0.0.0/ipcidr/4',
  '/ip6/100::/ipcidr/64', '/ip6/2001:2::/ipcidr/48', '/ip6/2001:db8::/ipcidr/32', '/ip6/fc00::/ipcidr/7', '/ip6/fe80::/ipcidr/10'
]
// Kubo's list also has ::/3 and ::1/128 at the front of the ipv6 part
const NON_PUBLIC_ALL = [...NON_PUBLIC.slice(0, 12), '/ip6/::/ipcidr/3', '/ip6/::1/ipcidr/128', ...NON_PUBLIC.slice(12)]

function obj (cfg: KuboConfig, key: string): { [k: string]: Json } {
  const v = cfg[key]
  if (v == null || typeof v !== 'object' || Array.isArray(v)) cfg[key] = {}
  return cfg[key] as { [k: string]: Json }
}
function sub (o: { [k: string]: Json }, key: string): { [k: string]: Json } {
  const v = o[key]
  if (v == null || typeof v !== 'object' || Array.isArray(v)) o[key] = {}
  return o[key] as { [k: string]: Json }
}
function appendUnique (list: Json | undefined, add: string[]): string[] {
  const out = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []
  for (const a of add) if (!out.includes(a)) out.push(a)
  return out
}
function removeAll (list: Json | undefined, drop: string[]): string[] {
  return (Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []).filter(x => !drop.includes(x))
}

function importProfile (v: { cid: number, raw: boolean, chunker: string, maxLinks: number, estimation: string }): (cfg: KuboConfig) => void {
  return (cfg) => {
    const imp = obj(cfg, 'Import')
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

const randomPort = (): number => 1024 + Math.floor(Math.random() * (65535 - 1024))

export const profiles: Record<string, Profile> = {
  server: {
    description: 'Disables local host discovery, recommended when running IPFS on machines with public IPv4 addresses.',
    apply: (cfg) => {
      const addrs = obj(cfg, 'Addresses')
      addrs.NoAnnounce = appendUnique(addrs.NoAnnounce, NON_PUBLIC_ALL)
      const swarm = obj(cfg, 'Swarm')
      swarm.AddrFilters = appendUnique(swarm.AddrFilters, NON_PUBLIC_ALL)
      sub(obj(cfg, 'Discovery'), 'MDNS').Enabled = false
      swarm.DisableNatPortMap = true
    }
  },
  'local-discovery': {
    description: 'Sets default values to fields affected by the server profile, enables discovery in local networks.',
    apply: (cfg) => {
      const addrs = obj(cfg, 'Addresses')
      addrs.NoAnnounce = removeAll(addrs.NoAnnounce, NON_PUBLIC_ALL)
      const swarm = obj(cfg, 'Swarm')
      swarm.AddrFilters = removeAll(swarm.AddrFilters, NON_PUBLIC_ALL)
      sub(obj(cfg, 'Discovery'), 'MDNS').Enabled = true
      swarm.DisableNatPortMap = false
    }
  },
  test: {
    description: 'Reduces external interference of IPFS daemon, this is useful when using the daemon in test environments.',
    apply: (cfg) => {
      const addrs = obj(cfg, 'Addresses')
      addrs.API = '/ip4/127.0.0.1/tcp/0'
      addrs.Gateway = '/ip4/127.0.0.1/tcp/0'
      addrs.Swarm = ['/ip4/127.0.0.1/tcp/0']
      const swarm = obj(cfg, 'Swarm')
      swarm.DisableNatPortMap = true
      obj(cfg, 'Routing').LoopbackAddressesOnLanDHT = true
      cfg.Bootstrap = []
      sub(obj(cfg, 'Discovery'), 'MDNS').Enabled = false
      obj(cfg, 'AutoTLS').Enabled = false
      obj(cfg, 'AutoConf').Enabled = false
      obj(cfg, 'DNS').Resolvers = {}
      obj(cfg, 'Routing').DelegatedRouters = []
      obj(cfg, 'Ipns').DelegatedPublishers = []
    }
  },
  'default-networking': {
    description: 'Restores default network settings. Inverse profile of the test profile.',
    apply: (cfg) => {
      const addrs = obj(cfg, 'Addresses')
      addrs.API = '/ip4/127.0.0.1/tcp/5001'
      addrs.Gateway = '/ip4/127.0.0.1/tcp/8080'
      addrs.Swarm = [...DEFAULT_SWARM]
      cfg.Bootstrap = ['auto']
      const autoconf = obj(cfg, 'AutoConf')
      delete autoconf.Enabled
      delete autoconf.URL
      obj(cfg, 'Swarm').DisableNatPortMap = false
      sub(obj(cfg, 'Discovery'), 'MDNS').Enabled = true
      delete obj(cfg, 'AutoTLS').Enabled
    }
  },
  'default-datastore': { description: 'Configures the node to use the default datastore (flatfs).', initOnly: true, apply: () => {} },
  flatfs: { description: 'Configures the node to use the flatfs datastore.', initOnly: true, apply: () => {} },
  lowpower: {
    description: 'Reduces daemon overhead on the system.',
    apply: (cfg) => {
      obj(cfg, 'Routing').Type = 'autoclient'
      obj(cfg, 'AutoNAT').ServiceMode = 'disabled'
      sub(obj(cfg, 'Swarm'), 'RelayService').Enabled = false
      const cm = sub(obj(cfg, 'Swarm'), 'ConnMgr')
      cm.Type = 'basic'
      cm.LowWater = 20
      cm.HighWater = 40
      cm.GracePeriod = '1m0s'
    }
  },
  'announce-off': {
    description: 'Disables Provide system (announcing to Amino DHT).',
    apply: (cfg) => {
      const p = obj(cfg, 'Provide')
      p.Enabled = false
      sub(p, 'DHT').Interval = '0'
    }
  },
  'announce-on': {
    description: 'Re-enables Provide system (reverts announce-off profile).',
    apply: (cfg) => {
      const p = obj(cfg, 'Provide')
      p.Enabled = true
      sub(p, 'DHT').Interval = '22h'
    }
  },
  randomports: {
    description: 'Use a random port number for swarm.',
    apply: (cfg) => {
      const port = randomPort()
      obj(cfg, 'Addresses').Swarm = [`/ip4/0.0.0.0/tcp/${port}`, `/ip6/::/tcp/${port}`]
    }
  },
  'unixfs-v0-2015': {
    description: 'Legacy UnixFS import profile for backward-compatible CID generation.',
    apply: importProfile({ cid: 0, raw: false, chunker: 'size-262144', maxLinks: 174, estimation: 'links' })
  },
  'legacy-cid-v0': {
    description: 'Alias for unixfs-v0-2015 profile.',
    apply: importProfile({ cid: 0, raw: false, chunker: 'size-262144', maxLinks: 174, estimation: 'links' })
  },
  'unixfs-v1-2025': {
    description: 'Recommended UnixFS import profile for cross-implementation CID determinism (IPIP-499).',
    apply: importProfile({ cid: 1, raw: true, chunker: 'size-1048576', maxLinks: 1024, estimation: 'block' })
  },
  'autoconf-on': {
    description: 'Sets configuration to use implicit defaults from remote autoconf service.',
    apply: (cfg) => {
      cfg.Bootstrap = ['auto']
      obj(cfg, 'DNS').Resolvers = { '.': 'auto' }
      obj(cfg, 'Routing').DelegatedRouters = ['auto']
      obj(cfg, 'Ipns').DelegatedPublishers = ['auto']
      obj(cfg, 'AutoConf').Enabled = true
    }
  },
  'autoconf-off': {
    description: 'Disables AutoConf and sets networking fields to empty for manual configuration.',
    apply: (cfg) => {
      cfg.Bootstrap = null
      obj(cfg, 'DNS').Resolvers = null
      obj(cfg, 'Routing').DelegatedRouters = null
      obj(cfg, 'Ipns').DelegatedPublishers = null
      obj(cfg, 'AutoConf').Enabled = false
    }
  }
}

/** Apply a comma-separated profile list; unknown names fail with Kubo's init text. */
export function applyProfiles (cfg: KuboConfig, list: string): void {
  for (const name of list.split(',').map(s => s.trim()).filter(s => s !== '')) {
    const profile = profiles[name]
    if (profile == null) throw new Error(`invalid configuration profile: ${name}`)
    profile.apply(cfg)
  }
}
