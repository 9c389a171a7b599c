// The CLI's command tree without loading the plugins: a manifest (registry/manifest.ts) made from the
// built plugins once per build and kept beside them (dist/.cli-manifest.json). A build changes
// dist/.tsbuildinfo, which stamps the manifest; a stale or missing manifest is made again here (the run
// that does it loads every plugin once).
import { promises as fs } from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { lazyPlugins, MANIFEST_FORMAT, specMetadata, type Manifest, type ManifestPlugin } from '../registry/manifest.js'
import type { CommandSpec, Plugin } from '../registry/types.js'

/** the build root: dist/ (this file is dist/server/cli-manifest.js) */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const MANIFEST_FILE = path.join(ROOT, '.cli-manifest.json')

const importer = async (module: string): Promise<Record<string, unknown>> =>
  await import(pathToFileURL(path.join(ROOT, module)).href) as Record<string, unknown>

/** What identifies this build: tsc rewrites .tsbuildinfo whenever it emits. */
async function buildStamp (): Promise<string> {
  for (const file of ['.tsbuildinfo', 'plugins/index.js']) {
    const st = await fs.stat(path.join(ROOT, file)).catch(() => undefined)
    if (st != null) return `${file}:${st.mtimeMs}:${st.size}`
  }
  return 'unknown'
}

async function * jsFiles (dir: string): AsyncGenerator<string> {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) yield * jsFiles(full)
    else if (entry.name.endsWith('.js')) yield full
  }
}

/** Make the manifest of the built-in plugins: every command's metadata and the export it comes from. */
export async function buildManifest (stamp: string): Promise<Manifest> {
  const { builtinPlugins } = await import('../plugins/index.js')
  const plugins = builtinPlugins()
  const exported = new Map<unknown, { module: string, export: string }>()
  const factories = new Map<string, { module: string, factory: string }>()
  for await (const file of jsFiles(path.join(ROOT, 'plugins'))) {
    const module = path.relative(ROOT, file).split(path.sep).join('/')
    const mod = await importer(module)
    for (const [name, value] of Object.entries(mod)) {
      if (value != null && (typeof value === 'object' || typeof value === 'function') && !exported.has(value)) exported.set(value, { module, export: name })
      if (typeof value === 'function' && name.endsWith('Plugin') && module.endsWith('/index.js')) {
        const made = (() => { try { return (value as () => unknown)() } catch { return undefined } })() as Plugin | undefined
        if (made?.name != null && Array.isArray(made.commands)) factories.set(made.name, { module, factory: name })
      }
    }
  }
  const out: ManifestPlugin[] = plugins.map(p => {
    const factory = factories.get(p.name)
    if (factory == null) throw new Error(`no exported factory makes plugin "${p.name}"`)
    return {
      name: p.name,
      ...factory,
      registers: p.register != null,
      ...(p.register != null && exported.has(p.register) ? { register: exported.get(p.register), requires: [...(p.requires ?? [])] } : {}),
      groups: (p.groups ?? []).map(g => JSON.parse(JSON.stringify(g))),
      commands: p.commands.map((c: CommandSpec) => ({ spec: specMetadata(c), ...exported.get(c) }))
    }
  })
  return { format: MANIFEST_FORMAT, stamp, plugins: out }
}

/** The manifest of this build, made and saved when missing or stale. */
export async function loadManifest (): Promise<Manifest> {
  const stamp = await buildStamp()
  try {
    const saved = JSON.parse(await fs.readFile(MANIFEST_FILE, 'utf8')) as Manifest
    if (saved.format === MANIFEST_FORMAT && saved.stamp === stamp) return saved
  } catch {}
  const manifest = await buildManifest(stamp)
  // several CLIs may do this at once: each writes its own file and renames it over (a read-only install just keeps going)
  const tmp = `${MANIFEST_FILE}.${process.pid}.tmp`
  await fs.writeFile(tmp, JSON.stringify(manifest)).then(async () => { await fs.rename(tmp, MANIFEST_FILE) }).catch(async () => { await fs.rm(tmp, { force: true }).catch(() => {}) })
  return manifest
}

/** The built-in plugins as the CLI sees them: declarations whose commands load when run. */
export async function manifestPlugins (): Promise<Plugin[]> {
  return lazyPlugins(await loadManifest(), importer)
}
