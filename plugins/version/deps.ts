// ipfs version deps: Kubo lists the Go modules of its build; we list this package and its npm
// dependencies, with the installed version and the lockfile integrity as Sum when there is one.
import { readFile } from 'node:fs/promises'
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import type { DependencyOutput } from './output.js'


interface PackageJson { name: string, version: string, dependencies?: Record<string, string> }
interface Lockfile { packages?: Record<string, { version?: string, integrity?: string }> }

async function readJson<T> (url: URL): Promise<T | undefined> {
  try { return JSON.parse(await readFile(url, 'utf8')) as T } catch { return undefined }
}

async function findPackageJson (): Promise<{ root: URL, pkg: PackageJson } | undefined> {
  // dist/plugins/version → three levels up; source plugins/version → two levels up
  for (const root of [new URL('../../../', import.meta.url), new URL('../../', import.meta.url)]) {
    const pkg = await readJson<PackageJson>(new URL('package.json', root))
    if (pkg != null) return { root, pkg }
  }
  return undefined
}

/** Node's lookup: node_modules/<name> in the package root, then in each parent folder. */
async function installedPackage (root: URL, name: string): Promise<PackageJson | undefined> {
  for (let dir = root; ; dir = new URL('../', dir)) {
    const pkg = await readJson<PackageJson>(new URL(`node_modules/${name}/package.json`, dir))
    if (pkg != null) return pkg
    if (dir.pathname === '/') return undefined
  }
}

export async function listDependencies (): Promise<DependencyOutput[]> {
  const found = await findPackageJson()
  if (found == null) throw new RpcError('no embedded dependency information')
  const { root, pkg } = found
  const lock = await readJson<Lockfile>(new URL('package-lock.json', root))
  const out: DependencyOutput[] = [{ Path: pkg.name, Version: pkg.version, ReplacedBy: '', Sum: '' }]
  for (const [name, range] of Object.entries(pkg.dependencies ?? {})) {
    const locked = lock?.packages?.[`node_modules/${name}`]
    const installed = await installedPackage(root, name)
    const version = installed?.version ?? locked?.version
    out.push({
      Path: name,
      Version: version ?? range,
      ReplacedBy: '',
      Sum: locked?.integrity ?? ''
    })
  }
  return out
}

export const versionDeps = defineCommand({
  path: ['version', 'deps'],
  description: 'Shows information about dependencies used for build.',
  help: 'Print out all dependencies and their versions.',
  output: 'ndjson',
  async * run (): AsyncGenerator<DependencyOutput> {
    yield * await listDependencies()
  },
  text: (dep) => `${dep.Path}@${dep.Version}${dep.ReplacedBy !== '' ? ` => ${dep.ReplacedBy}` : ''}\n`
})
