// ipfs block rm: remove blocks that are not pinned (Kubo core/commands/block.go, blockstoreutil.RmBlocks).
// Has and delete go through the node's blockstore, filestore included: a filestore block's reference
// is removed (never its file), as Kubo's Filestore.DeleteBlock.
// Over HTTP each CID gives a row {Hash[, Error]}; the CLI (Kubo's PostRun) prints `removed <cid>`
// to stdout, `cannot remove <cid>: <reason>` to stderr and fails with `some blocks not removed`.
import { defineCommand } from '../../registry/define.js'
import { RpcError, errorMessage } from '../../core/errors.js'
import type { PinStatus } from '../../core/pins/index.js'
import { blockCid } from './common.js'
import type { BlockRmOutput } from './output.js'

/** boxo pin.Pinned.String() */
function pinnedReason (s: PinStatus): string {
  if (!s.pinned) return 'not pinned'
  if (s.type === 'indirect') return `pinned via ${s.via?.toString() ?? ''}`
  return `pinned: ${s.type}`
}

export const blockRm = defineCommand({
  path: ['block', 'rm'],
  description: 'Remove IPFS block(s) from the local datastore.',
  help: "'ipfs block rm' is a plumbing command for removing raw ipfs blocks.\nIt takes a list of CIDs to remove from the local datastore..",
  args: [{ name: 'cid', kind: 'string', required: true, variadic: true, description: 'CIDs of block(s) to remove.' }],
  options: {
    force: { type: 'bool', aliases: ['f'], description: 'Ignore nonexistent blocks.' },
    quiet: { type: 'bool', aliases: ['q'], description: 'Write minimal output.' }
  },
  output: 'ndjson',
  async * run ({ args, options, deps, signal }): AsyncGenerator<BlockRmOutput> {
    const { blockstore, pins, gcLock, cidEncoder } = deps
    for (const arg of args) {
      // a bad argument ends the command (rows already sent stay sent)
      const cid = await blockCid(arg, deps, signal)
      let reason: string | undefined
      await gcLock.withExclusive(async () => {
        let status: PinStatus
        try {
          status = (await pins.checkPinned([cid], { signal }))[0]
        } catch (err) {
          reason = `pin check failed: ${errorMessage(err)}`
          return
        }
        if (status.pinned) {
          reason = pinnedReason(status)
          return
        }
        try {
          if (!await blockstore.has(cid, { signal }) && options.force !== true) {
            reason = `ipld: could not find ${cid.toString()}`
            return
          }
          await blockstore.delete(cid, { signal })
        } catch (err) {
          reason = errorMessage(err)
        }
      })
      if (reason !== undefined) yield { Hash: cidEncoder.encode(cid), Error: reason }
      else if (options.quiet !== true) yield { Hash: cidEncoder.encode(cid) }
    }
  },
  // go-ipfs-cmds' default text encoder (`%s` of *removedBlock); the CLI uses cliRender below
  textGeneric: true,
  text: (out) => `&{${out.Hash ?? ''} ${out.Error ?? ''}}`,
  async cliRender (outcome, _call, io) {
    if (outcome.kind !== 'ndjson') return
    let someFailed = false
    for await (const item of outcome.items) {
      const r = item as BlockRmOutput
      if ((r.Hash ?? '') === '' && (r.Error ?? '') !== '') throw new RpcError(`aborted: ${r.Error ?? ''}`)
      if ((r.Error ?? '') !== '') {
        someFailed = true
        io.stderr.write(`cannot remove ${r.Hash ?? ''}: ${r.Error ?? ''}\n`)
      } else {
        io.stdout.write(`removed ${r.Hash ?? ''}\n`)
      }
    }
    if (someFailed) throw new RpcError('some blocks not removed')
  }
})
