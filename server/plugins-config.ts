// Which plugins a config enables: built-in ones not disabled, plus third-party modules it names.
// Light on purpose: the CLI reads it before it knows whether it will load a node.
import { pathToFileURL } from 'node:url'
import path from 'node:path'
import type { Plugin } from '../registry/types.js'
import type { KuboConfig } from '../core/config/index.js'

interface PluginConfig { Disabled?: boolean, Path?: string, Config?: unknown }

export function pluginSettings (config: KuboConfig): Record<string, PluginConfig> {
  const plugins = (config.Plugins as { Plugins?: Record<string, PluginConfig> | null } | undefined)?.Plugins
  return plugins ?? {}
}

/** Load third-party plugins: `Plugins.Plugins.<name>.Path` is an ES module whose default export gets `.Config`. */
export async function loadExternalPlugins (config: KuboConfig, repoPath: string): Promise<Plugin[]> {
  const out: Plugin[] = []
  for (const [name, settings] of Object.entries(pluginSettings(config))) {
    if (settings?.Path == null || settings.Path === '' || settings.Disabled === true) continue
    const file = path.resolve(repoPath !== '' ? repoPath : process.cwd(), settings.Path)
    const mod = await import(pathToFileURL(file).href) as { default?: unknown }
    if (typeof mod.default !== 'function') throw new Error(`plugin "${name}" (${file}) has no default export function`)
    const plugin = await (mod.default as (init: unknown) => Plugin | Promise<Plugin>)(settings.Config ?? {})
    out.push(plugin)
  }
  return out
}

/** The plugins a node with this config runs: the given list minus disabled ones, then third-party ones. */
export async function enabledPlugins (config: KuboConfig, repoPath: string, builtins: Plugin[], external = true): Promise<Plugin[]> {
  const settings = pluginSettings(config)
  const plugins = [...builtins]
  if (external) plugins.push(...await loadExternalPlugins(config, repoPath))
  return plugins.filter(p => settings[p.name]?.Disabled !== true)
}

