// Checks on an edited config before `config replace`: JSON syntax, then the shape of the keys Kubo
// (and tsipfs) read, so a typo does not leave a daemon that will not start.

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

const isObj = (v: unknown): v is Record<string, unknown> => v != null && typeof v === 'object' && !Array.isArray(v)
const isStrList = (v: unknown): boolean => Array.isArray(v) && v.every(x => typeof x === 'string')
const isMaddr = (v: unknown): boolean => typeof v === 'string' && /^\/(ip4|ip6|dns|dns4|dns6|dnsaddr|unix|p2p|ipfs)\//.test(v)
const SIZE = /^\s*\d+(\.\d+)?\s*([kmgtp]i?)?b?\s*$/i
const DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/

const BOOLS = [
  'Gateway.NoFetch', 'Gateway.NoDNSLink', 'Gateway.DeserializedResponses', 'Gateway.DisableHTMLErrors', 'Gateway.ExposeRoutingAPI',
  'Experimental.FilestoreEnabled', 'Experimental.UrlstoreEnabled', 'Experimental.Libp2pStreamMounting', 'Experimental.P2pHttpProxy',
  'Pubsub.Enabled', 'Ipns.UsePubsub', 'Discovery.MDNS.Enabled', 'Swarm.DisableNatPortMap', 'AutoConf.Enabled'
]

function get (cfg: unknown, path: string): unknown {
  let v: unknown = cfg
  for (const k of path.split('.')) v = isObj(v) ? v[k] : undefined
  return v
}

export function validateConfig (text: string, current: Record<string, any>): { value?: Json, errors: string[] } {
  let value: Json
  try {
    value = JSON.parse(text)
  } catch (e) {
    return { errors: [`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`] }
  }
  const errors: string[] = []
  if (!isObj(value)) return { value, errors: ['The config must be a JSON object.'] }
  for (const [k, v] of Object.entries(value)) {
    if (k === 'Bootstrap') continue
    if (v != null && !isObj(v)) errors.push(`${k} must be an object.`)
  }
  const id = value.Identity
  if (!isObj(id)) errors.push('Identity is missing.')
  else {
    if ('PrivKey' in id) errors.push('Identity.PrivKey cannot be set through the API: remove it (the node keeps its key).')
    if (typeof current.Identity?.PeerID === 'string' && id.PeerID !== current.Identity.PeerID) errors.push(`Identity.PeerID must stay ${String(current.Identity.PeerID)}.`)
  }
  const addrs = value.Addresses
  if (isObj(addrs)) {
    for (const k of ['API', 'Gateway']) {
      const v = addrs[k]
      if (v == null) continue
      const list = typeof v === 'string' ? [v] : Array.isArray(v) ? v : null
      if (list == null || !list.every(isMaddr)) errors.push(`Addresses.${k} must be a multiaddr or a list of multiaddrs.`)
    }
    for (const k of ['Swarm', 'Announce', 'AppendAnnounce', 'NoAnnounce']) {
      const v = addrs[k]
      if (v != null && (!Array.isArray(v) || !v.every(x => typeof x === 'string'))) errors.push(`Addresses.${k} must be a list of multiaddrs.`)
      else if (Array.isArray(v) && k !== 'NoAnnounce' && !v.every(isMaddr)) errors.push(`Addresses.${k} has an entry that is not a multiaddr.`)
    }
  }
  if (value.Bootstrap != null && (!isStrList(value.Bootstrap) || !(value.Bootstrap as string[]).every(isMaddr))) errors.push('Bootstrap must be a list of multiaddrs (or null).')
  const max = get(value, 'Datastore.StorageMax')
  if (max != null && (typeof max !== 'string' || !SIZE.test(max))) errors.push('Datastore.StorageMax must be a size such as "10GB".')
  const wm = get(value, 'Datastore.StorageGCWatermark')
  if (wm != null && (typeof wm !== 'number' || wm < 0 || wm > 100)) errors.push('Datastore.StorageGCWatermark must be a number from 0 to 100.')
  const period = get(value, 'Datastore.GCPeriod')
  if (period != null && (typeof period !== 'string' || !DURATION.test(period))) errors.push('Datastore.GCPeriod must be a duration such as "1h".')
  const headers = get(value, 'API.HTTPHeaders')
  if (headers != null && (!isObj(headers) || !Object.values(headers).every(isStrList))) errors.push('API.HTTPHeaders must map header names to lists of strings.')
  const auth = get(value, 'API.Authorizations')
  if (auth != null) {
    if (!isObj(auth)) errors.push('API.Authorizations must be an object (or null).')
    else {
      for (const [user, a] of Object.entries(auth)) {
        if (!isObj(a) || typeof a.AuthSecret !== 'string') errors.push(`API.Authorizations.${user}.AuthSecret must be a string.`)
        else if (a.AllowedPaths != null && !isStrList(a.AllowedPaths)) errors.push(`API.Authorizations.${user}.AllowedPaths must be a list of paths.`)
      }
    }
  }
  for (const k of BOOLS) {
    const v = get(value, k)
    if (v != null && typeof v !== 'boolean') errors.push(`${k} must be true or false.`)
  }
  const plugins = get(value, 'Plugins.Plugins')
  if (plugins != null && (!isObj(plugins) || !Object.values(plugins).every(p => p == null || isObj(p)))) errors.push('Plugins.Plugins must map plugin names to objects.')
  return { value, errors }
}

/** Flattened key paths whose values differ between two configs. */
export function diffConfig (a: unknown, b: unknown, prefix = ''): string[] {
  if (isObj(a) && isObj(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)])
    return [...keys].sort().flatMap(k => diffConfig(a[k], b[k], prefix === '' ? k : `${prefix}.${k}`))
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix === '' ? '(root)' : prefix]
}
