// Wire types of the swarm family (kubo core/commands/swarm.go), Go field order.
import type { IdOutput } from '../id/output.js'

export interface StreamInfo { Protocol: string }

/** connInfo: omitempty fields are absent when unset; Identify is always there (zero value unless asked) */
export interface ConnInfo {
  Addr: string
  Peer: string
  Latency?: string
  Direction?: number
  Streams?: StreamInfo[]
  Identify: IdOutput
}

export interface ConnInfos { Peers: ConnInfo[] | null }
export interface AddrMap { Addrs: Record<string, string[]> }
export interface PeeringResult { ID: string, Status: string }
export interface AddrInfoOutput { ID: string, Addrs: string[] }
export interface PeeringLs { Peers: AddrInfoOutput[] | null }
export interface AutoNatResult { reachability: string, nat?: string, reachable?: string[], unreachable?: string[], unknown?: string[] }
