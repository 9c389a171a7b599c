// ipfs diag healthy (kubo core/commands/diag.go): a container health probe. tsipfs checks each part
// for real: the blockstore (put, read back and remove a probe block), the datastore (the same with a
// probe key) and, when online, that the libp2p host is started. Answers "ok", or a 500 naming the part.
import { randomBytes } from 'node:crypto'
import { CID } from 'multiformats/cid'
import { Key } from 'interface-datastore'
import { sha256 } from 'multiformats/hashes/sha2'
import { RpcError, errorMessage } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'
import { getBlock } from '../../core/blockstore/index.js'
import type { RequestCradle } from '../../core/cradle.js'

const RAW = 0x55
const equal = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i])

async function check (part: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn()
  } catch (err) {
    throw new RpcError(`${part} check failed: ${errorMessage(err)}`)
  }
}

type Deps = Pick<RequestCradle, 'blockstore' | 'datastore' | 'gcLock' | 'libp2p'>

export async function healthCheck ({ blockstore, datastore, gcLock, libp2p }: Deps, signal?: AbortSignal): Promise<void> {
  const probe = randomBytes(32)
  await check('blockstore', async () => {
    const cid = CID.createV1(RAW, await sha256.digest(probe))
    const release = await gcLock.shared()
    try {
      await blockstore.put(cid, probe, { signal })
      const back = await getBlock(blockstore, cid, { signal })
      if (!equal(back, probe)) throw new Error('probe block read back differs')
    } finally {
      try { await blockstore.delete(cid, { signal }) } finally { release() }
    }
  })
  await check('datastore', async () => {
    const key = new Key(`/local/diag-healthy/${probe.toString('hex')}`)
    try {
      await datastore.put(key, probe, { signal })
      const back = await datastore.get(key, { signal })
      if (!equal(back, probe)) throw new Error('probe value read back differs')
    } finally {
      await datastore.delete(key, { signal })
    }
  })
  if (libp2p != null && libp2p.status !== 'started') {
    throw new RpcError(`libp2p check failed: host is ${libp2p.status}`)
  }
}

export const diagHealthy = defineCommand({
  path: ['diag', 'healthy'],
  description: 'Report whether the daemon is operational.',
  help: 'Exits 0 if the daemon is running and its blockstore, datastore and (online)\nlibp2p host work. Exits non-zero, naming the part, if one of them fails.\nIntended for container healthchecks.',
  output: 'single',
  run: async ({ deps, signal }): Promise<string> => {
    await healthCheck(deps, signal)
    return 'ok'
  },
  // Kubo has no text encoder here: Go's %s of the string, no newline
  text: (out) => out
})
