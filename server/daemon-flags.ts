// `tsipfs daemon` flags that act before or beside the node (Kubo cmd/ipfs/kubo/daemon.go): the file
// descriptor limit, FUSE mounts (not compiled in), the routing override and the repo migration prompt.
import { promises as fs, readFileSync } from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { RpcError } from '../core/errors.js'

/** Kubo's minimum (complain below it) and default target for the nofile limit (cmd/ipfs/util/ulimit.go) */
const MIN_FDS = 2048
const MAX_FDS = 8192

/** soft and hard RLIMIT_NOFILE of this process, from /proc/self/limits (undefined where there is none) */
export function fdLimits (text?: string): { soft: number, hard: number } | undefined {
  let limits = text
  if (limits == null) {
    try { limits = readFileSync('/proc/self/limits', 'utf8') } catch { return undefined }
  }
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits)
  if (m == null) return undefined
  const num = (s: string): number => s === 'unlimited' ? Infinity : Number(s)
  return { soft: num(m[1]), hard: num(m[2]) }
}

/**
 * --manage-fdlimit (default true): Kubo raises the soft nofile limit to IPFS_FD_MAX or 8192, up to the hard
 * limit. Node already raises its soft limit to the hard one when it starts, so what is left is Kubo's check:
 * the error it logs when the limit stays below the target. Returns that error text, or undefined.
 */
export function checkFdLimit (env: NodeJS.ProcessEnv = process.env, limits = fdLimits()): { error?: string, warning?: string } {
  let user = 0
  const raw = env.IPFS_FD_MAX
  if (raw != null && raw !== '') {
    if (/^\d+$/.test(raw)) user = Number(raw)
    else return { warning: `bad value for IPFS_FD_MAX: strconv.ParseUint: parsing ${JSON.stringify(raw)}: invalid syntax` }
  }
  if (limits == null) return {}
  const target = user > 0 ? user : MAX_FDS
  if (target <= limits.soft) return {}
  // an unprivileged process can go no higher than the hard limit, which Node's soft limit already is
  const now = Math.min(target, limits.hard)
  if (user > 0 && now < user) return { error: `setting file descriptor limit: failed to raise ulimit to IPFS_FD_MAX (${user}): set to ${now}` }
  if (user === 0 && now < MIN_FDS) return { error: `setting file descriptor limit: failed to raise ulimit to minimum ${MIN_FDS}: set to ${now}` }
  return {}
}

const ROUTING = new Set(['default', 'auto', 'autoclient', 'dht', 'dhtclient', 'dhtserver', 'none', 'delegated', 'custom'])

/** --routing: Kubo's accepted values and errors; undefined means "use Routing.Type" */
export function routingOverride (value: string | undefined): string | undefined {
  if (value == null || value === '' || value === 'default') return undefined
  if (value === 'supernode') throw new RpcError('supernode routing was never fully implemented and has been removed')
  if (!ROUTING.has(value)) throw new RpcError(`unrecognized routing option: ${value}`)
  return value
}

/** checkFusePath: the mount point must exist and be a directory */
async function checkFusePath (name: string, dir: string): Promise<void> {
  if (dir === '') throw new RpcError(`${name} path cannot be empty`)
  let st
  try {
    st = await fs.stat(dir)
  } catch (err) {
    const e = err as NodeJS.ErrnoException
    if (e.code === 'ENOENT') throw new RpcError(`${name} path (${JSON.stringify(dir)}) does not exist: stat ${dir}: no such file or directory`)
    throw new RpcError(`error while inspecting ${name} path (${JSON.stringify(dir)}): stat ${dir}: ${e.message}`)
  }
  if (!st.isDirectory()) throw new RpcError(`${name} path (${JSON.stringify(dir)}) is not a directory`)
}

export interface MountFlags { mountIpfs?: string, mountIpns?: string, mountMfs?: string }

/**
 * --mount: Kubo checks the three mount points (flags, else Mounts.*), then mounts with FUSE. tsipfs is a
 * build without FUSE, so after the checks it fails as Kubo's `nofuse` build does.
 */
export async function mountFuse (flags: MountFlags, mounts: Record<string, unknown> | undefined): Promise<never> {
  const pick = (flag: string | undefined, key: string): string => flag ?? (typeof mounts?.[key] === 'string' ? mounts[key] as string : '')
  await checkFusePath('Mounts.IPFS', pick(flags.mountIpfs, 'IPFS'))
  await checkFusePath('Mounts.IPNS', pick(flags.mountIpns, 'IPNS'))
  await checkFusePath('Mounts.MFS', pick(flags.mountMfs, 'MFS'))
  throw new RpcError('not compiled in')
}

/** The repo's version number, or undefined when the file is missing or not a number */
export async function repoVersion (repoPath: string): Promise<number | undefined> {
  const text = await fs.readFile(path.join(repoPath, 'version'), 'utf8').catch(() => undefined)
  if (text == null || !/^\s*\d+\s*$/.test(text)) return undefined
  return Number(text.trim())
}

/** YesNoPrompt: up to three tries on stdin; y/Y yes, n/N/empty/EOF no */
export async function yesNoPrompt (prompt: string, write: (s: string) => void, input: NodeJS.ReadableStream = process.stdin): Promise<boolean> {
  const rl = createInterface({ input, terminal: false })
  const lines = rl[Symbol.asyncIterator]()
  try {
    for (let i = 0; i < 3; i++) {
      write(`${prompt} `)
      const next = await lines.next()
      if (next.done === true) { write('Invalid input: EOF. Please try again.\n'); continue }
      const s = String(next.value).trim().split(/\s+/)[0] ?? ''
      if (s === 'y' || s === 'Y') return true
      if (s === 'n' || s === 'N' || s === '') return false
      write("Please press either 'y' or 'n'\n")
    }
    return false
  } finally {
    rl.close()
  }
}
