// `tsipfs daemon`: open the repo, start the node, serve the RPC API until a signal or /shutdown.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { RpcError } from '../core/errors.js'
import { defaultRepoPath, initRepo, isInitialized } from '../core/repo/index.js'
import { loadConfigFile, type KuboConfig } from '../core/config/index.js'
import { createLogging } from '../core/logger/index.js'
import { versionInfo, versionText } from '../plugins/version/system.js'
import type { Invocation } from '../registry/types.js'
import { createNode } from './node.js'
import { createOfflineScope } from '../core/container.js'
import { startPeriodicGc, type PeriodicGc } from '../core/gc/periodic.js'
import { createRpcApp } from './app.js'
import { withWebui } from './webui.js'
import { attachProxySupport, createGatewayApp, GO_MAX_HEADER_BYTES } from './gateway/index.js'
import { gatewaySettings } from './gateway/config.js'

export interface DaemonMessage { Message: string }

interface DaemonOptions {
  init?: boolean
  initConfig?: string
  initProfile?: string
  enableGc?: boolean
  routing?: string
  enablePubsubExperiment?: boolean
  enableNamesysPubsub?: boolean
}

export { listenTarget } from './addr.js'
import { listenTarget } from './addr.js'

/** $IPFS_PATH/gateway holds http://<host>:<port> of the first gateway listener (Kubo SetGatewayAddr). */
function gatewayUrl (ma: string): string | undefined {
  const parts = ma.split('/').filter(p => p !== '')
  if ((parts[0] === 'ip4' || parts[0] === 'dns' || parts[0] === 'dns4' || parts[0] === 'dns6') && parts[2] === 'tcp') return `http://${parts[1]}:${parts[3]}`
  if (parts[0] === 'ip6' && parts[2] === 'tcp') return `http://[${parts[1]}]:${parts[3]}`
  return undefined
}

const asList = (v: unknown): string[] => Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : []

async function listen (server: http.Server, addr: string): Promise<string> {
  const target = listenTarget(addr)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    if ('path' in target) server.listen(target.path, () => { server.off('error', reject); resolve() })
    else server.listen(target.port, target.host, () => { server.off('error', reject); resolve() })
  })
  const bound = server.address()
  if (bound == null || typeof bound === 'string') return addr
  const a = bound as AddressInfo
  let host = a.address
  if (host === '0.0.0.0') host = '127.0.0.1'
  if (host === '::') host = '::1'
  return `/${a.family === 'IPv6' ? 'ip6' : 'ip4'}/${host}/tcp/${a.port}`
}

/** Paths the RPC app answers on the API port (wire.md §9); the rest of a shared listener is the gateway's. */
function isApiPath (url: string | undefined): boolean {
  const p = (url ?? '/').split('?')[0]
  return p === '/api' || p.startsWith('/api/') || p === '/version' || p === '/webui' || p.startsWith('/webui/') ||
    p.startsWith('/debug/') || p === '/logs'
}

