// ipfs diag sys (kubo core/commands/sysdiag.go): facts about the machine, from Node's os module.
import os from 'node:os'
import path from 'node:path'
import { readFile, statfs } from 'node:fs/promises'
import { defaultRepoPath } from '../../core/repo/index.js'
import { KUBO_VERSION } from '../../core/version.js'
import { defineCommand } from '../../registry/define.js'
import { COMMIT, goArch, goOs, runtimeVersion } from '../version/system.js'
import type { SysInfoOutput } from './output.js'

/** statfs of the repo folder, or of its nearest existing parent (in-memory repos have none) */
async function diskInfo (repoPath: string): Promise<SysInfoOutput['diskinfo']> {
  for (let dir = path.resolve(repoPath); ; dir = path.dirname(dir)) {
    try {
      const s = await statfs(dir, { bigint: true })
      // go-sysinfo on Linux reports Bavail as total_space and Bfree as free_space
      return { free_space: Number(s.bfree * s.bsize), fstype: String(s.type), total_space: Number(s.bavail * s.bsize) }
    } catch (err) {
      if (path.dirname(dir) === dir) throw err
    }
  }
}

/** go-sysinfo: VmSize and VmSwap from /proc/self/status ("kB" read as 1000 bytes, as go-humanize does) */
async function memInfo (): Promise<SysInfoOutput['memory']> {
  const out = { swap: 0, virt: 0 }
  let status: string
  try {
    status = await readFile('/proc/self/status', 'utf8')
  } catch {
    return { swap: 0, virt: process.memoryUsage().rss }
  }
  for (const line of status.split('\n')) {
    const m = /^(VmSize|VmSwap):\s*(\d+)\s*kB/.exec(line)
    if (m == null) continue
    if (m[1] === 'VmSize') out.virt = Number(m[2]) * 1000
    else out.swap = Number(m[2]) * 1000
  }
  return out
}

/** go-multiaddr manet.InterfaceMultiaddrs: every interface address as /ip4 or /ip6 */
function interfaceAddresses (): string[] {
  const out: string[] = []
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) out.push(a.family === 'IPv6' ? `/ip6/${a.address.replace(/%.*$/, '')}` : `/ip4/${a.address}`)
  }
  return out
}

export async function sysInfo (repoPath: string, online: boolean): Promise<SysInfoOutput> {
  return {
    diskinfo: await diskInfo(repoPath !== '' ? repoPath : defaultRepoPath()),
    environment: { GOPATH: process.env.GOPATH ?? '', IPFS_PATH: process.env.IPFS_PATH ?? '' },
    ipfs_commit: COMMIT,
    ipfs_version: KUBO_VERSION,
    memory: await memInfo(),
    net: { interface_addresses: interfaceAddresses(), online },
    runtime: {
      arch: goArch(),
      // Go's runtime.Compiler; the JavaScript engine here
      compiler: 'v8',
      // one JavaScript thread runs the node
      gomaxprocs: 1,
      numcpu: os.availableParallelism(),
      // active handles and requests stand in for goroutines
      numgoroutines: process.getActiveResourcesInfo().length,
      os: goOs(),
      version: runtimeVersion()
    }
  }
}

const UINT64 = new Set(['free_space', 'total_space', 'swap', 'virt'])

/** Go's fmt %s of the map Kubo builds (its generic text encoder): non-strings print as %!s(type=v). */
export function goSprintS (value: unknown, key = ''): string {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return `%!s(bool=${String(value)})`
  if (typeof value === 'number') return `%!s(${UINT64.has(key) ? 'uint64' : 'int'}=${value})`
  if (Array.isArray(value)) return `[${value.map(v => goSprintS(v)).join(' ')}]`
  if (value != null && typeof value === 'object') {
    const keys = Object.keys(value).sort()
    return `map[${keys.map(k => `${k}:${goSprintS((value as Record<string, unknown>)[k], k)}`).join(' ')}]`
  }
  return '%!s(<nil>)'
}

export const diagSys = defineCommand({
  path: ['diag', 'sys'],
  description: 'Print system diagnostic information.',
  help: 'Prints out information about your computer to aid in easier debugging.',
  output: 'single',
  run: async ({ deps: { repoPath, node } }): Promise<SysInfoOutput> => await sysInfo(repoPath, node.online),
  textGeneric: true,
  text: (out) => goSprintS(out)
})
