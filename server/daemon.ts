// `tsipfs daemon`: open the repo, start the node, serve the RPC API until a signal or /shutdown.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'
import { InvalidArgumentError, RpcError } from '../core/errors.js'
import { defaultRepoPath, isInitialized, readRepoConfig } from '../core/repo/index.js'
import { loadConfigFile, type KuboConfig } from '../core/config/index.js'
import { createLogging } from '../core/logger/index.js'
import { versionInfo, versionText } from '../plugins/version/system.js'
import type { Invocation } from '../registry/types.js'
import { createNode } from './node.js'
import { manifestPlugins } from './cli-manifest.js'
import { nodePlugins } from '../registry/manifest.js'
import { createOfflineScope } from '../core/container.js'
import type { PeriodicGc } from '../core/gc/periodic.js'
import { CountedResponse, createRpcApp } from './app.js'
import { withWebui } from './webui.js'
import { answerHalfClosed, attachProxySupport, GO_MAX_HEADER_BYTES } from './http-server.js'
import { startIdleGc } from './idle-gc.js'
import { gatewaySettings } from './gateway/config.js'
import { REPO_VERSION, setAgentVersionSuffix } from '../core/version.js'
import { checkFdLimit, mountFuse, repoVersion, routingOverride, yesNoPrompt } from './daemon-flags.js'

export interface DaemonMessage { Message: string }

interface DaemonOptions {
  init?: boolean
  initConfig?: string
  initProfile?: string
  enableGc?: boolean
  routing?: string
  enablePubsubExperiment?: boolean
  enableNamesysPubsub?: boolean
  enableMplexExperiment?: boolean
  manageFdlimit?: boolean
  migrate?: boolean
  mount?: boolean
  mountIpfs?: string
  mountIpns?: string
  mountMfs?: string
  unrestrictedApi?: boolean
  agentVersionSuffix?: string
  disableTransportEncryption?: boolean
}

/** Gateway paths the API port serves with --unrestricted-api (Kubo: GatewayOption("/ipfs", "/ipns")) */
const isContentPath = (url: string | undefined): boolean => /^\/ip[fn]s\//.test(url ?? '')

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

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

