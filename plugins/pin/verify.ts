// ipfs pin verify (kubo core/commands/pin/pin.go pinVerify): check that the DAG of every recursive
// pin is complete in the local store (no network); one row per broken pin (every pin with --verbose).
// Like Kubo's GetLinks, raw blocks are not read (they cannot link anywhere).
import type { CID } from 'multiformats/cid'
import { defineCommand } from '../../registry/define.js'
import { RpcError, errorMessage } from '../../core/errors.js'
import { validateMultihash } from '../../core/hashes.js'
import { linksOf } from '../../core/pins/index.js'
import { readLocal, storageOf } from '../../core/gc/index.js'
import type { BadNode, PinVerifyRes } from './output.js'

const RAW = 0x55

interface Status { ok: boolean, badNodes: BadNode[] }

/** PinVerifyRes.Format */
function format (r: PinVerifyRes): string {
  if (r.Err != null && r.Err !== '') return `error: ${r.Err}\n`
  if (r.Ok === true) return `${r.Cid ?? ''} ok\n`
  return `${r.Cid ?? ''} broken\n` + (r.BadNodes ?? []).map(b => `  ${b.Cid}: ${b.Err}\n`).join('')
}

export const pinVerify = defineCommand({
  path: ['pin', 'verify'],
  description: 'Verify that recursive pins are complete.',
  options: {
    verbose: { type: 'bool', description: 'Also write the hashes of non-broken pins.' },
    quiet: { type: 'bool', aliases: ['q'], description: 'Write just hashes of broken pins.' }
  },
  output: 'ndjson',
  async * run ({ options, deps, signal }): AsyncGenerator<PinVerifyRes> {
    const verbose = options.verbose === true
    const quiet = options.quiet === true
    if (verbose && quiet) throw new RpcError('the --verbose and --quiet options can not be used at the same time')
    const explain = !quiet
    const enc = (c: CID): string => deps.cidEncoder.encode(c)
    const storage = storageOf(deps.blockstore)
    const visited = new Map<string, Status>()
    const keyOf = (c: CID): string => Buffer.from(c.bytes).toString('latin1')

    const bad = (c: CID, err: unknown): Status => ({ ok: false, badNodes: explain ? [{ Cid: enc(c), Err: errorMessage(err) }] : [] })
    const checkPin = async (root: CID): Promise<Status> => {
      const key = keyOf(root)
      const seen = visited.get(key)
      if (seen != null) return seen
      let status: Status
      try {
        validateMultihash(root.multihash)
      } catch (err) {
        status = bad(root, err)
        visited.set(key, status)
        return status
      }
      let links: CID[]
      try {
        links = root.code === RAW ? [] : linksOf(root, await readLocal(storage, root, { signal }))
      } catch (err) {
        signal.throwIfAborted()
        status = bad(root, err)
        visited.set(key, status)
        return status
      }
      status = { ok: true, badNodes: [] }
      for (const link of links) {
        const res = await checkPin(link)
        if (!res.ok) {
          status.ok = false
          status.badNodes.push(...res.badNodes)
        }
      }
      visited.set(key, status)
      return status
    }

    for await (const pin of deps.pins.recursiveKeys()) {
      signal.throwIfAborted()
      const status = await checkPin(pin)
      if (status.ok && !verbose) continue
      const row: PinVerifyRes = { Cid: enc(pin) }
      if (status.ok) row.Ok = true
      if (status.badNodes.length > 0) row.BadNodes = status.badNodes
      yield row
    }
  },
  text: (out, { options }) => {
    if (options.quiet === true) return out.Ok !== true ? `${out.Cid ?? ''}\n` : ''
    return format(out)
  }
})