export async function * runDaemon (call: Invocation<DaemonOptions>): AsyncGenerator<DaemonMessage> {
  const options = call.options
  const repoPath = options.repoDir ?? defaultRepoPath()
  yield { Message: 'Initializing daemon...\n' }
  if (!await isInitialized(repoPath)) {
    if (options.init !== true) throw new RpcError(`no IPFS repo found in ${repoPath}.\nplease run: 'ipfs init'`)
    let config: KuboConfig | undefined
    if (options.initConfig != null && options.initConfig !== '') config = await loadConfigFile(options.initConfig)
    const { key } = await initRepo(repoPath, { profile: options.initProfile, config })
    yield { Message: `initializing IPFS node at ${repoPath}\npeer identity: ${peerIdFromPrivateKey(key).toString()}\n` }
  }
  const offline = options.offline === true || options.local === true
  let resolveStop!: (why: string) => void
  const stopped = new Promise<string>(resolve => { resolveStop = resolve })
  const node = await createNode({
    repoPath,
    configFile: options.configFile,
    online: !offline,
    // only what is configured gets loaded: no gossipsub without pubsub, no kad-dht with Routing.Type none
    pubsub: options.enablePubsubExperiment,
    ipnsPubsub: options.enableNamesysPubsub,
    routingType: options.routing != null && options.routing !== 'default' ? options.routing : undefined,
    daemon: true,
    logging: createLogging({ console: true }),
    shutdown: () => resolveStop('shutdown requested')
  })
  const servers: http.Server[] = []
  let periodicGc: PeriodicGc | undefined
  try {
    await node.start()
    const { config, repo, keystore, libp2p } = node.container.cradle
    yield { Message: versionText(versionInfo()) }
    yield { Message: `PeerID: ${peerIdFromPrivateKey(keystore.self()).toString()}\n` }
    if (libp2p != null) {
      for (const ma of libp2p.getMultiaddrs()) yield { Message: `Swarm listening on ${ma.toString()}\n` }
    } else {
      yield { Message: 'Swarm not listening, running in offline mode.\n' }
    }
    const cfg = config.get()
    const apiAddrs = asList((cfg.Addresses as Record<string, unknown> | undefined)?.API)
    const gatewayAddrs = asList((cfg.Addresses as Record<string, unknown> | undefined)?.Gateway)
    const control = node.container.cradle.node
    // the read-only HTTP gateway: one app, a listener per Addresses.Gateway entry; it reads the local
    // store and fetches through the node's store unless Gateway.NoFetch
    const gateway = gatewayAddrs.length === 0
      ? undefined
      : createGatewayApp({
        container: createOfflineScope(node.container),
        fetchingBlockstore: node.container.cradle.bitswap != null ? node.container.cradle.blockstore : undefined
      }).callback()
    // an address in both lists gets one listener serving both (Kubo would fail to bind the second):
    // RPC paths go to the API, everything else to the gateway (port 0 means a port of its own each)
    const shared = new Set(gatewayAddrs.filter(a => apiAddrs.includes(a) && !/\/tcp\/0$/.test(a)))
    const gatewayBound: string[] = []
    for (const addr of apiAddrs) {
      let port: number | string = '<port>'
      const rpc = withWebui(createRpcApp({ container: node.container, port: () => port }).callback(), { config })
      const handler = gateway != null && shared.has(addr)
        ? (req: http.IncomingMessage, res: http.ServerResponse) => { void (isApiPath(req.url) ? rpc(req, res) : gateway(req, res)) }
        : rpc
      const server = http.createServer({ keepAlive: true, requestTimeout: 0, maxHeaderSize: GO_MAX_HEADER_BYTES }, handler)
      server.headersTimeout = 0
      attachProxySupport(server)
      const bound = await listen(server, addr)
      const a = server.address()
      if (a != null && typeof a !== 'string') port = a.port
      servers.push(server)
      control.apiAddrs.push(bound)
      if (gateway != null && shared.has(addr)) gatewayBound.push(bound)
      yield { Message: `RPC API server listening on ${bound}\n` }
      const webui = gatewayUrl(bound)
      if (webui != null) yield { Message: `WebUI: ${webui}/webui\n` }
    }
    if (control.apiAddrs.length > 0) await repo.setApiAddr(control.apiAddrs[0])
    if (gateway != null) {
      for (const addr of gatewayAddrs) {
        if (shared.has(addr)) continue
        const server = http.createServer({ keepAlive: true, maxHeaderSize: GO_MAX_HEADER_BYTES }, gateway)
        attachProxySupport(server)
        gatewayBound.push(await listen(server, addr))
        servers.push(server)
      }
      const routingApi = gatewaySettings(cfg).exposeRoutingAPI
      for (const b of gatewayBound) yield { Message: `Gateway server listening on ${b}\n` }
      for (const url of gatewayBound.map(gatewayUrl)) {
        if (routingApi && url != null) yield { Message: `Routing V1 API exposed at ${url}/routing/v1\n` }
      }
      const url = gatewayUrl(gatewayBound[0])
      if (url != null) await repo.setGatewayAddr(url)
    }
    // --enable-gc: corerepo.PeriodicGC
    if (options.enableGc === true) periodicGc = await startPeriodicGc(node.container.cradle)
    yield { Message: 'Daemon is ready\n' }

    const onSignal = (): void => resolveStop('interrupt')
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
    call.signal.addEventListener('abort', onSignal, { once: true })
    await stopped
    yield { Message: '\nReceived interrupt signal, shutting down...\n(Hit ctrl-c again to force-shutdown the daemon.)\n' }
    // a second signal while shutting down stops at once (Kubo: os.Exit(-1))
    const force = (): void => {
      process.stdout.write('Received another interrupt before graceful shutdown, terminating...\n')
      process.exit(255)
    }
    setTimeout(() => { process.once('SIGINT', force); process.once('SIGTERM', force) }, 1000).unref()
  } finally {
    await periodicGc?.stop()
    await Promise.all(servers.map(async s => {
      await new Promise<void>(resolve => {
        s.close(() => resolve())
        s.closeIdleConnections()
        setTimeout(() => { s.closeAllConnections(); resolve() }, 5000).unref()
      })
    }))
    await node.container.cradle.repo.clearAddrs().catch(() => {})
    await node.stop()
  }
}
