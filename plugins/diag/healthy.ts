// ipfs diag healthy (kubo core/commands/diag.go): a container health probe.
import { CID } from 'multiformats/cid'
import { RpcError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'

/** the empty UnixFS directory Kubo probes */
const PROBE = CID.parse('QmUNLLsPACCz1vLxQVkXqqLX5R1X345qqfHbsf67hvA3Nn')

export const diagHealthy = defineCommand({
  path: ['diag', 'healthy'],
  description: 'Report whether the daemon is operational.',
  help: 'Exits 0 if the daemon is running and can resolve the well-known empty\nUnixFS directory. Exits non-zero if shutdown has started or the DAG\npipeline is broken. Intended for container healthchecks.',
  output: 'single',
  run: async ({ deps: { blockstore }, signal }): Promise<string> => {
    // Kubo fetches the empty directory, which its repos always hold; ours may not, so we only ask
    // the blockstore about it: that still fails when the store itself is broken
    try {
      await blockstore.has(PROBE, { signal })
    } catch (err) {
      throw new RpcError(`probe fetch: ${(err as Error).message}`)
    }
    return 'ok'
  },
  // Kubo has no text encoder here: Go's %s of the string, no newline
  text: (out) => out
})
