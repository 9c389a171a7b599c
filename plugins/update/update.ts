// ipfs update (kubo core/commands/external.go ExternalBinary): CLI only; runs `ipfs-update` from
// $PATH with the arguments, its stdout and stderr as the output; Kubo's errors when it is missing.
import { spawn } from 'node:child_process'
import { promises as fs, constants } from 'node:fs'
import path from 'node:path'
import { defineCommand } from '../../registry/define.js'
import { RpcError } from '../../core/errors.js'
import type { BytesOutput } from '../../registry/types.js'

export const BINARY = 'ipfs-update'

/** exec.LookPath */
export async function lookPath (name: string, envPath = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of envPath.split(path.delimiter)) {
    const file = path.join(dir === '' ? '.' : dir, name)
    try {
      const st = await fs.stat(file)
      if (!st.isFile()) continue
      await fs.access(file, constants.X_OK)
      return file
    } catch {}
  }
  return undefined
}

const notInstalledHelp = (bin: string): string =>
  `${bin} is an 'external' command.\nIt does not currently appear to be installed.\nPlease see https://github.com/ipfs/ipfs-update/blob/master/README.md#install for installation instructions.\n`

async function * runExternal (file: string, args: string[]): AsyncGenerator<Uint8Array> {
  const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  const exit = new Promise<number | string>((resolve, reject) => {
    child.on('error', (err) => { reject(new RpcError(`failed to start subcommand: ${err.message}`)) })
    child.on('close', (code, signal) => { resolve(signal ?? code ?? 0) })
  })
  const chunks: Uint8Array[] = []
  let wake: (() => void) | undefined
  let open = 2
  const push = (c: Uint8Array): void => { chunks.push(c); wake?.() }
  const end = (): void => { open--; wake?.() }
  child.stdout.on('data', push).on('end', end)
  child.stderr.on('data', push).on('end', end)
  while (open > 0 || chunks.length > 0) {
    const c = chunks.shift()
    if (c != null) { yield c; continue }
    await new Promise<void>(resolve => { wake = resolve })
    wake = undefined
  }
  const status = await exit
  if (typeof status === 'string') throw new RpcError(`signal: ${status}`)
  if (status !== 0) throw new RpcError(`exit status ${status}`)
}

export const update = defineCommand({
  path: ['update'],
  description: 'Download and apply go-ipfs updates',
  help: "'ipfs update' runs the external 'ipfs-update' tool found in $PATH with the given arguments.",
  status: 'experimental',
  args: [{ name: 'args', kind: 'string', required: false, variadic: true, description: 'Arguments for subcommand.' }],
  http: false,
  noRepo: true,
  output: 'bytes',
  run: async ({ args }): Promise<BytesOutput> => {
    const file = await lookPath(BINARY)
    if (file == null) {
      // special case for '--help' on uninstalled binaries
      if (args.some(a => a === '--help' || a === '-h')) return { body: new TextEncoder().encode(notInstalledHelp(BINARY)) }
      throw new RpcError(`${BINARY} not installed`)
    }
    return { body: runExternal(file, args) }
  }
})
