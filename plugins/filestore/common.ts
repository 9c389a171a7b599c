// Shared by filestore ls and verify: ListRes on the wire and as Kubo's CLI prints it.
import { CID } from 'multiformats/cid'
import { createCidEncoder } from '../../core/cid-encoder.js'
import { cidFromArg } from '../../core/resolver/path.js'
import { Status, type Filestore, type ListRes } from '../../core/filestore/index.js'
import type { FilestoreListOutput } from './output.js'

export function toWire (r: ListRes): FilestoreListOutput {
  return {
    Status: r.status,
    ErrorMsg: r.errorMsg,
    Key: r.key != null ? { '/': r.key.toString() } : null,
    FilePath: r.filePath,
    Offset: r.offset,
    Size: r.size
  }
}

/** ListRes.FormatLong with the output's CID encoder */
export function formatLong (r: FilestoreListOutput, options: { cidBase?: string, upgradeCidv0InOutput?: boolean }): string {
  if (r.Key == null) return '<corrupt key>'
  if (r.FilePath === '') return r.Key['/']
  let key = r.Key['/']
  try {
    key = createCidEncoder({ cidBase: options.cidBase, upgradeCidv0InOutput: options.upgradeCidv0InOutput }).encode(CID.parse(key))
  } catch {}
  return `${key.padEnd(50)} ${String(r.Size).padStart(6)} ${r.FilePath} ${r.Offset}`
}

const removable = (r: ListRes): boolean => r.status !== Status.Ok && r.status !== Status.OtherError

/** listByArgs: each argument verified (also for ls), optionally removed when bad */
export async function * listByArgs (fs: Filestore, args: string[], removeBad: boolean): AsyncGenerator<FilestoreListOutput> {
  for (const arg of args) {
    let cid: CID
    try {
      cid = cidFromArg(arg)
    } catch (err) {
      yield { Status: Status.OtherError, ErrorMsg: `${arg}: ${(err as Error).message}`, Key: null, FilePath: '', Offset: 0, Size: 0 }
      continue
    }
    const r = await fs.one(cid, true)
    if (removeBad && removable(r) && r.key != null) await fs.delete(r.key)
    yield toWire(r)
  }
}

export { removable }
