// The state of one gateway request, shared by the serve* functions.
import type { Context } from 'koa'
import type { Blockstore } from 'interface-blockstore'
import type { Datastore } from 'interface-datastore'
import type { Libp2p } from '@libp2p/interface'
import type { Logger } from '../../core/logger/index.js'
import type { GatewayBlocks } from './blocks.js'
import type { GatewaySettings } from './config.js'
import type { DnslinkLookup } from './dnslink.js'
import type { NameSystem } from '../../core/namesys/index.js'
import type { ContentPath, ResolvedPath } from './resolve.js'

/** Long-lived things the gateway needs (from the node's container). */
export interface GatewayDeps {
  /** where blocks are read from: a fetching blockstore unless Gateway.NoFetch, else the local one */
  blockstore: Blockstore
  /** the node's own blockstore */
  localBlockstore: Blockstore
  datastore: Datastore
  libp2p: Libp2p | null
  /** IPNS records (local, DHT, pubsub) */
  nameSystem: NameSystem
  dnslink: DnslinkLookup
  logger: Logger
  settings: () => GatewaySettings
}

export interface GatewayRequest {
  ctx: Context
  deps: GatewayDeps
  settings: GatewaySettings
  blocks: GatewayBlocks
  signal: AbortSignal
  /** restart the retrieval timer (while waiting for data) */
  touch: () => void
  /** stop the retrieval timer (while the client has not asked for more) */
  rest: () => void
  method: 'GET' | 'HEAD'
  /** the decoded URL path the client asked for (before Host rewriting) */
  urlPath: string
  /** the decoded path served (after Host rewriting) */
  path: string
  query: URLSearchParams
  rawQuery: string
  /** the gateway hostname of a subdomain request */
  subdomainHost?: string
  /** the host of a DNSLink request */
  dnslinkHost?: string
  /** the host the gateway settings were chosen for */
  host: string
}

/** Per-request data collected on the way (boxo requestData). */
export interface RequestData {
  /** the content path as requested (/ipfs/… or /ipns/…) */
  contentPath: ContentPath
  /** the /ipfs/ path it stands for (after IPNS/DNSLink resolution and _redirects rewrites) */
  immutablePath: ContentPath
  /** response media type, '' for the implicit one */
  format: string
  formatParams: Record<string, string>
  /** IPNS/DNSLink TTL in seconds */
  ttl?: number
  /** UnixFS mtime or, for /ipns/ paths, a resolution time */
  lastModified?: Date
  resolved?: ResolvedPath
}

export const isMutable = (rq: RequestData): boolean => rq.contentPath.namespace === 'ipns'
