// A gateway over an in-memory node, loaded with the gateway-conformance fixtures (CARs put into the
// blockstore with @ipld/car, IPNS records into the datastore), and a raw HTTP client (Host headers,
// absolute-form targets, no redirect following).
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { CarBlockIterator } from '@ipld/car'
import type { Blockstore } from 'interface-blockstore'
import type { Json } from '../../../core/config/index.js'
import { createTestNode, type TestNode } from '../../helpers/node.js'
import { attachProxySupport, createGatewayApp, type DnslinkInit } from '../../../server/gateway/index.js'
import { ipnsDatastoreKey, parseIpnsName } from '../../../server/gateway/ipns.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..')
export const FIXTURES = process.env.GATEWAY_CONFORMANCE_FIXTURES ?? path.resolve(repoRoot, '..', 'shared', 'fixtures', 'gateway-conformance')

export const fixture = (rel: string): string => path.join(FIXTURES, rel)

/** The subdomain gateway host of Kubo's CI ({h} in gateway.md). */
export const H = 'example.com:8080'

export interface GatewayResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
  text: string
  trailers: NodeJS.Dict<string>
}

export interface RequestOptions {
  method?: string
  headers?: Record<string, string>
  /** send this as the request target instead of the path (absolute-form proxy requests) */
  target?: string
}

export interface TestGateway {
  node: TestNode
  url: string
  port: number
  get: (p: string, opts?: RequestOptions) => Promise<GatewayResponse>
  stop: () => Promise<void>
}

export interface GatewayTestInit {
  /** CAR files (relative to the fixtures folder) to load */
  cars?: string[]
  /** .ipns-record files to store under their names */
  records?: string[]
  /** config keys to set before the app is created */
  config?: Record<string, Json>
  dnslink?: DnslinkInit
  /** a blockstore standing for the network (used unless Gateway.NoFetch) */
  fetchingBlockstore?: Blockstore
  /** an initialised repo to run on (flatfs blockstore) instead of in-memory stores */
  repoPath?: string
}

/** DNSLink names of a fixture dnslink.yml (a tiny reader for the fixtures' simple layout). */
export function dnslinkYaml (rel: string): Record<string, string> {
  const out: Record<string, string> = {}
  let domain: string | undefined
  for (const line of readFileSync(fixture(rel), 'utf8').split('\n')) {
    const d = /^\s+domain:\s*(\S+)/.exec(line)
    if (d != null) domain = d[1]
    const p = /^\s+path:\s*(\S+)/.exec(line)
    if (p != null && domain != null) { out[domain] = p[1]; domain = undefined }
  }
  return out
}

export async function loadCar (node: TestNode, rel: string): Promise<void> {
  const { blockstore } = node.container.cradle
  const it = await CarBlockIterator.fromBytes(readFileSync(fixture(rel)))
  for await (const { cid, bytes } of it) await blockstore.put(cid, bytes)
}

export async function loadRecord (node: TestNode, rel: string): Promise<void> {
  const name = path.basename(rel).split('.')[0].split('_')[0]
  const mh = parseIpnsName(name)
  if (mh == null) throw new Error(`not a key name: ${name}`)
  await node.container.cradle.datastore.put(ipnsDatastoreKey(mh), readFileSync(fixture(rel)))
}

export async function startGateway (init: GatewayTestInit = {}): Promise<TestGateway> {
  const node = await createTestNode({ plugins: [], repoPath: init.repoPath })
  for (const [k, v] of Object.entries(init.config ?? {})) await node.container.cradle.config.setKey(k, v)
  for (const car of init.cars ?? []) await loadCar(node, car)
  for (const rec of init.records ?? []) await loadRecord(node, rec)
  const app = createGatewayApp({ container: node.container, dnslink: init.dnslink ?? {}, fetchingBlockstore: init.fetchingBlockstore })
  const server = http.createServer(app.callback())
  attachProxySupport(server)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  const url = `http://127.0.0.1:${port}`
  return {
    node,
    url,
    port,
    get: async (p, opts = {}) => await request(port, opts.target ?? p, opts),
    stop: async () => {
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
      await node.stop()
    }
  }
}

export async function request (port: number, target: string, opts: RequestOptions = {}): Promise<GatewayResponse> {
  return await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method ?? 'GET', path: target, headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8'), trailers: res.trailers })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** A request through a CONNECT tunnel to the gateway. */
export async function requestViaConnect (port: number, authority: string, target: string, headers: Record<string, string> = {}): Promise<GatewayResponse> {
  return await new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'CONNECT', path: authority, agent: false })
    req.on('connect', (_res, socket) => {
      const inner = http.request({ createConnection: () => socket, method: 'GET', path: target, headers: { Host: authority, ...headers } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          const body = Buffer.concat(chunks)
          socket.destroy()
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8'), trailers: res.trailers })
        })
      })
      inner.on('error', reject)
      inner.end()
    })
    req.on('error', reject)
    req.end()
  })
}

/** Kubo CI's subdomain gateway config for {h}. */
export const SUBDOMAIN_CONFIG: Record<string, Json> = {
  'Gateway.PublicGateways': { 'example.com': { UseSubdomains: true, InlineDNSLink: true, Paths: ['/ipfs', '/ipns'] } }
}
