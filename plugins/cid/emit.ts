// Kubo's emitCids: one output row per CID for `cid format` and `cid base32`; a bad CID gives a row
// with ErrorMsg, a bad format string stops the command.
import { RpcError } from '../../core/errors.js'
import { BASE58BTC } from '../../core/go/multibase.js'
import { cidV1, DAG_PB, decodeCid, extractEncoding, formatCid, FormatStringError, toCidV0, type GoCid } from '../../core/go/cid.js'
import type { CidFormatOutput } from './output.js'
import type { Outcome } from '../../registry/execute.js'
import type { CliIO } from '../../registry/types.js'

export interface EmitOptions {
  fmt: string
  /** multibase code; -1 keeps the input's base (base58btc for CIDv0) */
  base: number
  toVersion?: 0 | 1
  /** 0n = keep the codec */
  codec: bigint
}

export async function * emitCids (args: readonly string[], opts: EmitOptions): AsyncGenerator<CidFormatOutput> {
  for (const arg of args) {
    // Kubo trims body lines (strings.TrimSpace); arguments from the query have none to trim
    const cidStr = arg.trim()
    const row: CidFormatOutput = { CidStr: cidStr, Formatted: '', ErrorMsg: '' }
    try {
      row.Formatted = formatOne(cidStr, opts)
    } catch (err) {
      if (err instanceof FormatStringError) throw new RpcError(err.message)
      row.ErrorMsg = (err as Error).message
    }
    yield row
  }
}

function formatOne (cidStr: string, opts: EmitOptions): string {
  let c: GoCid = decodeCid(cidStr)
  if (opts.codec !== 0n && opts.codec !== c.codec) c = cidV1(opts.codec, c.hash)
  if (opts.toVersion === 0) {
    if (c.codec !== DAG_PB) throw new Error("can't convert non-dag-pb nodes to cidv0")
    c = toCidV0(c)
  } else if (opts.toVersion === 1) {
    c = cidV1(c.codec, c.hash)
  }
  let base = opts.base
  if (base === -1) base = c.version === 0 ? BASE58BTC : extractEncoding(cidStr)
  return formatCid(opts.fmt, base, c)
}

/** Text for one row: the CLI prints failures to stderr (Kubo's streamResult PostRun). */
export const cidFormatText = (row: CidFormatOutput): string =>
  row.ErrorMsg !== '' ? `${row.CidStr}: ${row.ErrorMsg}\n` : `${row.Formatted}\n`

export const cidFormatStream = (row: CidFormatOutput): 'stdout' | 'stderr' =>
  row.ErrorMsg !== '' ? 'stderr' : 'stdout'

/** CLI: rows to stdout, failures to stderr, then fail as Kubo's streamResult does when any row failed. */
export async function cidFormatCli (outcome: Outcome, _call: unknown, io: CliIO): Promise<void> {
  if (outcome.kind !== 'ndjson') return
  let failed = false
  for await (const item of outcome.items) {
    const row = item as CidFormatOutput
    if (row.ErrorMsg !== '') failed = true
    ;(row.ErrorMsg !== '' ? io.stderr : io.stdout).write(cidFormatText(row))
  }
  if (failed) throw new RpcError('errors while displaying some entries')
}
