// ipfs pin remote service ls [--stat] (kubo remotepin.go lsRemotePinServiceCmd): the configured services
// sorted by name; --stat asks each for its pin count per status (limit=1 queries, the four at once) and
// marks a service that does not answer "invalid".
import { defineCommand } from '../../registry/define.js'
import { tabwrite } from '../../core/util/tabwriter.js'
import { PIN_STATUSES } from '../../core/pinning/client.js'
import { remotePinService, remoteServices } from './common.js'

export interface PinCount { Queued: number, Pinning: number, Pinned: number, Failed: number }
export interface ServiceDetails { Service: string, ApiEndpoint: string, Stat?: { Status: 'valid' | 'invalid', PinCount?: PinCount } }
export interface PinServicesList { RemoteServices: ServiceDetails[] }

export const pinRemoteServiceLs = defineCommand({
  path: ['pin', 'remote', 'service', 'ls'],
  description: 'List remote pinning services.',
  help: `List remote pinning services.

By default, only a name and an endpoint are listed; however, one can pass
'--stat' to test each endpoint by fetching pin counts for each state:

  $ ipfs pin remote service ls --stat
  goodsrv   https://pin-api.example.com 0/0/0/0
  badsrv    https://bad-api.example.com invalid

TIP: pass '--enc=json' for more useful JSON output.`,
  options: {
    stat: { type: 'bool', default: false, description: 'Try to fetch and display current pin count on remote service (queued/pinning/pinned/failed).' }
  },
  output: 'single',
  async run ({ options, deps: { config }, signal }): Promise<PinServicesList> {
    const services = [...remoteServices(config)]
    const list = await Promise.all(services.map(async ([name, svc]): Promise<ServiceDetails> => {
      const details: ServiceDetails = { Service: name, ApiEndpoint: svc.API.Endpoint }
      if (!options.stat) return details
      try {
        const client = remotePinService(config, name)
        const counts = await Promise.all(PIN_STATUSES.map(async s => (await client.lsBatch({ status: [s], limit: 1 }, signal)).count))
        details.Stat = { Status: 'valid', PinCount: { Queued: counts[0], Pinning: counts[1], Pinned: counts[2], Failed: counts[3] } }
      } catch {
        details.Stat = { Status: 'invalid' }
      }
      return details
    }))
    list.sort((a, b) => a.Service < b.Service ? -1 : a.Service > b.Service ? 1 : 0)
    return { RemoteServices: list }
  },
  text: (list, call) => tabwrite(list.RemoteServices.map(s => {
    if (call.options.stat !== true) return `${s.Service}\t${s.ApiEndpoint}\n`
    const pc = s.Stat?.PinCount
    const stat = pc != null ? `${pc.Queued}/${pc.Pinning}/${pc.Pinned}/${pc.Failed}` : s.Stat?.Status ?? ''
    return `${s.Service}\t${s.ApiEndpoint}\t${stat}\n`
  }).join(''), { minwidth: 1, tabwidth: 2, padding: 1 })
})
