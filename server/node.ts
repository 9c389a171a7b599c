// Assemble a node: core container, plugins (built-in list + third-party from config), checks, start.
import { enabledPlugins } from './plugins-config.js'
import type { AwilixContainer } from 'awilix'
import type { Cradle } from '../core/cradle.js'
import { createCoreContainer, type CoreInit } from '../core/container.js'
import { MissingDependencyError } from '../core/errors.js'
import { isStartable, startAll, stopAll, type Startable } from '../core/lifecycle.js'
import { Registry } from '../registry/registry.js'
import type { Plugin } from '../registry/types.js'

export interface NodeInit extends Omit<CoreInit, 'registry'> {
  /** replaces the built-in plugin list (tests) */
  plugins?: Plugin[]
  /** extra plugins after the built-in ones */
  extraPlugins?: Plugin[]
  /** skip third-party plugins named in config */
  noExternalPlugins?: boolean
}

export interface TsipfsNode {
  container: AwilixContainer<Cradle>
  registry: Registry
  start: () => Promise<void>
  stop: () => Promise<void>
}

export { enabledPlugins, loadExternalPlugins } from './plugins-config.js'

export async function createNode (init: NodeInit): Promise<TsipfsNode> {
  const registry = new Registry()
  const core = await createCoreContainer({ ...init, registry })
  const { container } = core
  try {
    const logger = container.cradle.logging.forComponent('core')
    registry.onDeprecated = (p, replacement) => logger.warn(`command "${p}" is deprecated${replacement != null ? ', ' + replacement : ''}`)
    const config = container.cradle.config.get()
    const enabled = await enabledPlugins(config, container.cradle.repoPath, [...(init.plugins ?? (await import('../plugins/index.js')).builtinPlugins()), ...(init.extraPlugins ?? [])], init.noExternalPlugins !== true)
    for (const plugin of enabled) {
      plugin.register?.(container)
      registry.add(plugin)
    }
    for (const plugin of enabled) {
      for (const key of plugin.requires ?? []) {
        if (!container.hasRegistration(key)) throw new MissingDependencyError(`plugin "${plugin.name}" requires "${key}"`)
      }
    }
    const problems = registry.validate()
    if (problems.length > 0) throw new Error(`invalid command registry:\n  ${problems.join('\n  ')}`)
  } catch (err) {
    await core.close()
    throw err
  }

  let services: Startable[] = []
  let started = false
  return {
    container,
    registry,
    start: async () => {
      const candidates: unknown[] = [container.cradle.libp2p]
      for (const [key, reg] of Object.entries(container.registrations)) {
        if (['libp2p', 'registry'].includes(key) || reg.lifetime !== 'SINGLETON') continue
        try { candidates.push(container.resolve(key)) } catch {}
      }
      services = candidates.filter(isStartable)
      await startAll(services)
      started = true
    },
    stop: async () => {
      if (started) await stopAll(services).catch(() => {})
      started = false
      await core.close()
    }
  }
}
