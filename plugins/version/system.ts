// What this process runs on, named the way Go names it (GOARCH/GOOS), plus the runtime version.
import os from 'node:os'
import { KUBO_VERSION, PRODUCT_VERSION, REPO_VERSION } from '../../core/version.js'
import type { VersionOutput } from './output.js'

const ARCH: Record<string, string> = {
  x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64', mips: 'mips', mipsel: 'mipsle',
  riscv64: 'riscv64', s390x: 's390x', loong64: 'loong64', ppc: 'ppc'
}
const OS: Record<string, string> = { win32: 'windows', sunos: 'solaris' }

/** GOARCH for this process (Node's 'ppc64' is little-endian ppc64le on Linux). */
export function goArch (): string {
  if (process.arch === 'ppc64') return os.endianness() === 'LE' ? 'ppc64le' : 'ppc64'
  return ARCH[process.arch] ?? process.arch
}

/** GOOS for this process. */
export function goOs (): string {
  return OS[process.platform] ?? process.platform
}

/**
 * Stands in for Go's runtime.Version() (`go1.26.5`): there is no Go runtime here, so this is the
 * Node.js runtime that actually runs the node, e.g. `node-v22.12.0`.
 */
export function runtimeVersion (): string {
  return `node-${process.version}`
}

/** No commit is embedded at build time (Kubo also reports '' for builds without its ldflags). */
export const COMMIT = ''

export function versionInfo (): VersionOutput {
  return {
    Version: KUBO_VERSION,
    Commit: COMMIT,
    Repo: String(REPO_VERSION),
    System: `${goArch()}/${goOs()}`,
    Golang: runtimeVersion()
  }
}

/**
 * Kubo's `version --all` lines (also the daemon's start banner) with this node's facts: the product and
 * the Kubo RPC API it serves, the repo version, GOARCH/GOOS, and the Node.js runtime in Go's place.
 */
export function versionText (v: VersionOutput): string {
  const api = v.Commit !== '' ? `${v.Version}-${v.Commit}` : v.Version
  return `tsipfs version: ${PRODUCT_VERSION} (Kubo RPC API ${api})\nRepo version: ${v.Repo}\nSystem version: ${v.System}\n` +
    `Node.js version: ${v.Golang.replace(/^node-/, '')}\n`
}
