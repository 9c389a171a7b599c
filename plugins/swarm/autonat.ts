// ipfs swarm addrs autonat (kubo swarm_addrs_autonat.go): reachability of our addresses. js-libp2p's
// AutoNAT (v1) marks the addresses other peers confirmed by dialling back; those are "reachable",
// the rest of our announced addresses "unknown".
import { defineCommand } from '../../registry/define.js'
import { online } from './common.js'
import type { AutoNatResult } from './output.js'

interface AddrMeta { multiaddr: { toString: () => string }, verified: boolean, type: string }

export const swarmAddrsAutonat = defineCommand({
  path: ['swarm', 'addrs', 'autonat'],
  description: 'Show address reachability as determined by AutoNAT V2.',
  help: "'ipfs swarm addrs autonat' shows the reachability status of your node's\naddresses as determined by AutoNAT V2.",
  output: 'single',
  run: async ({ deps: { libp2p, network } }): Promise<AutoNatResult> => {
    const { libp2p: host } = online(libp2p, network)
    const am = (host as unknown as { components?: { addressManager?: { getAddressesWithMetadata?: () => AddrMeta[] } } }).components?.addressManager
    const meta = am?.getAddressesWithMetadata?.() ?? []
    const reachable = meta.filter(m => m.verified && m.type !== 'transport').map(m => m.multiaddr.toString())
    const unknown = meta.filter(m => !m.verified && m.type === 'observed').map(m => m.multiaddr.toString())
    const out: AutoNatResult = { reachability: reachable.some(a => !/^\/ip[46]\/(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|::1\/|f[cde])/.test(a)) ? 'Public' : 'Unknown' }
    if (reachable.length > 0) out.reachable = reachable
    if (unknown.length > 0) out.unknown = unknown
    return out
  },
  text: (r) => {
    let s = `AutoNAT V2 Status:\n  Reachability: ${r.reachability}\n`
    if (r.nat != null && r.nat !== '') s += `  NAT: ${r.nat}\n`
    s += '\nPer-Address Reachability:\n'
    const section = (label: string, list?: string[]): string => list != null && list.length > 0 ? `  ${label}:\n` + list.map(a => `    ${a}\n`).join('') : ''
    s += section('Reachable', r.reachable) + section('Unreachable', r.unreachable) + section('Unknown', r.unknown)
    if ((r.reachable?.length ?? 0) + (r.unreachable?.length ?? 0) + (r.unknown?.length ?? 0) === 0) s += '  (no address reachability data available)\n'
    return s
  }
})
