// ipfs swarm resources (kubo swarmResourcesCmd, experimental): the limits Kubo would compute for
// Swarm.ResourceMgr (system, transient, the bundled services and protocols) and the live usage, with the
// protocols and peers in use (core/libp2p/resources.ts). Beyond Kubo: "Refused" lists how many connections
// each limit refused (absent while none was).
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import { tabwrite } from '../../core/util/tabwriter.js'

const ERR_NO_RCMGR = 'missing ResourceMgr: make sure the daemon is running with Swarm.ResourceMgr.Enabled'

type Scope = Record<string, string | number>
/** rcmgr limit names, in Kubo's order (a copy: core/libp2p is not loaded by an offline node) */
const LIMIT_NAMES = ['Memory', 'FD', 'Conns', 'ConnsInbound', 'ConnsOutbound', 'Streams', 'StreamsInbound', 'StreamsOutbound'] as const
export interface ResourcesOutput {
  System: Scope
  Transient: Scope
  Services: Record<string, Scope>
  Protocols: Record<string, Scope>
  Peers?: Record<string, Scope>
  Refused?: Record<string, number>
}

export const swarmResources = defineCommand({
  path: ['swarm', 'resources'],
  status: 'experimental',
  description: 'Get a summary of all resources accounted for by the libp2p Resource Manager.',
  help: 'Get a summary of all resources accounted for by the libp2p Resource Manager.\nThis includes the limits and the usage against those limits.\nThis can output a human readable table and JSON encoding.',
  output: 'single',
  run: async ({ deps: { network } }): Promise<ResourcesOutput> => {
    if (network == null || !network.settings.resourceMgr.enabled) throw new RpcError(ERR_NO_RCMGR)
    const { scopeWire, scopesWire } = await import('../../core/libp2p/resources.js')
    const r = network.resources
    const scopes = r.scopes()
    const out: ResourcesOutput = {
      System: scopeWire(r.limits.System, r.usage()),
      Transient: scopeWire(r.limits.Transient, r.usage(c => c.transient === true)),
      Services: scopesWire(r.limits.Services, scopes.services),
      Protocols: scopesWire(r.limits.Protocols, scopes.protocols)
    }
    // Kubo omits an empty Peers map
    if (scopes.peers.size > 0) out.Peers = scopesWire({}, scopes.peers)
    if (r.refusals.size > 0) out.Refused = Object.fromEntries(r.refusals)
    return out
  },
  text: (out) => {
    const rows = ['Scope\tLimit Name\tLimit Value\tLimit Usage Amount\tLimit Usage Percent\t']
    const scopes: Array<[string, Scope]> = [['system', out.System], ['transient', out.Transient],
      ...Object.entries(out.Services).map(([k, v]): [string, Scope] => [`svc:${k}`, v]),
      ...Object.entries(out.Protocols).map(([k, v]): [string, Scope] => [`proto:${k}`, v]),
      ...Object.entries(out.Peers ?? {}).map(([k, v]): [string, Scope] => [`peer:${k}`, v])]
    for (const [name, scope] of scopes) {
      for (const limitName of LIMIT_NAMES) {
        const value = scope[limitName]
        const usage = Number(scope[`${limitName}Usage`] ?? 0)
        // LimitConfigsToInfo leaves out unlimited and unset limits
        if (value === 'unlimited' || value === 'default' || value == null) continue
        let limit: string
        let percent: string
        if (value === 'blockAll') { limit = 'blockAll'; percent = 'n/a' } else {
          limit = String(value)
          percent = usage === 0 ? '0%' : `${(usage / Number(value) * 100).toFixed(1)}%`
        }
        rows.push(`${name}\t${limitName}\t${limit}\t${usage}\t${percent}\t`)
      }
    }
    let text = tabwrite(rows.join('\n') + '\n', { minwidth: 20, tabwidth: 8, padding: 0, padchar: '\t', flags: 0 })
    for (const [limit, n] of Object.entries(out.Refused ?? {})) text += `refused by ${limit}: ${n}\n`
    return text
  }
})
