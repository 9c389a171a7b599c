// Services an offline node (in-process CLI commands, `daemon --offline`) builds on first use instead
// of at start: their modules are a good part of the start-up time and memory, and most runs never
// call them. Each stands in for the real service with the same methods and answers.
import type { NameSystem, NameSystemDeps } from './namesys/index.js'
import type { DnsResolver } from './dns/index.js'
import type { KuboConfig } from './config/index.js'
import { delegatedPublisherUrls } from './namesys/delegated.js'

type Async<T> = T extends (...a: infer A) => Promise<infer R> ? (...a: A) => Promise<R> : never

/**
 * The name system of an offline node, loaded on its first call. Offline it has no pubsub and
 * nothing to republish, so start/stop only matter once it is loaded; delegatedPublishers() reads
 * the config through the same function as the real one.
 */
export function lazyOfflineNameSystem (deps: NameSystemDeps, init: { ipnsPubsub?: boolean } = {}): NameSystem {
  if (deps.libp2p != null) throw new Error('lazyOfflineNameSystem: the node is online')
  let loading: Promise<NameSystem> | undefined
  let loaded: NameSystem | undefined
  let started = false
  const load = async (): Promise<NameSystem> => {
    loading ??= import('./namesys/index.js').then(async ({ createNameSystem }) => {
      const ns = createNameSystem(deps, init)
      if (started) await ns.start()
      loaded = ns
      return ns
    })
    return await loading
  }
  const call = <K extends keyof NameSystem>(name: K): Async<NameSystem[K]> =>
    (async (...args: unknown[]) => await ((await load())[name] as (...a: unknown[]) => Promise<unknown>)(...args)) as Async<NameSystem[K]>
  const lazy = {
    pubsub: null,
    online: false,
    start: async () => { started = true; await loaded?.start() },
    stop: async () => { started = false; await loaded?.stop() },
    localRecord: call('localRecord'),
    getRecord: call('getRecord'),
    putRecord: call('putRecord'),
    publish: call('publish'),
    resolveOnce: call('resolveOnce'),
    resolve: call('resolve'),
    republish: call('republish'),
    delegatedPublishers: (): string[] => delegatedPublisherUrls(deps.config.get())
  }
  return lazy as unknown as NameSystem
}

/**
 * The DNS resolver (DNSLink, /dnsaddr): loaded on the first lookup when the config names no
 * DNS.Resolvers; with some it is built now, so a bad resolver URL still fails the start.
 */
export async function dnsResolverFor (config: KuboConfig): Promise<DnsResolver> {
  // (the DNS settings as they are now, as if it had been built now)
  const dns = structuredClone(config.DNS)
  const load = async (): Promise<DnsResolver> => (await import('./dns/index.js')).createDnsResolver({ config: { ...config, DNS: dns } })
  const resolvers = ((config.DNS as Record<string, unknown> | undefined)?.Resolvers ?? {}) as Record<string, unknown>
  if (Object.values(resolvers).some(url => typeof url === 'string' && url !== '' && url !== 'auto')) return await load()
  let made: Promise<DnsResolver> | undefined
  return {
    txt: async (fqdn, options) => await (await (made ??= load())).txt(fqdn, options),
    dnslink: async (domain, options) => await (await (made ??= load())).dnslink(domain, options)
  }
}