/** A request handler made on its first request (later requests wait for the same one). */
function lazyHandler (make: () => Promise<Handler>): Handler {
  let made: Promise<Handler> | undefined
  let handler: Handler | undefined
  return (req, res) => {
    if (handler != null) { handler(req, res); return }
    made ??= make().then(h => { handler = h; return h })
    made.then(h => { h(req, res) }, (err: Error) => {
      made = undefined
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' })
      res.end(`${err.message}\n`)
    })
  }
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
  const logging = createLogging({ console: true })
  const cmdLog = logging.forComponent('cmd/ipfs')
  if (options.manageFdlimit !== false) {
    const fd = checkFdLimit()
    if (fd.warning != null) logging.forComponent('ulimit').error(fd.warning)
    if (fd.error != null) cmdLog.error(fd.error)
  }
  if (options.disableTransportEncryption === true) {
    throw new RpcError('--disable-transport-encryption is not supported: js-libp2p has no unencrypted transport security that go-libp2p speaks')
  }
  if (!await isInitialized(repoPath)) {
    if (options.init !== true) throw new RpcError(`no IPFS repo found in ${repoPath}.\nplease run: 'ipfs init'`)
    let config: KuboConfig | undefined
    if (options.initConfig != null && options.initConfig !== '') config = await loadConfigFile(options.initConfig)
    // Kubo's daemon --init runs init without --empty-repo: the help files are added too
    const { initNode } = await import('../plugins/cli/init.js')
    yield * initNode(repoPath, { profile: options.initProfile, config, docs: true })
  }
  // fsrepo.ErrNeedMigration: an older repo is migrated only when --migrate says so or the prompt is answered y
  const found = await repoVersion(repoPath)
  if (found != null && found < REPO_VERSION) {
    yield { Message: `Kubo repository at ${repoPath} has version ${found} and needs to be migrated to version ${REPO_VERSION}.\n` }
    let migrate = options.migrate
    if (migrate == null) {
      const asked: string[] = []
      migrate = await yesNoPrompt('Run migrations now? [y/N]', (t) => { asked.push(t) })
      yield { Message: asked.join('') }
    }
    if (!migrate) {
      yield { Message: `Not running migrations on repository at ${repoPath}. Re-run daemon with --migrate or see 'ipfs repo migrate --help'\n` }
      throw new RpcError('fs-repo requires migration')
    }
    const { repoMigrate } = await import('../plugins/repo/migrate.js')
    yield * repoMigrate.run({ ...call, options: { ...call.options, repoDir: repoPath, to: REPO_VERSION, allowDowngrade: false } } as any) as AsyncIterable<DaemonMessage>
  }
  const offline = options.offline === true || options.local === true
  const routingType = routingOverride(options.routing)
  if (Object.hasOwn(options, 'enableMplexExperiment')) {
    cmdLog.error('The mplex multiplexer has been enabled by default and the experimental enable-mplex-experiment flag has been removed.')
  }
  // Version.AgentSuffix in the config wins over the flag (Kubo: cfg.Version.AgentSuffix.WithDefault(flag))
  const cfgSuffix = ((await readRepoConfig(repoPath, options.configFile)).Version as { AgentSuffix?: unknown } | undefined)?.AgentSuffix
  setAgentVersionSuffix(typeof cfgSuffix === 'string' ? cfgSuffix : options.agentVersionSuffix ?? '')
  let resolveStop!: (why: string) => void
  const stopped = new Promise<string>(resolve => { resolveStop = resolve })
  // the built-in plugins as the manifest declares them: a command's module loads on its first request
  // (services of plugins that register some, e.g. MFS, load now)
  const node = await createNode({
    plugins: await nodePlugins(await manifestPlugins()),
    repoPath,
    configFile: options.configFile,
    online: !offline,
    // only what is configured gets loaded: no gossipsub without pubsub, no kad-dht with Routing.Type none
    pubsub: options.enablePubsubExperiment,
    ipnsPubsub: options.enableNamesysPubsub,
    routingType,
    daemon: true,
    logging,
    shutdown: () => resolveStop('shutdown requested')
  })
  const servers: http.Server[] = []
  let periodicGc: PeriodicGc | undefined
  // the heap grown under load goes back once the listeners are quiet (server/idle-gc.ts)
  const gcLog = logging.forComponent('gc')
  const idleGc = startIdleGc({ onCollect: (why, ms, before, after) => { gcLog.debug(`${why} collection: ${ms.toFixed(0)} ms, RSS ${(before / 1048576).toFixed(0)} -> ${(after / 1048576).toFixed(0)} MiB`) } })
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
    // (the app and its ~150 modules load on the first gateway request: the API answers sooner and a
    // daemon whose gateway is never used does not hold them)
    const gateway = gatewayAddrs.length === 0 && options.unrestrictedApi !== true
      ? undefined
      : lazyHandler(async () => {
        const { createGatewayApp } = await import('./gateway/index.js')
        return createGatewayApp({
          container: createOfflineScope(node.container),
          fetchingBlockstore: node.container.cradle.bitswap != null ? node.container.cradle.blockstore : undefined
        }).callback()
      })
    // an address in both lists gets one listener serving both (Kubo would fail to bind the second):
    // RPC paths go to the API, everything else to the gateway (port 0 means a port of its own each)
    const shared = new Set(gatewayAddrs.filter(a => apiAddrs.includes(a) && !/\/tcp\/0$/.test(a)))
    // --unrestricted-api: the API port also serves /ipfs/ and /ipns/ (Kubo serves only the web UI's paths there)
    const unrestricted = options.unrestrictedApi === true ? gateway : undefined
    const gatewayBound: string[] = []
    for (const addr of apiAddrs) {
      let port: number | string = '<port>'
      const rpc = withWebui(createRpcApp({ container: node.container, port: () => port }).callback(), { config })
      const handler = gateway != null && shared.has(addr)
        ? (req: http.IncomingMessage, res: http.ServerResponse) => { void (isApiPath(req.url) ? rpc(req, res) : gateway(req, res)) }
        : unrestricted != null
          ? (req: http.IncomingMessage, res: http.ServerResponse) => { void (isContentPath(req.url) ? unrestricted(req, res) : rpc(req, res)) }
          : rpc
      const server = http.createServer({ keepAlive: true, requestTimeout: 0, maxHeaderSize: GO_MAX_HEADER_BYTES, ServerResponse: CountedResponse }, handler)
      server.headersTimeout = 0
      // Go's server keeps idle connections open; Go clients (IPFS Cluster, Kubo's CLI) reuse them for up to
      // 90 s and a POST on a connection closed meanwhile fails with EOF (not retried): outlive their idle timeout
      server.keepAliveTimeout = 120_000
      answerHalfClosed(server)
      attachProxySupport(server)
      const bound = await listen(server, addr)
      const a = server.address()
      if (a != null && typeof a !== 'string') port = a.port
      servers.push(server)
      idleGc.watch(server)
      control.apiAddrs.push(bound)
      if (gateway != null && shared.has(addr)) gatewayBound.push(bound)
      yield { Message: `RPC API server listening on ${bound}\n` }
      const webui = gatewayUrl(bound)
      if (webui != null) yield { Message: `WebUI: ${webui}/webui\n` }
    }
    if (control.apiAddrs.length > 0) await repo.setApiAddr(control.apiAddrs[0])
    // --mount: after the API is served, as Kubo; offline is a client error there
    if (options.mount === true) {
      if (offline) throw new InvalidArgumentError('mount is not currently supported in offline mode')
      await mountFuse(options, cfg.Mounts as Record<string, unknown> | undefined)
    }
    if (gateway != null) {
      for (const addr of gatewayAddrs) {
        if (shared.has(addr)) continue
        const server = http.createServer({ keepAlive: true, maxHeaderSize: GO_MAX_HEADER_BYTES }, gateway)
        answerHalfClosed(server)
        attachProxySupport(server)
        gatewayBound.push(await listen(server, addr))
        servers.push(server)
        idleGc.watch(server)
      }
      const routingApi = gatewaySettings(cfg).exposeRoutingAPI
      for (const b of gatewayBound) yield { Message: `Gateway server listening on ${b}\n` }
      for (const url of gatewayBound.map(gatewayUrl)) {
        if (routingApi && url != null) yield { Message: `Routing V1 API exposed at ${url}/routing/v1\n` }
      }
      const url = gatewayBound.length > 0 ? gatewayUrl(gatewayBound[0]) : undefined
      if (url != null) await repo.setGatewayAddr(url)
    }
    // --enable-gc: corerepo.PeriodicGC
    if (options.enableGc === true) periodicGc = await (await import('../core/gc/periodic.js')).startPeriodicGc(node.container.cradle)
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
    idleGc.stop()
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
