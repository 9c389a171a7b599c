// A DNS-over-HTTPS server on loopback (RFC 8484 GET ?dns=, application/dns-message) answering TXT queries
// from a table, for DNSLink tests through DNS.Resolvers: never real DNS. Counts the queries it answers.
import http from 'node:http'
import type net from 'node:net'
import { decode, encode } from '@dnsquery/dns-packet'

export interface DohServer {
  /** the resolver URL for DNS.Resolvers */
  url: string
  /** name → TXT strings (e.g. `_dnslink.example.org` → [`dnslink=/ipfs/…`]) */
  records: Map<string, string[]>
  /** queries answered, by name */
  queries: Map<string, number>
  ttl: number
  close: () => Promise<void>
}

export async function startDoh (records: Record<string, string[]> = {}, ttl = 60): Promise<DohServer> {
  const state: DohServer = { url: '', records: new Map(Object.entries(records)), queries: new Map(), ttl, close: async () => {} }
  const server = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('dns')
    if (q == null) { res.statusCode = 400; res.end(); return }
    const query = decode(Buffer.from(q, 'base64url'))
    const answers = []
    for (const question of query.questions ?? []) {
      const name = question.name.replace(/\.$/, '').toLowerCase()
      state.queries.set(name, (state.queries.get(name) ?? 0) + 1)
      if (question.type !== 'TXT') continue
      for (const text of state.records.get(name) ?? []) answers.push({ type: 'TXT' as const, name: question.name, ttl: state.ttl, data: [text] })
    }
    const rcode = answers.length === 0 && !(query.questions ?? []).some(qq => state.records.has(qq.name.replace(/\.$/, '').toLowerCase())) ? 'NXDOMAIN' : 'NOERROR'
    const body = encode({ type: 'response', id: query.id, flags: 0, rcode, questions: query.questions, answers } as any)
    res.setHeader('Content-Type', 'application/dns-message')
    res.end(Buffer.from(body))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/dns-query`
  state.close = async () => { server.closeAllConnections(); await new Promise<void>(resolve => server.close(() => resolve())) }
  return state
}
