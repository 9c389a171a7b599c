// ipfs stats dht: the routing tables of the WAN and LAN DHTs, bucketed by common prefix length
// with our own DHT key (Kubo core/commands/stat_dht.go).
import { createHash } from 'node:crypto'
import type { Libp2p, PeerId } from '@libp2p/interface'
import { defineCommand } from '../../registry/define.js'
import { InvalidArgumentError, NotOnlineError } from '../../core/errors.js'
import { NotDhtError, type DhtService } from '../../core/routing/index.js'
import { tabwrite } from '../../core/util/tabwriter.js'

export interface DhtPeerInfo { ID: string, Connected: boolean, AgentVersion: string, LastUsefulAt: string, LastQueriedAt: string }
export interface DhtBucket { LastRefresh: string, Peers: DhtPeerInfo[] }
export interface DhtStatOutput { Name: string, Buckets: DhtBucket[] }

interface KbPeer { kadId: Uint8Array, peerId: PeerId, lastPing: number }

const kadId = (peer: PeerId): Uint8Array => createHash('sha256').update(peer.toMultihash().bytes).digest()

export function commonPrefixLen (a: Uint8Array, b: Uint8Array): number {
  let n = 0
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ^ b[i]
    if (x === 0) { n += 8; continue }
    return n + Math.clz32(x) - 24
  }
  return n
}

/** Go time.Format(time.RFC3339) in UTC */
const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')

const clean = (s: string): string => s.replace(/[^\x20-\x7e]/g, '').trim()

async function tableOf (name: string, dht: DhtService, libp2p: Libp2p): Promise<DhtStatOutput> {
  const self = kadId(libp2p.peerId)
  const kb = (dht.routingTable as unknown as { kb?: { toIterable?: () => Iterable<KbPeer> } } | undefined)?.kb
  const buckets: DhtBucket[] = []
  for (const p of kb?.toIterable?.() ?? []) {
    const cpl = commonPrefixLen(self, p.kadId)
    while (buckets.length <= cpl) buckets.push({ LastRefresh: '', Peers: [] })
    let agent = ''
    try {
      const peer = await libp2p.peerStore.get(p.peerId)
      const v = peer.metadata.get('AgentVersion')
      if (v != null) agent = clean(Buffer.from(v).toString('utf8'))
    } catch {}
    const seen = p.lastPing > 0 ? rfc3339(p.lastPing) : ''
    buckets[cpl].Peers.push({
      ID: p.peerId.toString(),
      Connected: libp2p.getConnections(p.peerId).length > 0,
      AgentVersion: agent,
      LastUsefulAt: seen,
      LastQueriedAt: seen
    })
  }
  // GetTrackedCplsForRefresh: when each bucket's common prefix length was last refreshed (js kad-dht keeps it
  // in its routing-table refresher; unset or the epoch when never)
  const refreshed = (dht as unknown as { routingTableRefresh?: { commonPrefixLengthRefreshedAt?: Array<Date | undefined> } }).routingTableRefresh?.commonPrefixLengthRefreshedAt ?? []
  buckets.forEach((b, i) => {
    const at = refreshed[i]?.getTime() ?? 0
    if (at > 0) b.LastRefresh = rfc3339(at)
  })
  return { Name: name, Buckets: buckets }
}

export const statsDht = defineCommand({
  path: ['stats', 'dht'],
  description: "Returns statistics about the node's DHT(s).",
  help: 'Returns statistics about the DHT(s) the node is participating in.\n\nThis interface is not stable and may change from release to release.',
  args: [{ name: 'dht', kind: 'string', variadic: true, description: 'The DHT whose table should be listed (wanserver, lanserver, wan, lan). wan and lan refer to client routing tables. When using the experimental DHT client only WAN is supported. Defaults to wan and lan.' }],
  output: 'ndjson',
  async * run ({ args, deps }): AsyncGenerator<DhtStatOutput> {
    const libp2p = deps.libp2p
    if (libp2p == null || deps.routing == null) throw new NotOnlineError()
    const dhts = deps.routing.dhts()
    if (dhts.length === 0) throw new NotDhtError()
    const names = args.length > 0 ? args : ['wan', 'lan']
    for (const name of names) {
      const kind = name === 'wan' || name === 'wanserver' ? 'wan' : name === 'lan' || name === 'lanserver' ? 'lan' : undefined
      if (kind == null) throw new InvalidArgumentError(`unknown dht type: ${name}`)
      const dht = dhts.find(d => d.name === kind)
      yield dht != null ? await tableOf(name, dht.dht, libp2p) : { Name: name, Buckets: [] }
    }
  },
  text: (out) => {
    const now = Date.now()
    const since = (iso: string): string => `${goSeconds(Math.round((now - Date.parse(iso)) / 1000))} ago`
    const count = out.Buckets.reduce((n, b) => n + b.Peers.length, 0)
    let t = `DHT ${out.Name} (${count} peers):\t\t\t\n`
    out.Buckets.forEach((b, i) => {
      const refreshed = b.LastRefresh !== '' ? since(b.LastRefresh) : 'never'
      t += `  Bucket ${String(i).padStart(2)} (${b.Peers.length} peers) - refreshed ${refreshed}:\t\t\t\n`
      t += '    Peer\tlast useful\tlast queried\tAgent Version\n'
      for (const p of b.Peers) {
        const useful = p.LastUsefulAt !== '' ? since(p.LastUsefulAt) : 'never'
        const queried = p.LastUsefulAt !== '' && p.LastQueriedAt !== '' ? since(p.LastQueriedAt) : 'never'
        t += `  ${p.Connected ? '@' : ' '} ${p.ID}\t${useful}\t${queried}\t${p.AgentVersion}\n`
      }
      t += '\t\t\t\n'
    })
    return tabwrite(t, { minwidth: 4, tabwidth: 4, padding: 2 })
  }
})

/** Go's Duration.String for whole seconds */
function goSeconds (s: number): string {
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  return h > 0 ? `${h}h${m}m${sec}s` : m > 0 ? `${m}m${sec}s` : `${sec}s`
}
