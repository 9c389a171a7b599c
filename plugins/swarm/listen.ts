// ipfs swarm addrs listen (kubo swarmAddrsListenCmd): the interface addresses listened on
// (wildcards expanded to each interface's address).
import os from 'node:os'
import { defineCommand } from '../../registry/define.js'
import { coreOnline, stringListText, type StringList } from './common.js'

const cmp = (a: string, b: string): number => a < b ? -1 : a > b ? 1 : 0

/** 0.0.0.0 / :: expanded to each interface address of that family (manet.ResolveUnspecifiedAddresses) */
export function expandWildcards (addrs: string[]): string[] {
  const ifaces = Object.values(os.networkInterfaces()).flatMap(l => l ?? [])
  const out: string[] = []
  for (const a of addrs) {
    const m = /^\/(ip4|ip6)\/(0\.0\.0\.0|::)(\/.*)$/.exec(a)
    if (m == null) { out.push(a); continue }
    for (const i of ifaces) {
      if ((m[1] === 'ip4') !== (i.family === 'IPv4')) continue
      if (i.family === 'IPv6' && i.scopeid != null && i.scopeid !== 0) continue
      out.push(`/${m[1]}/${i.address}${m[3]}`)
    }
  }
  return [...new Set(out)]
}

export const swarmAddrsListen = defineCommand({
  path: ['swarm', 'addrs', 'listen'],
  description: 'List interface listening addresses.',
  help: "'ipfs swarm addrs listen' lists all interface addresses the node is listening on.",
  output: 'single',
  run: async ({ options, deps: { libp2p, network } }): Promise<StringList> => {
    const { libp2p: host } = coreOnline(libp2p, network, options.offline)
    const tm = (host as unknown as { components?: { transportManager?: { getAddrs: () => Array<{ toString: () => string }> } } }).components?.transportManager
    const bound = tm != null ? tm.getAddrs().map(a => a.toString()) : host.getMultiaddrs().map(a => a.toString().replace(/\/p2p\/[^/]+$/, ''))
    const addrs = expandWildcards(bound).sort(cmp)
    return { Strings: addrs.length > 0 ? addrs : null }
  },
  text: stringListText
})
