// Shared by the pin remote commands (kubo core/commands/pin/remotepin.go): the service lookup in
// Pinning.RemoteServices, endpoint normalisation, the ls/rm filters and the output shapes.
import type { CID } from 'multiformats/cid'
import type { ConfigStore, Json } from '../../core/config/index.js'
import { RpcError } from '../../core/errors.js'
import { escNonPrint } from '../../core/go/strings.js'
import { PIN_STATUSES, PinningServiceClient, type LsFilter, type PinStatusName, type RemotePinStatus } from '../../core/pinning/client.js'
import { cidFromArg, decodeGoCid, goPathClean } from '../../core/resolver/path.js'
import { getOwn } from '../../core/util/own.js'
import type { OptionSpec } from '../../registry/types.js'
import { validatePinName } from '../shared/cmdutils.js'

/** RemotePinOutput */
export interface RemotePinOutput { Status: string, Cid: string, Name: string }

export interface RemoteServiceConfig {
  API: { Endpoint: string, Key: string }
  Policies: { MFS: { Enable: boolean, PinName: string, RepinInterval: string } }
}

export const serviceOption = {
  service: { type: 'string', description: 'Name of the remote pinning service to use (mandatory).' }
} as const satisfies Record<string, OptionSpec>

const isObject = (v: unknown): v is Record<string, Json> => v != null && typeof v === 'object' && !Array.isArray(v)
const str = (v: unknown): string => typeof v === 'string' ? v : ''

/** The configured services (Pinning.RemoteServices), each with Kubo's zero values filled in. */
export function remoteServices (config: ConfigStore): Map<string, RemoteServiceConfig> {
  const out = new Map<string, RemoteServiceConfig>()
  const pinning = config.get().Pinning
  const services = isObject(pinning) ? pinning.RemoteServices : undefined
  if (!isObject(services)) return out
  for (const [name, raw] of Object.entries(services)) {
    const svc = isObject(raw) ? raw : {}
    const api = isObject(svc.API) ? svc.API : {}
    const policies = isObject(svc.Policies) ? svc.Policies : {}
    const mfs = isObject(policies.MFS) ? policies.MFS : {}
    out.set(name, {
      API: { Endpoint: str(api.Endpoint), Key: str(api.Key) },
      Policies: { MFS: { Enable: mfs.Enable === true, PinName: str(mfs.PinName), RepinInterval: str(mfs.RepinInterval) } }
    })
  }
  return out
}

/** normalizeEndpoint: http(s) only, path cleaned, no trailing slash, no query, no /pins suffix. */
export function normalizeEndpoint (endpoint: string): string {
  let uri: URL | undefined
  // Go's url.ParseRequestURI: an absolute URL (a bare path has no http scheme either)
  try { uri = new URL(endpoint) } catch {}
  if (uri == null || !(uri.protocol === 'http:' || uri.protocol === 'https:') || !/^https?:\/\/[^/]/i.test(endpoint)) {
    throw new RpcError('service endpoint must be a valid HTTP URL')
  }
  let p = goPathClean(uri.pathname)
  if (p.endsWith('.')) p = p.slice(0, -1)
  if (p.endsWith('/')) p = p.slice(0, -1)
  if (uri.search !== '') throw new RpcError('service endpoint should be provided without any query parameters')
  if (p.endsWith('/pins')) throw new RpcError('service endpoint should be provided without the /pins suffix')
  const auth = uri.username !== '' ? `${uri.username}${uri.password !== '' ? ':' + uri.password : ''}@` : ''
  return `${uri.protocol}//${auth}${uri.host}${p}${uri.hash}`
}

/** getRemotePinService: a client for a configured service. */
export function remotePinService (config: ConfigStore, name: string): PinningServiceClient {
  if (name === '') throw new RpcError('remote pinning service name not specified')
  const service = getOwn(Object.fromEntries(remoteServices(config)), name)
  if (service == null) throw new RpcError('service not known')
  return new PinningServiceClient(normalizeEndpoint(service.API.Endpoint), service.API.Key)
}

/** getRemotePinServiceFromRequest: --service is mandatory. */
export function serviceFromRequest (config: ConfigStore, service: string | undefined): PinningServiceClient {
  if (service == null) throw new RpcError('a service name must be passed')
  return remotePinService(config, service)
}

/** lsRemote's option checks: the filter for GET /pins. */
export function lsFilter (options: { name?: string, cid?: string[], status?: string[] }): LsFilter {
  const filter: LsFilter = {}
  if (options.name != null) {
    validatePinName(options.name)
    filter.name = options.name
  }
  if (options.cid != null) {
    filter.cid = options.cid.map(raw => {
      let cid: CID
      try {
        cid = decodeGoCid(raw)
      } catch (err) {
        try { cid = cidFromArg(raw) } catch { throw new RpcError(`CID ${JSON.stringify(raw)} cannot be parsed: ${(err as Error).message}`) }
      }
      // boxo sends CIDv1 in base32 (a CIDv0 stays base58btc)
      return cid.toString()
    })
  }
  if (options.status != null) {
    filter.status = options.status.map(s => {
      if (!(PIN_STATUSES as readonly string[]).includes(s)) throw new RpcError(`status ${JSON.stringify(s)} is not valid`)
      return s as PinStatusName
    })
  }
  return filter
}

export function toRemotePinOutput (ps: RemotePinStatus, encode: (cid: CID) => string): RemotePinOutput {
  const raw = str(ps?.pin?.cid)
  let cid = raw
  try { cid = encode(decodeGoCid(raw)) } catch {}
  return { Status: str(ps?.status), Cid: cid, Name: str(ps?.pin?.name) }
}

/** pin remote ls: `cid\tstatus\tname` */
export const remotePinLine = (out: RemotePinOutput): string => `${out.Cid}\t${out.Status}\t${escNonPrint(out.Name)}\n`
