// The command manifest: the registry's metadata (paths, options, arguments, descriptions, statuses)
// as JSON, with where each command's implementation lives. The CLI builds its tree from it and imports
// only the command it runs (server/cli-manifest.ts writes and reads it); the daemon and tests load
// the plugins themselves. One declaration still drives everything: the manifest is derived from the
// plugins, never written by hand.
import type { CommandSpec, GroupSpec, Plugin } from './types.js'

export const MANIFEST_FORMAT = 3

/** A command as JSON: its spec without functions, and where to import the real one. */
export interface ManifestCommand {
  /** the spec's JSON-representable fields */
  spec: Record<string, unknown>
  /** module path relative to the build root (dist/) and its export, when the spec is exported */
  module?: string
  export?: string
}

export interface ManifestPlugin {
  name: string
  /** the plugin factory: module (relative to dist/) and export, called with no argument */
  module: string
  factory: string
  /** the plugin adds services to the container (a node needs the plugin itself, not its declarations) */
  registers?: boolean
  /** where its `register` function is exported (a node loads that module, not the plugin's commands) */
  register?: { module: string, export: string }
  requires?: string[]
  groups: GroupSpec[]
  commands: ManifestCommand[]
}

export interface Manifest {
  format: number
  /** identifies the build it was made from (server/cli-manifest.ts) */
  stamp: string
  plugins: ManifestPlugin[]
}

/** The loader of a command declared from the manifest (kept by Registry spreads: an enumerable symbol). */
export const LOAD_COMMAND = Symbol('tsipfs.loadCommand')
export type LazyCommand = CommandSpec & { [LOAD_COMMAND]?: () => Promise<CommandSpec> }
/** The factory of a plugin that registers services: a node built from the manifest loads it. */
export const LOAD_PLUGIN = Symbol('tsipfs.loadPlugin')
export type LazyPlugin = Plugin & { [LOAD_PLUGIN]?: () => Promise<Plugin> }

/** The plugins a node needs: the ones registering services loaded, the others as declared. */
export async function nodePlugins (plugins: readonly LazyPlugin[]): Promise<Plugin[]> {
  return await Promise.all(plugins.map(async p => await p[LOAD_PLUGIN]?.() ?? p))
}

const notLoaded = (path: readonly string[]) => (): never => {
  throw new Error(`command /${path.join('/')} is declared by the manifest and was not loaded`)
}

/** JSON view of a spec: what parsing, help and /api/v0/commands read. */
export function specMetadata (spec: CommandSpec): Record<string, unknown> {
  return JSON.parse(JSON.stringify(spec)) as Record<string, unknown>
}

/**
 * Plugins whose commands are metadata with a loader: `importer` maps a manifest module path to the
 * module (the caller resolves it against its build root).
 */
export function lazyPlugins (manifest: Manifest, importer: (module: string) => Promise<Record<string, unknown>>): Plugin[] {
  return manifest.plugins.map(p => {
    const factory = async (): Promise<Plugin> => {
      const mod = await importer(p.module)
      return (mod[p.factory] as () => Plugin)()
    }
    const commands = p.commands.map(c => {
      const path = c.spec.path as string[]
      const load = async (): Promise<CommandSpec> => {
        if (c.module != null && c.export != null) {
          const found = (await importer(c.module))[c.export] as CommandSpec | undefined
          if (found != null && found.path.join('/') === path.join('/')) return found
        }
        const found = (await factory()).commands.find(s => s.path.join('/') === path.join('/'))
        if (found == null) throw new Error(`plugin "${p.name}" no longer declares /${path.join('/')}: rebuild the manifest`)
        return found
      }
      const stub: LazyCommand = {
        ...(c.spec as unknown as CommandSpec),
        output: (c.spec.output as CommandSpec['output'] | undefined) ?? 'single',
        run: notLoaded(path),
        [LOAD_COMMAND]: load
      }
      return stub
    })
    const plugin: LazyPlugin = { name: p.name, groups: p.groups, commands }
    const register = p.register
    if (register != null) {
      // the services alone: the commands stay declarations that load when run
      plugin[LOAD_PLUGIN] = async () => ({
        ...plugin,
        requires: p.requires,
        register: (await importer(register.module))[register.export] as Plugin['register']
      })
    } else if (p.registers === true) {
      plugin[LOAD_PLUGIN] = factory
    }
    return plugin
  })
}
